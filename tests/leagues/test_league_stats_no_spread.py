"""A league match whose games all gave the same A − B: the interval is not printed as a difference
known exactly (zero width), and the table and the JSON say the games showed no spread."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from arena.cli import league_report
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.standings import match_lines
from arena.matches.stats import exact_proportion_interval


def _match(scores_a: list[float], *, unit_size: int = 1, zero_sum: bool = False) -> MatchOutcome:
    """A two-bot match, game k in unit k // ``unit_size``: B scores 1 − A's score (a game won
    or lost), or −A's points (``zero_sum``, mahjong)."""
    games = [
        GameOutcome(k, k // unit_size, {"x": a, "y": -a if zero_sum else 1.0 - a})
        for k, a in enumerate(scores_a)
    ]
    return MatchOutcome(MatchPlan(0, ("x", "y"), "s"), games, {}, 0.0)


def test_three_games_all_won_by_a_give_an_exact_interval_with_a_caveat() -> None:
    (line,) = match_lines("liars-dice", [_match([1.0, 1.0, 1.0])])
    assert line.difference is not None and line.no_spread
    assert line.difference.estimate == 1.0 and line.difference.high == 1.0
    # Three wins in three: Clopper–Pearson's lower bound on the win rate, as A − B.
    assert line.difference.low == pytest.approx(2 * exact_proportion_interval(3, 3).low - 1)
    assert line.difference.low < 0  # not shown stronger by three games
    data = line.to_json()
    assert data["difference_no_spread"] is True
    assert data["difference_per_game_ci95"]["low"] < 0


def test_games_that_differ_carry_no_caveat() -> None:
    (line,) = match_lines("liars-dice", [_match([1.0, 0.0, 1.0, 1.0])])
    assert not line.no_spread
    assert line.to_json()["difference_no_spread"] is False


def test_mirrored_mahjong_rounds_keep_their_zero_width_and_are_flagged() -> None:
    """Mahjong points have no bound: a zero spread over rounds (two mirrored copies of one
    deterministic bot) stays exact, and the line still says no spread was seen."""
    (line,) = match_lines("mahjong", [_match([0.0] * 8, unit_size=4, zero_sum=True)])
    assert line.difference is not None and line.no_spread
    assert (line.difference.low, line.difference.high) == (0.0, 0.0)


def _printed(game: str, outcome: MatchOutcome, monkeypatch: pytest.MonkeyPatch) -> str:
    buffer = io.StringIO()
    monkeypatch.setattr(league_report, "out", Console(file=buffer, width=160))
    league_report._show_matches(game, [outcome])
    return buffer.getvalue()


def test_the_match_table_marks_a_match_without_spread(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _printed("liars-dice", _match([1.0, 1.0, 1.0]), monkeypatch)
    assert "+1.000 [-0.415, +1.000]*" in shown
    assert "* every game gave the same A − B: no spread to measure" in shown
    plain = _printed("liars-dice", _match([1.0, 0.0, 1.0]), monkeypatch)
    assert "*" not in plain
    mahjong = _printed("mahjong", _match([0.0] * 8, unit_size=4, zero_sum=True), monkeypatch)
    assert "+0 [+0, +0]*" in mahjong
    assert "every round gave the same A − B" in mahjong
