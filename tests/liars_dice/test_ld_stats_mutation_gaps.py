"""Gaps a mutation audit of the statistics review (the design effect of a chain of games, exact
Wilson and Clopper–Pearson ends, the blocks and lag-1 correlation of the ``winner`` and
``loser`` openers, a table's family-wise verdicts) found in the tests: each test here fails on
a plausible slip in `arena.matches.stats`, `arena.matches.liars_dice_series`,
`arena.matches.liars_dice` or `arena.bench.liars_dice` that the other tests let through.
Nothing is played or timed: the duels are made up from their outcomes."""

from __future__ import annotations

import math

import pytest
from scipy import stats as sps

from arena.bench.liars_dice import Gain, Gauntlet, lag_one_correlation, pool_gauntlets
from arena.matches.liars_dice import TableReport, TableStanding
from arena.matches.liars_dice_series import Duel, chain_design_effect
from arena.matches.stats import (
    difference_interval,
    exact_proportion_interval,
    proportion_interval,
)

# ------------------------------------------------------------------ the design effect itself


@pytest.mark.parametrize("effect", [0.5, 0.99, math.nan])
def test_a_design_effect_below_one_is_refused(effect: float) -> None:
    """A design effect under 1 would make the games count for more than they are."""
    with pytest.raises(ValueError, match="a design effect is at least 1"):
        proportion_interval(40, 100, design_effect=effect)
    with pytest.raises(ValueError, match="a design effect is at least 1"):
        difference_interval([1.0, -1.0, 0.0, 1.0], design_effect=effect)


def test_a_difference_with_a_design_effect_is_that_of_fewer_games() -> None:
    """30 wins and 10 losses (+0.5 a game) with a design effect of 2: Clopper–Pearson's interval
    of 15 wins in 20 games, mapped onto the difference; the estimate and ``n`` stay the 40
    games'."""
    diffs = [1.0] * 30 + [-1.0] * 10
    widened = difference_interval(diffs, design_effect=2.0)
    low = float(sps.beta.ppf(0.025, 15, 6))
    high = float(sps.beta.ppf(0.975, 16, 5))
    assert (widened.estimate, widened.n) == (0.5, 40)
    assert widened.low == pytest.approx(2 * low - 1, abs=1e-12)
    assert widened.high == pytest.approx(2 * high - 1, abs=1e-12)
    assert widened.half_width > difference_interval(diffs).half_width


def test_a_rate_whose_effective_games_are_few_gets_the_exact_interval() -> None:
    """30 of 60 games with a design effect of 3 are 20 effective games, under `EXACT_BELOW`:
    the interval is Clopper–Pearson's of 10 in 20 (beta quantiles), though 60 games were
    played; the rate and ``n`` stay those of the 60."""
    rate = proportion_interval(30, 60, design_effect=3.0)
    assert (rate.estimate, rate.n) == (0.5, 60)
    assert rate.low == pytest.approx(float(sps.beta.ppf(0.025, 10, 11)), abs=1e-12)
    assert rate.high == pytest.approx(float(sps.beta.ppf(0.975, 11, 10)), abs=1e-12)


def test_a_rate_with_a_design_effect_is_wilsons_over_the_effective_games() -> None:
    """120 of 300 games with a design effect of 2: Wilson's interval of 60 in 150 (scipy's)."""
    rate = proportion_interval(120, 300, design_effect=2.0)
    wilson = sps.binomtest(60, 150).proportion_ci(0.95, method="wilson")
    assert (rate.estimate, rate.n) == (0.4, 300)
    assert rate.low == pytest.approx(float(wilson.low), abs=1e-12)
    assert rate.high == pytest.approx(float(wilson.high), abs=1e-12)


@pytest.mark.parametrize("n", [3, 10, 24])
def test_half_a_success_is_not_taken_as_none_or_all(n: int) -> None:
    """A tie counts half (a mahjong series' match score over a few matches): one tie and
    nothing else is a rate above 0, so the exact interval's low end lies above 0, and the high
    end of all but half a success lies under 1 — the beta quantiles of the count as it is."""
    one_tie = exact_proportion_interval(0.5, n)
    assert one_tie.low == pytest.approx(float(sps.beta.ppf(0.025, 0.5, n + 0.5)), rel=1e-9)
    assert one_tie.low > 0
    almost_all = proportion_interval(n - 0.5, n)
    assert almost_all.high == pytest.approx(float(sps.beta.ppf(0.975, n + 0.5, 0.5)), rel=1e-9)
    assert almost_all.high < 1


# ------------------------------------------------------------- a duel's chain of openings


def test_chain_design_effect_follows_its_formula_up_to_the_games() -> None:
    """(1 + ρ)/(1 − ρ) for any positive correlation, however small, but never more than the
    games: a chain that never left its state is worth one game, not fewer."""
    assert chain_design_effect(0.03, 100) == pytest.approx(1.03 / 0.97)
    assert chain_design_effect(0.5, 100) == pytest.approx(3.0)
    assert chain_design_effect(0.5, 2) == 2.0
    assert chain_design_effect(0.99, 10) == 10.0


@pytest.mark.parametrize(("opener", "won"), [("winner", True), ("loser", False)])
def test_a_duel_the_bot_always_opened_keeps_the_plain_interval(opener: str, won: bool) -> None:
    """Under ``winner`` a bot that won every game opened every game (under ``loser``, one that
    lost every game): no game answered, no correlation to measure, and no division by zero."""
    duel = Duel("type7", [won] * 12)
    assert duel.interval(opener=opener) == proportion_interval(12 * won, 12)  # type: ignore[arg-type]


def test_a_pooled_duel_restarts_its_chain_at_each_seed() -> None:
    """Two seeds of 6 games under ``winner``: W W W W L L, then W W W W W L. Each seed is a
    duel of its own, so the bot opens its first game: it opened 11 games (won 9) and answered
    one (lost it), ρ = 9/11, design effect (1 + ρ)/(1 − ρ) = 10. Read as one chain, the second
    seed's first game would follow a loss and count as answered (ρ = 0.3)."""
    seed_1 = [True, True, True, True, False, False]
    seed_2 = [True, True, True, True, True, False]
    runs = [
        Gauntlet("random-guess", 6, seed, [Duel("type7", games)], 1.0, "direct", "winner")
        for seed, games in (("1", seed_1), ("2", seed_2))
    ]
    pooled = pool_gauntlets(runs)
    (duel,) = pooled.duels
    rho = 9 / 11
    assert (1 + rho) / (1 - rho) == pytest.approx(10.0)
    want = proportion_interval(9, 12, design_effect=10.0)
    got = pooled.rate(duel)
    assert (got.estimate, got.n) == (0.75, 12)
    assert got.low == pytest.approx(want.low, abs=1e-12)
    assert got.high == pytest.approx(want.high, abs=1e-12)
    shown = pooled.to_json()["results"][0]["win_rate_ci95"]
    assert (shown["low"], shown["high"]) == (round(want.low, 4), round(want.high, 4))


# ------------------------------------------------------------------------- a table's verdicts


def test_a_three_bot_table_reports_the_confidence_its_verdicts_read() -> None:
    standings = [TableStanding(f"bot{k}", 60, w) for k, w in enumerate((50, 40, 30))]
    report = TableReport([s.bot for s in standings], 60, "s", {}, standings, 2 / 3, 0, 0.0)
    data = report.to_json()
    assert data["verdict_confidence"] == pytest.approx(1 - 0.05 / 3, abs=1e-6)
    assert data["results"][0]["verdict_interval"]["confidence"] == pytest.approx(1 - 0.05 / 3)


# ---------------------------------------------------- blocks of games under winner and loser


def _alternating_runs(games: int, run: int, phase: int = 0) -> list[bool]:
    return [((k + phase) // run) % 2 == 0 for k in range(games)]


@pytest.mark.parametrize("opener", ["winner", "loser"])
def test_the_pooled_mean_counts_blocks_of_20_games_of_one_seed(opener: str) -> None:
    """docs/STRATEGIES.md: under ``--opener winner`` and ``loser`` the pooled intervals take
    blocks of 20 consecutive games of one seed, and ``n`` counts the blocks. Two seeds of 30
    games: each seed's 30 games are a block of 20 and one of 10 (a block never spans two
    seeds), 4 in all; one seed of 100 games, 5."""
    runs = [
        Gauntlet(
            "random-guess",
            30,
            seed,
            [Duel(f"type{k + 1}", _alternating_runs(30, 3, k)) for k in range(4)],
            1.0,
            "direct",
            opener,  # type: ignore[arg-type]
        )
        for seed in ("1", "2")
    ]
    assert pool_gauntlets(runs).mean_interval().n == 4
    one = Gauntlet(
        "random-guess",
        100,
        "1",
        [Duel(f"type{k + 1}", _alternating_runs(100, 3, k)) for k in range(4)],
        1.0,
        "direct",
        opener,  # type: ignore[arg-type]
    )
    assert one.mean_interval().n == 5
    # Under alternate the observations are the game indices.
    one.opener = "alternate"
    assert one.mean_interval().n == 100


def test_the_gain_by_group_counts_blocks_under_winner() -> None:
    """The gain against each group of personalities is clustered as the pooled gain is: by
    blocks of 20 games under ``winner`` (5 for 100 games)."""
    names = [f"type{k + 1}" for k in range(32)]
    bot, base = (
        Gauntlet(
            name,
            100,
            "1",
            [Duel(t, _alternating_runs(100, 4, k + shift)) for k, t in enumerate(names)],
            1.0,
            "direct",
            "winner",
        )
        for name, shift in (("bayes", 0), ("random-guess", 2))
    )
    groups = Gain(bot, base).by_group()
    assert groups and all(interval.n == 5 for _, interval in groups)


# ----------------------------------------------------------- lag-1 correlation of a duel's gains


def test_lag_one_correlation_pairs_only_neighbours_of_one_seed() -> None:
    """+1 +1 −1 −1 as two seeds of two games: each seed's pair agrees (1.0); the pair across
    the seeds, which do not follow each other, is not counted. As one seed of six, +1 +1 +1 −1
    −1 −1: products 1 + 1 − 1 + 1 + 1 over 5 pairs, over the variance 1: 0.6."""
    assert lag_one_correlation([1.0, 1.0, -1.0, -1.0], 2) == pytest.approx(1.0)
    assert lag_one_correlation([1.0, 1.0, 1.0, -1.0, -1.0, -1.0], 6) == pytest.approx(0.6)
    assert lag_one_correlation([0.0] * 8, 4) == 0.0


def _gauntlet(name: str, outcomes: list[list[bool]], opener: str, games: int) -> Gauntlet:
    duels = [Duel(f"type{k + 1}", o) for k, o in enumerate(outcomes)]
    return Gauntlet(name, games, "1", duels, 1.0, "direct", opener)  # type: ignore[arg-type]


def test_a_gain_against_a_type_under_winner_is_widened_by_its_chain() -> None:
    """Paired games whose differences come in runs (+1 five times, 0 five times, −1 five times,
    0 five times, over and over) under ``winner``: positively correlated, so the interval is
    that of fewer pairs (`chain_design_effect` of their lag-1 correlation over the seed's
    games), wider than the plain one. Two seeds of 40 games pooled: the pair across the seeds
    does not count."""
    pattern = [1] * 5 + [0] * 5 + [-1] * 5 + [0] * 5
    diffs = [float(pattern[k % 20]) for k in range(37)] + [1.0, 1.0, 1.0]
    diffs += [float(pattern[(k + 10) % 20]) for k in range(40)]
    bot = [d >= 0 for d in diffs]
    base = [d <= 0 for d in diffs]
    runs = {
        name: pool_gauntlets(
            [_gauntlet(name, [outcomes[s * 40 : (s + 1) * 40]], "winner", 40) for s in range(2)]
        )
        for name, outcomes in (("bayes", bot), ("random-guess", base))
    }
    ((name, gain),) = Gain(runs["bayes"], runs["random-guess"]).by_opponent()
    mean = sum(diffs) / 80
    spread = sum((d - mean) ** 2 for d in diffs)
    within = [k for k in range(79) if k != 39]
    rho = (sum((diffs[k] - mean) * (diffs[k + 1] - mean) for k in within) / 78) / (spread / 80)
    assert name == "type1" and rho > 0.5
    want = difference_interval(diffs, design_effect=(1 + rho) / (1 - rho))
    assert gain.estimate == pytest.approx(mean)
    assert gain.low == pytest.approx(want.low, abs=1e-12)
    assert gain.high == pytest.approx(want.high, abs=1e-12)
    assert gain.half_width > difference_interval(diffs).half_width


def test_a_gain_of_two_bots_that_played_alike_under_winner_has_no_spread() -> None:
    """Two bots that won and lost the same games against a type: every difference 0, no spread
    (and no correlation to divide by)."""
    outcomes = [_alternating_runs(40, 3)]
    gain = Gain(
        _gauntlet("bayes", outcomes, "winner", 40),
        _gauntlet("random-guess", outcomes, "winner", 40),
    )
    ((_, interval),) = gain.by_opponent()
    assert interval == difference_interval([0.0] * 40)
