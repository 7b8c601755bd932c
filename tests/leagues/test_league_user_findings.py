"""What a new user of `arena league` ran into: a resume that needs the overrides of the first run,
`--show` and the leagues of one name a results file holds, a mahjong league shorter than a round,
and config errors in the file's terms."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

import arena.cli.league as league_cli
from arena.cli.main import app
from arena.leagues.config import LeagueConfigError, load_league
from arena.leagues.runner import open_league
from arena.store import ResultStore

REPO = Path(__file__).resolve().parents[2]

DICE = """
name = "dice"
game = "liars-dice"
games = 4
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""

runner = CliRunner()


def league(*args: str | Path) -> Result:
    return runner.invoke(app, ["league", *map(str, args)])


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def interrupted_run() -> league_cli.LeagueRun:
    raise KeyboardInterrupt


def test_an_interrupted_league_says_the_command_that_resumes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path / "my leagues" / "dice.toml", DICE)
    db = tmp_path / "my results" / "d.sqlite"
    monkeypatch.setattr(league_cli, "_play", lambda *_args, **_kwargs: interrupted_run())
    result = league(config, "--games", "7", "--jobs", "1", "--db", db)
    assert result.exit_code == 130, result.output
    (resume,) = [line for line in result.stderr.splitlines() if line.startswith("to resume: ")]
    # Without --games 7 the same file is another league: the command must carry it, and the
    # paths with spaces must survive the shell.
    assert shlex.split(resume.removeprefix("to resume: ")) == [
        "arena",
        "league",
        str(config),
        "--db",
        str(db),
        "--games",
        "7",
        "--jobs",
        "1",
    ]
    # The error line scripts match stays as it was, and is the last.
    assert result.stderr.splitlines()[-1] == (
        f"error: interrupted: finished matches are stored in {db}; run again to resume"
    )


def unfinished_league(config: Path, db: Path, games: int) -> None:
    """A league of ``config`` with ``--games games`` started in ``db`` and stopped before its
    first match was stored."""
    with ResultStore(db) as store:
        open_league(load_league(config, games=games), store)


def test_a_new_league_beside_an_unfinished_one_of_its_name_says_it_is_no_resume(
    tmp_path: Path,
) -> None:
    config = write(tmp_path / "dice.toml", DICE)
    db = tmp_path / "d.sqlite"
    unfinished_league(config, db, games=3)
    result = league(config, "--db", db)
    assert result.exit_code == 0, result.output
    note = " ".join(result.stderr.split())
    assert "this run starts a new league 'dice'" in note and "not a resume" in note
    assert "games 3 there, 4 here" in note and "0/1 matches, unfinished" in note
    assert f"to resume it instead: arena league {config} --db {db} --games 3" in note
    # Resumed, the league of the file itself gets no note.
    again = league(config, "--db", db)
    assert "not a resume" not in again.stderr


def test_show_names_the_leagues_of_that_name_it_did_not_find(tmp_path: Path) -> None:
    config = write(tmp_path / "dice.toml", DICE)
    db = tmp_path / "d.sqlite"
    played = league(config, "--db", db, "--games", "2")
    assert played.exit_code == 0, played.output
    result = league(config, "--db", db, "--show")
    assert result.exit_code == 2
    error = " ".join(result.stderr.split())
    assert "league 'dice' with this config has no results" in error
    assert "games 2 there, 4 here" in error and "1/1 matches, finished" in error
    assert f"arena league {config} --db {db} --games 2 --show shows it" in error
    shown = league(config, "--db", db, "--games", "2", "--show")
    assert shown.exit_code == 0, shown.output


def test_list_shows_what_a_results_file_holds(tmp_path: Path) -> None:
    config = write(tmp_path / "dice.toml", DICE)
    other = write(tmp_path / "other.toml", DICE.replace('"dice"', '"other"', 1))
    db = tmp_path / "d.sqlite"
    for args in ([config, "--games", "2"], [other]):
        assert league(*args, "--db", db).exit_code == 0
    unfinished_league(config, db, games=3)
    listed = league("--list", "--db", db, "--json")
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.stdout)
    rows = [
        (row["league"], row["games_per_match"], row["matches_stored"], row["matches_planned"])
        for row in data["leagues"]
    ]
    assert rows == [("dice", 2, 1, 1), ("other", 4, 1, 1), ("dice", 3, 0, 1)]
    assert [row["finished"] is None for row in data["leagues"]] == [False, False, True]
    # With a config: the leagues of its name, the one it plays (with its overrides) marked.
    mine = json.loads(league(config, "--list", "--db", db, "--games", "3", "--json").stdout)
    assert [(row["games_per_match"], row["this_config"]) for row in mine["leagues"]] == [
        (2, False),
        (3, True),
    ]
    text = league("--list", "--db", db)
    assert text.exit_code == 0 and "other" in text.stdout and "unfinished" in text.stdout
    assert league("--list", "--db", tmp_path / "absent.sqlite").exit_code == 2


MAHJONG = """
name = "short"
game = "mahjong"
games = 3
jobs = 1
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


def test_a_mahjong_league_shorter_than_a_round_shows_no_infinite_interval(
    tmp_path: Path,
) -> None:
    config = write(tmp_path / "short.toml", MAHJONG)
    result = league(config, "--db", tmp_path / "m.sqlite")
    assert result.exit_code == 0, result.output
    assert "inf" not in result.stdout
    (match_row,) = [line for line in result.stdout.splitlines() if "greedy vs random" in line]
    assert "[—, —]" in match_row
    assert "not defined over 1 round (it needs two)" in result.stdout
    # Warned before it plays, as `arena match mahjong` warns.
    assert "3 hands is not a multiple of 4" in " ".join(result.stderr.split())


def test_the_restart_help_says_stored_matches_are_replaced_not_forgotten() -> None:
    command = typer.main.get_command(app)
    league_command = command.commands["league"]  # type: ignore[attr-defined]
    (restart,) = [param for param in league_command.params if "--restart" in param.opts]
    assert "forget" not in restart.help
    assert "replaced once its new result is stored" in restart.help


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(LeagueConfigError) as caught:
        load_league(write(tmp_path / "league.toml", text))
    return str(caught.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            DICE.replace('name = "probability"', 'name = "probability"\nconfg = "x.toml"'),
            "bot 2 ('probability'): unknown key 'confg' (did you mean 'config'?)",
        ),
        ("gmes = 3\n" + DICE, "unknown key 'gmes' (did you mean 'games'?)"),
        (
            DICE.split('[[bots]]\nname = "probability"')[0],
            "a league needs at least 2 bots, the file lists 1",
        ),
    ],
)
def test_config_errors_are_said_in_the_files_terms(
    tmp_path: Path, text: str, expected: str
) -> None:
    message = refused(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'league.toml'}: ")
    assert expected in message
    assert "Extra inputs" not in message and "List should" not in message


def test_a_dice_config_without_bot_says_the_entry_needs_one(tmp_path: Path) -> None:
    bot_config = REPO / "configs" / "bots" / "liars_dice" / "bayes-odds.toml"
    text = DICE + f'[[bots]]\nname = "mine"\nconfig = "{bot_config}"\n'
    message = refused(tmp_path, text)
    assert f"bot 3 ('mine'): its config {bot_config} does not name its strategy" in message
    assert 'the entry needs bot = "…"' in message


def test_the_standings_say_which_config_each_bot_played(tmp_path: Path) -> None:
    bot_config = REPO / "configs" / "bots" / "liars_dice" / "bayes-odds-estimate.toml"
    text = DICE + f'[[bots]]\nname = "odds"\nbot = "bayes"\nconfig = "{bot_config}"\n'
    config = write(tmp_path / "dice.toml", text)
    db = tmp_path / "d.sqlite"
    played = league(config, "--db", db, "--games", "2")
    assert played.exit_code == 0, played.output
    assert f"odds: bayes, config {bot_config}" in " ".join(played.stdout.split())
    shown = json.loads(league(config, "--db", db, "--games", "2", "--show", "--json").stdout)
    assert shown["bots"]["odds"] == {
        "strategy": "bayes",
        "config": str(bot_config),
        "options": {},
    }
    assert shown["bots"]["probability"]["config"] is None
