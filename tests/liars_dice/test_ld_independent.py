"""Our random-guess gauntlet against an independent implementation written from the seed alone
(`independent_sim.py`): the oracle follows the seed's worked examples, and the two agree on the
mean and on every group of personalities — including random-guess's weakness against the honest
types, which is where both depart from the seed's "60–70% against every type"."""

from __future__ import annotations

import random
from typing import Any

import pytest
from independent_sim import (
    TRAITS,
    gauntlet,
    personality_act,
    rg_bid,
    rg_candidates,
)

from arena.bench.liars_dice import run_gauntlet

GAMES = 1000


def _hand(*faces: int) -> list[int]:
    counts = [0] * 6
    for face in faces:
        counts[face - 1] += 1
    return counts


class _Scripted(random.Random):
    """Draws fixed in advance, to replay a worked example step by step."""

    def __init__(self, choices: list[int], uniforms: list[float], guess: int = 0) -> None:
        super().__init__(0)
        self.scripted_choices = choices
        self.uniforms = uniforms
        self.guess = guess

    def choice(self, seq: Any) -> Any:
        value = self.scripted_choices.pop(0)
        assert value in seq
        return value

    def random(self) -> float:
        return self.uniforms.pop(0)

    def randint(self, a: int, b: int) -> int:
        return self.guess


def test_the_oracle_lists_figure_4_4s_candidates() -> None:
    """圖 4.4: against "two 3s", a hand and an imagined hand that give "2x, 2x, 2x, 3x" with the
    weights of table 4.7; "three 4s" is bid when the guessed estimate is 1 (1 + 1 < 3)."""
    own, imagined = _hand(4, 4, 5, 1, 2), _hand(4, 5, 6, 6, 3)
    candidates, weights = rg_candidates(own, imagined, (2, 3))
    assert dict(zip(candidates, weights, strict=True)) == {
        (2, 4): 7776,
        (3, 4): 4651,
        (2, 5): 4651,
        (2, 6): 1526,
    }

    class Picks(_Scripted):
        def choices(
            self,
            population: Any,
            weights: Any = None,
            *,
            cum_weights: Any = None,
            k: int = 1,
        ) -> list[Any]:
            return [(3, 4)]

    assert rg_bid(own, (2, 3), Picks([], [], guess=1), sampled=imagined) == (3, 4)
    assert rg_bid(own, (2, 3), Picks([], [], guess=2), sampled=imagined) is None


def test_the_oracle_follows_figure_5_1() -> None:
    """圖 5.1: type7, cap 4, "three 5s" standing, two 5s in hand, believes the bidder has one:
    no challenge, and the honest weak bid "four 5s"."""
    steps: list[str] = []
    rng = _Scripted(choices=[1, 5], uniforms=[0.1])  # believes 3 − 2; the honest branch
    assert personality_act(TRAITS[6], _hand(5, 5, 1, 2, 3), (3, 5), 4, rng, steps.append) == (4, 5)
    assert steps[0] == "cap 4 > count 3: no forced challenge"
    assert personality_act(TRAITS[6], _hand(5, 5, 1, 2, 3), (3, 5), 3, rng) is None  # at its cap


@pytest.fixture(scope="module")
def both() -> tuple[list[float], list[float]]:
    ours = run_gauntlet("random-guess", GAMES, "independent", driver="direct")
    return [duel.win_rate for duel in ours.duels], gauntlet(GAMES, seed=7)


def test_the_mean_agrees(both: tuple[list[float], list[float]]) -> None:
    ours, oracle = both
    # 32,000 games each: the means' difference has a standard error of about 0.4 points.
    assert sum(ours) / 32 == pytest.approx(sum(oracle) / 32, abs=0.015)


@pytest.mark.parametrize(
    ("group", "types"),
    [
        ("honest, prefers challenge", range(0, 8)),
        ("liar, prefers challenge", range(8, 16)),
        ("honest, prefers bid", range(16, 24)),
        ("liar, prefers bid", range(24, 32)),
    ],
)
def test_each_group_agrees(both: tuple[list[float], list[float]], group: str, types: range) -> None:
    ours, oracle = both
    # 8,000 games a group each: 3 points is about four standard errors of the difference.
    mine = sum(ours[i] for i in types) / 8
    theirs = sum(oracle[i] for i in types) / 8
    assert mine == pytest.approx(theirs, abs=0.03), group


def test_both_find_the_honest_types_that_prefer_to_challenge_hardest(
    both: tuple[list[float], list[float]],
) -> None:
    """The seed reports 60–70% against every type; both implementations stay near 55% against
    the honest types that prefer to challenge, and well above 70% against the liars that prefer
    to bid."""
    for rates in both:
        assert sum(rates[0:8]) / 8 < 0.60 < 0.75 < sum(rates[24:32]) / 8
