"""Gaps a mutation audit of the league changes of 73265eb found (reusing the stored matches of
other leagues, ``--show --id``, ``--list`` telling leagues apart, winners only where the interval
shows one, every config problem at once): each test pins what a user sees, and fails on a
hand-made fault in that code that the other tests let through."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from logging import WARNING
from pathlib import Path
from typing import Any

import pytest
from test_league_tuner_findings import EXTRA_BOT, LEAGUES
from typer.testing import CliRunner, Result

from arena.cli import league_others
from arena.cli.main import app
from arena.leagues import config_bots
from arena.leagues.config import LeagueConfig, LeagueConfigError, load_league
from arena.leagues.in_play import hold_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.play import plan_matches
from arena.leagues.reuse import reuse_matches
from arena.leagues.runner import open_league, run_league
from arena.leagues.standings import match_lines
from arena.store import ResultStore

DICE = LEAGUES["liars-dice"]
"""Three liar's dice bots, four games a match: three matches in well under a second."""

TYPE5 = EXTRA_BOT["liars-dice"]

DUELS = """name = "duels"
game = "bulls-cows"
games = 2
jobs = 1
rules = { digits = 2, alphabet = "1234" }
[[bots]]
name = "random"
[[bots]]
name = "frequency"
"""

runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def load(path: Path, text: str, **overrides: Any) -> LeagueConfig:
    return load_league(write(path, text)).with_overrides(**overrides)


def cli(*args: str | Path) -> Result:
    return runner.invoke(app, ["league", *map(str, args)])


def words(text: str) -> str:
    """The text on one line: the console wraps long lines at its width."""
    return " ".join(text.split())


def unwrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console wide enough that no cell of ``--list`` wraps (it may, in 160 columns)."""
    monkeypatch.setattr(league_others.out, "width", 1000)


def sql(db: Path, statement: str, *parameters: Any) -> None:
    connection = sqlite3.connect(db)
    try:
        with connection:
            connection.execute(statement, parameters)
    finally:
        connection.close()


def played_first(tmp_path: Path, db: Path, text: str = DICE) -> Path:
    """The league of ``text`` played into ``db`` from the command line; its config file."""
    config = write(tmp_path / "first.toml", text)
    result = cli(config, "--db", db)
    assert result.exit_code == 0, result.output
    return config


# -- reusing the matches of other leagues ----------------------------------------------------------


def test_a_league_on_a_server_reuses_no_match_played_in_process(tmp_path: Path) -> None:
    # Its bots are connected programs, which no stored in-process match describes.
    # On a server a bot is only a name, and the league seed a secret.
    plain = DICE.split('[[bots]]\nname = "odds"')[0].replace(
        "games", f'seed = "{"5e" * 32}"\ngames'
    )
    more = load(tmp_path / "more.toml", plain + TYPE5)
    on_server = more.with_overrides(server="ws://127.0.0.1:1")
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(load(tmp_path / "first.toml", plain), store)
        league = open_league(on_server, store)
        assert reuse_matches(on_server, store, league, plan_matches(on_server)) == []
        assert store.matches(league) == []
        # The same league in-process copies the match it shares (the control).
        (reused,) = reuse_matches(more, store, league, plan_matches(more))
        assert reused.plan.key == "random-guess vs probability"


def test_a_reused_match_is_copied_into_a_records_directory_not_made_yet(tmp_path: Path) -> None:
    first = load(tmp_path / "first.toml", DICE, records=tmp_path / "first-records")
    more = load(tmp_path / "more.toml", DICE + TYPE5, records=tmp_path / "more-records")
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(first, store)
        run = run_league(more, store)
    assert len(run.reused) == 3 and run.played == 3
    for outcome in run.outcomes:
        assert outcome.record is not None
        record = Path(outcome.record)
        assert record.parent == tmp_path / "more-records" and record.is_file()


def test_a_reused_matchs_record_is_named_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a played match's is: `--json` readers open it from anywhere.
    monkeypatch.chdir(tmp_path)
    first = load(tmp_path / "first.toml", DICE, records=Path("records"))
    more = load(tmp_path / "more.toml", DICE + TYPE5, records=Path("records"))
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(first, store)
        run = run_league(more, store)
    assert len(run.reused) == 3
    for outcome in run.outcomes:
        assert outcome.record is not None and Path(outcome.record).is_absolute()
        assert Path(outcome.record).is_file()


def test_a_lenders_record_that_is_gone_is_played_again_without_a_warning(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    # Nothing is wrong with this league's records directory: no warning says it could not be
    # written (warnings reach the terminal).
    records = tmp_path / "records"
    first = load(tmp_path / "first.toml", DICE, records=records)
    more = load(tmp_path / "more.toml", DICE + TYPE5, records=records)
    with ResultStore(tmp_path / "r.sqlite") as store:
        (gone, *_kept) = run_league(first, store).outcomes
        assert gone.record is not None
        Path(gone.record).unlink()
        run = run_league(more, store)
    assert len(run.reused) == 2 and run.played == 4
    warned = [record.getMessage() for record in caplog.records if record.levelno >= WARNING]
    assert warned == [], structured_logs()


def _stored_under_its_written_out_default(tmp_path: Path, db: Path) -> LeagueConfig:
    """A league whose config writes its seed out (the default: its name), stored under the
    fingerprint an earlier release gave it (the written-out default hashed): the same league."""
    text = DICE.replace("games = 4", 'seed = "dice"\ngames = 4')
    first = load(tmp_path / "first.toml", text)
    with ResultStore(db) as store:
        run_league(first, store)
    legacy = first._fingerprint(normalised=False)
    assert legacy != first.fingerprint() and legacy in first.fingerprint_aliases()
    sql(db, "UPDATE leagues SET fingerprint = ?", legacy)
    return first


def test_a_league_stored_under_an_earlier_fingerprint_of_its_config_lends_its_matches(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    _stored_under_its_written_out_default(tmp_path, db)
    more = load(
        tmp_path / "more.toml", DICE.replace("games = 4", 'seed = "dice"\ngames = 4') + TYPE5
    )
    with ResultStore(db) as store:
        run = run_league(more, store)
    assert len(run.reused) == 3 and run.played == 3


def test_list_marks_a_league_stored_under_an_earlier_fingerprint_as_this_config(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    _stored_under_its_written_out_default(tmp_path, db)
    listed = cli(tmp_path / "first.toml", "--list", "--db", db, "--json")
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.stdout)["leagues"]
    assert row["this_config"] is True
    assert "differences" not in row and "compared_with" not in row


# -- what the run says about the matches it reused ----------------------------------------------


def test_json_counts_reused_and_played_matches_apart(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    two_more = DICE + TYPE5 + '[[bots]]\nname = "guesser"\nbot = "random-guess"\n'
    result = cli(write(tmp_path / "more.toml", two_more), "--db", db, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["matches_planned"], data["matches_reused"], data["matches_played"]) == (10, 3, 7)
    assert len(data["reused"]) == 3


def test_a_run_that_reused_nothing_says_nothing_of_reuse(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    result = cli(write(tmp_path / "first.toml", DICE), "--db", db)
    assert result.exit_code == 0, result.output
    assert f"results: {db} (league id 1)" in words(result.stdout)
    assert "reused from" not in result.stdout and "reused from" not in result.stderr


def test_matches_reused_from_two_leagues_are_counted_and_both_named(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    duel = 'name = "{name}"\ngame = "liars-dice"\ngames = 4\njobs = 1\nseed = "s"\n'
    guess = '[[bots]]\nname = "random-guess"\n'
    probability = '[[bots]]\nname = "probability"\n'
    odds = '[[bots]]\nname = "odds"\nbot = "random-guess"\noptions = { guess = "odds" }\n'
    for name, bots in (("p", guess + probability), ("o", guess + odds)):
        lender = write(tmp_path / f"{name}.toml", duel.format(name=name) + bots)
        assert cli(lender, "--db", db).exit_code == 0
    config = write(tmp_path / "all.toml", duel.format(name="all") + guess + probability + odds)
    result = cli(config, "--db", db)
    assert result.exit_code == 0, result.output
    said = "2 matches reused from league ids 1, 2, not played again"
    assert f"league 'all': {said}" in words(result.stderr)
    assert said in words(result.stdout)


# -- winners, and the tables that show them --------------------------------------------------------


def test_the_match_table_says_no_difference_shown_on_the_row_of_such_a_match(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    config = played_first(tmp_path, db)
    text = cli(config, "--db", db, "--show").stdout
    matches = json.loads(cli(config, "--db", db, "--show", "--json").stdout)["matches"]
    assert any(not match["winners"] for match in matches), "a 4-game match that shows none"
    for match in matches:
        (row,) = [line for line in text.splitlines() if line.strip().startswith(match["match"])]
        won_by = match["winners"][0] if match["winners"] else "no difference shown"
        assert row.rstrip().endswith(won_by), row


def test_the_standings_column_says_it_counts_only_matches_shown_won(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    config = played_first(tmp_path, db)
    text = cli(config, "--db", db, "--show").stdout
    (heading,) = [line for line in text.splitlines() if "score rate" in line]
    assert heading.rstrip().endswith("matches won (shown)")


def _four_bot_match(rounds: list[list[float]]) -> MatchOutcome:
    """A mahjong rotate match: per round, each of w, x, y, z's points in each of its 4 hands."""
    bots = ("w", "x", "y", "z")
    games = [
        GameOutcome(4 * unit + hand, unit, dict(zip(bots, points, strict=True)))
        for unit, points in enumerate(rounds)
        for hand in range(4)
    ]
    return MatchOutcome(MatchPlan(0, bots, "s"), games, {}, 0.0)


def test_a_four_bot_match_of_two_leaders_names_no_winner() -> None:
    tied = _four_bot_match([[10, 10, -10, -10], [12, 12, -12, -12], [11, 11, -11, -11]])
    (line,) = match_lines("mahjong", [tied])
    assert line.leaders == ("w", "x") and line.winners == ()


def test_a_four_bot_matchs_winner_is_judged_over_rounds_not_hands() -> None:
    # The four hands of a round replay one wall: a round is one observation. Over three rounds
    # (+48, -16, +48 a round against each bot) the lead is not shown, though twelve hands
    # taken as independent would show it.
    outcome = _four_bot_match([[9, -3, -3, -3], [-3, 1, 1, 1], [9, -3, -3, -3]])
    (line,) = match_lines("mahjong", [outcome])
    assert line.leaders == ("w",) and line.winners == ()


# -- --show --id -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--restart"], "without --restart"),
        (["first.toml"], "without a config file"),
        (["--seed", "other"], "without --seed"),
        (["--server", "ws://127.0.0.1:1"], "without --server"),
        (["--records", "recs"], "without --records"),
        (["--jobs", "2"], "without --jobs"),
    ],
)
def test_show_id_refuses_every_option_that_would_play_or_change_the_league(
    tmp_path: Path, extra: list[str], said: str
) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    given = [str(tmp_path / each) if each.endswith(".toml") else each for each in extra]
    result = cli("--db", db, "--show", "--id", "1", *given)
    assert result.exit_code == 2, result.output
    assert said in words(result.stderr)


def test_show_id_of_a_missing_results_file_says_so_and_makes_none(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite"
    result = cli("--db", db, "--show", "--id", "1")
    assert result.exit_code == 2
    assert f"no results file {db}" in words(result.stderr)
    assert not db.exists()


def test_show_id_of_a_directory_says_to_give_the_results_file(tmp_path: Path) -> None:
    result = cli("--db", tmp_path, "--show", "--id", "1")
    assert result.exit_code == 2
    assert f"--db {tmp_path} is a directory" in words(result.stderr)


def test_show_id_says_when_the_league_is_being_played(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    with hold_league(db, 1, "dice"):
        result = cli("--db", db, "--show", "--id", "1")
    assert result.exit_code == 0, result.output
    assert "league 'dice' is being played now (process" in words(result.stderr)
    assert "3/3 matches" in result.stdout


@pytest.mark.parametrize(
    "damage",
    [
        # Stored by an earlier release, without what its files said.
        "json_remove(config, '$.contents')",
        # A cell edited by hand: a bot's strategy that is no name, a bot without its contents,
        # contents without their rules.
        "json_set(config, '$.contents.bots.odds.strategy', 5)",
        "json_remove(config, '$.contents.bots.odds')",
        "json_remove(config, '$.contents.rules')",
    ],
)
def test_show_id_of_a_stored_config_it_cannot_read_says_to_show_it_with_its_file(
    tmp_path: Path, damage: str
) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    sql(db, f"UPDATE leagues SET config = {damage}")
    result = cli("--db", db, "--show", "--id", "1")
    assert result.exit_code == 2, result.output
    said = words(result.stderr)
    assert f"league id 1 ('dice') cannot be shown from what {db} holds" in said
    assert "show it with its config file (arena league FILE --show)" in said


def test_show_id_builds_no_bot_so_an_option_refused_since_still_shows(tmp_path: Path) -> None:
    # What the league was played with is shown, even when this release refuses it now.
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    sql(db, "UPDATE leagues SET config = json_set(config, '$.contents.bots.odds.options.x', 1)")
    result = cli("--db", db, "--show", "--id", "1")
    assert result.exit_code == 0, result.output
    assert "3/3 matches" in result.stdout


# -- --list, and the --show error naming the other leagues ---------------------------------------


def test_list_with_a_config_says_each_other_league_differs_from_this_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unwrapped(monkeypatch)
    db = tmp_path / "r.sqlite"
    first = played_first(tmp_path, db)
    assert cli(write(tmp_path / "more.toml", DICE + TYPE5), "--db", db).exit_code == 0
    text = words(cli(first, "--list", "--db", db).stdout)
    assert "vs this config: bots only there: type5" in text


def test_list_says_a_league_of_the_same_config_differs_by_its_stored_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unwrapped(monkeypatch)
    db = tmp_path / "r.sqlite"
    first = played_first(tmp_path, db)
    sql(db, "UPDATE leagues SET fingerprint = ?", "0" * 64)  # what an earlier release hashed
    assert cli(first, "--db", db).exit_code == 0  # not that league: a new one
    text = words(cli("--list", "--db", db).stdout)
    assert "vs id 1: stored by an earlier release under another fingerprint" in text


def test_list_compares_each_league_with_the_one_of_its_own_name_before_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    assert cli(write(tmp_path / "duels.toml", DUELS), "--db", db).exit_code == 0
    assert cli(write(tmp_path / "more.toml", DICE + TYPE5), "--db", db).exit_code == 0
    rows = json.loads(cli("--list", "--db", db, "--json").stdout)["leagues"]
    assert [row["league"] for row in rows] == ["dice", "duels", "dice"]
    assert "differences" not in rows[1]  # the first 'duels'
    assert (rows[2]["compared_with"], rows[2]["differences"]) == (1, ["bots only here: type5"])


def test_list_lists_a_league_whose_stored_config_it_cannot_read(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    assert cli(write(tmp_path / "more.toml", DICE + TYPE5), "--db", db).exit_code == 0
    sql(db, "UPDATE leagues SET config = json_remove(config, '$.contents') WHERE id = 2")
    listed = cli("--list", "--db", db, "--json")
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)["leagues"]
    assert [row["id"] for row in rows] == [1, 2] and "differences" not in rows[1]
    assert cli("--list", "--db", db).exit_code == 0


def test_list_shows_the_first_8_hex_digits_of_a_fingerprint(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    (row,) = json.loads(cli("--list", "--db", db, "--json").stdout)["leagues"]
    text = cli("--list", "--db", db).stdout
    assert row["fingerprint"][:8] in text and row["fingerprint"][:9] not in text


def test_list_shows_a_seed_with_brackets_as_written(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db, DICE.replace("games = 4", 'seed = "s[red]x"\ngames = 4'))
    assert "s[red]x" in cli("--list", "--db", db).stdout


def test_show_of_another_config_names_the_show_id_of_each_league_of_its_name(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    played_first(tmp_path, db)
    assert cli(write(tmp_path / "more.toml", DICE + TYPE5), "--db", db).exit_code == 0
    other = DICE + '[[bots]]\nname = "guesser"\nbot = "random-guess"\n'
    result = cli(write(tmp_path / "other.toml", other), "--db", db, "--show")
    assert result.exit_code == 2
    said = words(result.stderr)
    assert f"arena league --db {db} --show --id 1 does" in said
    assert f"arena league --db {db} --show --id 2 does" in said


# -- a config's problems, all at once --------------------------------------------------------------


def test_the_problems_of_bot_config_files_are_said_with_those_of_the_league_file(
    tmp_path: Path,
) -> None:
    first = write(tmp_path / "first-bot.toml", "psycology = 0.3\n")
    second = write(tmp_path / "second-bot.toml", "guesss = 'odds'\n")
    text = (
        'name = "x"\ngame = "liars-dice"\n'
        '[[bots]]\nname = "a"\nbot = "random-guess"\noptions = { psychology = 2.0 }\n'
        f'[[bots]]\nname = "b"\nbot = "random-guess"\nconfig = "{first}"\n'
        f'[[bots]]\nname = "c"\nbot = "random-guess"\nconfig = "{second}"\n'
    )
    league = tmp_path / "league.toml"
    with pytest.raises(LeagueConfigError) as refused:
        load_league(write(league, text))
    message = str(refused.value)
    assert message.startswith(f"{league}: bot 1 ('a'): ")
    assert f"{first}: unknown liar's dice bot option 'psycology'" in message
    assert f"(the config of bot 2 ('b') in {league})" in message
    assert f"{second}: unknown liar's dice bot option 'guesss'" in message
    assert f"(the config of bot 3 ('c') in {league})" in message


def test_a_ruleset_that_cannot_be_read_is_said_with_the_bots_problems(tmp_path: Path) -> None:
    text = (
        'name = "x"\ngame = "liars-dice"\nruleset = "no/such.toml"\n'
        '[[bots]]\nname = "random-guess"\n'
        '[[bots]]\nname = "mine"\nbot = "random-guess"\noptions = { psycology = 0.3 }\n'
    )
    with pytest.raises(LeagueConfigError) as refused:
        load_league(write(tmp_path / "league.toml", text))
    message = str(refused.value)
    assert "no/such.toml" in message
    assert "bot 2 ('mine'): unknown liar's dice bot option 'psycology'" in message


def test_a_bot_that_keeps_state_through_an_unlisted_option_is_refused_once_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The safety net for a learning strategy not (yet) in STATE_OPTIONS: its built bot says
    # that it keeps state, and the league refuses it all the same.
    monkeypatch.setattr(config_bots, "STATE_OPTIONS", {})
    tables = tmp_path / "tables"
    text = (
        'name = "x"\ngame = "liars-dice"\n[[bots]]\nname = "random-guess"\n'
        f'[[bots]]\nname = "learner"\nbot = "bayes"\noptions = {{ tables_dir = "{tables}" }}\n'
    )
    with pytest.raises(LeagueConfigError) as refused:
        load_league(write(tmp_path / "league.toml", text))
    assert f"bot 2 ('learner') keeps state between runs: tables_dir '{tables}'" in str(
        refused.value
    )
