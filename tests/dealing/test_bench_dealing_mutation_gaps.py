"""`arena bench dealing`'s figures and checks, pinned where a mutation audit found them untested:
the sizes it refuses, the baseline spanning several chunks, the split of the audit's time (read
from a made-up clock, so nothing real is timed), the HMAC share, the target's verdict, and the
deal a wrong dealer is reported at."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from arena.bench import dealing
from arena.bench.dealing import TARGET_DEALS, TARGET_SECONDS, DealingBench, run_dealing_bench
from arena.dealing import MatchSeed
from arena.dealing.audit import BridgeTally, audit_bridge
from arena.dealing.bridge import BridgeDeal
from arena.dealing.streams import BlockHasher, DealingError

SEED = MatchSeed.from_text("mutation-gaps")


def _bench(**changes: Any) -> DealingBench:
    figures: dict[str, Any] = {
        "deals": TARGET_DEALS,
        "audit_seconds": 12.0,
        "batch_deal_seconds": 8.0,
        "tally_seconds": 2.0,
        "report_seconds": 2.0,
        "scalar_deals": 1000,
        "scalar_seconds": 4.0,
        "deal_bridge_seconds": 5.0,
        "split_deals": 200_000,
        "split_deal_seconds": 2.0,
        "split_hmac_seconds": 0.5,
        "min_p_value": 0.3,
        "cpu": "x",
        "numpy": "2",
    }
    figures.update(changes)
    return DealingBench(**figures)


@pytest.mark.parametrize(
    ("deals", "scalar_deals"),
    [(300, 0), (300, -1), (300, 301), (0, 0)],
)
def test_sizes_the_bench_cannot_run_are_refused(deals: int, scalar_deals: int) -> None:
    with pytest.raises(DealingError, match=r"deals >= 1 and 0 < scalar deals <= deals"):
        run_dealing_bench(SEED, deals, scalar_deals, chunk=128)


@pytest.mark.parametrize(("deals", "scalar_deals"), [(300, 300), (400, 200)])
def test_a_baseline_over_several_chunks_is_checked_against_the_same_deals(
    deals: int, scalar_deals: int
) -> None:
    # The baseline may be as long as the audit, and end inside a chunk of the batch.
    bench, _ = run_dealing_bench(SEED, deals, scalar_deals, chunk=128)
    assert (bench.deals, bench.scalar_deals) == (deals, scalar_deals)


def test_the_report_is_the_audit_of_the_same_seed_and_deals() -> None:
    bench, report = run_dealing_bench(SEED, 600, 20, chunk=256)
    assert report == audit_bridge(SEED, 600)
    assert report.seed == SEED.hex()
    assert bench.min_p_value == report.min_p_value()


def test_the_split_deals_are_the_first_whole_chunks_up_to_the_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dealing, "SPLIT_DEALS", 500)
    bench, _ = run_dealing_bench(SEED, 900, 10, chunk=250)
    assert bench.split_deals == 500  # chunks at 0, 250: the one starting at 500 is past it
    monkeypatch.setattr(dealing, "SPLIT_DEALS", 501)
    bench, _ = run_dealing_bench(SEED, 900, 10, chunk=250)
    assert bench.split_deals == 750  # rounded up to the whole chunk


@dataclass
class _Clock:
    """A made-up `time.perf_counter`: only the wrapped steps below move it, each by its own
    amount, so every figure of the bench is a known sum."""

    now: float = 0.0
    inside: bool = False

    def perf_counter(self) -> float:
        return self.now

    def step(self, real: Any, cost: float) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            outer, self.inside = self.inside, True
            try:
                return real(*args, **kwargs)
            finally:
                self.inside = outer
                if not outer:
                    self.now += cost

        return wrapped


def test_each_figure_times_its_own_step(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(dealing, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    monkeypatch.setattr(dealing, "deal_orders", clock.step(dealing.deal_orders, 1.0))
    monkeypatch.setattr(dealing, "bridge_report", clock.step(dealing.bridge_report, 100.0))
    monkeypatch.setattr(dealing, "deal_order", clock.step(dealing.deal_order, 5.0))
    monkeypatch.setattr(dealing, "deal_bridge", clock.step(dealing.deal_bridge, 7.0))

    class Tally(BridgeTally):
        add = clock.step(BridgeTally.add, 10.0)

    class Hasher(BlockHasher):
        # Counted only when the bench makes the blocks alone (deal_orders makes them inside).
        first_blocks = clock.step(BlockHasher.first_blocks, 0.25)

    monkeypatch.setattr(dealing, "BridgeTally", Tally)
    monkeypatch.setattr(dealing, "BlockHasher", Hasher)
    bench, _ = run_dealing_bench(SEED, 700, 50, chunk=256)  # chunks of 256, 256, 188
    assert bench.batch_deal_seconds == 3 * 1.0
    assert bench.tally_seconds == 3 * 10.0
    assert bench.report_seconds == 100.0
    assert bench.audit_seconds == 3 * 1.0 + 3 * 10.0 + 100.0
    assert bench.split_deal_seconds == 3 * 1.0
    assert bench.split_hmac_seconds == 3 * 0.25
    assert bench.hmac_share == 0.25
    assert bench.scalar_seconds == 50 * 5.0
    assert bench.deal_bridge_seconds == 50 * 7.0
    assert bench.speedup == pytest.approx((700 / 3.0) / (50 / 250.0))


def test_the_hmac_share_is_hashing_over_dealing_and_never_above_one() -> None:
    assert _bench(split_deal_seconds=2.0, split_hmac_seconds=0.5).hmac_share == 0.25
    # Timed apart, the hashing alone can come out longer than the whole dealing.
    assert _bench(split_deal_seconds=2.0, split_hmac_seconds=3.0).hmac_share == 1.0


def test_the_target_is_met_at_exactly_its_seconds_and_judged_only_at_its_deals() -> None:
    assert _bench(audit_seconds=TARGET_SECONDS).meets_target is True
    assert _bench(audit_seconds=TARGET_SECONDS + 0.01).meets_target is False
    assert _bench(deals=TARGET_DEALS + 1, audit_seconds=1.0).meets_target is None
    assert _bench(deals=TARGET_DEALS - 1, audit_seconds=1.0).meets_target is None
    assert _bench(deals=2 * TARGET_DEALS).to_json()["meets_target"] is None


def test_a_shuffle_that_differs_later_is_reported_at_its_deal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = dealing.deal_order
    calls = iter(range(10**6))

    def wrong_at_three(stream: Any) -> list[int]:
        order = real(stream)
        return order[1:] + order[:1] if next(calls) == 3 else order

    monkeypatch.setattr(dealing, "deal_order", wrong_at_three)
    with pytest.raises(DealingError, match=r"differs from deal_order at deal 3$"):
        run_dealing_bench(SEED, 300, 10, chunk=128)


def test_a_deal_bridge_that_differs_from_the_batch_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = dealing.deal_bridge

    def wrong_at_four(seed: MatchSeed, k: int, hasher: Any = None) -> BridgeDeal:
        deal = real(seed, k, hasher)
        if k != 4:
            return deal
        return BridgeDeal(deal.hands[1:] + deal.hands[:1])  # the hands one seat round

    monkeypatch.setattr(dealing, "deal_bridge", wrong_at_four)
    with pytest.raises(DealingError, match=r"differs from deal_bridge at deal 4$"):
        run_dealing_bench(SEED, 300, 10, chunk=128)
