"""What a researcher following the docs on a fresh clone found missing or misleading in the
liar's dice commands: learnt tables loaded without a word, group figures and per-opener figures
that no command gave, a bayes config given to another bot, a foreign file given to `model`, the
seed's-words counts that overlap unsaid, a self-contradicting --driver help, no bound on the
gauntlet's games, a person's own bids missing from the transcript, gaps in the gauntlet's JSON.
Every game count here is tiny: the figures checked are bookkeeping, not strength."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.cli.liars_dice_gauntlet
import arena.cli.liars_dice_targets
import arena.matches.liars_dice_series as series
from arena.bench.liars_dice import Gain, pool_gauntlets, run_gauntlet
from arena.bench.liars_dice_targets import measure_targets
from arena.cli.liars_dice_play import tables_note
from arena.cli.main import app
from arena.games.liars_dice import LiarsDiceRules
from arena.matches.liars_dice import in_process_seats
from arena.matches.liars_dice_human import HumanSeat, Terminal, play_session
from bots.liars_dice import GROUPS, PERSONALITIES

runner = CliRunner()

ONE_OF_EACH_GROUP = "type1,type9,type17,type25"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _gauntlet(*args: str) -> Any:
    result = runner.invoke(
        app, ["liars-dice", "gauntlet", "--driver", "direct", "--json", "--seed", "1", *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- finding 1: a learning config says which tables it starts from ----------------------------


def test_a_learning_config_says_whose_tables_it_starts_from(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    config = tmp_path / "learning.toml"
    config.write_text(f'tables_dir = "{tables}"\n', encoding="utf-8")
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--config", str(config)]
    args += ["--opponents", "type5", "--games", "3", "--driver", "direct"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert f"bayes: no learnt tables yet in {tables}; this run writes them there" in _flat(
        first.output
    )
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert (
        f"bayes: starts from the learnt tables of 1 opponent (3 games) in {tables}, and extends "
        "them; empty that directory to start afresh" in _flat(again.output)
    )
    # A bot without tables_dir keeps nothing between runs: nothing to announce.
    plain = runner.invoke(app, args[:4] + args[6:])
    assert "learnt tables" not in plain.output


def test_a_match_announces_the_tables_of_each_side(tmp_path: Path) -> None:
    config = tmp_path / "learning.toml"
    config.write_text(f'tables_dir = "{tmp_path / "t"}"\n', encoding="utf-8")
    args = ["match", "liars-dice", "--a", "bayes", "--config-a", str(config), "--b", "type5"]
    result = runner.invoke(app, [*args, "--games", "2", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "bayes: no learnt tables yet in" in result.output


# -- finding 4: groups and traits from a command ----------------------------------------------


def test_personalities_json_gives_traits_and_groups_derived_from_them() -> None:
    result = runner.invoke(app, ["liars-dice", "personalities", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    traits = {row["name"]: row["traits"] for row in data["personalities"]}
    assert list(traits) == list(PERSONALITIES)
    assert (
        [group["group"] for group in data["groups"]]
        == list(GROUPS)
        == [
            "honest → challenge",
            "liar → challenge",
            "honest → bid",
            "liar → bid",
        ]
    )
    for group in data["groups"]:
        honest, prefers = group["group"].split(" → ")
        assert len(group["opponents"]) == 8
        for name in group["opponents"]:
            assert traits[name]["honest"] == (honest == "honest")
            assert traits[name]["prefers_challenge"] == (prefers == "challenge")
            assert traits[name]["group"] == group["group"]


def test_the_gauntlet_gives_traits_and_group_means() -> None:
    data = _gauntlet("--bot", "probability", "--games", "4", "--opponents", ONE_OF_EACH_GROUP)
    by_name = {row["opponent"]: row for row in data["results"]}
    assert by_name["type9"]["traits"]["describe"] == PERSONALITIES["type9"].describe()
    assert [group["group"] for group in data["groups"]] == list(GROUPS)
    for group in data["groups"]:
        (name,) = group["opponents"]
        assert PERSONALITIES[name].group == group["group"]
        assert group["wins"] == by_name[name]["wins"]
        assert group["mean_ci95"]["estimate"] == by_name[name]["win_rate"]


def test_the_gauntlet_table_and_personalities_word_traits_alike() -> None:
    result = runner.invoke(
        app,
        ["liars-dice", "gauntlet", "--opponents", "type5", "--games", "2", "--driver", "direct"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["liars-dice", "personalities"]).output
    words = PERSONALITIES["type5"].describe()
    assert words in result.output and words in listed
    assert "cap5-6" not in result.output and "→challenge" not in result.output
    assert "honest → challenge" in result.output  # the group row


def test_targets_give_traits_by_type_and_figures_by_group() -> None:
    run = measure_targets("alternate", 2, ["1"])
    data = run.to_json()
    assert data["by_type"][4]["traits"]["describe"] == PERSONALITIES["type5"].describe()
    assert [group["group"] for group in data["by_group"]] == list(GROUPS)
    honest_challenge = data["by_group"][0]
    rates = {row["opponent"]: row["random-guess"]["estimate"] for row in data["by_type"]}
    members = honest_challenge["opponents"]
    mean = sum(rates[name] for name in members) / len(members)
    assert honest_challenge["random-guess"]["estimate"] == pytest.approx(mean, abs=1e-4)
    assert "bayes_minus_random-guess" in honest_challenge


# -- finding 5: who opened, from the gauntlet -------------------------------------------------


@pytest.mark.parametrize("opener", ["alternate", "loser", "winner", "bot", "opponent"])
def test_the_games_the_bot_opened_are_the_ones_it_did_open(
    opener: series.Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[bool] = []
    play = series.play_direct

    def watched(*args: Any, first: int, **kwargs: Any) -> Any:
        opened.append(first == 0)  # the tested bot sits at seat 0
        return play(*args, first=first, **kwargs)

    monkeypatch.setattr(series, "play_direct", watched)
    runs = [
        run_gauntlet("random-guess", 7, seed, opponents=["type5"], driver="direct", opener=opener)
        for seed in ("1", "2")
    ]
    pooled = pool_gauntlets(runs)
    (duel,) = pooled.duels
    assert pooled.bot_opened(duel) == opened
    split = pooled.by_opener()
    assert split["bot"]["games"] == sum(opened)
    assert split["bot"]["wins"] == sum(
        won for won, first in zip(duel.outcomes, opened, strict=True) if first
    )
    assert split["bot"]["wins"] + split["opponent"]["wins"] == duel.wins


def test_the_gauntlet_json_splits_wins_by_who_opened() -> None:
    data = _gauntlet("--bot", "random-guess", "--games", "6", "--opponents", "type5,type9")
    for row in data["results"]:
        assert row["by_opener"]["bot"]["games"] == row["by_opener"]["opponent"]["games"] == 3
        assert row["by_opener"]["bot"]["wins"] + row["by_opener"]["opponent"]["wins"] == row["wins"]
    assert data["by_opener"]["bot"]["games"] == 6
    assert set(data["by_opener"]["bot"]) == {"games", "wins", "win_rate", "below_floor"}


# -- finding 6: a config for another bot, a config file as the bot ---------------------------


def test_an_option_of_another_bot_names_that_bot(tmp_path: Path) -> None:
    config = tmp_path / "learning.toml"
    config.write_text(f'tables_dir = "{tmp_path / "t"}"\n', encoding="utf-8")
    result = runner.invoke(
        app, ["liars-dice", "gauntlet", "--bot", "random-guess", "--config", str(config)]
    )
    assert result.exit_code == 2
    assert "'tables_dir': it is an option of bayes, not of random-guess" in _flat(result.output)


def test_the_gauntlet_takes_a_config_file_as_the_bot(tmp_path: Path) -> None:
    config = tmp_path / "mine.toml"
    config.write_text('strategy = "random-guess"\nguess = "odds"\n', encoding="utf-8")
    data = _gauntlet("--bot", str(config), "--games", "2", "--opponents", "type5")
    assert data["bot"] == "random-guess" and data["config"] == str(config)
    text = runner.invoke(
        app,
        ["liars-dice", "gauntlet", "--bot", str(config), "--games", "2", "--opponents", "type5"],
    )
    assert text.exit_code == 0, text.output
    assert f"random-guess ({config})" in _flat(text.output)
    unnamed = tmp_path / "unnamed.toml"
    unnamed.write_text('guess = "odds"\n', encoding="utf-8")
    refused = runner.invoke(app, ["liars-dice", "gauntlet", "--bot", str(unnamed)])
    assert refused.exit_code == 2
    assert "the file with --config" in _flat(refused.output)


# -- finding 7: `model` given a file that is not a tables file -------------------------------


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("foreign.json", '{"x": 1}', "not a liar's dice tables file (no 'version' key)"),
        ("bayes.toml", 'guess = "odds"\n', "is not JSON, so not a liar's dice tables file"),
    ],
)
def test_model_says_a_foreign_file_is_not_a_tables_file(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["liars-dice", "model", str(path)])
    assert result.exit_code == 2
    said = _flat(result.output)
    assert message in said and "version None" not in said
    assert (
        "reads the tables files (<opponent>.json) that the bayes option tables_dir writes" in said
    )


# -- finding 8: the seed's-words counts part the types ---------------------------------------


def test_the_network_claim_counts_add_up_to_the_types() -> None:
    measured = measure_targets("alternate", 2, ["1"]).network_claim().measured
    counts = re.match(
        r"of (\d+) types, (\d+) gain 5 points or more \(the whole interval at or above 5\), "
        r"(\d+) wholly under 5, (\d+) in between; of the (\d+) that do not gain 5, (\d+) with "
        r"no clear gain",
        measured,
    )
    assert counts is not None, measured
    types, shows, short, between, others, no_gain = map(int, counts.groups())
    assert shows + short + between == types == 32
    assert others == types - shows and no_gain <= others


# -- finding 9: --driver help says the default once ------------------------------------------


@pytest.mark.parametrize(("command", "default"), [("targets", "direct"), ("gauntlet", "referee")])
def test_driver_help_states_its_default_once(command: str, default: str) -> None:
    result = runner.invoke(app, ["liars-dice", command, "--help"], env={"COLUMNS": "300"})
    said = _flat(result.output)
    assert "(default)" not in said and "(here the default)" not in said
    assert f"identical games [default: {default}]" in said


# -- finding 11: a gauntlet is bounded as a match is -----------------------------------------


def test_gauntlet_and_targets_refuse_more_games_than_a_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a million games a personality must be refused, not played")

    monkeypatch.setattr(arena.cli.liars_dice_gauntlet, "run_gauntlet", never)
    monkeypatch.setattr(arena.cli.liars_dice_targets, "measure_targets", never)
    for command in ("gauntlet", "targets"):
        result = runner.invoke(app, ["liars-dice", command, "--games", "1000001"])
        assert result.exit_code == 2
        assert "error: --games must be at most 1000000" in result.output


# -- finding 12: the person's transcript and profile -----------------------------------------


def test_the_persons_own_bids_are_echoed() -> None:
    shown: list[str] = []
    typed = iter(["2 2", "c", "c", "2 3"])

    def ask(prompt: str) -> str:
        shown.append(prompt)
        line = next(typed, None)
        if line is None:
            raise EOFError
        return line

    console = Terminal(ask=ask, say=shown.append)
    names, seats = in_process_seats(["probability"], "echo", {})
    person = HumanSeat(console, "alice")
    asyncio.run(play_session(person, list(zip(names, seats, strict=True)), 2, "echo"))
    opened = [k for k, text in enumerate(shown) if "| you open]" in text]  # the prompts
    assert opened, shown
    assert shown[opened[0] + 1].startswith("You bid 2x")


def test_the_profile_speaks_to_the_person_and_says_when_tables_go_unused() -> None:
    two = runner.invoke(
        app,
        ["liars-dice", "play", "--against", "bayes", "--games", "3", "--seed", "1"],
        input="2 3\nc\np\nq\n",
    )
    assert two.exit_code == 0, two.output
    assert "You bid 2x3." in two.output
    assert "your answers to bayes's bid of count A" in two.output
    assert "its answers to our bid" not in two.output
    assert "reads these tables only" not in two.output
    three = runner.invoke(
        app,
        ["liars-dice", "play", "--against", "bayes,bayes", "--games", "1", "--seed", "1"],
        input="p\nq\n",
    )
    assert three.exit_code == 0, three.output
    assert "never at a table of 3: it plays as random-guess" in _flat(three.output)


def test_the_tables_note_follows_the_rules() -> None:
    assert tables_note(LiarsDiceRules()) is None
    assert "once ones have been bid" in (tables_note(LiarsDiceRules(ones_wild=True)) or "")
    series_note = tables_note(LiarsDiceRules(players=3, series=True)) or ""
    assert "once only two seats have dice left" in series_note
    assert "never under the re-roll rule" in (tables_note(LiarsDiceRules(reroll=True)) or "")


# -- finding 13: the gauntlet's JSON beside a baseline ---------------------------------------


def test_the_gain_per_type_and_per_group_are_in_the_json() -> None:
    data = _gauntlet(
        "--bot", "probability", "--baseline", "random-guess", "--games", "4",
        "--opponents", ONE_OF_EACH_GROUP,
    )  # fmt: skip
    # The keys consumers read stay.
    for key in ("bot", "results", "mean", "min", "give_ups"):
        assert key in data["baseline"]
    assert set(data["gain"]) == {"estimate", "low", "high", "n", "confidence"}
    # Added: the baseline's interval and floor, like the bot's, and the gain per type and group.
    assert data["baseline"]["mean_ci95"]["estimate"] == data["baseline"]["mean"]
    assert data["baseline"]["floor"]["rate"] == data["floor"]["rate"]
    bot = {row["opponent"]: row["win_rate"] for row in data["results"]}
    base = {row["opponent"]: row["win_rate"] for row in data["baseline"]["results"]}
    gains = {row["opponent"]: row["gain"]["estimate"] for row in data["gain_by_opponent"]}
    assert list(gains) == ONE_OF_EACH_GROUP.split(",")
    for name, gain in gains.items():
        assert gain == pytest.approx(bot[name] - base[name], abs=1e-4)
    assert [row["group"] for row in data["gain_by_group"]] == list(GROUPS)


def test_gain_by_group_pairs_the_games_of_the_group() -> None:
    runs = [
        run_gauntlet(bot, 6, "g", opponents=["type1", "type2"], driver="direct")
        for bot in ("bayes", "random-guess")
    ]
    ((group, gain),) = Gain(*runs).by_group()
    assert group == "honest → challenge"
    assert gain.estimate == pytest.approx(Gain(*runs).interval().estimate)
