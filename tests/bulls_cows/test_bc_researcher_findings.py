"""A researcher's walkthrough of the 1A2B commands: `arena match bulls-cows` names the config each
side played (as `arena match liars-dice` does), `arena bulls-cows eval` shows its seed and refuses
a --runs it would ignore, and its --json leaves stderr empty."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
MATCH = ["match", "bulls-cows", "--games", "2", "--seed", "1"]
EVAL = ["bulls-cows", "eval", "--digits", "2", "--alphabet", "12345"]


def _optimal_config(tmp_path: Path) -> Path:
    # Named like the strategy, so that only the file tells the two sides apart.
    config = tmp_path / "optimal.toml"
    config.write_text('strategy = "optimal"\nanswerer = "evader"\n', encoding="utf-8")
    return config


def test_match_json_names_the_config_of_each_side(tmp_path: Path) -> None:
    config = _optimal_config(tmp_path)
    result = runner.invoke(app, [*MATCH, "--a", str(config), "--b", "optimal", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["config_a"], data["config_b"]) == (str(config), None)
    # Additive: the keys a script already reads are unchanged.
    assert data["bots"] == ["optimal#1", "optimal#2"]
    assert set(data["wins"]) == {"optimal#1", "optimal#2"}


def test_match_json_of_two_strategies_has_no_configs() -> None:
    result = runner.invoke(app, [*MATCH, "--a", "optimal", "--b", "random", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["config_a"] is None and data["config_b"] is None


def test_match_text_names_a_side_that_played_a_config_with_its_file(tmp_path: Path) -> None:
    config = _optimal_config(tmp_path)
    result = runner.invoke(app, [*MATCH, "--a", "optimal", "--b", str(config)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    a_row, b_row, draws_row = lines[1:4]
    assert a_row.split()[:2] == ["optimal#1", "wins"]
    assert b_row.split()[:3] == ["optimal#2", f"({config})", "wins"]
    # The figures stay in one column however long the names with their files are.
    assert draws_row.split()[0] == "draws"
    assert len({row.rindex(" ") for row in (a_row, b_row, draws_row)}) == 1, lines


def test_eval_shows_its_seed_in_text_and_json() -> None:
    text = runner.invoke(app, [*EVAL, "--guesser", "random", "--seed", "0-3"])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines()[0].endswith(", seed '0-3'")
    shown = runner.invoke(app, [*EVAL, "--guesser", "random", "--seed", "0-3", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["seed"] == "0-3"


def test_eval_takes_runs_with_the_evader_only() -> None:
    refused = runner.invoke(app, [*EVAL, "--guesser", "optimal", "--runs", "5"])
    assert refused.exit_code == 2
    assert refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "error: --runs is the number of games against the evader: give it with --answerer "
        "evader (the fixed answerer plays every secret once)"
    ]
    args = [*EVAL, "--guesser", "entropy", "--answerer", "evader", "--json"]
    given = runner.invoke(app, [*args, "--runs", "3"])
    default = runner.invoke(app, args)
    assert given.exit_code == 0 and default.exit_code == 0, given.output + default.output
    assert json.loads(given.stdout)["games"] == 3
    assert json.loads(default.stdout)["games"] == 100


def test_eval_json_writes_nothing_to_stderr() -> None:
    # The progress bar is transient: piped, it draws nothing, and must not leave a blank line.
    result = runner.invoke(app, [*EVAL, "--guesser", "optimal", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    json.loads(result.stdout)
