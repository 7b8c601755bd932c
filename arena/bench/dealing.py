"""``arena bench dealing``: the vectorised bridge audit against the one-by-one dealer.

One run measures both: the batch dealer dealing and auditing N deals (the DESIGN target is
1,000,000 in at most 30 s), and the scalar `deal_bridge` loop on the first deals of the same
seed, whose deals are checked equal to the batch's so the two rates describe the same work.
"""

from __future__ import annotations

import platform
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from arena.dealing.audit import BridgeTally, Report, bridge_report
from arena.dealing.batch import DEFAULT_CHUNK, deal_orders
from arena.dealing.bridge import BridgeDeal, deal_bridge
from arena.dealing.streams import BlockHasher, DealingError, MatchSeed

TARGET_SECONDS = 30.0
TARGET_DEALS = 1_000_000
"""The target: an audit of ``TARGET_DEALS`` deals, end to end, in at most ``TARGET_SECONDS``.
It is judged only when the bench audits exactly that many deals: a smaller run cannot show it
met (the fixed costs, the exact probabilities and tests, do not shrink with the deals), and a
larger one measures another task."""


@dataclass(frozen=True, slots=True)
class DealingBench:
    deals: int
    audit_seconds: float
    """Dealing, tallying and testing all ``deals`` with the batch dealer."""
    batch_deal_seconds: float
    """The dealing part of ``audit_seconds`` alone."""
    tally_seconds: float
    report_seconds: float
    scalar_deals: int
    scalar_seconds: float
    min_p_value: float
    cpu: str
    numpy: str

    @property
    def batch_deals_per_second(self) -> float:
        return self.deals / self.batch_deal_seconds

    @property
    def scalar_deals_per_second(self) -> float:
        return self.scalar_deals / self.scalar_seconds

    @property
    def speedup(self) -> float:
        return self.batch_deals_per_second / self.scalar_deals_per_second

    @property
    def judged(self) -> bool:
        """Whether this run is the one the target is defined for (`TARGET_DEALS` deals)."""
        return self.deals == TARGET_DEALS

    @property
    def meets_target(self) -> bool | None:
        """Met or missed at `TARGET_DEALS` deals; ``None`` (not judged) at any other size."""
        return self.audit_seconds <= TARGET_SECONDS if self.judged else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {
            "batch_deals_per_second": self.batch_deals_per_second,
            "scalar_deals_per_second": self.scalar_deals_per_second,
            "speedup": self.speedup,
            "target_seconds": TARGET_SECONDS,
            "target_deals": TARGET_DEALS,
            "meets_target": self.meets_target,
        }


def run_dealing_bench(
    seed: MatchSeed, deals: int, scalar_deals: int, chunk: int = DEFAULT_CHUNK
) -> tuple[DealingBench, Report]:
    if deals < 1 or not 0 < scalar_deals <= deals:
        raise DealingError("the bench needs deals >= 1 and 0 < scalar deals <= deals")
    hasher = BlockHasher(seed)
    tally = BridgeTally()
    dealing = tallying = 0.0
    head: list[np.ndarray[Any, Any]] = []
    started = time.perf_counter()
    for first in range(0, deals, chunk):
        t0 = time.perf_counter()
        orders = deal_orders(seed, first, min(chunk, deals - first), hasher=hasher)
        t1 = time.perf_counter()
        tally.add(orders)
        t2 = time.perf_counter()
        dealing += t1 - t0
        tallying += t2 - t1
        if first < scalar_deals:
            head.append(orders[: scalar_deals - first])
    t3 = time.perf_counter()
    report = bridge_report(tally, seed.hex())
    finished = time.perf_counter()

    scalar_hasher = BlockHasher(seed)
    t4 = time.perf_counter()
    scalar = [deal_bridge(seed, k, scalar_hasher) for k in range(scalar_deals)]
    scalar_seconds = time.perf_counter() - t4
    batch_head = np.concatenate(head)
    for k, deal in enumerate(scalar):
        if deal.hands != _hands_of(batch_head[k]):
            raise DealingError(f"the batch dealer differs from deal_bridge at deal {k}")

    bench = DealingBench(
        deals=deals,
        audit_seconds=finished - started,
        batch_deal_seconds=dealing,
        tally_seconds=tallying,
        report_seconds=finished - t3,
        scalar_deals=scalar_deals,
        scalar_seconds=scalar_seconds,
        min_p_value=report.min_p_value(),
        cpu=platform.processor() or platform.machine(),
        numpy=np.__version__,
    )
    return bench, report


def _hands_of(order: np.ndarray[Any, Any]) -> tuple[tuple[int, ...], ...]:
    return BridgeDeal.from_order([int(c) for c in order]).hands
