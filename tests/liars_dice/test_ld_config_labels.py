"""A liar's dice result says which config each side played: an A/B comparison of two configs of
one strategy must not read "bayes 25 – 15 bayes" with nothing to tell the sides apart."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
ODDS = str(REPO / "configs/bots/liars_dice/bayes-odds.toml")
DUEL = ["match", "liars-dice", "--a", "bayes", "--b", "bayes", "--games", "4", "--seed", "1"]
GAUNTLET = ["liars-dice", "gauntlet", "--bot", "bayes", "--baseline", "bayes", "--games", "2"]
GAUNTLET += ["--opponents", "type1", "--driver", "direct"]


def _run(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_duel_names_the_config_each_side_played() -> None:
    shown = " ".join(_run([*DUEL, "--config-a", ODDS]).split())
    assert shown.startswith(f"bayes ({ODDS}) ") and " bayes over 4 games" in shown
    data = json.loads(_run([*DUEL, "--config-b", ODDS, "--json"]))
    assert (data["config_a"], data["config_b"]) == (None, ODDS)
    plain = " ".join(_run(DUEL).split())
    assert plain.startswith("bayes (A) ") and " bayes (B) over 4 games" in plain


def test_a_gauntlet_names_the_configs_of_the_bot_and_its_baseline() -> None:
    shown = " ".join(_run([*GAUNTLET, "--config", ODDS]).split())
    assert f"gain of bayes ({ODDS}) " in shown and "bayes: mean" in shown
    data = json.loads(_run([*GAUNTLET, "--baseline-config", ODDS, "--json"]))
    assert (data["config"], data["baseline_config"]) == (None, ODDS)
    same = " ".join(_run([*GAUNTLET, "--config", ODDS, "--baseline-config", ODDS]).split())
    assert f"gain of bayes ({ODDS}) (A) " in same


def test_a_duel_takes_a_config_file_as_the_bot_as_1a2b_does(tmp_path: Path) -> None:
    named = tmp_path / "mine.toml"
    named.write_text('strategy = "bayes"\nguess = "odds"\n', encoding="utf-8")
    args = ["match", "liars-dice", "--b", "random-guess", "--games", "4", "--seed", "1"]
    as_bot = json.loads(_run([*args, "--a", str(named), "--json"]))
    with_option = json.loads(_run([*args, "--a", "bayes", "--config-a", str(named), "--json"]))
    assert as_bot["config_a"] == str(named) and as_bot["a"] == "bayes"
    assert {**as_bot, "seconds": 0} == {**with_option, "seconds": 0}  # the same games
    bare = tmp_path / "bare.toml"
    bare.write_text('guess = "odds"\n', encoding="utf-8")
    refused = runner.invoke(app, [*args, "--a", str(bare)])
    assert refused.exit_code == 2 and 'needs strategy = "<bot>"' in refused.output
    twice = runner.invoke(app, [*args, "--a", str(named), "--config-a", str(bare)])
    assert twice.exit_code == 2 and "is a config already" in twice.output
