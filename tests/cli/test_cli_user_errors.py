"""Mistakes a newcomer makes get one `error:` line and exit 2, never click's usage box."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["league", "configs/leagues/liars-dice.toml", "--games", "0"],
            "--games must be at least 1, got 0",
        ),
        (
            ["league", "configs/leagues/liars-dice.toml", "--jobs", "0"],
            "--jobs must be at least 1, got 0",
        ),
        (
            ["match", "mahjong", "--bots", "greedy,greedy", "--layout", "ab", "--games", "1000001"],
            "--games must be at most 1000000, got 1000001",
        ),
        (
            ["liars-dice", "play", "--games", "1000001"],
            "--games must be at most 1000000, got 1000001",
        ),
        (
            ["bench", "dealing", "--deals", "1000000001"],
            "--deals must be at most 1000000000, got 1000000001",
        ),
        (
            ["audit", "mahjong", "--deals", "1000000001"],
            "--deals must be at most 1000000000, got 1000000001",
        ),
        (["replay", "no-such-record.jsonl"], "no file no-such-record.jsonl"),
        (["verify", "no-such-record.jsonl"], "no file no-such-record.jsonl"),
    ],
)
def test_one_line_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {message}"


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_a_directory_is_not_a_record(command: str, tmp_path: Path) -> None:
    result = runner.invoke(app, [command, str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path} is a directory, not a file"


def test_arena_log_options_are_checked_in_one_line(tmp_path: Path) -> None:
    loud = runner.invoke(app, ["--log-level", "loud", "protocol", "--help"])
    assert loud.exit_code == 2
    assert loud.output.strip() == (
        "error: --log-level: unknown log level 'loud'; levels: debug, info, warning, error, "
        "critical"
    )
    directory = runner.invoke(app, ["--log-file", str(tmp_path), "protocol", "--help"])
    assert directory.exit_code == 2
    assert directory.output.strip().startswith(
        f"error: --log-file: cannot write JSON logs to {tmp_path}"
    )
