"""`arena bench network` at toy size: every run must reproduce the in-process result and the
report must carry what docs/BENCHMARKS.md quotes. No timing is asserted."""

from __future__ import annotations

from arena.bench.network import run_all


async def test_the_network_bench_reports_identical_results_and_its_figures() -> None:
    report = await run_all(4, "greedy", "bench-test", tables=2, table_hands=1, with_mqtt=False)
    baseline = report["in-process"]
    assert len(baseline["runs_s"]) == 2
    assert baseline["wall_s"] == min(baseline["runs_s"])
    for label in ("websocket", "websocket-in-server"):
        run = report[label]
        assert run["same_result"] is True
        assert run["ratio"] > 0
        assert run["rtt_ms"]["n"] > 0
    assert report["mqtt_broker"] == "skipped (--no-mqtt)"
    tables = report["tables"]
    assert tables["finished"] == tables["tables"] == 2
    assert tables["connections"] == 8
