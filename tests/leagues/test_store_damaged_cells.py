"""A results file whose cells hold what the league never writes (CLI audit M4): valid JSON of
another shape, text where a number belongs. ``league --show``, ``--show --json`` and a resume
each refuse it in one line naming the file and the damaged cell, never with a traceback, as
they refuse a file whose JSON does not parse."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.store import ResultStore, StoreError
from tests.leagues.test_store_robust import results_file

MATCH = "matches SET {} WHERE id = 1"
GAME = "games SET scores = {} WHERE match_id = 1 AND idx = 0"
BOTH = ("random-guess", "probability")

DAMAGES: dict[str, tuple[str, str]] = {
    # The audit's table.
    "scores a list": (GAME.format("'[1,2]'"), "is not a JSON object"),
    "scores miss a bot": (
        GAME.format("""'{"zzz": 1.0, "probability": 0.0}'"""),
        "scores for 'probability', 'zzz', not for the match's 'random-guess', 'probability'",
    ),
    "a score is text": (
        GAME.format("""'{"random-guess": "a", "probability": 0.0}'"""),
        "of 'random-guess': 'a' is not a number",
    ),
    "seconds is text": (MATCH.format("seconds = 'abc'"), "matches.seconds (id 1): 'abc'"),
    # What the audit named as the refused case: JSON that does not parse.
    "scores not JSON": (GAME.format("'x'"), "JSON in games.scores (match_id 1, idx 0)"),
    # Every other cell read back.
    "a score NaN": (
        GAME.format("""'{"random-guess": NaN, "probability": 0.0}'"""),
        "NaN is not standard JSON",
    ),
    "a score true": (
        GAME.format("""'{"random-guess": true, "probability": 0.0}'"""),
        "True is not a number",
    ),
    "a score beyond a float": (
        GAME.format("""'{"random-guess": 1""" + "0" * 400 + """, "probability": 0}'"""),
        "is not a number",
    ),
    "scores a blob": (GAME.format("X'00'"), "is not JSON text"),
    "scores an extra bot": (
        GAME.format("""'{"random-guess": 1.0, "probability": 0.0, "x": 0.0}'"""),
        "scores for 'probability', 'random-guess', 'x'",
    ),
    "bots text": (MATCH.format("""bots = '"a vs b"'"""), "is not a list of bot names"),
    "bots numbers": (MATCH.format("bots = '[1, 2]'"), "is not a list of bot names"),
    "bots empty": (MATCH.format("bots = '[]'"), "is not a list of bot names"),
    "summary a list": (MATCH.format("summary = '[]'"), "matches.summary (id 1): [] is not a"),
    "penalties a list": (MATCH.format("penalties = '[0]'"), "matches.penalties (id 1)"),
    "a penalty text": (
        MATCH.format("""penalties = '{"random-guess": "x"}'"""),
        "of 'random-guess': 'x' is not an integer",
    ),
    "match idx text": (MATCH.format("idx = 'x'"), "matches.idx (id 1): 'x' is not an integer"),
    # A column of TEXT affinity turns a number into text: only a blob is not text there.
    "match seed a blob": (MATCH.format("seed = X'07'"), "matches.seed (id 1): b'\\x07' is not"),
    "record a blob": (MATCH.format("record = X'05'"), "matches.record (id 1): b'\\x05' is not"),
    "game idx text": (
        "games SET idx = 'x' WHERE match_id = 1 AND idx = 0",
        "games.idx (match_id 1, idx 'x')",
    ),
    "game unit a fraction": (
        "games SET unit = 1.5 WHERE match_id = 1 AND idx = 0",
        "games.unit (match_id 1, idx 0): 1.5 is not an integer",
    ),
    "league config a list": (
        "leagues SET config = '[1]' WHERE id = 1",
        "leagues.config (id 1): [1] is not a JSON object",
    ),
    "league created a blob": (
        "leagues SET created = X'03' WHERE id = 1",
        "leagues.created (id 1): b'\\x03' is not text",
    ),
}

MODES = {"show": ["--show"], "show json": ["--show", "--json"], "resume": []}


def one_line_error(output: str, path: Path) -> str:
    """The one line of error in ``output``, naming ``path``; no traceback. (A resume says how
    many matches are stored before it reads them.)"""
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and str(path) in errors[0], output
    assert "Traceback" not in output
    return errors[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A results file of a finished two-bot league (one match, two games), and its config."""
    return results_file(tmp_path_factory.mktemp("played"))


def damaged_copy(played: tuple[Path, Path], tmp_path: Path, update: str) -> Path:
    db = tmp_path / "damaged.sqlite"
    shutil.copyfile(played[0], db)
    with closing(sqlite3.connect(db)) as connection, connection:
        assert connection.execute(f"UPDATE {update}").rowcount == 1
    return db


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_cell_of_the_wrong_shape_is_one_line_naming_the_file_and_the_cell(
    played: tuple[Path, Path], tmp_path: Path, damage: str, mode: str
) -> None:
    update, why = DAMAGES[damage]
    db = damaged_copy(played, tmp_path, update)
    args = ["league", str(played[1]), "--db", str(db), "--games", "2", *MODES[mode]]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, (result.output, result.exception)
    error = one_line_error(result.output, db)
    assert "damaged" in error and why in error, error


def test_the_undamaged_file_reads_back_as_stored(played: tuple[Path, Path], tmp_path: Path) -> None:
    # The checks refuse only what the league never writes.
    db = tmp_path / "copy.sqlite"
    shutil.copyfile(played[0], db)
    with ResultStore(db, read_only=True) as store:
        (league,) = store.leagues()
        (match,) = store.matches(league)
        assert store.stored_keys(league) == {"random-guess vs probability"}
    assert match.plan.bots == BOTH
    assert [set(game.scores) for game in match.games] == [set(BOTH)] * 2
    assert all(isinstance(score, float) for game in match.games for score in game.scores.values())
    assert isinstance(match.seconds, float) and match.seconds >= 0
    assert isinstance(match.summary, dict) and set(match.penalties) <= set(BOTH)


def test_a_match_key_that_is_not_text_is_refused_where_keys_are_read(
    played: tuple[Path, Path], tmp_path: Path
) -> None:
    # Only a resume reads the keys (which matches are stored): --show never does.
    db = damaged_copy(played, tmp_path, MATCH.format("key = X'05'"))
    with ResultStore(db, read_only=True) as store:
        (league,) = store.leagues()
        with pytest.raises(
            StoreError, match=r"damaged matches\.key \(id 1\): b'\\x05' is not text"
        ):
            store.stored_keys(league)
    result = CliRunner().invoke(app, ["league", str(played[1]), "--db", str(db), "--games", "2"])
    assert result.exit_code == 2, (result.output, result.exception)
    one_line_error(result.output, db)
