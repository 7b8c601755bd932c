"""`arena bench network` at toy size: every run must reproduce the in-process result and the
report must carry what docs/BENCHMARKS.md quotes. No timing is asserted."""

from __future__ import annotations

from arena.bench.network import run_all
from arena.matches.mahjong import MatchSpec, play_match


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


async def test_thinking_bots_play_the_same_games_and_take_the_time() -> None:
    plain = await play_match(MatchSpec(("greedy",) * 4, "bench-test", 2))
    slow = await run_all(
        2, "greedy", "bench-test", tables=0, table_hands=1, with_mqtt=False, think_ms=2.0
    )
    assert slow["match"]["think_ms"] == 2.0
    assert slow["websocket"]["same_result"] is True
    decisions = slow["in-process"]["decisions"]
    assert decisions == plain.decisions > 0
    # Every decision spent 2 ms of CPU, so no run can be faster than that.
    assert slow["in-process"]["wall_s"] >= decisions * 0.002
    assert slow["websocket"]["wall_s"] >= decisions * 0.002


async def test_the_embedded_broker_rows_give_the_in_process_result() -> None:
    report = await run_all(
        4, "greedy", "bench-test", tables=0, table_hands=1, with_mqtt=True, mqtt_broker="embedded"
    )
    for label in ("mqtt-embedded", "mqtt-embedded-in-server"):
        run = report[label]
        assert run["same_result"] is True
        assert run["decisions"] == report["in-process"]["decisions"] > 0
        assert run["ratio"] > 0
        assert run["rtt_ms"]["n"] == run["decisions"]
    # Only the embedded broker was asked for: the Mosquitto rows are not run, nor judged.
    assert "mqtt" not in report and "mqtt-in-server" not in report
    assert report["mqtt_broker"] == "not run (--mqtt-broker embedded)"
    assert report["mqtt_embedded_broker"].startswith("amqtt ")
    verdicts = {t["quantity"].split(",")[0]: t["met"] for t in report["targets"]}
    assert verdicts["MQTT through Mosquitto"] is None
    assert verdicts["MQTT through the embedded broker"] is not None
    assert report["failures"] == []
