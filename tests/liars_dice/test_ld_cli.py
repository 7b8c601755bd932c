"""The liar's dice command line: a bad bot or config is refused before any game is played."""

from __future__ import annotations

import json
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


def test_a_duel_reports_its_interval() -> None:
    args = ["match", "liars-dice", "--a", "probability", "--b", "type9", "--games", "200"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    interval = data["win_rate_a_ci95"]
    assert interval["n"] == 200 and interval["low"] < data["win_rate_a"] < interval["high"]
    assert interval["low"] > 0.5  # the liar is told apart in 200 games
    shown = _flat(runner.invoke(app, args).output)
    assert "probability is the stronger" in shown and "95% interval" in shown
    even = _flat(runner.invoke(app, [*args[:-1], "2"]).output)  # 2 of 2 still holds 50%
    assert "no difference shown" in even


# -- tables (--bots) ---------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "bayes,type5", "--a", "bayes"], "leave out --a/--b"),
        (["--a", "bayes"], "name the two bots of a duel with --a and --b"),
        (["--bots", "bayes,type5,probability", "--rules", "liars_dice_party"], "players = 4"),
        (["--bots", "bayes,type5", "--config", "bayes"], "--config takes BOT=FILE"),
        (["--bots", "bayes,type5", "--config", "psychic=x.toml"], "not one of the bots"),
        (["--bots", "bayes,type5,psychic"], "no liars_dice bot named 'psychic'"),
        (["--a", "bayes", "--b", "type5", "--rules", "liars_dice_party"], "a duel seats two"),
        (["--a", "bayes", "--b", "type5", "--config", "bayes=x.toml"], "is for tables"),
    ],
)
def test_a_table_that_cannot_be_played_is_refused_before_it_starts(
    args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["match", "liars-dice", "--games", "2", *args])
    assert result.exit_code != 0
    assert message in _flat(result.output)
    assert "━" not in result.output  # no progress bar: nothing started


def test_a_table_plays_with_a_config_and_writes_a_record_that_verifies(tmp_path: Path) -> None:
    path = _config(tmp_path, 'guess = "odds"\n')
    args = ["match", "liars-dice", "--bots", "random-guess,type5,random-guess", "--games", "6"]
    result = runner.invoke(
        app, [*args, "--config", f"random-guess={path}", "--record", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["bots"] == ["random-guess#1", "type5", "random-guess#2"]
    assert data["every_seating_equally"] and data["fair_share"] == pytest.approx(2 / 3, abs=1e-4)
    (record,) = tmp_path.glob("liars-dice-table-*.jsonl")
    verified = runner.invoke(app, ["verify", str(record)])
    assert verified.exit_code == 0, verified.output
    assert _flat(verified.output).count("decisions ok") == 6


def test_a_partial_cycle_of_seatings_is_pointed_out() -> None:
    args = ["match", "liars-dice", "--bots", "bayes,type5,probability", "--games", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "not a multiple of 6" in _flat(result.output)
    assert "vs fair share" in result.output


def test_a_gauntlet_can_be_run_against_chosen_personalities(tmp_path: Path) -> None:
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "6", "--json"]
    result = runner.invoke(app, [*args, "--opponents", "type5, type23", "--plot", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["opponent"] for row in data["results"]] == ["type5", "type23"]
    assert {p.name for p in tmp_path.iterdir()} == {
        "bayes-vs-type5.png",
        "bayes-vs-type23.png",
        "bayes-gauntlet.png",
    }
    refused = runner.invoke(app, [*args, "--opponents", "type5,type33"])
    assert refused.exit_code != 0
    assert "type1 … type32" in _flat(refused.output)


def test_a_plot_path_that_is_a_file_is_refused_before_the_games(tmp_path: Path) -> None:
    taken = tmp_path / "charts"
    taken.write_text("", encoding="utf-8")
    args = ["liars-dice", "gauntlet", "--games", "2", "--plot", str(taken)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "cannot make that directory" in _flat(result.output)
    assert "personalities" not in result.output  # no progress bar: nothing was played


def test_a_gauntlet_beside_a_baseline_gives_the_paired_gain() -> None:
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "10", "--opponents", "type5"]
    result = runner.invoke(app, [*args, "--baseline", "random-guess", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["baseline"]["bot"] == "random-guess"
    assert data["gain"]["estimate"] == pytest.approx(
        data["mean"] - data["baseline"]["mean"], abs=1e-3
    )
    shown = runner.invoke(app, [*args, "--baseline", "random-guess"])
    assert "gain of bayes" in _flat(shown.output)
    refused = runner.invoke(app, [*args, "--baseline-config", "x.toml"])
    assert refused.exit_code != 0 and "--baseline-config needs --baseline" in _flat(refused.output)
