"""Confidence intervals shared by every match format.

* `mean_interval`: Student-t interval of a mean from independent observations (per-round points
  of a mahjong match, per-match point differences of a series).
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


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean of ``values`` with its Student-t interval; infinite with fewer than two values."""
    n = len(values)
    if n == 0:
        return Interval(math.nan, -math.inf, math.inf, 0, confidence)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, -math.inf, math.inf, 1, confidence)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    quantile = float(scipy_stats.t.ppf((1 + confidence) / 2, n - 1))
    half = quantile * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half, n, confidence)


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
