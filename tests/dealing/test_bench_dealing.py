"""`arena bench dealing` compares like with like: the one-by-one baseline is the same shuffle
producing the same orders, hand sorting (`deal_bridge`) is shown apart. No timing is asserted."""

from __future__ import annotations

import pytest

from arena.bench import dealing
from arena.bench.dealing import run_dealing_bench
from arena.dealing import MatchSeed
from arena.dealing.streams import DealingError


def test_the_baseline_is_the_shuffle_alone_and_deal_bridge_is_shown_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    timed: list[str] = []
    real_order, real_bridge = dealing.deal_order, dealing.deal_bridge

    def order(*args: object) -> list[int]:
        timed.append("order")
        return real_order(*args)  # type: ignore[arg-type]

    def bridge(*args: object) -> object:
        timed.append("bridge")
        return real_bridge(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(dealing, "deal_order", order)
    monkeypatch.setattr(dealing, "deal_bridge", bridge)
    bench, _ = run_dealing_bench(MatchSeed.from_text("t"), 700, 50, chunk=256)
    # Every baseline deal is shuffled before any is sorted into hands: two separate loops.
    assert timed == ["order"] * 50 + ["bridge"] * 50
    data = bench.to_json()
    assert data["speedup"] == pytest.approx(
        data["batch_deals_per_second"] / data["scalar_deals_per_second"]
    )
    assert data["deal_bridge_per_second"] == pytest.approx(50 / bench.deal_bridge_seconds)
    assert bench.split_deals == 700 and 0 <= data["hmac_share"] <= 1
    assert data["meets_target"] is None


def test_a_batch_that_differs_from_the_one_by_one_shuffle_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = dealing.deal_order

    def off_by_one(stream: object) -> list[int]:
        order = real(stream)  # type: ignore[arg-type]
        return order[1:] + order[:1]

    monkeypatch.setattr(dealing, "deal_order", off_by_one)
    with pytest.raises(DealingError, match="differs from deal_order at deal 0"):
        run_dealing_bench(MatchSeed.from_text("t"), 300, 10, chunk=128)
