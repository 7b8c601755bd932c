"""Gaps a mutation audit of ``bots list --options`` and the bots' setting checks (did-you-mean,
seeds of text or an integer) found in the tests: each test here fails on a plausible slip in
`bots.options`, `bots.cli`, `bots.liars_dice.bot`, `bots.bulls_cows.bot` or
`bots.mahjong.random_bot` that the other tests let through."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bots.bulls_cows import BotConfigError, build_bot
from bots.bulls_cows import describe_options as bulls_cows_options
from bots.cli import app as bots_app
from bots.liars_dice import describe_options as liars_dice_options
from bots.registry import BOT_MODULES, make_bot

runner = CliRunner()


def _listed(*args: str) -> list[str]:
    result = runner.invoke(bots_app, ["list", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


EXPECTED_LINES = {
    "liars-dice": [
        'seed (text or integer, default "0")',
        "reroll (true/false, default true)",
        "real_guess (true/false, default false; not with guess = odds)",
        "psychology (number, default unset: 0.5 with guess = odds; 0 to 1; only with guess = odds)",
        'networks (list of text, default ["opening", "response", "our_opening"]; any of '
        "opening, response, our_opening)",
    ],
    "mahjong": [
        "think_ms (number, default 0; 0 to 60000)",
        "seed (text or integer, default the bot's name)",
    ],
    "bulls-cows": [
        'answerer (text, default "fixed"; one of fixed, evader)',
        "seed (text or integer, default the bot's name)",
    ],
}


@pytest.mark.parametrize("game", sorted(EXPECTED_LINES))
def test_bots_list_options_reads_as_a_config_file_writes_the_defaults(game: str) -> None:
    """Each setting as ``name (type, default D; allowed)``: defaults as TOML writes them (true,
    "text", a list of texts), the meaning of a default that is no constant (the bot's name),
    no "allowed" part where the type says it all."""
    lines = [line.strip() for line in _listed("--options", "--game", game)]
    for line in EXPECTED_LINES[game]:
        assert line in lines, line


def test_bots_list_options_groups_strategies_of_the_same_settings() -> None:
    """The 32 personalities take only a seed: one group, on one line."""
    lines = [line.strip() for line in _listed("--options", "--game", "liars-dice")]
    assert ", ".join(f"type{k}" for k in range(1, 33)) in lines
    assert lines[-1].startswith("A config file (TOML) sets them, with a `strategy` key")


def test_plain_bots_list_is_one_line_a_game() -> None:
    lines = _listed()
    assert len(lines) == len(BOT_MODULES)
    assert lines[1].startswith("liars-dice (liars_dice): bayes, probability, random-guess, type1")
    assert not any(line.startswith(" ") or "config file" in line for line in lines)


def test_bots_list_json_spells_each_game_as_arena_does() -> None:
    result = runner.invoke(bots_app, ["list", "--json"])
    names = {game["game"]: game["name"] for game in json.loads(result.stdout)["games"]}
    assert names == {"bulls_cows": "bulls-cows", "liars_dice": "liars-dice", "mahjong": "mahjong"}


def test_a_strategy_no_package_knows_has_no_settings() -> None:
    assert liars_dice_options("nosuch") == [] and bulls_cows_options("nosuch") == []


@pytest.mark.parametrize("seed", [True, 1.5, [1]])
def test_liars_dice_and_1a2b_bots_refuse_a_seed_that_is_no_text_or_integer(seed: object) -> None:
    with pytest.raises(ValueError, match="seed' must be text or an integer"):
        make_bot("liars_dice", "bayes", {"seed": seed})
    with pytest.raises(BotConfigError, match="seed: must be text or an integer"):
        build_bot("optimal", "x", {"seed": seed})


def test_a_liars_dice_seed_may_be_an_integer() -> None:
    """``seed = 7`` in a config is the seed "7", as text."""
    by_number = make_bot("liars_dice", "probability", {"seed": 7})
    by_text = make_bot("liars_dice", "probability", {"seed": "7"})
    assert by_number.seed_text == by_text.seed_text == "7"  # type: ignore[attr-defined]
