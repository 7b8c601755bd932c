"""``arena mahjong score``: Tai (台) and points of a winning hand after seed 003's table 2-1,
and who pays them. The hand parsing and option helpers are `arena.cli.mahjong`'s."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from arena.cli.common import fail, print_json
from arena.cli.mahjong import TILE_NAMES, _option, mahjong_app, out
from arena.errors import ArenaError
from arena.games.errors import RulesetError
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.scoring import ScoreResult, WinContext, score_hand, settle
from arena.games.mahjong.scoring_rules import ScoringRules
from arena.games.mahjong.tiles import (
    EAST,
    MahjongError,
    Meld,
    MeldKind,
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
from arena.text_files import NotUTF8Error, read_text_file

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
    "the other three), --after-kong without a kong among --melds (outside a flowers "
    "ruleset; without an added or concealed kong under a ruleset whose open kong's replacement "
    "cannot win, as the competition's), or --heavenly, --earthly or --human with --melds, "
    "with each other, with a kong flag or against how the hand was won (天胡 the dealer's "
    "self-draw, 地胡 a non-dealer's, 人胡 a discard) is an error (exit status 2)."
)


@dataclass(frozen=True)
class ScoreRuleset:
    """What `arena mahjong score` needs of a ruleset: its scoring, whether it plays with
    flowers (then a self-draw on a flower's replacement is 槓上開花 too, kong or not), and
    whether an open kong's replacement may win (the competition's may not, seed 003 §3.3)."""

    scoring: ScoringRules
    flowers: bool = False
    open_kong_replacement_win: bool = True


def load_scoring_rules(spec: str) -> ScoreRuleset:
    """A ruleset name or a full ruleset file (its ``[rules.scoring]``), or a bare TOML table of
    scoring options (optionally under ``[scoring]``; no flowers, as in the competition)."""
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        try:
            data = tomllib.loads(read_text_file(path))
        except tomllib.TOMLDecodeError as exc:
            raise RulesetError(f"{path}: not valid TOML: {exc}") from exc
        except (OSError, NotUTF8Error) as exc:
            raise RulesetError(f"cannot read ruleset {path}: {exc}") from exc
        if "game" not in data:
            table = data["scoring"] if set(data) == {"scoring"} else data
            if not isinstance(table, dict):
                raise RulesetError(f"{path}: 'scoring' must be a table")
            try:
                return ScoreRuleset(ScoringRules.from_mapping(table))
            except RulesetError as exc:
                raise RulesetError(f"{path}: {exc}") from exc
    rules = load_ruleset(spec)
    return ScoreRuleset(rules.scoring, rules.flowers, rules.open_kong_replacement_win)


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
    heavenly: bool = typer.Option(
        False,
        "--heavenly",
        help="天胡: the dealer won on the hand as dealt (its first draw); with --self-drawn "
        "and --dealer, no --melds",
    ),
    earthly: bool = typer.Option(
        False,
        "--earthly",
        help="地胡: a non-dealer self-drew on its first draw, before any call or kong; with "
        "--self-drawn, no --melds",
    ),
    human: bool = typer.Option(
        False,
        "--human",
        help="人胡: won on a discard before its own first draw, before any call or kong; not "
        "--self-drawn, no --melds",
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
    # The default is the competition ruleset as a whole, not its scoring alone: its table
    # rules decide which wins exist (no win on an open kong's replacement).
    loaded: ScoreRuleset = _option("--ruleset", load_scoring_rules, ruleset or "competition")
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
    if (
        after_kong
        and self_drawn
        and not loaded.flowers
        and not loaded.open_kong_replacement_win
        and not any(m.is_kong and m.kind is not MeldKind.KONG for m in melds)
    ):
        # Then the replacement that won followed an added or concealed kong: an open kong's
        # replacement cannot win under this ruleset (RULES.md, "No win on an open kong's
        # replacement").
        fail(
            "--after-kong: this ruleset allows no win on the replacement after an open kong "
            "(open_kong_replacement_win = false), and --melds holds no akong: or ckong:"
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
            heavenly=heavenly,
            earthly=earthly,
            human=human,
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


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    mahjong_app.command("score", help=SCORE_DOC)(score_cmd)
