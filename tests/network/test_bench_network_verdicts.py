"""`arena bench network` judges its targets and refuses a wrong run. Verdicts are tested on
made-up reports, the exit on a monkeypatched run; no timing is asserted."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bench import network
from arena.bench.network import run_all
from arena.bench.network_report import NETWORK_RUNS, failures, judge, render_rows, render_targets
from arena.cli.main import app


def _report(**changes: Any) -> dict[str, Any]:
    def run(ratio: float, same: bool = True) -> dict[str, Any]:
        return {"wall_s": ratio, "ratio": ratio, "same_result": same, "rtt_ms": {"p50": 1.0}}

    report: dict[str, Any] = {
        "machine": "test",
        "in-process": {"wall_s": 1.0, "runs_s": [1.0, 1.1]},
        "websocket": run(1.3),
        "websocket-in-server": run(1.2),
        "mqtt": run(1.8),
        "mqtt-in-server": run(1.5),
        "mqtt-embedded": run(4.7),
        "mqtt-embedded-in-server": run(3.9),
        "mqtt_broker": "Mosquitto 2",
        "mqtt_embedded_broker": "amqtt 0.12.1, in the server process",
        "tables": {
            "tables": 16,
            "hands_each": 8,
            "connections": 64,
            "finished": 16,
            "wall_s": 3.0,
            "rtt_ms": {"p50": 5.0, "p99": 12.0, "max": 30.0},
        },
    }
    report.update(changes)
    return report


def judged(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with its targets and failures, as `run_all` returns it."""
    report["targets"] = judge(report)
    report["failures"] = failures(report)
    return report


def _met(report: dict[str, Any]) -> list[bool | None]:
    return [t["met"] for t in judge(report)]


def test_all_five_targets_are_judged() -> None:
    targets = judge(_report())
    assert [(t["comparison"], t["bound"], t["measured"]) for t in targets] == [
        ("<=", 1.5, 1.3),
        ("<=", 2.0, 1.8),
        ("<=", 2.0, 4.7),
        ("<=", 20.0, 12.0),
        ("all", None, "16/16"),
    ]
    assert [t["met"] for t in targets] == [True, True, False, True, True]
    assert failures(_report()) == []


def test_the_embedded_broker_is_its_own_target_and_a_miss_there_is_missed() -> None:
    targets = judge(_report())
    assert targets[1]["quantity"].startswith("MQTT through Mosquitto, two hops")
    assert targets[2]["quantity"].startswith("MQTT through the embedded broker, two hops")
    lines = render_targets(targets)
    assert lines[1].endswith("1.8 (<= 2): met")
    assert "embedded broker" in lines[2] and lines[2].endswith("4.7 (<= 2): MISSED")
    # The Mosquitto verdict is judged on the Mosquitto run alone, whatever the embedded one did.
    fast_embedded = _report(**{"mqtt-embedded": {"ratio": 1.9, "same_result": True}})
    assert _met(fast_embedded)[1:3] == [True, True]
    slow_mosquitto = _report(mqtt={"ratio": 2.4, "same_result": True})
    assert _met(slow_mosquitto)[1:3] == [False, False]


def test_each_broker_not_run_is_not_judged() -> None:
    mosquitto_only = _report()
    del mosquitto_only["mqtt-embedded"], mosquitto_only["mqtt-embedded-in-server"]
    assert _met(mosquitto_only) == [True, True, None, True, True]
    assert render_targets(judge(mosquitto_only))[2].endswith("not run (<= 2): not judged")
    embedded_only = _report()
    del embedded_only["mqtt"], embedded_only["mqtt-in-server"]
    assert _met(embedded_only) == [True, None, False, True, True]


def test_the_text_report_shows_every_row_run_and_both_brokers() -> None:
    report = _report()
    report["targets"] = judge(report)
    lines = render_rows(report)
    labels = [line.split()[0] for line in lines[1:7]]
    assert labels == list(NETWORK_RUNS)
    assert "×4.70" in lines[5] and "×3.90" in lines[6]
    assert "  mqtt broker: Mosquitto 2" in lines
    assert "  embedded mqtt broker: amqtt 0.12.1, in the server process" in lines
    assert sum(line.startswith("  target:") for line in lines) == 5


def test_misses_are_missed_and_skipped_runs_are_not_judged() -> None:
    slow = _report(websocket={"ratio": 4.8, "same_result": True})
    assert _met(slow) == [False, True, False, True, True]
    late = _report(tables=dict(_report()["tables"], rtt_ms={"p99": 22.3}))
    assert _met(late) == [True, True, False, False, True]
    no_mqtt = _report()
    for label in ("mqtt", "mqtt-in-server", "mqtt-embedded", "mqtt-embedded-in-server", "tables"):
        del no_mqtt[label]
    assert _met(no_mqtt) == [True, None, None, None, None]
    lines = render_targets(judge(slow))
    assert lines[0].endswith("4.8 (<= 1.5): MISSED")
    assert render_targets(judge(no_mqtt))[1].endswith("not run (<= 2): not judged")
    assert render_targets(judge(no_mqtt))[2].endswith("not run (<= 2): not judged")


def test_a_different_result_or_an_unfinished_table_is_a_failure() -> None:
    wrong = _report(mqtt={"ratio": 1.0, "same_result": False})
    wrong["mqtt-embedded-in-server"] = {"ratio": 1.0, "same_result": False}
    wrong["tables"] = dict(wrong["tables"], finished=15)
    assert failures(wrong) == [
        "the mqtt run does not give the in-process result",
        "the mqtt-embedded-in-server run does not give the in-process result",
        "only 15 of 16 tables finished",
    ]
    assert _met(wrong)[4] is False


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_wrong_run_exits_1_with_one_error_line(
    monkeypatch: pytest.MonkeyPatch, json_flag: list[str]
) -> None:
    async def fake_run_all(*args: Any, **kwargs: Any) -> dict[str, Any]:
        report = _report(websocket={"wall_s": 1.0, "ratio": 1.0, "same_result": False})
        report["match"] = {"hands": 4}
        return judged(report)

    monkeypatch.setattr(network, "run_all", fake_run_all)
    result = CliRunner().invoke(app, ["bench", "network", *json_flag])
    assert result.exit_code == 1, result.output
    assert "error: the websocket run does not give the in-process result" in result.output
    assert "Traceback" not in result.output


def test_ctrl_c_says_interrupted(monkeypatch: pytest.MonkeyPatch) -> None:
    async def interrupted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(network, "run_all", interrupted)
    result = CliRunner().invoke(app, ["bench", "network"])
    assert result.exit_code == 130
    assert "error: interrupted" in result.output


@pytest.mark.parametrize(
    ("args", "broker"),
    [
        ([], "mosquitto"),
        (["--mqtt-broker", "embedded"], "embedded"),
        (["--mqtt-broker", "both"], "both"),
    ],
)
def test_the_mqtt_broker_option_reaches_the_runs(
    monkeypatch: pytest.MonkeyPatch, args: list[str], broker: str
) -> None:
    seen: list[tuple[bool, str]] = []

    async def fake_run_all(*args: Any, **kwargs: Any) -> dict[str, Any]:
        seen.append((args[5], kwargs["mqtt_broker"]))
        report = _report()
        return judged(report)

    monkeypatch.setattr(network, "run_all", fake_run_all)
    result = CliRunner().invoke(app, ["bench", "network", *args])
    assert result.exit_code == 0, result.output
    assert seen == [(True, broker)]
    assert "target: MQTT through the embedded broker, two hops" in result.output


async def test_run_all_refuses_an_unknown_broker_before_playing() -> None:
    with pytest.raises(ValueError, match="mqtt_broker must be one of"):
        await run_all(1, "greedy", "x", 0, 1, True, mqtt_broker="emqx")
