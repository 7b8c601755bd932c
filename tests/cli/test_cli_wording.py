"""Error lines say what is wrong once: the file in the way of a log file, a missing bot config's
path named once (not again inside the system's message)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def test_a_log_file_under_a_file_names_the_file_in_the_way(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["--log-file", str(blocker / "x.log"), "protocol", "schema"])
    assert result.exit_code == 2
    assert f"{blocker} is a file" in result.output
    assert "File exists" not in result.output


def test_a_missing_bot_config_is_named_once(tmp_path: Path) -> None:
    missing = tmp_path / "nonexist.toml"
    result = runner.invoke(
        app,
        [
            *("match", "liars-dice", "--a", "bayes", "--b", "type1"),
            *("--config-a", str(missing), "--games", "1"),
        ],
    )
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert f"cannot read bot config {missing}: No such file or directory" in line
    assert line.count(str(missing)) == 1
