"""``arena mahjong waits|deficiency|score`` and ``arena bench mahjong``.

One hand on the command line goes through the library functions (`waits`, `deficiency`,
`score_hand`) as they are. ``--file`` is for hundreds of thousands of hands, where per-line
Python costs more than the analysis itself: lines are read in blocks, a block is parsed by numpy
in one pass over its bytes, and waits come from the per-suit win-flag tables, 34 vector lookups
per block. A line the fast parser does not accept (bad notation, a fifth copy, a wrong size, an
unusual space) is handed to the one-hand path, which either analyses it or names the mistake, so
both paths agree by construction on every line that is not plain compact notation.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np
import numpy.typing as npt
import typer
from rich.console import Console
from rich.table import Table

from arena.bench.mahjong_hands import render as render_bench
from arena.bench.mahjong_hands import run_hand_bench
from arena.cli.common import at_least, fail, print_json
from arena.errors import ArenaError
from arena.games.errors import RulesetError
from arena.games.mahjong.analysis import deficiency, deficiency_batch, useful_tiles, waits
from arena.games.mahjong.batch import parse_block, waits_batch
from arena.games.mahjong.deficiency import HAND_SETS
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.scoring import HAND_TILES, ScoreResult, WinContext, score_hand, settle
from arena.games.mahjong.scoring_rules import ScoringRules
from arena.games.mahjong.tiles import (
    COPIES,
    EAST,
    NUM_KINDS,
    MahjongError,
    Meld,
    format_melds,
    format_tiles,
    format_tiles_zh,
    parse_melds,
    parse_tile,
    parse_tiles,
    parse_wind,
    tile_name_zh,
    to_counts,
)

out = Console(highlight=False)

mahjong_app = typer.Typer(
    help="Taiwan 16-tile mahjong hands: waits, deficiency (進胡數), Tai scoring.",
    no_args_is_help=True,
)

In = TypeVar("In")
Out = TypeVar("Out")
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

MAX_CONCEALED = HAND_TILES + 1
"""Concealed tiles just after a draw with no melds."""

BLOCK_LINES = 1 << 16
"""Lines parsed per numpy pass: large enough that per-block overhead vanishes, small enough that
the block's arrays (34 counts and 34 wait flags per line) stay a few MB."""

TILE_NAMES: tuple[str, ...] = tuple(format_tiles([t]) for t in range(NUM_KINDS))

HAND_HELP = "a concealed hand in compact notation, e.g. 1112345678999m or 123m456p789s11z"
FILE_HELP = "read one hand per line from this file ('-': standard input) instead of HAND"
JSON_HELP = "print JSON: one object, or with --file one object per line"
MELDS_HELP = (
    "the player's exposed melds: a count (0-5), or chi:123m,pon:999p,kong:5555s,ckong:1111z,"
    "akong:2222m; the concealed size must match and meld tiles count towards the four copies"
)
FILE_ERRORS_DOC = (
    "\n\nWith --file the output keeps the input's order, one line per analysed line, its "
    '"hand" being the line without surrounding spaces. A line that cannot be analysed gives '
    '{"line": N, "hand": ..., "error": ...} in its place (without --json: a message on standard '
    "error) and the rest of the file is still analysed. Exit status: 0 when every line was "
    "analysed, 1 when any line failed, 2 for a usage error such as an unreadable file."
)
WAITS_DOC = (
    "The tiles that complete a ready hand of 3k+1 tiles (聽牌).\n\n"
    'JSON: {"hand": HAND, "waits": ["1m", "4m"]}, an empty list when the hand is not ready.'
    + FILE_ERRORS_DOC
)
DEFICIENCY_DOC = (
    "The deficiency (進胡數): fewest tiles that must still come in before the hand wins; 0 for "
    'a winning hand, 1 for a ready 3k+1 hand.\n\nJSON: {"hand": HAND, "deficiency": n}.'
    + FILE_ERRORS_DOC
)
SCORE_DOC = (
    "Tai (台) and points of a winning hand after table 2-1, from its best reading.\n\n"
    "Points are paid per payer (docs/RULES.md, Points): 1000 + 500 per Tai from the discarder "
    "alone, or from each of the other three on a self-draw; a dealer paying a non-dealer's win "
    "pays the 莊家 Tai (500) more.\n\n"
    'JSON: {"tai": 4, "breakdown": [["莊家", 1], ["門清自摸", 3]], "points": 3000, "payments": '
    '{"non_dealer": 3000, "total": 9000}, "reading": "55m 111m 234m 678m 999m 123p", '
    '"win_set": ["pair", "5m"]}: the rows of the best reading; points, what each payer pays '
    "(payments.non_dealer), payments.dealer what the dealer pays instead when the winner is "
    "not the dealer, payments.total on a self-draw what the winner collects in all; the "
    "concealed sets and the set the winning tile completed. A hand that does not win, a wrong "
    "tile count, a fifth copy of a tile (a robbed kong's tile included: the robbed pon holds "
    "the other three) or --after-kong without a kong among --melds (outside a flowers "
    "ruleset) is an error (exit status 2)."
)


# ----------------------------------------------------------------------------- option parsing


@dataclass(frozen=True)
class MeldsSpec:
    """What ``--melds`` said: how many melds are exposed and, if given as notation, their tiles."""

    count: int | None
    """None when the option was not given: the hand's size alone then says how many sets."""
    tiles: tuple[int, ...] = ()

    @property
    def tile_counts(self) -> list[int]:
        return to_counts(self.tiles)


_COUNT = re.compile(r"[+-]?[0-9]+")


def parse_melds_option(text: str | None) -> MeldsSpec:
    """A bare count, or meld notation as `parse_melds` reads it."""
    if text is None:
        return MeldsSpec(None)
    stripped = text.strip()
    if _COUNT.fullmatch(stripped):
        count = int(stripped)
        melds: tuple[Meld, ...] = ()
    else:
        melds = parse_melds(text)
        count = len(melds)
    if count < 0:
        # A signed number is meant as a count: say what a count may be, not how notation reads.
        raise MahjongError(
            f"a meld count is 0 to {HAND_SETS}, got {count} (or give the melds themselves, "
            "e.g. pon:999p,chi:123s)"
        )
    if count > HAND_SETS:
        raise MahjongError(f"a hand has at most {HAND_SETS} melds, got {count}")
    tiles = tuple(t for m in melds for t in m.tiles)
    to_counts(tiles)
    return MeldsSpec(count, tiles)


def _option(name: str, parse: Callable[[In], Out], text: In) -> Out:
    """Parse one option's text; a mistake exits with the option named, not a traceback."""
    try:
        return parse(text)
    except ArenaError as exc:
        fail(f"{name}: {exc}")


# ----------------------------------------------------------------------------- hand sizes


def waits_size_ok(sizes: IntArray, melds: MeldsSpec) -> BoolArray:
    """Concealed sizes that can be waiting: 3k+1 up to 16, or exactly 16 - 3 per meld."""
    if melds.count is None:
        return (sizes % 3 == 1) & (sizes <= HAND_TILES)
    return np.asarray(sizes == HAND_TILES - 3 * melds.count)


def deficiency_size_ok(sizes: IntArray, melds: MeldsSpec) -> BoolArray:
    """Between turns (3k+1) or just after a draw (3k+2), tied to the melds when they are given."""
    if melds.count is None:
        return (sizes % 3 != 0) & (sizes <= MAX_CONCEALED)
    expected = HAND_TILES - 3 * melds.count
    return (sizes == expected) | (sizes == expected + 1)


def _size_error(kind: str, n: int, melds: MeldsSpec) -> MahjongError:
    if melds.count is not None:
        expected = HAND_TILES - 3 * melds.count
        sizes = f"{expected}" if kind == "waits" else f"{expected} or {expected + 1}"
        return MahjongError(
            f"with {melds.count} melds the concealed hand holds {sizes} tiles, got {n}"
        )
    if kind == "waits":
        return MahjongError(
            f"waits need a concealed hand of 3k+1 tiles, at most {HAND_TILES}; got {n}"
        )
    return MahjongError(
        f"a concealed hand holds 3k+1 tiles (between turns) or 3k+2 (after a draw), at most "
        f"{MAX_CONCEALED}; got {n}"
    )


def _checked_counts(
    text: str, melds: MeldsSpec, kind: str, size_ok: Callable[[IntArray, MeldsSpec], BoolArray]
) -> list[int]:
    tiles = parse_tiles(text)
    if melds.tiles:
        try:
            to_counts([*tiles, *melds.tiles])
        except MahjongError as exc:
            raise MahjongError(f"{exc} (hand and melds together)") from None
    counts = to_counts(tiles)
    if not size_ok(np.array([len(tiles)]), melds)[0]:
        raise _size_error(kind, len(tiles), melds)
    return counts


def hand_waits(text: str, melds: MeldsSpec) -> list[int]:
    """The waits of one hand in notation; raises `MahjongError` naming what is wrong."""
    counts = _checked_counts(text, melds, "waits", waits_size_ok)
    return waits(counts, melds.tile_counts if melds.tiles else None)


def hand_deficiency(text: str, melds: MeldsSpec) -> int:
    """The deficiency of one hand in notation; raises `MahjongError` naming what is wrong."""
    counts = _checked_counts(text, melds, "deficiency", deficiency_size_ok)
    return deficiency(counts, melds.count)


_BITS = np.left_shift(np.int64(1), np.arange(NUM_KINDS, dtype=np.int64))


class _WaitsRenderer:
    """Wait sets as output text: a file of hands holds few distinct wait sets, so each set's
    text is built once and the block's lines pick theirs by index."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, found: BoolArray) -> list[str]:
        keys, inverse = np.unique(found.astype(np.int64) @ _BITS, return_inverse=True)
        texts = np.array(
            [self.render([t for t in range(NUM_KINDS) if key >> t & 1]) for key in keys.tolist()],
            dtype=object,
        )
        result: list[str] = texts[inverse.reshape(-1)].tolist()
        return result

    def render(self, tiles: list[int]) -> str:
        names = [TILE_NAMES[t] for t in tiles]
        if self.as_json:
            return json.dumps(names)
        return " ".join(names) or "-"


@dataclass(frozen=True)
class _Analysis:
    key: str
    size_ok: Callable[[IntArray, MeldsSpec], BoolArray]
    batch: Callable[[IntArray, MeldsSpec], list[str]]
    """Rendered values of rows that passed the fast checks."""
    one: Callable[[str, MeldsSpec], str]
    """Rendered value of one line's text; raises `MahjongError`."""


def _waits_analysis(melds: MeldsSpec, as_json: bool) -> _Analysis:
    renderer = _WaitsRenderer(as_json)
    own = np.array(melds.tile_counts, dtype=np.int64) if melds.tiles else None
    return _Analysis(
        key="waits",
        size_ok=waits_size_ok,
        batch=lambda counts, _m: renderer(waits_batch(counts, own)),
        one=lambda text, m: renderer.render(hand_waits(text, m)),
    )


def _deficiency_analysis(melds: MeldsSpec) -> _Analysis:
    def batch(counts: IntArray, m: MeldsSpec) -> list[str]:
        if not len(counts):
            return []
        return [str(d) for d in deficiency_batch(counts, m.count).tolist()]

    return _Analysis(
        key="deficiency",
        size_ok=deficiency_size_ok,
        batch=batch,
        one=lambda text, m: str(hand_deficiency(text, m)),
    )


@contextmanager
def _input(path: str) -> Iterator[IO[bytes]]:
    if path == "-":
        yield sys.stdin.buffer
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the caller's block
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    with handle:
        yield handle


def stream(
    source: IO[bytes], analysis: _Analysis, melds: MeldsSpec, as_json: bool, sink: IO[str]
) -> tuple[int, int]:
    """Analyse every line of ``source``, writing one output line each; (lines, failed lines)."""
    own = np.array(melds.tile_counts, dtype=np.int64) if melds.tiles else None
    # Plain lines hold only digits, suit letters and spaces, so they go into JSON unescaped.
    layout = '{{"hand": "{}", "' + analysis.key + '": {}}}' if as_json else "{}\t{}"
    lines = failed = 0
    while True:
        block = [raw.strip() for raw in islice(source, BLOCK_LINES)]
        if not block:
            return lines, failed
        if lines == 0 and block[0].startswith(codecs.BOM_UTF8):
            # Editors on Windows start UTF-8 files with a byte-order mark; it is no part of
            # the first hand.
            block[0] = block[0][len(codecs.BOM_UTF8) :].strip()
        counts, ok = parse_block(block)
        ok &= analysis.size_ok(counts.sum(axis=1), melds)
        if own is not None:
            ok &= ~(counts + own > COPIES).any(axis=1)
        # One decode per block; a newline byte never belongs to a multi-byte character, so the
        # split gives back exactly the block's lines.
        hands = b"\n".join(block).decode("utf-8", errors="replace").split("\n")
        values = analysis.batch(counts[ok], melds)
        if len(values) == len(block):
            written = list(map(layout.format, hands, values))
        else:
            written = []
            rendered = iter(values)
            for number, (hand, plain) in enumerate(zip(hands, ok.tolist(), strict=True), lines + 1):
                if plain:
                    written.append(layout.format(hand, next(rendered)))
                    continue
                try:
                    value = analysis.one(hand, melds)
                except MahjongError as exc:
                    failed += 1
                    if as_json:
                        error = {"line": number, "hand": hand, "error": str(exc)}
                        written.append(json.dumps(error, ensure_ascii=False))
                    else:
                        sys.stderr.write(f"line {number}: {exc}\n")
                    continue
                shown = json.dumps(hand, ensure_ascii=False)[1:-1] if as_json else hand
                written.append(layout.format(shown, value))
        if written:
            sink.write("\n".join(written) + "\n")
        lines += len(block)


def _run_file(path: str, analysis: _Analysis, melds: MeldsSpec, as_json: bool) -> None:
    with _input(path) as source:
        lines, failed = stream(source, analysis, melds, as_json, sys.stdout)
    sys.stdout.flush()
    if failed:
        sys.stderr.write(f"{failed} of {lines} lines could not be analysed\n")
        raise typer.Exit(1)


def _one_hand(hand: str | None, file: str | None) -> str | None:
    """The HAND argument, or None for --file; exactly one of them must be given."""
    if (hand is None) == (file is None):
        fail("give either a HAND or --file F")
    return hand


# ----------------------------------------------------------------------------- commands


def _tile_list(tiles: list[int]) -> str:
    return " ".join(TILE_NAMES[t] for t in tiles)


@mahjong_app.command("waits", help=WAITS_DOC)
def waits_cmd(
    hand: str | None = typer.Argument(None, help=HAND_HELP, metavar="HAND", show_default=False),
    file: str | None = typer.Option(None, "--file", "-f", help=FILE_HELP),
    melds_text: str | None = typer.Option(None, "--melds", help=MELDS_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    text = _one_hand(hand, file)
    melds = _option("--melds", parse_melds_option, melds_text)
    if text is None:
        assert file is not None
        _run_file(file, _waits_analysis(melds, json_output), melds, json_output)
        return
    found = _option("HAND", lambda h: hand_waits(h, melds), text)
    if json_output:
        print_json({"hand": text, "waits": [TILE_NAMES[t] for t in found]})
    elif found:
        out.print(f"{text}: waits on {_tile_list(found)} ({format_tiles_zh(found)})")
    else:
        out.print(f"{text}: not ready, no tile completes it")


@mahjong_app.command("deficiency", help=DEFICIENCY_DOC)
def deficiency_cmd(
    hand: str | None = typer.Argument(None, help=HAND_HELP, metavar="HAND", show_default=False),
    file: str | None = typer.Option(None, "--file", "-f", help=FILE_HELP),
    melds_text: str | None = typer.Option(None, "--melds", help=MELDS_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    text = _one_hand(hand, file)
    melds = _option("--melds", parse_melds_option, melds_text)
    if text is None:
        assert file is not None
        _run_file(file, _deficiency_analysis(melds), melds, json_output)
        return
    value = _option("HAND", lambda h: hand_deficiency(h, melds), text)
    if json_output:
        print_json({"hand": text, "deficiency": value})
        return
    out.print(f"{text}: deficiency (進胡數) {value}")
    if value == 0:
        return
    counts = to_counts(parse_tiles(text))
    seen = [a + b for a, b in zip(counts, melds.tile_counts, strict=True)]
    useful = useful_tiles(counts, melds.count, seen)
    if useful:
        listed = ", ".join(f"{TILE_NAMES[t]} ({tile_name_zh(t)}) ×{left}" for t, left in useful)
        out.print(f"tiles that bring it closer, with copies not in your hand or melds: {listed}")


@dataclass(frozen=True)
class ScoreRuleset:
    """What `arena mahjong score` needs of a ruleset: its scoring, and whether it plays with
    flowers (then a self-draw on a flower's replacement is 槓上開花 too, kong or not)."""

    scoring: ScoringRules
    flowers: bool = False


def load_scoring_rules(spec: str) -> ScoreRuleset:
    """A ruleset name or a full ruleset file (its ``[rules.scoring]``), or a bare TOML table of
    scoring options (optionally under ``[scoring]``; no flowers, as in the competition)."""
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise RulesetError(f"{path}: not valid TOML: {exc}") from exc
        if "game" not in data:
            table = data["scoring"] if set(data) == {"scoring"} else data
            if not isinstance(table, dict):
                raise RulesetError(f"{path}: 'scoring' must be a table")
            try:
                return ScoreRuleset(ScoringRules.from_mapping(table))
            except RulesetError as exc:
                raise RulesetError(f"{path}: {exc}") from exc
    rules = load_ruleset(spec)
    return ScoreRuleset(rules.scoring, rules.flowers)


def payments(result: ScoreResult, rules: ScoringRules) -> dict[str, int]:
    """How the win is paid (RULES.md, Points), from `settle` on a table where East deals:
    ``non_dealer`` what each payer that is not the dealer pays (= ``result.points``);
    ``dealer`` what the dealer pays instead, when the winner is not the dealer; ``total`` on a
    self-draw, what the winner collects from the other three."""
    ctx = result.context
    winner = ctx.seat_wind - EAST
    # A seat that is neither the winner nor the dealer (seat 0): it pays as any non-dealer.
    other = next(seat for seat in range(1, 4) if seat != winner)
    paid: dict[str, int] = {}
    if ctx.self_drawn:
        deltas = settle(result, winner=winner, dealer=0, discarder=None, rules=rules)
        paid["non_dealer"] = -deltas[other]
        if winner != 0:
            paid["dealer"] = -deltas[0]
        paid["total"] = deltas[winner]
        return paid
    deltas = settle(result, winner=winner, dealer=0, discarder=other, rules=rules)
    paid["non_dealer"] = -deltas[other]
    if winner != 0:
        paid["dealer"] = -settle(result, winner=winner, dealer=0, discarder=0, rules=rules)[0]
    return paid


def payment_text(result: ScoreResult, paid: dict[str, int]) -> str:
    """`payments` in words: who pays what, so that ``points`` is not read as the win's total."""
    each = f"{paid['non_dealer']:,}"
    if "total" in paid:
        if "dealer" in paid:
            return (
                f"{each} points from each non-dealer and {paid['dealer']:,} from the dealer: "
                f"{paid['total']:,} in all"
            )
        return f"{each} points from each of the other three: {paid['total']:,} in all"
    payer = "the player who added the kong" if result.context.robbing_kong else "the discarder"
    if "dealer" in paid:
        return f"{each} points paid by {payer} ({paid['dealer']:,} if that is the dealer)"
    return f"{each} points paid by {payer}"


def score_to_json(result: ScoreResult, rules: ScoringRules) -> dict[str, Any]:
    kind, tile = result.win_set
    return {
        "tai": result.tai,
        "breakdown": [[name, tai] for name, tai in result.breakdown],
        "points": result.points,
        "payments": payments(result, rules),
        "reading": str(result.decomposition),
        "win_set": [kind, format_tiles([tile])],
    }


@mahjong_app.command("score", help=SCORE_DOC)
def score_cmd(
    hand: str = typer.Option(
        ..., "--hand", help="concealed tiles before the winning tile (16 - 3 per meld)"
    ),
    melds_text: str = typer.Option(
        "", "--melds", help="chi:123m,pon:999p,kong:5555s (open),ckong:1111z,akong:2222m"
    ),
    win_tile: str = typer.Option(..., "--win-tile", help="the winning tile, e.g. 5m or 7z"),
    self_drawn: bool = typer.Option(False, "--self-drawn", help="自摸: drew the winning tile"),
    seat_wind: str | None = typer.Option(
        None, "--seat-wind", help="E S W or N; E is the dealer's seat (default E with --dealer)"
    ),
    round_wind: str | None = typer.Option(
        None, "--round-wind", help="E S W or N; scored only by rulesets with round_wind_tai"
    ),
    dealer: bool = typer.Option(
        False,
        "--dealer",
        help="莊家: the winner deals; the dealer sits East, so --seat-wind E says it too",
    ),
    last_tile: bool = typer.Option(
        False, "--last-tile", help="海底撈月: last tile of the wall (or 河底撈魚: its discard)"
    ),
    after_kong: bool = typer.Option(
        False, "--after-kong", help="槓上開花: won on a kong's replacement tile"
    ),
    robbing_kong: bool = typer.Option(
        False, "--robbing-kong", help="搶槓: won on a tile added to another player's pung"
    ),
    ruleset: str | None = typer.Option(
        None,
        "--ruleset",
        help="a ruleset name (competition, common) or a .toml file: a full ruleset or a bare "
        "table of scoring options; default: the competition platform's scoring",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    concealed: list[int] = _option("--hand", parse_tiles, hand)
    melds: tuple[Meld, ...] = _option("--melds", parse_melds, melds_text)
    win: int = _option("--win-tile", parse_tile, win_tile)
    if seat_wind is None and not dealer:
        fail("--seat-wind: give the winner's seat wind (E S W N), or --dealer for East")
    seat: int = _option("--seat-wind", parse_wind, seat_wind or "E")
    prevailing: int | None = (
        None if round_wind is None else _option("--round-wind", parse_wind, round_wind)
    )
    loaded: ScoreRuleset = (
        ScoreRuleset(ScoringRules())
        if ruleset is None
        else _option("--ruleset", load_scoring_rules, ruleset)
    )
    rules = loaded.scoring
    try:
        to_counts([*concealed, win, *(t for m in melds for t in m.tiles)])
    except MahjongError as exc:
        fail(f"{exc} among the hand, the melds and the winning tile")
    if after_kong and self_drawn and not loaded.flowers and not any(m.is_kong for m in melds):
        # 槓上開花 is a self-draw on the replacement after one's own kong, which stays among the
        # melds; only with flowers may a flower's replacement stand in for it (RULES.md).
        fail(
            "--after-kong: 槓上開花 is a self-draw on the replacement after your kong, but "
            "--melds holds no kong (kong:, akong: or ckong:)"
        )
    try:
        ctx = WinContext(
            self_drawn=self_drawn,
            seat_wind=seat,
            round_wind=prevailing,
            # The dealer always sits East, so either flag says the other.
            dealer=dealer or seat == EAST,
            last_tile=last_tile,
            after_kong=after_kong,
            robbing_kong=robbing_kong,
        )
        result = score_hand(concealed, melds, win, ctx, rules)
    except ArenaError as exc:
        fail(str(exc))
    if json_output:
        print_json(score_to_json(result, rules))
        return
    _show_score(concealed, melds, win, result, rules)


def _show_score(
    concealed: list[int], melds: tuple[Meld, ...], win: int, r: ScoreResult, rules: ScoringRules
) -> None:
    out.print(f"hand: {format_tiles_zh(concealed)}  胡 {tile_name_zh(win)}", markup=False)
    if melds:
        out.print(f"melds: {format_melds(melds)}", markup=False)
    kind, tile = r.win_set
    out.print(f"reading: {r.decomposition} (the winning tile completes {kind} {TILE_NAMES[tile]})")
    table = Table(title=f"{r.tai} 台")
    table.add_column("row (table 2-1)")
    table.add_column("台", justify="right")
    for name, tai in r.breakdown:
        table.add_row(name, str(tai))
    if not r.breakdown:
        table.add_row("(no scoring row: 0 台)", "0")
    table.add_section()
    table.add_row("total", str(r.tai), style="bold")
    out.print(table)
    # Said per payer: a bare "2,500 points" reads as the whole win, which it is only on a discard.
    out.print(f"{r.tai} 台: {payment_text(r, payments(r, rules))}", markup=False)


def bench_cmd(
    hands: int = typer.Option(
        20_000, "--hands", callback=at_least(3), help="hands of each size to measure"
    ),
    seed: int = typer.Option(
        2024, "--seed", callback=at_least(0), help="seed of the random hands (an integer ≥ 0)"
    ),
    rounds: int = typer.Option(
        5, "--rounds", callback=at_least(1), help="timing rounds (the best is kept)"
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Win check and deficiency against the `mahjong` PyPI package, measured in one run."""
    try:
        results = run_hand_bench(hands, seed, rounds)
    except (ArenaError, ValueError) as exc:
        fail(str(exc))
    if json_output:
        print_json(results)
    else:
        typer.echo(render_bench(results))


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(mahjong_app, name="mahjong")
    bench_app.command("mahjong")(bench_cmd)
