"""The 1A2B command line: eval and match, their JSON and their errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed

runner = CliRunner()
SHIPPED_CONFIGS = sorted(
    (Path(__file__).parents[2] / "configs" / "bots" / "bulls_cows").glob("*.toml")
)


def test_eval_json_super_comparison() -> None:
    result = runner.invoke(app, ["bulls-cows", "eval", "--guesser", "super-comparison", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["secrets"] == 504 and data["max_guesses"] == 6
    assert data["mean_guesses"] <= 4.80
    assert sum(data["histogram"].values()) == 504
    assert {"seconds", "decision_ms_p99"} <= data.keys()


def test_eval_text_against_the_evader_on_a_small_space() -> None:
    args = ["bulls-cows", "eval", "--guesser", "entropy", "--answerer", "evader"]
    result = runner.invoke(app, [*args, "--digits", "2", "--alphabet", "12345", "--runs", "5"])
    assert result.exit_code == 0, result.output
    assert "5 games vs evader" in result.stdout and "mean guesses" in result.stdout


def test_eval_errors_exit_non_zero_with_a_message() -> None:
    cases = [
        (["--guesser", "psychic"], "unknown guesser 'psychic'"),
        (["--guesser", "random", "--answerer", "liar"], "unknown answerer"),
        (["--guesser", "random", "--digits", "5", "--alphabet", "1234"], "digits:"),
        (["--guesser", "random", "--alphabet", "1223"], "repeats a symbol"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["bulls-cows", "eval", *args])
        assert result.exit_code == 2, args
        assert message in " ".join(result.output.split()), args


def test_match_json_and_configs(tmp_path: Path) -> None:
    config = tmp_path / "sly.toml"
    config.write_text('strategy = "entropy"\nanswerer = "evader"\nseed = "x"\n')
    args = ["match", "bulls-cows", "--a", str(config), "--b", "frequency", "--games", "4"]
    result = runner.invoke(app, [*args, "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["bots"] == ["sly", "frequency"]
    assert sum(data["wins"].values()) + data["draws"] == 4
    ci = data["score_diff_ci95"]
    assert ci["low"] <= data["score_diff_mean"] == ci["estimate"] <= ci["high"]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS, ids=lambda path: path.name)
def test_every_shipped_config_plays_a_match(config: Path) -> None:
    args = ["match", "bulls-cows", "--a", str(config), "--b", "random", "--games", "2", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["bots"][0] == config.stem
    assert sum(data["wins"].values()) + data["draws"] == 2


def test_match_errors() -> None:
    result = runner.invoke(app, ["match", "bulls-cows", "--a", "nobody", "--b", "random"])
    assert result.exit_code == 2 and "unknown 1A2B bot" in result.output
    bad = runner.invoke(
        app, ["match", "bulls-cows", "--a", "random", "--b", "random", "--alphabet", "11"]
    )
    assert bad.exit_code == 2 and "alphabet" in bad.output


@pytest.mark.parametrize("deadline", ["-5", "0"])
def test_match_needs_a_positive_deadline(deadline: str) -> None:
    args = ["match", "bulls-cows", "--a", "optimal", "--b", "entropy", "--games", "2"]
    result = runner.invoke(app, [*args, "--deadline-ms", deadline])
    assert result.exit_code == 2
    assert f"error: --deadline-ms must be at least 1, got {deadline}" in result.output
    assert "Traceback" not in result.output and "greater_than_equal" not in result.output


def test_match_without_seed_draws_a_fresh_one_and_prints_it_first(tmp_path: Path) -> None:
    args = ["match", "bulls-cows", "--a", "frequency", "--b", "random", "--games", "2", "--json"]
    first = runner.invoke(app, [*args, "--record", str(tmp_path)])
    second = runner.invoke(app, args)
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    seeds = [re.findall(r"^seed: ([0-9a-f]{64})$", r.stderr, re.M) for r in (first, second)]
    assert len(seeds[0]) == 1 and len(seeds[1]) == 1 and seeds[0] != seeds[1]
    seed = seeds[0][0]
    # A secret seed names its record by its commitment, never by itself; the path is printed.
    (record,) = tmp_path.glob("*.jsonl")
    commitment = MatchSeed.from_hex(seed).commitment()
    assert re.fullmatch(
        rf"bulls-cows-c{commitment[:12]}-frequency-random-[0-9a-f]{{8}}\.jsonl", record.name
    )
    assert f"record: {record}" in first.stderr.replace("\n", "")
    # The seed printed replays the match; a given seed is not printed.
    again = runner.invoke(app, [*args, "--seed", seed])
    assert "seed: " not in again.stderr
    data, replayed = json.loads(first.stdout), json.loads(again.stdout)
    assert {**data, "seconds": 0, "record": None} == {**replayed, "seconds": 0, "record": None}


def test_match_record_is_named_after_a_plain_seed_and_replaced_on_a_rerun(tmp_path: Path) -> None:
    args = ["match", "bulls-cows", "--a", "optimal", "--b", "optimal", "--games", "3"]
    args += ["--seed", "7", "--record", str(tmp_path)]
    for _ in range(2):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    (record,) = tmp_path.glob("*.jsonl")
    assert re.fullmatch(r"bulls-cows-7-optimal-optimal-[0-9a-f]{8}\.jsonl", record.name)
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert sum(line["type"] == "header" for line in lines) == 3  # the rerun replaced it
    assert "optimal#1" in result.stdout and "optimal#2" in result.stdout


def test_eval_reports_progress_once_per_secret() -> None:
    from arena.bench.bulls_cows import evaluate

    steps: list[int] = []
    report = evaluate("entropy", digits=2, alphabet="1234", progress=steps.append)
    assert len(steps) == report.games == 12 and set(steps) == {1}
    steps.clear()
    evader = evaluate(
        "entropy", answerer="evader", digits=2, alphabet="1234", runs=5, progress=steps.append
    )
    assert len(steps) == evader.games == 5
