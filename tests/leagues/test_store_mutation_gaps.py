"""Rules of the results file and of `arena league`'s report that a plausible slip could break
with the rest of the suite still green (found by a mutation audit of `arena.store`,
`arena.store_open` and `arena.cli.league`)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.league import _read_only
from arena.cli.main import app
from arena.leagues.config import LeagueConfig, load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.runner import open_league, run_league
from arena.store import ReadOnlyStoreError, ResultStore, StoreError

DICE = """
name = "dice"
game = "liars-dice"
games = 3
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
[[bots]]
name = "type5"
"""
"""A three-match liar's dice league of three games a match."""


class _Stop(Exception):
    """Stops a league after its first stored match."""


def config_file(tmp_path: Path, text: str = DICE) -> Path:
    path = tmp_path / "dice.toml"
    path.write_text(text, encoding="utf-8")
    return path


def partly_played(tmp_path: Path) -> tuple[Path, Path, LeagueConfig]:
    """A results file holding the first of the league's three matches, its config file and
    config."""
    path = config_file(tmp_path)
    config = load_league(path)
    db = tmp_path / "r.sqlite"

    def stop(_outcome: MatchOutcome) -> None:
        raise _Stop

    with ResultStore(db) as store, pytest.raises(_Stop):
        run_league(config, store, on_match=stop)
    return db, path, config


def league_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["league", *args])
    return result.exit_code, result.stdout


def an_outcome(index: int, bots: tuple[str, str] = ("a", "b")) -> MatchOutcome:
    plan = MatchPlan(index, bots, f"seed/{index}")
    return MatchOutcome(plan, [GameOutcome(0, 0, {bots[0]: 1.0, bots[1]: 0.0})], {}, 1.0)


# -- the store --------------------------------------------------------------------------------


def test_matches_read_back_in_plan_order_whatever_order_they_were_stored_in(
    tmp_path: Path,
) -> None:
    # Workers finish in any order; ResultStore.matches: "every stored match ... in plan order".
    with ResultStore(tmp_path / "r.sqlite") as store:
        league = store.open_league("l", "liars-dice", "s", "f", {})
        for index, bots in ((2, ("b", "c")), (0, ("a", "b")), (1, ("a", "c"))):
            store.save_match(league, an_outcome(index, bots))
        assert [m.plan.index for m in store.matches(league)] == [0, 1, 2]


def test_a_resumed_league_keeps_when_it_finished(tmp_path: Path) -> None:
    # ResultStore.mark_finished: when the league's last match was stored, "kept on later
    # resumes".
    path = config_file(tmp_path)
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        assert run_league(load_league(path), store).complete
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE leagues SET finished = '2000-01-01T00:00:00+00:00'")
    with ResultStore(db) as store:
        assert run_league(load_league(path), store).played == 0
        (league,) = store.leagues()
    assert league.finished == "2000-01-01T00:00:00+00:00"


def damaged(tmp_path: Path, update: str) -> Path:
    """A results file of one stored match (bots a and b) with one cell changed."""
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        store.save_match(store.open_league("l", "liars-dice", "s", "f", {}), an_outcome(0))
    with closing(sqlite3.connect(db)) as connection, connection:
        assert connection.execute(f"UPDATE {update}").rowcount == 1
    return db


@pytest.mark.parametrize(
    ("update", "message"),
    [
        # LEAGUES.md: a value the league never writes is damage, refused naming the cell.
        ("""matches SET penalties = '{"a": true}'""", "of 'a': True is not an integer"),
        ("""games SET scores = '{"a": 1e999, "b": 0}'""", "of 'a': inf is not a number"),
        ("""games SET scores = '{"a": -1e999, "b": 0}'""", "of 'a': -inf is not a number"),
    ],
)
def test_a_value_the_league_never_writes_is_refused(
    tmp_path: Path, update: str, message: str
) -> None:
    db = damaged(tmp_path, update)
    with ResultStore(db) as store:
        (league,) = store.leagues()
        with pytest.raises(StoreError, match=message):
            store.matches(league)


def test_a_finished_time_that_is_not_text_is_refused(tmp_path: Path) -> None:
    db = damaged(tmp_path, "leagues SET finished = X'01' WHERE id = 1")
    with ResultStore(db) as store, pytest.raises(StoreError, match=r"leagues\.finished \(id 1\)"):
        store.leagues()


def test_a_file_of_the_next_schema_is_refused(tmp_path: Path) -> None:
    # LEAGUES.md: "A file written by a newer schema ... is refused"; this one is version 1.
    newer = tmp_path / "newer.sqlite"
    with closing(sqlite3.connect(newer)) as connection:
        connection.execute("PRAGMA user_version = 2")
    with pytest.raises(StoreError, match="newer than this arena's"):
        ResultStore(newer)


# -- what `arena league` reports --------------------------------------------------------------


def test_json_counts_the_matches_resumed_and_played(tmp_path: Path) -> None:
    path = config_file(tmp_path)
    db = str(tmp_path / "r.sqlite")
    code, first = league_cli(str(path), "--db", db, "--json")
    assert code == 0, first
    code, again = league_cli(str(path), "--db", db, "--json")
    assert code == 0, again
    counts = ("matches_planned", "matches_stored", "matches_resumed", "matches_played")
    assert [json.loads(first)[key] for key in counts] == [3, 3, 0, 3]
    assert [json.loads(again)[key] for key in counts] == [3, 3, 3, 0]


def test_an_incomplete_league_is_shown_as_incomplete(tmp_path: Path) -> None:
    db, path, _config = partly_played(tmp_path)
    code, shown = league_cli(str(path), "--db", str(db), "--show", "--json")
    assert code == 0, shown
    data = json.loads(shown)
    assert (data["matches_planned"], data["matches_stored"]) == (3, 1)
    code, text = league_cli(str(path), "--db", str(db), "--show")
    assert code == 0, text
    assert "1/3 matches" in text
    assert "incomplete: run again to play the rest" in " ".join(text.split())


def test_a_read_only_file_holding_part_of_the_league_is_not_called_complete(
    tmp_path: Path,
) -> None:
    # LEAGUES.md: on a file it cannot write the league says it is complete only "for a league
    # stored complete there".
    db, _path, config = partly_played(tmp_path)
    message = _read_only(config, db, ReadOnlyStoreError(f"{db}: attempt to write"))
    assert "is complete" not in message and "--show" in message


def test_json_names_the_default_games_a_match(tmp_path: Path) -> None:
    # A config that leaves `games` out plays the default: 500 for liar's dice (LEAGUES.md).
    path = config_file(tmp_path, DICE.replace("games = 3\n", ""))
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        open_league(load_league(path), store)  # stored, no match played yet
    code, shown = league_cli(str(path), "--db", str(db), "--show", "--json")
    assert code == 0, shown
    assert json.loads(shown)["games_per_match"] == 500


def test_show_with_restart_is_refused_and_forgets_nothing(tmp_path: Path) -> None:
    # LEAGUES.md: "--show with --restart, which would forget what it shows" is an error.
    db, path, _config = partly_played(tmp_path)
    result = CliRunner().invoke(app, ["league", str(path), "--db", str(db), "--show", "--restart"])
    assert result.exit_code == 2
    assert "--restart" in result.output
    with ResultStore(db) as store:
        (league,) = store.leagues()
        assert len(store.matches(league)) == 1


def test_the_matches_won_column_shows_each_bots_match_points(tmp_path: Path) -> None:
    # LEAGUES.md "Matches won": a match whose interval shows its winner counts for that bot.
    path = config_file(tmp_path)
    db = str(tmp_path / "r.sqlite")
    code, played = league_cli(str(path), "--db", db, "--json")
    assert code == 0, played
    expected = {
        row["bot"]: f"{row['match_points']:g}/{row['matches']}"
        for row in json.loads(played)["standings"]
    }
    won = sum(len(match["winners"]) for match in json.loads(played)["matches"])
    assert sum(row["match_points"] for row in json.loads(played)["standings"]) == won
    code, text = league_cli(str(path), "--db", db, "--show")
    assert code == 0, text
    shown = {
        words[1]: words[-1]
        for words in map(str.split, text.splitlines())
        if len(words) >= 6 and words[1] in expected
    }
    assert shown == expected
