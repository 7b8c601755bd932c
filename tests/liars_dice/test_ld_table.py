"""Liar's dice tables of two to five bots: every seating in turn, fair shares, clear refusals."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from itertools import pairwise

import pytest

from arena.games.liars_dice import LiarsDiceRules, load_ruleset
from arena.matches.liars_dice import (
    TableError,
    TableReport,
    TableStanding,
    in_process_seats,
    run_table,
    seating,
    table_names,
)
from arena.matches.liars_dice_human import HumanSession
from arena.matches.stats import exact_proportion_interval


@pytest.mark.parametrize("bots", [2, 3, 4, 5])
def test_a_full_cycle_seats_every_bot_everywhere_and_behind_everyone(bots: int) -> None:
    cycle = [seating(k, bots) for k in range(math.factorial(bots))]
    assert len(set(cycle)) == len(cycle)
    per_seat = Counter((seat, bot) for order in cycle for seat, bot in enumerate(order))
    assert set(per_seat.values()) == {math.factorial(bots - 1)}
    # Who acts right after whom (the next seat answers a bid), the table wrapping round.
    behind = Counter(pair for order in cycle for pair in pairwise((*order, order[0])))
    assert len(behind) == bots * (bots - 1)
    assert len(set(behind.values())) == 1
    assert seating(len(cycle), bots) == cycle[0]


def test_copies_of_one_strategy_are_numbered() -> None:
    assert table_names(["bayes", "type5", "bayes"]) == ["bayes#1", "type5", "bayes#2"]
    assert table_names(["bayes", "type5"]) == ["bayes", "type5"]


def _table(
    strategies: list[str], games: int, seed: str, rules: LiarsDiceRules | None = None
) -> TableReport:
    names, seats = in_process_seats(strategies, seed, {})
    return asyncio.run(run_table(names, seats, games, seed, rules=rules))


def test_a_single_round_table_has_one_loser_a_game() -> None:
    report = _table(["random-guess", "probability", "type9"], 12, "t1")
    assert all(len(won) == 2 for won in report.won)
    assert report.fair_share == pytest.approx(2 / 3)
    assert sum(s.wins for s in report.standings) == 2 * 12
    data = report.to_json()
    assert data["seatings"] == 6 and data["every_seating_equally"]
    assert [r["bot"] for r in data["results"]] == ["random-guess", "probability", "type9"]
    for row in data["results"]:
        interval = row["win_rate_ci95"]
        assert interval["low"] <= row["win_rate"] <= interval["high"]


def test_a_series_table_has_one_winner_a_game_and_is_reproducible() -> None:
    party = load_ruleset("liars_dice_party")
    first = _table(["bayes", "random-guess", "probability", "type23"], 8, "party", party)
    assert all(len(won) == 1 for won in first.won)
    assert first.fair_share == pytest.approx(1 / 4)
    assert sum(s.wins for s in first.standings) == 8
    again = _table(["bayes", "random-guess", "probability", "type23"], 8, "party", party)
    assert again.won == first.won and again.decisions == first.decisions


def test_a_strong_bot_is_told_apart_from_the_fair_share() -> None:
    # probability against two bluff-happy liars: clearly above the fair share of 2/3.
    report = _table(["probability", "type9", "type13"], 120, "strong")
    verdicts = {s.bot: report.verdict(s) for s in report.standings}
    assert verdicts["probability"] == "above", report.to_json()


@pytest.mark.parametrize(
    ("strategies", "rules", "message"),
    [
        (["bayes"], None, "seats 2 to 5 players, got 1"),
        (["type1"] * 6, None, "seats 2 to 5 players, got 6"),
        (["bayes", "probability"], LiarsDiceRules(players=3), "players = 3, but the table has 2"),
    ],
)
def test_a_table_that_cannot_be_played_is_refused(
    strategies: list[str], rules: LiarsDiceRules | None, message: str
) -> None:
    with pytest.raises(TableError, match=message):
        _table(strategies, 1, "x", rules)


def test_two_seats_with_one_name_are_refused() -> None:
    _, seats = in_process_seats(["bayes", "probability"], "x", {})
    with pytest.raises(TableError, match="distinct names"):
        asyncio.run(run_table(["bayes", "bayes"], seats, 1, "x"))


def test_a_table_verdict_uses_the_exact_interval_as_a_duel_does() -> None:
    # 32 wins of 50 against an even fair share: Wilson's interval (0.501–0.759) says above,
    # where the exact one (0.492–0.771) holds 50%, as a duel on the same evidence does.
    standing = TableStanding(bot="a", games=50, wins=32)
    exact = exact_proportion_interval(32, 50)
    interval = standing.interval()
    assert (interval.low, interval.high) == (exact.low, exact.high)
    assert not interval.excludes(0.5)
    session = HumanSession(human="me", bots=["b"], seed="s", rules={})
    session.outcomes = [True] * 32 + [False] * 18
    assert (session.interval().low, session.interval().high) == (exact.low, exact.high)
