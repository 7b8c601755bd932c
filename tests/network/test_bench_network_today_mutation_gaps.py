"""A gap a mutation audit of the network bench's percentiles (numpy's definition since the
statistics review) found in the tests: the figures keep three decimals, so round trips of a
fraction of a millisecond are not rounded away."""

from __future__ import annotations

from arena.bench.network import percentiles


def test_percentiles_keep_three_decimals() -> None:
    assert percentiles([0.1234, 0.5678]) == {
        "n": 2,
        "p50": 0.346,
        "p90": 0.523,
        "p99": 0.563,
        "max": 0.568,
    }
