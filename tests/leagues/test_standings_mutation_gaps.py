"""Figures a league and a match report that a plausible slip would change with the suite still
green (found by a mutation audit of `arena.leagues.standings` and `arena.matches.stats`)."""

from __future__ import annotations

from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.standings import standings
from arena.matches.stats import Interval, exact_proportion_interval


def _duel(index: int, a: str, b: str, a_scores: list[float]) -> MatchOutcome:
    """A liar's dice league match: A's score in each game, B's the rest of the point."""
    games = [GameOutcome(k, k, {a: s, b: 1.0 - s}) for k, s in enumerate(a_scores)]
    return MatchOutcome(MatchPlan(index, (a, b), f"s{index}"), games, {}, 0.0)


def test_a_tied_match_counts_for_no_bot() -> None:
    # standings.py: a match counts as won only when its interval shows the winner; a tie shows
    # no difference (it was once shared among the tied bots).
    tied = _duel(0, "x", "y", [1.0, 0.0, 1.0, 0.0])
    won_by_x = _duel(1, "x", "z", [1.0] * 12)
    table = {s.bot: s for s in standings("liars-dice", [tied, won_by_x], ["x", "y", "z"])}
    assert (table["x"].match_points, table["y"].match_points, table["z"].match_points) == (
        1.0,
        0.0,
        0.0,
    )
    assert sum(s.match_points for s in table.values()) == 1


def test_an_interval_holds_its_end_points() -> None:
    # A two-sided interval is closed: a value on a bound is inside, so no verdict excludes it.
    # None of ten games won gives an exact interval that starts at 0 exactly, and a true rate
    # of 0 is one of the rates under which that count is seen.
    none_won = exact_proportion_interval(0, 10)
    assert none_won.low == 0.0
    assert not none_won.excludes(0.0)
    all_won = exact_proportion_interval(10, 10)
    assert all_won.high == 1.0
    assert not all_won.excludes(1.0)
    interval = Interval(0.5, 0.25, 0.75, 8)
    assert not interval.excludes(0.25) and not interval.excludes(0.75)
    assert interval.excludes(0.2) and interval.excludes(0.8)


def test_an_interval_scaled_by_a_negative_factor_keeps_low_below_high() -> None:
    # `Interval.scaled`: the interval of factor × the quantity (B − A from A − B is factor −1).
    flipped = Interval(1.0, 0.5, 2.0, 5).scaled(-2.0)
    assert (flipped.estimate, flipped.low, flipped.high) == (-2.0, -4.0, -1.0)
