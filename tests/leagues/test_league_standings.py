"""League standings from stored games: a mahjong match whose last round is cut short weighs that
round by the hands it holds."""

from __future__ import annotations

import math

import pytest

from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.standings import match_lines, per_game_interval, standings
from arena.matches.stats import exact_proportion_interval

HANDS_PER_ROUND = 4


def _mahjong_match(points_a: list[float]) -> MatchOutcome:
    """A two-program match, hand k in round k // 4, B losing what A wins."""
    games = [
        GameOutcome(k, k // HANDS_PER_ROUND, {"a": p, "b": -p}) for k, p in enumerate(points_a)
    ]
    return MatchOutcome(MatchPlan(0, ("a", "b"), "s"), games, {}, 0.0)


# Ten hands: two full rounds of small points, then a round of two hands with big ones.
POINTS = [1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 1.0, 2.0, 40.0, 40.0]


def test_points_per_hand_is_the_total_over_the_hands_when_the_last_round_is_partial() -> None:
    outcome = _mahjong_match(POINTS)
    table = {s.bot: s for s in standings("mahjong", [outcome], ["a", "b"])}
    assert table["a"].games == 10
    assert table["a"].per_game.estimate == pytest.approx(sum(POINTS) / 10)
    assert table["a"].per_game.estimate == pytest.approx(table["a"].score / table["a"].games)
    # A mean of round means would have said (1 + 1 + 40) / 3 = 14 points a hand.
    assert table["a"].per_game.estimate != pytest.approx(14.0)
    assert table["b"].per_game.estimate == pytest.approx(-sum(POINTS) / 10)


def test_the_difference_per_hand_is_a_minus_b_over_the_hands() -> None:
    (line,) = match_lines("mahjong", [_mahjong_match(POINTS)])
    assert line.difference is not None
    assert line.difference.estimate == pytest.approx(2 * sum(POINTS) / 10)
    assert line.difference.n == 3  # rounds are the observations
    assert line.difference.low < line.difference.estimate < line.difference.high


def test_full_rounds_keep_the_mean_of_round_means() -> None:
    points = POINTS[:8]
    interval = per_game_interval([4.0, 4.0], 8)
    assert interval.estimate == pytest.approx(1.0)
    (line,) = match_lines("mahjong", [_mahjong_match(points)])
    assert line.difference is not None
    assert line.difference.estimate == pytest.approx(2 * sum(points) / 8)


def test_a_bot_with_no_games_has_no_figure() -> None:
    table = {s.bot: s for s in standings("mahjong", [_mahjong_match(POINTS)], ["a", "b", "c"])}
    assert table["c"].games == 0
    assert math.isnan(table["c"].per_game.estimate)
    assert [s.bot for s in standings("mahjong", [_mahjong_match(POINTS)], ["a", "b", "c"])] == [
        "a",
        "b",
        "c",
    ]


def test_a_short_match_difference_is_clopper_pearson_within_what_one_game_can_give() -> None:
    """Liar's dice scores a game 1 or 0, so A − B per game lies in [−1, +1]: the interval is
    Clopper–Pearson's of A's win rate, mapped onto the difference (a t interval over three
    games would spill far past the range)."""
    games = [
        GameOutcome(k, k, {"a": float(won), "b": float(not won)}) for k, won in enumerate([1, 1, 0])
    ]
    outcome = MatchOutcome(MatchPlan(0, ("a", "b"), "s"), games, {}, 0.0)
    (line,) = match_lines("liars-dice", [outcome])
    assert line.difference is not None
    assert line.difference.estimate == pytest.approx(1 / 3)
    rate = exact_proportion_interval(2, 3)
    assert line.difference.low == pytest.approx(2 * rate.low - 1)
    assert line.difference.high == pytest.approx(2 * rate.high - 1)
    assert -1.0 < line.difference.low < 0 < line.difference.high < 1.0
