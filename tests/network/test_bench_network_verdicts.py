"""`arena bench network` judges its targets and refuses a wrong run. Verdicts are tested on
made-up reports, the exit on a monkeypatched run; no timing is asserted."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bench import network
from arena.bench.network import failures, judge, render_targets
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
        "mqtt_broker": "Mosquitto 2",
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


def _met(report: dict[str, Any]) -> list[bool | None]:
    return [t["met"] for t in judge(report)]


def test_all_four_targets_are_judged() -> None:
    targets = judge(_report())
    assert [(t["comparison"], t["bound"], t["measured"]) for t in targets] == [
        ("<=", 1.5, 1.3),
        ("<=", 2.0, 1.8),
        ("<=", 20.0, 12.0),
        ("all", None, "16/16"),
    ]
    assert all(t["met"] for t in targets)
    assert failures(_report()) == []


def test_misses_are_missed_and_skipped_runs_are_not_judged() -> None:
    slow = _report(websocket={"ratio": 4.8, "same_result": True})
    assert _met(slow) == [False, True, True, True]
    late = _report(tables=dict(_report()["tables"], rtt_ms={"p99": 22.3}))
    assert _met(late) == [True, True, False, True]
    no_mqtt = _report()
    del no_mqtt["mqtt"], no_mqtt["mqtt-in-server"], no_mqtt["tables"]
    assert _met(no_mqtt) == [True, None, None, None]
    lines = render_targets(judge(slow))
    assert lines[0].endswith("4.8 (<= 1.5): MISSED")
    assert render_targets(judge(no_mqtt))[1].endswith("not run (<= 2): not judged")


def test_a_different_result_or_an_unfinished_table_is_a_failure() -> None:
    wrong = _report(mqtt={"ratio": 1.0, "same_result": False})
    wrong["tables"] = dict(wrong["tables"], finished=15)
    assert failures(wrong) == [
        "the mqtt run does not give the in-process result",
        "only 15 of 16 tables finished",
    ]
    assert _met(wrong)[3] is False


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_wrong_run_exits_1_with_one_error_line(
    monkeypatch: pytest.MonkeyPatch, json_flag: list[str]
) -> None:
    async def fake_run_all(*args: Any, **kwargs: Any) -> dict[str, Any]:
        report = _report(websocket={"wall_s": 1.0, "ratio": 1.0, "same_result": False})
        report["match"] = {"hands": 4}
        report["targets"] = judge(report)
        report["failures"] = failures(report)
        return report

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
