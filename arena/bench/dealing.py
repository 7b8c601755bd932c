"""``arena bench dealing``: the vectorised bridge audit against the one-by-one dealer.

One run measures both: the batch dealer dealing and auditing N deals (the DESIGN target is
1,000,000 in at most 30 s), and the one-by-one shuffle (`deal_order` on each deal's stream) on
the first deals of the same seed. The two produce the same thing, shuffled card orders, and are
checked equal, so the speed-up compares like with like. `deal_bridge` (the shuffle plus the
four sorted hands of a `BridgeDeal`) is timed apart and checked against the batch too, but its
hand sorting is work the batch side does not do, so it is shown beside the ratio, not in it.
"""

from __future__ import annotations

import platform
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from arena.dealing.audit import BridgeTally, bridge_report
from arena.dealing.audit_report import Report
from arena.dealing.batch import DEFAULT_BLOCKS, DEFAULT_CHUNK, deal_orders
from arena.dealing.bridge import BridgeDeal, bridge_label, deal_bridge, deal_order
from arena.dealing.streams import BlockHasher, DealingError, MatchSeed, RandomStream

TARGET_SECONDS = 30.0
TARGET_DEALS = 1_000_000
"""The target: an audit of ``TARGET_DEALS`` deals, end to end, in at most ``TARGET_SECONDS``.
It is judged only when the bench audits exactly that many deals: a smaller run cannot show it
met (the fixed costs, the exact probabilities and tests, do not shrink with the deals), and a
larger one measures another task."""

SPLIT_DEALS = 200_000
"""Deals (rounded up to whole chunks) dealt again after the audit, with their HMAC blocks timed
alone beside them, to say how the batch dealing time splits between hashing and shuffling."""


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
    """The one-by-one shuffle (`deal_order`) of the first ``scalar_deals`` deals: the baseline."""
    deal_bridge_seconds: float
    """`deal_bridge` on the same deals: the shuffle plus sorting four hands (not in the ratio)."""
    split_deals: int
    split_deal_seconds: float
    """The first ``split_deals`` deals dealt again by the batch dealer, after the audit."""
    split_hmac_seconds: float
    """Making those deals' first HMAC blocks alone, each chunk just before its dealing again."""
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
        """Batch over one-by-one, both making shuffled orders and nothing else."""
        return self.batch_deals_per_second / self.scalar_deals_per_second

    @property
    def deal_bridge_per_second(self) -> float:
        return self.scalar_deals / self.deal_bridge_seconds

    @property
    def hmac_share(self) -> float:
        """Share of the batch dealing time spent making HMAC blocks (the rest: numpy shuffle)."""
        return min(1.0, self.split_hmac_seconds / self.split_deal_seconds)

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
            "deal_bridge_per_second": self.deal_bridge_per_second,
            "hmac_share": self.hmac_share,
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
    split_chunks: list[tuple[int, int]] = []
    head: list[np.ndarray[Any, Any]] = []
    started = time.perf_counter()
    for first in range(0, deals, chunk):
        count = min(chunk, deals - first)
        t0 = time.perf_counter()
        orders = deal_orders(seed, first, count, hasher=hasher)
        t1 = time.perf_counter()
        tally.add(orders)
        t2 = time.perf_counter()
        dealing += t1 - t0
        tallying += t2 - t1
        if first < SPLIT_DEALS:
            split_chunks.append((first, count))
        if first < scalar_deals:
            head.append(orders[: scalar_deals - first])
    t3 = time.perf_counter()
    report = bridge_report(tally, seed.hex())
    finished = time.perf_counter()

    # The hashing alone and the whole dealing of the same chunks, each chunk's two timed back to
    # back so that a change in the machine's load between them hardly moves the share; after the
    # audit, so it cannot slow the audit down.
    split_hmac = split_dealing = 0.0
    for first, count in split_chunks:
        t0 = time.perf_counter()
        labels = [bridge_label(first + k) for k in range(count)]
        hasher.first_blocks(labels, DEFAULT_BLOCKS)
        t1 = time.perf_counter()
        deal_orders(seed, first, count, hasher=hasher)
        split_hmac += t1 - t0
        split_dealing += time.perf_counter() - t1

    scalar_hasher = BlockHasher(seed)
    t4 = time.perf_counter()
    scalar = [
        deal_order(RandomStream(seed, bridge_label(k), scalar_hasher)) for k in range(scalar_deals)
    ]
    scalar_seconds = time.perf_counter() - t4
    t5 = time.perf_counter()
    bridge_deals = [deal_bridge(seed, k, scalar_hasher) for k in range(scalar_deals)]
    deal_bridge_seconds = time.perf_counter() - t5
    # Checked after the timers: the checks are not part of either dealer's work.
    batch_head = np.concatenate(head)
    if not np.array_equal(np.array(scalar, dtype=np.uint8), batch_head):
        k = next(k for k, order in enumerate(scalar) if list(batch_head[k]) != order)
        raise DealingError(f"the batch dealer differs from deal_order at deal {k}")
    for k, deal in enumerate(bridge_deals):
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
        deal_bridge_seconds=deal_bridge_seconds,
        split_deals=sum(count for _, count in split_chunks),
        split_deal_seconds=split_dealing,
        split_hmac_seconds=split_hmac,
        min_p_value=report.min_p_value(),
        cpu=platform.processor() or platform.machine(),
        numpy=np.__version__,
    )
    return bench, report


def _hands_of(order: np.ndarray[Any, Any]) -> tuple[tuple[int, ...], ...]:
    return BridgeDeal.from_order([int(c) for c in order]).hands
