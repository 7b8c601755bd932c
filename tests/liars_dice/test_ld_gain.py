"""A gauntlet beside a baseline: the games pair up, and the gain is the paired mean difference."""

from __future__ import annotations

import pytest

from arena.bench.liars_dice import GAME_DIFFERENCE, Gain, run_gauntlet
from arena.matches.stats import no_spread_interval

OPPONENTS = ["type1", "type9", "type23"]


def test_a_bot_beside_itself_gains_exactly_nothing() -> None:
    first = run_gauntlet("random-guess", 40, "gain", opponents=OPPONENTS, driver="direct")
    again = run_gauntlet("random-guess", 40, "gain", opponents=OPPONENTS, driver="direct")
    interval = Gain(first, again).interval()
    assert interval.estimate == 0.0
    # No spread in 40 game indices is not a gain known to be exactly 0 (`no_spread_interval`).
    assert interval == no_spread_interval(0.0, 40, GAME_DIFFERENCE)
    assert interval.n == 40  # game indices: game k deals the same dice against each opponent


def test_the_gain_is_the_difference_of_the_means_with_an_interval_around_it() -> None:
    bayes = run_gauntlet("bayes", 60, "gain", opponents=OPPONENTS, driver="direct")
    plain = run_gauntlet("random-guess", 60, "gain", opponents=OPPONENTS, driver="direct")
    gain = Gain(bayes, plain)
    interval = gain.interval()
    assert interval.estimate == pytest.approx(bayes.mean - plain.mean)
    assert interval.low < interval.estimate < interval.high
    data = gain.to_json()
    assert data["baseline"]["bot"] == "random-guess"
    assert [row["opponent"] for row in data["baseline"]["results"]] == OPPONENTS
    assert data["gain"]["n"] == 60


def test_gauntlets_of_different_shapes_do_not_pair() -> None:
    short = run_gauntlet("random-guess", 5, "gain", opponents=OPPONENTS[:2], driver="direct")
    full = run_gauntlet("random-guess", 5, "gain", opponents=OPPONENTS, driver="direct")
    with pytest.raises(ValueError, match="same seed, games, opener and opponents"):
        Gain(short, full)
    other_seed = run_gauntlet("random-guess", 5, "other", opponents=OPPONENTS, driver="direct")
    with pytest.raises(ValueError, match="same seed, games, opener and opponents"):
        Gain(full, other_seed)
