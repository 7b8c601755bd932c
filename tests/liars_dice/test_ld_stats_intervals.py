"""The liar's dice gauntlet's pooled intervals count game indices, not games (game k deals the
same dice against every personality), `targets` says "met" only when the pooled interval shows
it, and the shared intervals stay honest at the edges: no zero width from values that merely
show no spread, an exact interval for a rate over few trials."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from scipy import stats as scipy_stats

from arena.bench.liars_dice import Gain, Gauntlet, by_game, pool_gauntlets, run_gauntlet
from arena.bench.liars_dice_targets import BAYES, PROBABILITY, RANDOM_GUESS, TargetRun
from arena.matches.liars_dice_series import Duel
from arena.matches.stats import (
    EXACT_BELOW,
    clustered_mean_interval,
    exact_proportion_interval,
    mean_interval,
    no_spread_interval,
    proportion_interval,
)

OPPONENTS = ["type1", "type5", "type9", "type23"]


def _t_over(means: list[float], bounds: tuple[float, float]) -> tuple[float, float]:
    """The plain Student-t interval over per-game-index means, worked out here by hand."""
    half = (
        scipy_stats.t.ppf(0.975, len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
    )
    centre = statistics.fmean(means)
    return max(bounds[0], centre - half), min(bounds[1], centre + half)


# -- the gauntlet's mean win rate and the paired gain, clustered by game index -----------------


def test_the_mean_interval_takes_each_game_index_as_one_observation() -> None:
    gauntlet = run_gauntlet("random-guess", 30, "cluster", opponents=OPPONENTS, driver="direct")
    interval = gauntlet.mean_interval()
    per_index = [
        statistics.fmean(float(duel.outcomes[k]) for duel in gauntlet.duels) for k in range(30)
    ]
    assert interval.n == 30
    assert interval.estimate == pytest.approx(gauntlet.mean)
    assert (interval.low, interval.high) == pytest.approx(_t_over(per_index, (0.0, 1.0)))


def test_games_that_move_together_are_not_counted_as_independent() -> None:
    """32 personalities beaten on exactly the same games hold the information of one duel: the
    interval must be that duel's, not one 32 times as many games would give (the binomial
    interval over every game was about 1.5 times too narrow on real gauntlets)."""
    rng = random.Random(7)
    same = [rng.random() < 0.6 for _ in range(100)]
    duels = [Duel(f"type{k + 1}", list(same)) for k in range(32)]
    gauntlet = Gauntlet("random-guess", 100, "1", duels, seconds=1.0, driver="direct")
    interval = gauntlet.mean_interval()
    one_duel = mean_interval([float(won) for won in same], bounds=(0.0, 1.0))
    assert (interval.low, interval.high) == pytest.approx((one_duel.low, one_duel.high))
    as_if_independent = proportion_interval(32 * sum(same), 32 * 100)
    assert interval.half_width > 4 * as_if_independent.half_width


def test_the_gain_takes_each_game_index_as_one_observation() -> None:
    bayes = run_gauntlet("bayes", 30, "cluster", opponents=OPPONENTS, driver="direct")
    plain = run_gauntlet("random-guess", 30, "cluster", opponents=OPPONENTS, driver="direct")
    interval = Gain(bayes, plain).interval()
    per_index = [
        statistics.fmean(
            float(mine.outcomes[k]) - float(theirs.outcomes[k])
            for mine, theirs in zip(bayes.duels, plain.duels, strict=True)
        )
        for k in range(30)
    ]
    assert interval.n == 30
    assert interval.estimate == pytest.approx(bayes.mean - plain.mean)
    assert (interval.low, interval.high) == pytest.approx(_t_over(per_index, (-1.0, 1.0)))


def test_pooled_seeds_give_one_observation_per_seed_and_game() -> None:
    runs = {
        bot: [
            run_gauntlet(bot, 10, seed, opponents=OPPONENTS[:2], driver="direct")
            for seed in ("a", "b")
        ]
        for bot in ("random-guess", "probability")
    }
    pooled = {bot: pool_gauntlets(seeds) for bot, seeds in runs.items()}
    assert pooled["random-guess"].mean_interval().n == 20
    assert Gain(pooled["random-guess"], pooled["probability"]).interval().n == 20


def test_by_game_regroups_the_duels_game_by_game() -> None:
    assert by_game([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]) == [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    assert by_game([]) == []


# -- targets: "met" only when the pooled interval shows it --------------------------------------

GAMES = 500
SEEDS = ["1", "2"]


def _won(wins: int, key: str) -> list[bool]:
    """``wins`` of the games won at places drawn from ``key`` (one key per personality and
    seed: two bots' duels of one key pair win for win as far as both go)."""
    order = list(range(GAMES))
    random.Random(key).shuffle(order)
    won = set(order[:wins])
    return [n in won for n in range(GAMES)]


def _gauntlet(bot: str, seed: str, outcomes: list[list[bool]]) -> Gauntlet:
    duels = [Duel(f"type{k + 1}", games) for k, games in enumerate(outcomes)]
    return Gauntlet(bot, GAMES, seed, duels, seconds=1.0, driver="direct")


def _run(wins: dict[str, list[int]]) -> TargetRun:
    """Each bot's wins against each personality, the same on every seed."""
    runs = {
        bot: [
            _gauntlet(bot, seed, [_won(w, f"{seed}/{k}") for k, w in enumerate(counts)])
            for seed in SEEDS
        ]
        for bot, counts in wins.items()
    }
    return TargetRun("alternate", GAMES, SEEDS, runs)


def test_a_floor_every_seed_meets_only_by_its_point_estimate_is_not_shown() -> None:
    """The audit's case: 275 of 500 (55.0%) on every seed is not shown to be 55% or more."""
    run = _run({RANDOM_GUESS: [275, 400], BAYES: [300, 400], PROBABILITY: [250, 250]})
    assert run.below_counts(RANDOM_GUESS) == [0, 0]
    rate = run.type_rates(RANDOM_GUESS)[0][1]
    assert rate.low < 0.55 < rate.high
    assert run.floor_check().verdict == "not shown"


def test_losing_to_none_needs_every_interval_above_half() -> None:
    run = _run({RANDOM_GUESS: [255, 400], BAYES: [300, 400], PROBABILITY: [250, 250]})
    assert run.loses_to_none_claim().verdict == "not shown"
    clear = _run({RANDOM_GUESS: [300, 400], BAYES: [300, 400], PROBABILITY: [250, 250]})
    assert clear.loses_to_none_claim().verdict == "met"


def test_a_mean_every_seed_has_in_range_is_met_only_when_its_interval_is() -> None:
    # 61% against every type on both seeds: each seed's mean lies within 60–70%, the pooled
    # interval (about ±1.5 points) reaches under 60%.
    run = _run({RANDOM_GUESS: [305] * 4, BAYES: [320] * 4, PROBABILITY: [250] * 4})
    assert all(0.60 <= mean <= 0.70 for mean in run.means(RANDOM_GUESS))
    pooled = run.pooled(RANDOM_GUESS).mean_interval()
    assert pooled.low < 0.60 < pooled.high
    assert run.mean_check().verdict == "not shown"
    middle = _run({RANDOM_GUESS: [325] * 4, BAYES: [340] * 4, PROBABILITY: [250] * 4})
    assert middle.mean_check().verdict == "met"


def test_a_band_every_seed_is_in_is_met_only_when_every_interval_is() -> None:
    run = _run({RANDOM_GUESS: [305, 325], BAYES: [320, 340], PROBABILITY: [250, 250]})
    assert run.band_claim().verdict == "not shown"


def test_a_network_gain_must_be_about_five_points_not_merely_reach_it() -> None:
    """A type shows "about 5–10 points" only when its whole interval lies at or above 5 points:
    not at +3 points (its interval reaching 5), nor at +8 (an estimate over 5 whose interval
    reaches under it, which the rule counted until the statistics review), but at +15."""

    def pair(plus: int, minus: int, seed: str) -> tuple[list[bool], list[bool]]:
        # bayes wins `plus` games random-guess loses and loses `minus` games it wins.
        base = _won(250, f"{seed}/base")
        bayes = list(base)
        lost = [n for n in range(GAMES) if not base[n]][:plus]
        won = [n for n in range(GAMES) if base[n]][:minus]
        for n in lost:
            bayes[n] = True
        for n in won:
            bayes[n] = False
        return bayes, base

    # Over both seeds: +74 and −44 of 1,000 games (+3 points), +110 and −30 (+8 points), +180
    # and −30 (+15 points).
    pairs = [[pair(p, m, seed) for seed in SEEDS] for p, m in ((37, 22), (55, 15), (90, 15))]
    runs = {
        BAYES: [_gauntlet(BAYES, s, [kind[i][0] for kind in pairs]) for i, s in enumerate(SEEDS)],
        RANDOM_GUESS: [
            _gauntlet(RANDOM_GUESS, s, [kind[i][1] for kind in pairs]) for i, s in enumerate(SEEDS)
        ],
        PROBABILITY: [_gauntlet(PROBABILITY, s, [pairs[0][i][1]] * 3) for i, s in enumerate(SEEDS)],
    }
    run = TargetRun("alternate", GAMES, SEEDS, runs)
    gains = dict(run.type_gains(BAYES, RANDOM_GUESS))
    assert gains["type1"].estimate == pytest.approx(0.03) and gains["type1"].high >= 0.05
    assert gains["type2"].estimate == pytest.approx(0.08) and 0 < gains["type2"].low < 0.05
    assert gains["type3"].estimate == pytest.approx(0.15) and gains["type3"].low >= 0.05
    claim = run.network_claim()
    assert "1 gain 5 points or more" in claim.measured
    assert claim.verdict == "not shown"  # one type of three shows it: no majority


# -- the shared intervals at their edges -------------------------------------------------------


def test_bounded_values_without_spread_get_an_exact_interval_not_a_zero_width_one() -> None:
    won_all = mean_interval([1.0, 1.0, 1.0], bounds=(-1.0, 1.0))
    assert won_all.estimate == 1.0 and won_all.high == 1.0
    assert won_all.low == pytest.approx(-0.4152, abs=1e-4)
    # For win/loss data it is Clopper–Pearson's: 3 wins in 3, on the scale of A − B.
    assert won_all.low == pytest.approx(2 * exact_proportion_interval(3, 3).low - 1)
    drawn = mean_interval([0.0, 0.0], bounds=(-1.0, 1.0))
    assert (drawn.low, drawn.high) == pytest.approx((-0.8419, 0.8419), abs=1e-4)
    assert drawn.excludes(0.0) is False
    many = mean_interval([0.0] * 100, bounds=(-1.0, 1.0))
    assert 0 < many.half_width < 0.04


def test_the_no_spread_interval_excludes_a_true_mean_at_most_as_often_as_allowed() -> None:
    """Worst case for the low end: a quantity at its top value with probability p, at its
    bottom otherwise. At the interval's low end, n values all at the top have probability
    exactly 2.5%; any lower mean makes it rarer."""
    for n in (2, 3, 10, 100):
        interval = no_spread_interval(1.0, n, (0.0, 1.0))
        assert interval.low**n == pytest.approx(0.025)
        middle = no_spread_interval(0.3, n, (0.0, 1.0))
        # Mean 0.3 + 0.7·s: the value 0.3 comes with probability at most 1 − s.
        share = (middle.high - 0.3) / 0.7
        assert (1 - share) ** n == pytest.approx(0.025)


def test_unbounded_values_without_spread_keep_their_zero_width() -> None:
    """Mahjong rounds of two mirrored identical bots: every difference is 0 because it cannot
    be anything else, and no bound gives a wider honest interval."""
    interval = mean_interval([0.0, 0.0, 0.0])
    assert (interval.estimate, interval.low, interval.high) == (0.0, 0.0, 0.0)
    clustered = clustered_mean_interval([[0.0, 0.0], [0.0, 0.0]])
    assert (clustered.low, clustered.high) == (0.0, 0.0)


def test_the_clustered_interval_reduces_to_the_plain_one() -> None:
    rng = random.Random(3)
    values = [rng.random() for _ in range(40)]
    singletons, plain = clustered_mean_interval([[v] for v in values]), mean_interval(values)
    assert singletons.n == plain.n == 40
    assert (singletons.low, singletons.high) == pytest.approx((plain.low, plain.high))
    clusters = [values[k : k + 4] for k in range(0, 40, 4)]
    means = [statistics.fmean(c) for c in clusters]
    clustered = clustered_mean_interval(clusters)
    plain = mean_interval(means)
    assert clustered.n == 10
    assert (clustered.estimate, clustered.low, clustered.high) == pytest.approx(
        (plain.estimate, plain.low, plain.high)
    )
    # Clusters of different sizes weigh by their size.
    uneven = clustered_mean_interval([[1.0, 1.0, 1.0], [0.0]])
    assert uneven.estimate == pytest.approx(0.75)
    assert math.isnan(clustered_mean_interval([]).estimate)
    with pytest.raises(ValueError, match="outside"):
        clustered_mean_interval([[2.0]], bounds=(0.0, 1.0))


def _false_verdicts(n: int) -> float:
    """How often the interval excludes ½ when the true rate is ½ (computed exactly)."""
    return sum(
        scipy_stats.binom.pmf(x, n, 0.5)
        for x in range(n + 1)
        if proportion_interval(x, n).excludes(0.5)
    )


def test_a_rate_over_few_trials_is_exact() -> None:
    """Wilson's interval called 4 wins in 4 a rate above ½, wrongly in 12.5% of 4-game duels
    between equals; under `EXACT_BELOW` trials the interval is Clopper–Pearson's."""
    assert proportion_interval(4, 4).low < 0.5
    assert all(_false_verdicts(n) <= 0.05 for n in range(1, EXACT_BELOW))
    assert proportion_interval(4, 4) == exact_proportion_interval(4, 4)
    assert proportion_interval(0, 10).high == pytest.approx(0.3085, abs=1e-4)
    # From EXACT_BELOW trials on it stays Wilson's, as the documented figures are.
    assert proportion_interval(22, 30).low == pytest.approx(0.5561, abs=1e-3)


def test_the_exact_interval_takes_half_successes() -> None:
    half = exact_proportion_interval(2.5, 5)
    below, above = exact_proportion_interval(2, 5), exact_proportion_interval(3, 5)
    assert below.low < half.low < above.low and below.high < half.high < above.high
    assert half.estimate == 0.5
