"""The liar's dice command line: a bad bot or config is refused before any game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bot.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('guess = "oddz"\n', "'guess' must be one of"),
        ('guess = "odds"\npsychology = 2\n', "'psychology' must be between 0 and 1"),
        ("guess = [\n", "cannot read bot config"),
    ],
)
def test_a_bad_config_is_refused_before_the_games(
    tmp_path: Path, config: str, message: str
) -> None:
    path = _config(tmp_path, config)
    for args in (
        ["liars-dice", "gauntlet", "--bot", "bayes", "--config", path, "--games", "1"],
        ["match", "liars-dice", "--a", "bayes", "--config-a", path, "--b", "probability"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code != 0
        assert message in " ".join(result.output.split())
        assert "personalities" not in result.output  # no progress bar: nothing started
        assert " vs " not in result.output


def test_an_unknown_bot_is_named() -> None:
    result = runner.invoke(app, ["liars-dice", "gauntlet", "--bot", "psychic", "--games", "1"])
    assert result.exit_code != 0
    assert "no liars_dice bot named 'psychic'" in result.output


def test_configs_belong_to_bots_run_when_playing_on_a_server(tmp_path: Path) -> None:
    path = _config(tmp_path, "real_guess = true\n")
    args = ["match", "liars-dice", "--a", "x", "--b", "y", "--server", "ws://127.0.0.1:9"]
    result = runner.invoke(app, [*args, "--config-a", path])
    assert result.exit_code != 0
    assert "bots run --config" in " ".join(result.output.split())


def test_a_good_config_plays(tmp_path: Path) -> None:
    path = _config(tmp_path, 'guess = "odds"\n')
    args = ["match", "liars-dice", "--a", "random-guess", "--config-a", path]
    result = runner.invoke(app, [*args, "--b", "probability", "--games", "4", "--json"])
    assert result.exit_code == 0, result.output
    assert '"games": 4' in result.stdout
