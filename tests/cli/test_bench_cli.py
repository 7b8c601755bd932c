"""``arena bench …``: every option a user can get wrong is a one-line error (exit 2) before anything
is measured, and a target is judged only where it is defined (or scaled to it, and said so)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bench", "bulls-cows", "--runs", "0"], "--runs must be at least 1"),
        (["bench", "bulls-cows", "--runs", "-1"], "--runs must be at least 1"),
        (["bench", "network", "--games", "0"], "--games must be at least 1"),
        (["bench", "network", "--table-hands", "0"], "--table-hands must be at least 1"),
        (["bench", "network", "--tables", "-1"], "--tables must be at least 0"),
        (["bench", "network", "--think-ms", "-1"], "--think-ms must be at least 0"),
        (["bench", "network", "--think-ms", "nan"], "--think-ms must be a number of milliseconds"),
        (["bench", "network", "--think-ms", "100000"], "from 0 to 60000, got 100000"),
        (["bench", "network", "--bot", "nosuch"], "--bot: no mahjong bot named 'nosuch'"),
        (["bench", "network", "--bot", "random", "--think-ms", "1"], "greedy bot only"),
        (["bench", "network", "--mqtt-broker", "nosuch"], "--mqtt-broker must be one of"),
        (["bench", "network", "--mqtt-broker", "Embedded"], "mosquitto, embedded, both"),
        (["bench", "network", "--no-mqtt", "--mqtt-broker", "both"], "would not be used"),
        (["bench", "mahjong", "--hands", "2"], "--hands must be at least 3"),
        (["bench", "mahjong", "--rounds", "0"], "--rounds must be at least 1"),
        (["bench", "mahjong", "--seed", "-1"], "--seed must be at least 0"),
        (["bench", "mahjong-match", "--games", "0"], "--games must be at least 1"),
        (["bench", "liars-dice", "--games", "0"], "--games must be at least 1"),
        (["bench", "liars-dice", "--driver-games", "0"], "--driver-games must be at least 1"),
        (["bench", "dealing", "--deals", "259"], "--deals must be at least 260, got 259"),
        (["bench", "dealing", "--scalar-deals", "-5"], "--scalar-deals must be at least 1"),
    ],
)
def test_a_bad_bench_option_is_a_one_line_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert message in lines[0]
    assert "Traceback" not in result.output and "Usage:" not in result.output


def test_the_bench_network_names_the_known_bots() -> None:
    result = runner.invoke(app, ["bench", "network", "--bot", "nosuch"])
    assert "greedy" in result.output and "random" in result.output


def test_a_small_dealing_bench_does_not_judge_the_million_deal_target() -> None:
    args = ["bench", "dealing", "--deals", "3000", "--scalar-deals", "100"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["meets_target"] is None
    assert data["target_deals"] == 1_000_000 and data["target_seconds"] == 30.0
    shown = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "not judged at 3,000" in shown.stdout and "over the" not in shown.stdout


def test_the_dealing_bench_seed_help_says_what_it_does() -> None:
    shown = runner.invoke(app, ["bench", "dealing", "--help"], env={"COLUMNS": "300"})
    assert "fresh bits" not in shown.output
    assert "[default: bench]" in shown.output and "hashed" in shown.output


def test_a_short_mahjong_match_bench_keeps_its_measured_figure_and_marks_the_estimate() -> None:
    result = runner.invoke(app, ["bench", "mahjong-match", "--games", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    target = report["target"]
    assert target["measured"] == report["greedy"]["cpu_seconds"]
    assert target["measured_hands"] == 2 and target["estimated"] is True
    # Both are rounded to the millisecond: the scaled one from the unrounded time.
    assert target["scaled"] == pytest.approx(target["measured"] * 384 / 2, abs=0.0006 * 192)
    assert target["met"] == (target["scaled"] <= target["bound"])
    shown = runner.invoke(app, ["bench", "mahjong-match", "--games", "2"], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    assert "≈" in shown.stdout and "scaled from" in shown.stdout and "over 2 hands" in shown.stdout
    assert "an estimate" in shown.stdout
