"""The figures of ``arena match mahjong``: each match's table and intervals, and a series'
match scores, as text or one JSON object, marked partial when a stop cut the series short."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.table import Table

from arena.cli.common import output_console, print_json
from arena.cli.stopped_figures import partial_json, partial_line
from arena.matches.mahjong import FEW_ROUNDS, MatchResult, SeriesResult
from arena.matches.stats import Interval, spread_free

out = output_console()


def _show_match(result: MatchResult, title: str) -> None:
    # No vertical rules: the nine columns then fit an 80-column terminal without truncation.
    table = Table(title=title, box=box.SIMPLE_HEAD, collapse_padding=True)
    columns = ("bot", "hands", "points", "他家放槍", "自摸", "胡牌率", "放槍", "Tai/win", "pen.")
    for column in columns:
        table.add_column(
            column,
            justify="left" if column == "bot" else "right",
            no_wrap=True,
            min_width=cell_len(column),
        )
    for p in result.programs:
        table.add_row(
            p.bot if p.copies == 1 else f"{p.bot} ×{p.copies}",
            str(p.hands),
            f"{p.points:+,}",
            str(p.discard_wins),
            str(p.self_draws),
            f"{p.win_rate:.1%}",
            str(p.deal_ins),
            f"{p.average_tai:.2f}",
            str(p.penalties),
        )
    out.print(table)
    out.print(
        "他家放槍 wins on a discard, 自摸 self-draws, 胡牌率 win rate, 放槍 deal-ins, "
        f"pen. penalties; exhaustive draws: {result.exhaustive}, decisions: {result.decisions}, "
        f"time: {result.seconds:.1f} s"
    )
    copied = next((p for p in result.programs if p.copies > 1), None)
    if copied is not None:
        # The seed's convention (4414 + 1370 over 11,520 hands), which the hands column hides.
        out.print(
            f"×{copied.copies}: the copies' figures added; 胡牌率 is their wins over one copy's "
            f"{copied.hands // copied.copies} hands, as the seed counts"
        )
    for p in result.programs:
        if spread_free(p.round_points):
            out.print(f"{p.bot}: points {_no_spread(p.points, p.round_points, 'round')}")
        else:
            out.print(f"{p.bot}: points 95% CI {_span(p.points_interval())}")
    for p in result.programs:
        if p.config is not None:
            out.print(f"{p.bot}: {p.strategy} with config {p.config}")
    diff = result.difference_interval()
    diffs = result.round_differences()
    if diff is not None and diffs is not None:
        if result.difference_no_spread():
            shown = _no_spread(diff.estimate, diffs, "round", difference=True)
            out.print(f"points difference A−B: {shown}")
        else:
            out.print(f"points difference A−B: {diff.estimate:+,.0f}, 95% CI {_span(diff)}")
    measured = [p.round_points for p in result.programs] + ([diffs] if diffs else [])
    if result.intervals_approximate() and not all(spread_free(v) for v in measured):
        out.print(FEW_ROUNDS_NOTE.format(rounds=result.rounds, few=FEW_ROUNDS), soft_wrap=True)


FEW_ROUNDS_NOTE = (
    "note: only {rounds} rounds: with fewer than {few} the 95% intervals above are approximate "
    "(a Student-t interval over so few round totals covers the true figure less often than "
    "95%); play --games 32 or more for {few} rounds"
)
"""Said under the figures of a match of 2 to 7 rounds (`MatchResult.intervals_approximate`)."""


def _no_spread(
    total: float, values: list[int] | list[float], unit: str, *, difference: bool = False
) -> str:
    """A figure whose every ``unit`` (round, match) gave the same value: no interval, whose zero
    width would read as a figure known exactly where the sample only showed no spread
    (`spread_free`; two copies of one deterministic bot legitimately tie every round, and
    only for such bots would it be exact), and, for an A − B of 0, plainly that these games
    cannot tell the two apart."""
    count = f"{len(values)} {unit}{'es' if unit.endswith('ch') else 's'}"
    if difference and total == 0:
        return (
            f"+0 over {count}, no spread: the games cannot tell them apart (every {unit} gave "
            "A − B = 0; no interval to measure)"
        )
    each = f"{values[0]:+,.0f}"
    return (
        f"{total:+,.0f} over {count}, no spread: every {unit} gave {each} (no interval to measure)"
    )


def _span(ci: Interval) -> str:
    """``[low, high] over N rounds``; a single round gives no interval (`mean_interval` makes it
    infinite, ``null`` in --json), which is said rather than shown as ``[-inf, +inf]``."""
    rounds = f"{ci.n} round{'s' if ci.n != 1 else ''}"
    if not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        return f"not defined over {rounds} (it needs two)"
    return f"[{ci.low:+,.0f}, {ci.high:+,.0f}] over {rounds}"


@dataclass(frozen=True)
class StoppedMatch:
    """The match a stop cut short: its figures so far, its record, the hands it was to play."""

    result: MatchResult
    record: str | None
    games: int


def show_series(
    results: list[MatchResult],
    records: list[str | None],
    base_seed: str,
    matches: int,
    json_output: bool,
    stopped: StoppedMatch | None = None,
) -> None:
    """The figures of the matches played (``results``), and of the one a stop cut short, if
    any (``stopped``, marked partial). A series stopped early shows its series figures over
    the matches it finished."""
    partial_series = stopped is not None or len(results) < matches
    if json_output:
        _print_series_json(results, records, base_seed, matches, stopped)
        return
    if partial_series and matches > 1:
        out.print(partial_line(len(results), matches, "matches"))
    for result in results:
        _show_match(result, f"mahjong match, seed {result.spec.seed!r}, {result.hands} hands")
    if stopped is not None:
        out.print(partial_line(stopped.result.hands, stopped.games, "hands"))
        _show_match(
            stopped.result,
            f"mahjong match, seed {stopped.result.spec.seed!r}, {stopped.result.hands} of "
            f"{stopped.games} hands (interrupted)",
        )
    if matches > 1 and results:
        series = SeriesResult(base_seed, results).to_json()
        played = len(results)
        for p in series["players"]:
            ci = p["match_score_rate_ci95"]
            lost = played - p["matches_won"] - p["matches_tied"]
            out.print(
                f"{p['bot']}: matches won {p['matches_won']}, tied {p['matches_tied']}, lost "
                f"{lost} of {played} (match score {p['match_score'] / played:.0%}, a tie shared: "
                f"95% CI {ci['low']:.0%}–{ci['high']:.0%}), points {p['points']:+,}"
            )
        if "points_difference_per_match_ci95" in series:
            d = series["points_difference_per_match_ci95"]
            if series["points_difference_per_match_no_spread"]:
                per_match = [float(m.programs[0].points - m.programs[1].points) for m in results]
                shown = _no_spread(d["estimate"], per_match, "match", difference=True)
                out.print(f"points difference per match A−B: {shown}")
            else:
                out.print(
                    f"points difference per match A−B: {d['estimate']:+,.0f}, "
                    f"95% CI [{d['low']:+,.0f}, {d['high']:+,.0f}] over {played} matches"
                )
        out.print(f"time: {sum(result.seconds for result in results):.1f} s")


def _match_json(result: MatchResult) -> dict[str, Any]:
    """A match's figures and the seconds it took, as the other games' `arena match` give them."""
    return {**result.to_json(), "seconds": round(result.seconds, 3)}


def _print_series_json(
    results: list[MatchResult],
    records: list[str | None],
    base_seed: str,
    matches: int,
    stopped: StoppedMatch | None,
) -> None:
    """`show_series`'s --json: one match's object (with ``partial`` and ``games_planned``), or
    a series' (with ``partial``, ``matches_planned`` and, when a stop cut a match short,
    ``interrupted_match``, that match's object)."""
    interrupted = None
    if stopped is not None:
        interrupted = {
            **_match_json(stopped.result),
            "record": stopped.record,
            **partial_json(stopped.result.hands, stopped.games),
        }
    if matches == 1:
        if interrupted is not None:
            print_json(interrupted)
        else:
            games = results[0].spec.games
            print_json(
                {**_match_json(results[0]), "record": records[0], **partial_json(games, games)}
            )
        return
    data: dict[str, Any] = (
        SeriesResult(base_seed, results).to_json() if results else {"matches": 0, "games": 0}
    )
    data["seconds"] = round(sum(result.seconds for result in results), 3)
    data["partial"] = stopped is not None or len(results) < matches
    data["matches_planned"] = matches
    data["per_match"] = [
        {**_match_json(r), "record": path} for r, path in zip(results, records, strict=True)
    ]
    if interrupted is not None:
        data["interrupted_match"] = interrupted
    print_json(data)
