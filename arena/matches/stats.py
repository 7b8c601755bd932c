"""Confidence intervals shared by every match format.

* `mean_interval`: Student-t interval of a mean from independent observations (per-round points
  of a mahjong match, per-match point differences of a series), clipped to the range the
  quantity can take when it has one (a liar's dice gauntlet's gain per game lies in [−1, +1]).
* `clustered_mean_interval`: the same for observations that come in correlated clusters (the
  32 games of index k of a liar's dice gauntlet share their dice): the clusters are the
  independent units.
* `proportion_interval`: Wilson score interval of a success rate (matches won, games won); it
  stays inside [0, 1] and behaves at 0 or n successes, where the normal approximation does not.
  Under `EXACT_BELOW` trials it is the exact Clopper–Pearson interval instead. A
  ``design_effect`` takes trials that are not independent (a chain of games) as fewer ones.
* `difference_interval`: the mean of a per-game difference that is a win (+1), a draw (0) or a
  loss (−1), such as A − B of a liar's dice or 1A2B game: Clopper–Pearson's interval of A's
  score rate, mapped onto the difference; it never covers less often than it says.

Intervals are two-sided at ``confidence`` (default 95%).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# scipy is imported where it is used, not here: every command, and every worker process a league
# or gauntlet spawns, imports this module, and scipy.stats takes about a second to import. The t
# and normal quantiles come from scipy.special, a third of that: stdtrit and ndtri are the very
# functions scipy.stats's t.ppf and norm.ppf call, so the numbers are the same, bit for bit.

CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate and its two-sided confidence interval."""

    estimate: float
    low: float
    high: float
    n: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the interval (a significant difference from it)."""
        return value < self.low or value > self.high

    def scaled(self, factor: float) -> Interval:
        """The interval of ``factor`` times the quantity (e.g. a per-round mean to a total)."""
        low, high = sorted((self.low * factor, self.high * factor))
        return Interval(self.estimate * factor, low, high, self.n, self.confidence)

    def to_json(self, digits: int = 4) -> dict[str, Any]:
        return {
            "estimate": round(self.estimate, digits),
            "low": round(self.low, digits),
            "high": round(self.high, digits),
            "n": self.n,
            "confidence": self.confidence,
        }

    def __str__(self) -> str:
        return f"{self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}]"


def mean_interval(
    values: Sequence[float],
    confidence: float = CONFIDENCE,
    *,
    bounds: tuple[float, float] | None = None,
) -> Interval:
    """Mean of ``values`` with its Student-t interval; infinite with fewer than two values.

    ``bounds=(low, high)``: the range every value, and so the mean, lies in. The interval is
    clipped to it, and with fewer than two values it is that whole range. Why: the t interval
    is symmetric about the sample mean and its width comes from the sample spread alone, so for
    a bounded quantity and few values it spills past a bound (four 1A2B games +1, 0, 0, 0, mean
    difference +0.25: ±0.796, i.e. up to +1.046, where no mean can exceed +1). Clipping only
    removes values the mean cannot take, so it covers the true mean exactly as often as the t
    interval does.
    A value outside ``bounds`` is a ValueError (the bounds would then be wrong).

    With two or more values all equal (say three liar's dice games all won by A) the sample
    variance is 0 and the t interval would have zero width: a mean known exactly, from a sample
    that only failed to show its spread. With ``bounds`` the interval is then the exact one of
    `no_spread_interval`, which still narrows as the values grow in number. Without bounds
    nothing limits the spread, and the zero width stays: there it is the right answer for
    values that cannot differ (mahjong rounds of two mirrored identical bots); `spread_free`
    lets a caller say so.
    """
    low, high = _checked_bounds(values, bounds)
    n = len(values)
    if n == 0:
        return Interval(math.nan, low, high, 0, confidence)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, low, high, 1, confidence)
    if bounds is not None and spread_free(values):
        return no_spread_interval(values[0], n, bounds, confidence)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return _t_interval(mean, math.sqrt(variance / n), n, low, high, confidence)


def clustered_mean_interval(
    clusters: Sequence[Sequence[float]],
    confidence: float = CONFIDENCE,
    *,
    bounds: tuple[float, float] | None = None,
) -> Interval:
    """Mean over every value of ``clusters`` with a Student-t interval that takes the clusters,
    not the values, as the independent observations. For values correlated within a cluster
    and independent between clusters: a liar's dice gauntlet's game k deals the same dice
    against every personality, so its 32 outcomes move together, and an interval over the
    32 × n outcomes as if independent is too narrow (random-guess's mean win rate: 1.5 times too
    narrow, missing the true mean in 15–23% of runs instead of 5%).

    The estimate is the mean of all values (clusters weigh by their size). Its standard error
    is the cluster-robust one of a ratio, √(m/(m−1) · Σ (sumₖ − mean·sizeₖ)²) / total size,
    with m − 1 degrees of freedom for m clusters: with clusters of one size this is the t
    interval over the cluster means, and with clusters of one value it is `mean_interval`.
    ``bounds``, one cluster and clusters all of one mean are handled as in `mean_interval`,
    with the cluster means as the values. ``n`` of the result is the number of clusters.
    """
    flat = [value for cluster in clusters for value in cluster]
    low, high = _checked_bounds(flat, bounds)
    sized = [(math.fsum(cluster), len(cluster)) for cluster in clusters if cluster]
    m = len(sized)
    if m == 0:
        return Interval(math.nan, low, high, 0, confidence)
    mean = math.fsum(flat) / len(flat)
    if m == 1:
        return Interval(mean, low, high, 1, confidence)
    means = [total / size for total, size in sized]
    if spread_free(means):
        if bounds is not None:
            # Clamped: the rounded mean of values at a bound may land an ulp past it.
            return no_spread_interval(min(max(mean, low), high), m, bounds, confidence)
        return Interval(mean, mean, mean, m, confidence)
    squares = math.fsum((total - mean * size) ** 2 for total, size in sized)
    error = math.sqrt(m / (m - 1) * squares) / len(flat)
    return _t_interval(mean, error, m, low, high, confidence)


def no_spread_interval(
    value: float, n: int, bounds: tuple[float, float], confidence: float = CONFIDENCE
) -> Interval:
    """The interval of the mean of a quantity in ``bounds`` after ``n`` independent values all
    equal to ``value``: exact, whatever the quantity's distribution.

    A quantity in [low, high] whose mean μ lies above ``value`` takes that value with
    probability at most (high − μ) / (high − value), so n values all equal it with at most that
    to the n-th power; the interval keeps every μ for which this is at least (1 − confidence)/2,
    and the same below. So it reaches from ``value`` a share 1 − ((1 − confidence)/2)^(1/n) of
    the way to each bound: [−0.42, +1] for three liar's dice games all won (A − B per game,
    which is Clopper–Pearson's interval for 3 wins in 3), [−0.84, +0.84] for two drawn games,
    ±0.036 for a hundred.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(f"value {value} lies outside the bounds {bounds}")
    share = 1.0 - ((1.0 - confidence) / 2) ** (1.0 / n)
    return Interval(
        value, value - (value - low) * share, value + (high - value) * share, n, confidence
    )


def difference_interval(
    differences: Sequence[float],
    confidence: float = CONFIDENCE,
    *,
    bounds: tuple[float, float] = (-1.0, 1.0),
    design_effect: float = 1.0,
) -> Interval:
    """Mean of per-game ``differences`` (A − B of games that score 1/0, ½/½ or 0/1: +1, 0 or
    −1) with an interval that covers the true mean at least as often as ``confidence`` says.

    A game's difference d in [low, high] is the score u = (d − low)/(high − low) in [0, 1] (a
    win 1, a draw ½, a loss 0) mapped linearly, so the mean difference is the mean score
    mapped: the interval is Clopper–Pearson's of the total score over the games (draws as half
    successes, `exact_proportion_interval`), mapped back. With wins and losses only (liar's
    dice) the score is binomial and the interval exact: it covers 2p − 1 in at least 95% of
    matches for every n and p. A Student-t interval over the ±1 values (`mean_interval`),
    which this replaces, missed it in up to 15% of lopsided or short matches (a 20-game match
    with A winning 84.5%: 13.4%), and Wilson's interval of A's rate in up to 16.2% of 50-game
    matches (A winning about 0.35% of games; 8.9% at worst on a 0.01 grid of rates, 6.9% for
    rates from 5% to 95%: exact binomial sums over all 51 outcomes, tests/liars_dice/
    test_stats_review_fixes.py). With draws, exact
    enumeration over the win/draw/loss probabilities (a 0.02 grid, draws 2% or more) for 2 to
    200 games gives at least 95.8%, more the more draws (a draw counts as half a success, as
    uncertain as a coin toss would be: conservative). When every game gave the same difference
    (n ≥ 2) the interval is `no_spread_interval`'s, exact for any bounded quantity (for n wins
    it is the same as Clopper–Pearson's; for n draws narrower). No games: NaN in the whole
    range.

    ``design_effect`` (at least 1), for differences that are not independent (the paired games
    of a gauntlet under ``--opener winner`` or ``loser``, `Gain.by_opponent`): the score is
    taken as that of n / ``design_effect`` games, as `proportion_interval` takes it."""
    low, high = _checked_bounds(differences, bounds)
    n = len(differences)
    if n == 0:
        return Interval(math.nan, low, high, 0, confidence)
    if not design_effect >= 1.0:
        raise ValueError(f"a design effect is at least 1, got {design_effect}")
    mean = math.fsum(differences) / n
    if spread_free(differences):
        return no_spread_interval(differences[0], n, bounds, confidence)
    width = high - low
    score = min(max(math.fsum((d - low) / width for d in differences), 0.0), float(n))
    rate_low, rate_high = _beta_ends(score / design_effect, n / design_effect, confidence)
    return Interval(
        mean,
        max(low, low + width * rate_low),
        min(high, low + width * rate_high),
        n,
        confidence,
    )


def spread_free(values: Sequence[float]) -> bool:
    """Whether ``values`` are two or more, all equal: they show no spread, so a t interval over
    them has zero width (see `mean_interval`), which reports no spread in the sample, not
    (unless the values cannot differ) a mean known exactly."""
    return len(values) >= 2 and min(values) == max(values)


def _checked_bounds(
    values: Sequence[float], bounds: tuple[float, float] | None
) -> tuple[float, float]:
    if bounds is None:
        return -math.inf, math.inf
    low, high = bounds
    if not low <= high:
        raise ValueError(f"bounds must be (low, high) with low <= high, got {bounds}")
    outside = [v for v in values if not low <= v <= high]
    if outside:
        raise ValueError(f"value {outside[0]} lies outside the bounds {bounds}")
    return low, high


def _t_interval(
    mean: float, error: float, n: int, low: float, high: float, confidence: float
) -> Interval:
    """``mean`` ± the Student-t quantile (n − 1 degrees of freedom) times ``error``, clipped."""
    from scipy import special

    quantile = float(special.stdtrit(n - 1, (1 + confidence) / 2))  # scipy.stats.t.ppf
    half = quantile * error
    return Interval(mean, max(low, mean - half), min(high, mean + half), n, confidence)


EXACT_BELOW = 30
"""Under this many trials `proportion_interval` is Clopper–Pearson's, not Wilson's. Wilson's
interval is too narrow at a handful of trials: with a true rate of ½ it excludes ½ in 12.5% of
4-trial samples (4 of 4 or 0 of 4), where 95% allows 5%, and in up to 7.8% of samples under 30
trials. From 30 trials (to 400, computed) it does so in at most 7.1%, close to nominal on
average; the gauntlets' per-personality figures (hundreds or thousands of games) are Wilson's.
Clopper–Pearson's never excludes the true rate more often than the confidence allows (at a true
½ under 30 trials, at most 4.9%), so a verdict one match names (a duel's stronger bot, a table's
above or below the fair share) uses `exact_proportion_interval` at every size."""


def proportion_interval(
    successes: float, n: int, confidence: float = CONFIDENCE, *, design_effect: float = 1.0
) -> Interval:
    """Interval of the rate ``successes / n`` (half successes, i.e. ties, are allowed): Wilson's
    score interval, or the exact Clopper–Pearson interval under `EXACT_BELOW` trials. At 0 of n
    and n of n the interval reaches 0 and 1 exactly (the float formula leaves 6.9e-18 or
    0.9999999999999999, which would exclude the rate's own estimate).

    ``design_effect`` (at least 1): the variance of the rate over these n trials, as a multiple
    of the binomial variance of n independent ones (trials that form a positively correlated
    chain, `Duel.interval` under ``--opener winner``). The interval is then that of the same
    rate over n / ``design_effect`` independent trials (the effective sample size; exact under
    `EXACT_BELOW` of them, by the beta quantiles, which take a count that is not whole).
    ``n`` of the result stays ``n``."""
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0, 0, confidence)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..{n}, got {successes}")
    if not design_effect >= 1.0:
        raise ValueError(f"a design effect is at least 1, got {design_effect}")
    p = successes / n
    trials = n / design_effect
    if trials < EXACT_BELOW:
        low, high = _beta_ends(p * trials, trials, confidence)
        return Interval(p, low, high, n, confidence)
    from scipy import special

    z = float(special.ndtri((1 + confidence) / 2))  # scipy.stats.norm.ppf
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, low, high, n, confidence)


def exact_proportion_interval(successes: float, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Clopper–Pearson interval of ``successes / n``: the rates under which the count seen is
    not in either tail of probability (1 − confidence)/2, from the beta quantiles. A half
    success (a tie) goes into the beta quantiles as it is: they take any real count, and the
    interval then lies between those of the whole counts on either side."""
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0, 0, confidence)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..{n}, got {successes}")
    low, high = _beta_ends(successes, n, confidence)
    return Interval(successes / n, low, high, n, confidence)


def _beta_ends(successes: float, n: float, confidence: float) -> tuple[float, float]:
    """Clopper–Pearson's ends for ``successes`` of ``n`` (either may be a real number)."""
    from scipy import stats as scipy_stats

    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(scipy_stats.beta.ppf(tail, successes, n - successes + 1))
    high = (
        1.0
        if successes == n
        else float(scipy_stats.beta.ppf(1 - tail, successes + 1, n - successes))
    )
    return low, high


def finite_json(data: Any) -> Any:
    """``data`` with every infinite or NaN float replaced by ``None``: an interval that is not
    defined (one round, one match: a Student-t interval needs two values) is ``null`` in JSON,
    since ``Infinity`` and ``NaN`` are not JSON and standard parsers (SQLite's JSON functions
    among them) reject them."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: finite_json(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite_json(value) for value in data]
    return data
