"""The per-match "A − B per game, 95% interval" of liar's dice and 1A2B covers the true difference
at least as often as it says, for any match length and any strength of the bots: checked by exact
enumeration of every possible match (each outcome weighed by its binomial or trinomial
probability), not by sampling. A t interval over the ±1 games covered as little as 85%."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.standings import match_lines
from arena.matches.stats import Interval

NOMINAL = 0.95
SLACK = 1e-9
"""Clopper–Pearson's guarantee is exact: coverage is never below 95% (up to rounding)."""


def interval(game: str, wins: int, draws: int, losses: int) -> Interval:
    """The match line's interval after A won ``wins`` games, drew ``draws`` and lost ``losses``
    (the order of the games does not matter to it)."""
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    games = [GameOutcome(k, k, {"a": s, "b": 1.0 - s}) for k, s in enumerate(scores)]
    (line,) = match_lines(game, [MatchOutcome(MatchPlan(0, ("a", "b"), "s"), games, {}, 0.0)])
    assert line.difference is not None
    return line.difference


def covers(ci: Interval, value: float) -> bool:
    return ci.low - SLACK <= value <= ci.high + SLACK


@pytest.mark.parametrize("n", [3, 10, 20, 50, 100, 300])
def test_wins_and_losses_only_cover_at_least_95_percent(n: int) -> None:
    """Liar's dice: every game is +1 or −1, A wins each with probability p; the true A − B per
    game is 2p − 1. The audit found a t interval down to 85% (n = 20, p = 0.845)."""
    intervals = [interval("liars-dice", w, 0, n - w) for w in range(n + 1)]
    counts = np.arange(n + 1)
    worst = 1.0
    for p in np.linspace(0.0025, 0.9975, 399):
        probability = stats.binom.pmf(counts, n, p)
        covered = math.fsum(
            float(probability[w]) for w, ci in enumerate(intervals) if covers(ci, 2 * p - 1)
        )
        worst = min(worst, covered)
    assert worst >= NOMINAL - SLACK, f"{n} games: worst coverage {worst:.4f}"


@pytest.mark.parametrize("n", [4, 10, 30])
def test_draws_keep_the_coverage(n: int) -> None:
    """1A2B: a game is won (+1), drawn (0) or lost (−1) with probabilities a, d, 1 − a − d;
    the true A − B per game is a − (1 − a − d)."""
    outcomes = [(w, d, n - w - d) for w in range(n + 1) for d in range(n + 1 - w)]
    wins, draws, losses = (np.array(column, dtype=float) for column in zip(*outcomes, strict=True))
    ways = special.gammaln(n + 1) - sum(special.gammaln(k + 1) for k in (wins, draws, losses))
    intervals = [interval("bulls-cows", *outcome) for outcome in outcomes]
    lows = np.array([ci.low for ci in intervals]) - SLACK
    highs = np.array([ci.high for ci in intervals]) + SLACK
    worst = 1.0
    grid = np.linspace(0.0, 1.0, 41)
    for a in grid:
        for d in grid[grid <= 1.0 - a + 1e-12]:
            loss = max(0.0, 1.0 - a - d)
            # Multinomial probabilities, 0 ** 0 = 1 (xlogy(0, 0) = 0).
            log_p = ways + special.xlogy(wins, a) + special.xlogy(draws, d)
            probability = np.exp(log_p + special.xlogy(losses, loss))
            true = a - loss
            covered = float(probability[(lows <= true) & (true <= highs)].sum())
            worst = min(worst, covered)
    assert worst >= NOMINAL - SLACK, f"{n} games: worst coverage {worst:.4f}"
