"""What every dealer audit returns and the bounds it runs within: the `Report` (its tests and
tallies) with the family-wise `Verdict` on it, the most deals an audit makes (`MAX_DEALS`,
refused by `check_deals` before any dealing), how many it deals at a time (`AUDIT_CHUNK`) and the
`Progress` it reports to. The bridge, mahjong and dice audits in `arena.dealing.audit` share
these and nothing else of each other's, so they stand apart from the dealing and tallying there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.dealing import stats
from arena.dealing.streams import DealingError

FAMILY_ALPHA = 1e-3
"""The chance, for a fair dealer, that an audit's verdict is FAIL (at most: Bonferroni).

An audit runs several tests; with each at 0.05, one of five bridge tests falls below it in about a
quarter of fair runs. The family-wise level is split evenly over the tests instead, and it is
small because a false FAIL accuses a fair dealer while the planted dealers are caught with p far
below it."""

AUDIT_CHUNK = 8_192
"""Mahjong walls or dice rolls dealt and tallied at a time: what an audit holds in memory is
bounded by this (a chunk of walls is 9 MB), not by the number of deals."""

MAX_DEALS = 1_000_000_000
"""The most deals an audit makes: a billion take about 2 hours of bridge deals or dice rolls and
a day and a half of mahjong walls on one core (the dealing is one HMAC stream per deal), and
already find any bias a chi-square test of these tallies can see. A larger ``--deals`` is a
slip of the keyboard, not an audit that could finish."""

Progress = Callable[[int, int], None]
"""Told (deals tallied so far, all the deals) after each chunk: a caller's progress display."""


@dataclass(frozen=True)
class Verdict:
    """Pass or fail for a whole audit: FAIL when any of its ``tests`` p-values is below
    ``alpha / tests`` (Bonferroni), so a fair dealer fails with probability at most ``alpha``."""

    alpha: float
    tests: int
    failed: tuple[tuple[str, float], ...]
    """The tests below the threshold, as (name, p-value)."""

    @property
    def threshold(self) -> float:
        return self.alpha / self.tests

    @property
    def passed(self) -> bool:
        return not self.failed

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": "pass" if self.passed else "fail",
            "alpha": self.alpha,
            "family_tests": self.tests,
            "per_test_threshold": self.threshold,
            "failed_tests": [{"name": name, "p_value": p} for name, p in self.failed],
        }


@dataclass
class Report:
    """What an audit found: its tests and its tallies (``tallies`` values are JSON-ready)."""

    kind: str
    deals: int
    seed: str
    tests: list[stats.ChiSquare]
    tallies: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    scans: list[tuple[str, float]] = field(default_factory=list)
    """Tests of the dealer that are not chi-square tests, as (name, p-value): the mahjong
    audit's largest single cell. They count in the verdict like the chi-square tests."""

    def min_p_value(self) -> float:
        return min(t.p_value for t in self.tests)

    def family(self) -> list[tuple[str, float]]:
        """Every test of the dealer the verdict covers, as (name, p-value).

        The bridge report's tests of the seed's published tables are not in it: they judge
        the seed's figures, not our dealer.
        """
        return [(t.name, t.p_value) for t in self.tests] + list(self.scans)

    def verdict(self, alpha: float = FAMILY_ALPHA) -> Verdict:
        family = self.family()
        threshold = alpha / len(family)
        return Verdict(alpha, len(family), tuple((n, p) for n, p in family if p < threshold))

    def to_json(self) -> dict[str, Any]:
        return {
            "audit": self.kind,
            "deals": self.deals,
            "seed": self.seed,
            **self.verdict().to_json(),
            "tests": [t.to_json() for t in self.tests],
            **self.tallies,
            "notes": self.notes,
        }


def check_deals(deals: int, chunk: int = AUDIT_CHUNK) -> None:
    """Refuse, before any dealing, a number of deals no audit could make (`MAX_DEALS`), in the
    words of the command's option."""
    if deals < 1:
        raise DealingError(f"--deals must be at least 1, got {deals:,}")
    if deals > MAX_DEALS:
        raise DealingError(
            f"--deals must be at most {MAX_DEALS:,}, got {deals:,}: a billion deals already "
            "take hours (mahjong walls a day and a half) and find any bias the tests can see"
        )
    if chunk < 1:
        raise DealingError(f"deals at a time must be at least 1, got {chunk}")
