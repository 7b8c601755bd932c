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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import IO, TypeVar

import numpy as np
import numpy.typing as npt
import typer

from arena.bench.mahjong_hands import run_hand_bench
from arena.bench.mahjong_hands_report import render as render_bench
from arena.cli.common import at_least, fail, interrupt_exits, output_console, print_json
from arena.console_streams import json_ascii_only
from arena.errors import ArenaError
from arena.games.mahjong.analysis import deficiency, deficiency_batch, useful_tiles, waits
from arena.games.mahjong.batch import parse_block, waits_batch
from arena.games.mahjong.deficiency import HAND_SETS
from arena.games.mahjong.scoring import HAND_TILES
from arena.games.mahjong.tiles import (
    COPIES,
    NUM_KINDS,
    MahjongError,
    Meld,
    format_tiles,
    format_tiles_zh,
    parse_melds,
    parse_tiles,
    tile_name_zh,
    to_counts,
)

out = output_console()

mahjong_app = typer.Typer(
    help=(
        "Taiwan 16-tile mahjong hands: waits, deficiency (進胡數), Tai scoring; seed 001's wait "
        "census and its reasoning on one hand (explain)."
    ),
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
    '"hand" being the line without surrounding spaces. A blank line (or one of spaces only) is '
    "skipped: no output line, not a failure, but still counted in the line numbers. A line that "
    'cannot be analysed gives {"line": N, "hand": ..., "error": ...} in its place (without '
    "--json: a message on standard error) and the rest of the file is still analysed. Exit "
    "status: 0 when every line was analysed, 1 when any line failed, 2 for a usage error such "
    "as an unreadable file."
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
    """Analyse every line of ``source``, writing one output line each; (hands, failed lines).

    A blank line is skipped: it has no output line and is not among the hands, but it keeps
    its number, so an error names the line an editor shows."""
    own = np.array(melds.tile_counts, dtype=np.int64) if melds.tiles else None
    # Plain lines hold only digits, suit letters and spaces, so they go into JSON unescaped.
    layout = '{{"hand": "{}", "' + analysis.key + '": {}}}' if as_json else "{}\t{}"
    ascii_only = json_ascii_only(sink)
    lines = failed = blank = 0
    while True:
        block = [raw.strip() for raw in islice(source, BLOCK_LINES)]
        if not block:
            return lines - blank, failed
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
                if not hand:
                    # Never plain: an empty hand has no size a hand may have.
                    blank += 1
                    continue
                try:
                    value = analysis.one(hand, melds)
                except MahjongError as exc:
                    failed += 1
                    if as_json:
                        error = {"line": number, "hand": hand, "error": str(exc)}
                        written.append(json.dumps(error, ensure_ascii=ascii_only))
                    else:
                        sys.stderr.write(f"line {number}: {exc}\n")
                    continue
                shown = json.dumps(hand, ensure_ascii=ascii_only)[1:-1] if as_json else hand
                written.append(layout.format(shown, value))
        if written:
            sink.write("\n".join(written) + "\n")
        lines += len(block)


def _run_file(path: str, analysis: _Analysis, melds: MeldsSpec, as_json: bool) -> None:
    with _input(path) as source:
        hands, failed = stream(source, analysis, melds, as_json, sys.stdout)
    sys.stdout.flush()
    if failed:
        sys.stderr.write(f"{failed} of {hands} non-blank lines could not be analysed\n")
        raise typer.Exit(1)


def _hand_unless_file(
    hand: str | None,
    file: str | None,
    melds_text: str | None,
    json_output: bool,
    analysis: Callable[[MeldsSpec], _Analysis],
) -> tuple[str, MeldsSpec] | None:
    """The HAND argument and the melds of `waits` or `deficiency`; or, for --file, None once
    every line of the file is analysed (``analysis``: the command's, for those melds). Exactly
    one of HAND and --file must be given."""
    if (hand is None) == (file is None):
        fail("give either a HAND or --file F")
    melds = _option("--melds", parse_melds_option, melds_text)
    if hand is None:
        assert file is not None
        _run_file(file, analysis(melds), melds, json_output)
        return None
    return hand, melds


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
    given = _hand_unless_file(
        hand, file, melds_text, json_output, lambda melds: _waits_analysis(melds, json_output)
    )
    if given is None:
        return
    text, melds = given
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
    given = _hand_unless_file(hand, file, melds_text, json_output, _deficiency_analysis)
    if given is None:
        return
    text, melds = given
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


BENCH_HELP = (
    "Win check and deficiency against the `mahjong` PyPI package, and seed 001's comparison: "
    "theorem 1 (and our check, in Python and in C) against the recursive set removal, for the "
    "win check and `waits`; all measured in one run on the same hands (docs/BENCHMARKS.md)."
)


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
    try:
        with interrupt_exits(None):
            results = run_hand_bench(hands, seed, rounds)
    except (ArenaError, ValueError) as exc:
        fail(str(exc))
    if json_output:
        print_json(results)
    else:
        typer.echo(render_bench(results))


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(mahjong_app, name="mahjong")
    bench_app.command("mahjong", help=BENCH_HELP)(bench_cmd)
