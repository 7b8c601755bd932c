"""`arena bench liars-dice` judges the design's time target (32 personalities × 500 games with
bayes in at most 20 s) on the run it timed, and only at the 500 games the target is set for."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from arena.bench.liars_dice import Gauntlet
from arena.bench.liars_dice_speed import BENCH_SECONDS, BenchReport
from arena.cli.main import app

runner = CliRunner()


def _report(games: int, seconds: float) -> BenchReport:
    bayes = Gauntlet("bayes", games, "1", [], seconds)
    baseline = dataclasses.replace(bayes, bot="random-guess")
    return BenchReport(games, "1", bayes, baseline, 10, 1.0, 2.0, 30, 30)


def test_the_time_target_is_met_or_missed_at_500_games() -> None:
    (met,) = _report(500, 9.96).to_json()["targets"]
    assert met == {
        "quantity": "bayes, 32 personalities × 500 games: wall time, s",
        "comparison": "<=",
        "bound": BENCH_SECONDS,
        "measured": 9.96,
        "met": True,
    }
    (missed,) = _report(500, 20.7).to_json()["targets"]
    assert missed["met"] is False


def test_another_game_count_is_timed_but_not_judged() -> None:
    (target,) = _report(100, 1.5).to_json()["targets"]
    assert target["met"] is None and target["measured"] == 1.5


@pytest.mark.parametrize("json_output", [False, True])
def test_the_bench_prints_the_verdict_and_exits_1_on_a_miss(
    monkeypatch: pytest.MonkeyPatch, json_output: bool
) -> None:
    args = ["bench", "liars-dice", *(["--json"] if json_output else [])]
    for seconds, code in ((9.96, 0), (20.7, 1)):
        report = _report(500, seconds)
        monkeypatch.setattr(
            "arena.cli.liars_dice_bench.run_bench", lambda *_a, report=report, **_k: report
        )
        result = runner.invoke(app, args)
        assert result.exit_code == code, result.output
        if json_output:
            assert json.loads(result.stdout)["targets"][0]["met"] is (code == 0)
        else:
            verdict = "met" if code == 0 else "MISSED"
            assert f"wall time, s {seconds:g} (<= 20): {verdict}" in result.stdout
