"""Confidence intervals shared by every match format.

* `mean_interval`: Student-t interval of a mean from independent observations (per-round points
  of a mahjong match, per-match point differences of a series), clipped to the range the
  quantity can take when it has one (a 1A2B per-game score difference lies in [−1, +1]).
* `proportion_interval`: Wilson score interval of a success rate (matches won, games won); it
  stays inside [0, 1] and behaves at 0 or n successes, where the normal approximation does not.

Intervals are two-sided at ``confidence`` (default 95%).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats as scipy_stats

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
    a bounded quantity and few values it spills past a bound (four 1A2B games, mean difference
    +0.25: ±0.94, i.e. up to +1.19, where no mean can exceed +1). Clipping only removes values
    the mean cannot take, so it covers the true mean exactly as often as the t interval does.
    A value outside ``bounds`` is a ValueError (the bounds would then be wrong).

    With two or more values all equal (say four drawn duels) the sample variance is 0 and the
    interval has zero width at that value. That is what the t interval gives, and bounds do not
    change it; it says only that these values show no spread, not that the mean is known
    exactly, so a caller printing it should say so (`spread_free`).
    """
    n = len(values)
    if bounds is not None:
        low, high = bounds
        if not low <= high:
            raise ValueError(f"bounds must be (low, high) with low <= high, got {bounds}")
        outside = [v for v in values if not low <= v <= high]
        if outside:
            raise ValueError(f"value {outside[0]} lies outside the bounds {bounds}")
    else:
        low, high = -math.inf, math.inf
    if n == 0:
        return Interval(math.nan, low, high, 0, confidence)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, low, high, 1, confidence)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    quantile = float(scipy_stats.t.ppf((1 + confidence) / 2, n - 1))
    half = quantile * math.sqrt(variance / n)
    return Interval(mean, max(low, mean - half), min(high, mean + half), n, confidence)


def spread_free(values: Sequence[float]) -> bool:
    """Whether ``values`` are two or more, all equal: their t interval has zero width (see
    `mean_interval`), which reports no spread in the sample, not a mean known exactly."""
    return len(values) >= 2 and min(values) == max(values)


def proportion_interval(successes: float, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Wilson score interval of ``successes / n`` (half successes, i.e. ties, are allowed)."""
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0, 0, confidence)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..{n}, got {successes}")
    p = successes / n
    z = float(scipy_stats.norm.ppf((1 + confidence) / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n, confidence)


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
