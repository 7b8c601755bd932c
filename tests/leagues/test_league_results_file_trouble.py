"""The results file and the records on a machine that misbehaves: nothing stored is lost, and
every stop says what to do next.

A results file removed while a league runs is written back (one warning); one replaced by
another file is left alone and the league's results are saved beside it. A ``--show`` of a
read-only file leaves nothing that stops the next run, and a writable open gets past stale
read-only -wal and -shm files without removing them. A match whose ``games`` rows were deleted
is damaged. A record is on disk before its match is stored. A failed store or record says the
stored matches are kept and gives the command that resumes; a league on a server that could not
play every match gives the command that retries; a ``--show`` whose bot config file is gone
gives the ``--show --id`` that shows the stored league.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import arena.cli.league
import arena.leagues.play
from arena.cli.main import app
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.runner import LeagueIncompleteError, LeagueRun, open_league
from arena.store import ResultStore, StoredLeague, StoreError
from arena.store_open import ResultsReplacedError

THREE_BOTS = """
name = "dice"
game = "liars-dice"
games = 4
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
[[bots]]
name = "bayes"
"""
"""Three matches of four games, played in this process (monkeypatches reach them)."""

MATCHES = ["random-guess vs probability", "random-guess vs bayes", "probability vs bayes"]

WAIT_S = 300.0
"""How long a command run in a subprocess may take before the test gives up (never timed)."""


def a_config(tmp_path: Path, text: str = THREE_BOTS, name: str = "dice.toml") -> Path:
    config = tmp_path / name
    config.write_text(text, encoding="utf-8")
    return config


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(app, ["league", *args])


def stored_keys(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as connection:
        return [row[0] for row in connection.execute("SELECT key FROM matches ORDER BY idx")]


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def an_outcome(index: int, games: int = 1) -> MatchOutcome:
    bots = ("a", f"b{index}")
    rows = [GameOutcome(game, 0, {"a": 1.0, f"b{index}": 0.0}) for game in range(games)]
    return MatchOutcome(MatchPlan(index, bots, "seed"), rows, {"games": games}, 1.0)


def a_league(store: ResultStore) -> StoredLeague:
    return store.open_league("l", "liars-dice", "seed", "fingerprint", {"games": 1})


def keys_in(path: Path) -> list[str]:
    with ResultStore(path, read_only=True) as store:
        (league,) = store.leagues()
        return [match.plan.key for match in store.matches(league)]


def after_saves(
    monkeypatch: pytest.MonkeyPatch, count: int, then: Callable[[ResultStore], None]
) -> None:
    """Run ``then`` once, right after the ``count``-th match a league stores."""
    original = ResultStore.save_match
    saved = {"matches": 0}

    def save_match(self: ResultStore, *args: Any, **kwargs: Any) -> bool:
        stored = original(self, *args, **kwargs)
        saved["matches"] += 1
        if saved["matches"] == count:
            then(self)
        return stored

    monkeypatch.setattr(ResultStore, "save_match", save_match)


def second_store_fails(
    monkeypatch: pytest.MonkeyPatch, error: Callable[[ResultStore, MatchOutcome], Exception]
) -> None:
    """The store of the league's second match (index 1) raises ``error(store, outcome)``; the
    others are stored as usual."""
    original = ResultStore.save_match

    def save_match(
        self: ResultStore, league: StoredLeague, outcome: MatchOutcome, **kw: Any
    ) -> bool:
        if outcome.plan.index == 1:
            raise error(self, outcome)
        return original(self, league, outcome, **kw)

    monkeypatch.setattr(ResultStore, "save_match", save_match)


# -- 1. a results file removed or replaced while in use ---------------------------------------


def test_a_results_file_removed_while_in_use_is_written_back_with_one_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    warnings: list[str] = []
    with ResultStore(path, on_warning=warnings.append) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        path.unlink()
        store.save_match(league, an_outcome(1))  # checked after the write: kept too
        assert path.is_file() and len(warnings) == 1
        assert warnings[0].startswith(f"{path} was removed") and "nothing lost" in warnings[0]
        store.save_match(league, an_outcome(2))
        path.unlink()  # after the last write: closing writes it back
    assert len(warnings) == 2
    assert keys_in(path) == ["a vs b0", "a vs b1", "a vs b2"]
    # Only the file: nothing of the removed one is left beside it, nor a copy.
    assert sorted(each.name for each in tmp_path.iterdir()) == ["r.sqlite"]


def test_a_results_file_replaced_while_in_use_is_left_alone_and_ours_saved_beside(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        path.rename(tmp_path / "elsewhere.sqlite")
        path.write_text("another file", encoding="utf-8")
        with pytest.raises(ResultsReplacedError) as caught:
            store.save_match(league, an_outcome(1))
        saved = caught.value.saved
        assert saved.parent == tmp_path and saved.name.startswith("r.saved-")
        assert str(caught.value).startswith(f"{path} was replaced by another file")
        assert f"resume with --db {saved}" in str(caught.value)
        store.save_match(league, an_outcome(2))  # the store goes on writing the copy
    assert path.read_text(encoding="utf-8") == "another file"
    assert keys_in(saved) == ["a vs b0", "a vs b1", "a vs b2"]
    # The -wal and -shm of the file that left were taken with it, not left beside the other.
    assert not (tmp_path / "r.sqlite-wal").exists() and not (tmp_path / "r.sqlite-shm").exists()


def test_a_league_whose_results_file_is_removed_mid_run_keeps_every_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = a_config(tmp_path), tmp_path / "rm.sqlite"
    after_saves(monkeypatch, 1, lambda _store: db.unlink())
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 0, result.output
    warning = [line for line in lines_of(result.stderr) if line.startswith("warning:")]
    assert warning == [
        f"warning: {db} was removed while the league used it: what it held is written back "
        "to it, nothing lost"
    ]
    assert stored_keys(db) == MATCHES
    again = run_cli(str(config), "--db", str(db))
    assert again.exit_code == 0 and "0 of 3 matches to play, 3 already stored" in again.stderr


def test_a_league_whose_results_file_is_replaced_mid_run_stops_with_the_file_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = a_config(tmp_path), tmp_path / "rm.sqlite"

    def replace(_store: ResultStore) -> None:
        db.unlink()
        db.write_text("another file", encoding="utf-8")

    after_saves(monkeypatch, 1, replace)
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 2, result.output
    *_, resume, error = lines_of(result.stderr)
    (saved,) = tmp_path.glob("rm.saved-*.sqlite")
    assert resume == f"to resume: arena league {config} --db {saved}"
    assert error.startswith(f"error: {db} was replaced by another file") and str(saved) in error
    assert db.read_text(encoding="utf-8") == "another file"
    # The match stored when the change was seen is in the copy too.
    assert stored_keys(saved) == MATCHES[:2]
    again = run_cli(str(config), "--db", str(saved))
    assert again.exit_code == 0 and stored_keys(saved) == MATCHES


# -- 2. a --show of a read-only file, and the run after it --------------------------------------

NO_OVERRIDE = "-dac_override,-dac_read_search,-fowner"


@pytest.fixture
def as_plain_user() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run a command as a user the permission bits stop: this one, or, for root (whom they do
    not stop), root without the capabilities that pass them (``setpriv``; the files it makes
    are still root's, as a user's own are that user's). Skipped as root without setpriv."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        drop = [f"--inh-caps={NO_OVERRIDE}", f"--bounding-set={NO_OVERRIDE}"]
        if setpriv is None or subprocess.run([setpriv, *drop, "true"], check=False).returncode:
            pytest.skip("running as root, and setpriv cannot drop what passes permission bits")
        prefix = [setpriv, *drop]

    def run(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *command],
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            check=False,
        )

    return run


CLI = "from arena.cli.main import main; main()"


def test_a_show_of_a_read_only_file_leaves_nothing_that_stops_the_next_run(
    tmp_path: Path, as_plain_user: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    config, db = a_config(tmp_path), tmp_path / "r.sqlite"
    assert run_cli(str(config), "--db", str(db)).exit_code == 0
    db.chmod(0o444)
    league = [sys.executable, "-c", CLI, "league", str(config), "--db", str(db)]
    shown = as_plain_user(*league, "--show", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    db.chmod(0o644)
    again = as_plain_user(*league, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "0 of 3 matches to play, 3 already stored" in again.stderr
    # The run, a writer, removed what the reader had to make.
    assert sorted(each.name for each in tmp_path.iterdir()) == ["dice.toml", "r.sqlite"]


WRITE_AND_DIE = """
import os, sys
from pathlib import Path
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.store import ResultStore
store = ResultStore(Path(sys.argv[1]))
league = store.open_league("l", "liars-dice", "seed", "fingerprint", {"games": 1})
plan = MatchPlan(0, ("a", "b"), "seed")
store.save_match(league, MatchOutcome(plan, [GameOutcome(0, 0, {"a": 1.0, "b": 0.0})], {}, 1.0))
os._exit(0)  # no close: the committed match is in the -wal only
"""

STORE_ONE_MORE = """
import sys
from pathlib import Path
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.store import ResultStore
with ResultStore(Path(sys.argv[1])) as store:
    (league,) = store.leagues()
    plan = MatchPlan(1, ("a", "c"), "seed")
    outcome = MatchOutcome(plan, [GameOutcome(0, 0, {"a": 1.0, "c": 0.0})], {}, 1.0)
    store.save_match(league, outcome)
    print(",".join(match.plan.key for match in store.matches(league)))
"""


def test_stale_read_only_wal_and_shm_are_made_writable_and_their_changes_kept(
    tmp_path: Path, as_plain_user: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """A -wal left read-only (by a reader of an earlier release, or another program) that
    still holds a committed match: the writable open neither fails nor removes it."""
    db = tmp_path / "r.sqlite"
    died = subprocess.run([sys.executable, "-c", WRITE_AND_DIE, str(db)], check=False)
    assert died.returncode == 0
    wal, shm = tmp_path / "r.sqlite-wal", tmp_path / "r.sqlite-shm"
    assert wal.stat().st_size > 0
    for each in (wal, shm):
        each.chmod(0o444)
    stored = as_plain_user(sys.executable, "-c", STORE_ONE_MORE, str(db), cwd=tmp_path)
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout.strip() == "a vs b,a vs c"


# -- 3. a match whose games rows were deleted -----------------------------------------------


def test_a_match_missing_games_rows_is_damaged_for_show_and_resume_until_deleted(
    tmp_path: Path,
) -> None:
    config, db = a_config(tmp_path), tmp_path / "d.sqlite"
    assert run_cli(str(config), "--db", str(db)).exit_code == 0
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("DELETE FROM games WHERE match_id = 2 AND idx BETWEEN 1 AND 2")
    said = (
        f"error: {db}: cannot read the matches of 'dice': damaged match 'random-guess vs bayes' "
        "(matches id 2): its summary counts 4 games, the games table holds 2 of them; a resume "
        "plays it again once it is deleted (DELETE FROM games WHERE match_id = 2; DELETE FROM "
        "matches WHERE id = 2)"
    )
    for extra in (["--show"], ["--show", "--json"], []):
        result = run_cli(str(config), "--db", str(db), *extra)
        assert result.exit_code == 2, result.output
        assert lines_of(result.output)[-1] == said
    by_id = run_cli("--show", "--id", "1", "--db", str(db))
    assert by_id.exit_code == 2 and lines_of(by_id.output)[-1] == said
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.executescript(
            "DELETE FROM games WHERE match_id = 2; DELETE FROM matches WHERE id = 2"
        )
    resumed = run_cli(str(config), "--db", str(db))
    assert resumed.exit_code == 0, resumed.output
    assert "1 of 3 matches to play, 2 already stored" in resumed.stderr


# -- 4. a record on disk before its match is stored -----------------------------------------


def test_a_record_is_synced_before_it_is_moved_into_place_and_its_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, int]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        events.append(("fsync", os.fstat(descriptor).st_ino))
        real_fsync(descriptor)

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        events.append(("replace", os.stat(source).st_ino))
        real_replace(source, target, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    part, path = tmp_path / "m.jsonl.1.ab.part", tmp_path / "m.jsonl"
    part.write_text('{"type": "match_start"}\n', encoding="utf-8")
    record = part.stat().st_ino
    arena.leagues.play._move_into_place(part, path)
    assert path.read_text(encoding="utf-8") == '{"type": "match_start"}\n'
    assert events == [("fsync", record), ("replace", record), ("fsync", tmp_path.stat().st_ino)]


def test_every_record_of_a_league_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: set[int] = set()
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.add(os.fstat(descriptor).st_ino)
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    records = tmp_path / "records"
    result = run_cli(
        str(a_config(tmp_path)), "--db", str(tmp_path / "r.sqlite"), "--records", str(records)
    )
    assert result.exit_code == 0, result.output
    files = sorted(records.iterdir())
    assert len(files) == 3 and {each.stat().st_ino for each in files} <= synced
    assert records.stat().st_ino in synced


# -- 5. a store or record that fails: what is kept, and the command that goes on -------------


def test_a_store_that_fails_mid_run_says_what_is_kept_and_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = a_config(tmp_path), tmp_path / "fs3.sqlite"
    original = ResultStore.save_match
    second_store_fails(
        monkeypatch,
        lambda store, outcome: StoreError(
            f"{store.path}: cannot store match {outcome.plan.key!r}: disk I/O error"
        ),
    )
    result = run_cli(str(config), "--db", str(db), "--games", "3")
    assert result.exit_code == 2, result.output
    *_, resume, error = lines_of(result.stderr)
    assert resume == f"to resume: arena league {config} --db {db} --games 3"
    assert error == (
        f"error: {db}: cannot store match 'random-guess vs bayes': disk I/O error; the matches "
        f"stored so far are kept in {db}: once the cause is fixed, run the command above to "
        "go on"
    )
    assert stored_keys(db) == MATCHES[:1]
    monkeypatch.setattr(ResultStore, "save_match", original)
    again = run_cli(str(config), "--db", str(db), "--games", "3")
    assert again.exit_code == 0 and stored_keys(db) == MATCHES


def test_a_records_directory_removed_mid_run_says_so_and_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db, records = a_config(tmp_path), tmp_path / "r.sqlite", tmp_path / "recs"
    original = arena.leagues.play._MatchRecorder.close
    closed = {"records": 0}

    def close(self: Any) -> None:
        closed["records"] += 1
        if closed["records"] == 2:
            shutil.rmtree(records)  # while the second match's record is still partial
        original(self)

    monkeypatch.setattr(arena.leagues.play._MatchRecorder, "close", close)
    result = run_cli(str(config), "--db", str(db), "--records", str(records))
    assert result.exit_code == 2, result.output
    *_, resume, error = lines_of(result.stderr)
    assert resume == f"to resume: arena league {config} --db {db} --records {records}"
    assert error.startswith("error: cannot write the match record ")
    assert error.endswith(
        f": its directory {records.resolve()} is gone; the matches stored so far are kept in "
        f"{db}: once the cause is fixed, run the command above to go on"
    )
    assert stored_keys(db) == MATCHES[:1]


def test_a_refusal_before_any_match_gives_no_resume_line(tmp_path: Path) -> None:
    """Only a league that got to its matches has something to resume."""
    config, db = a_config(tmp_path), tmp_path / "r.sqlite"
    db.write_text("not a results file", encoding="utf-8")
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 2
    assert "to resume" not in result.output and "kept in" not in result.output


def test_a_league_on_a_server_that_could_not_play_every_match_gives_the_command_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = a_config(tmp_path), tmp_path / "r.sqlite"

    def play(config: Any, store: ResultStore, **_kw: Any) -> LeagueRun:
        league = open_league(config, store)
        failed = LeagueIncompleteError(
            "3 of 3 matches could not be played (run again to retry): bots absent"
        )
        failed.run = LeagueRun(config, league, [], [], 0, 0, 0.0)
        raise failed

    monkeypatch.setattr(arena.cli.league, "_play", play)
    server, seed = "ws://127.0.0.1:8765", "ab" * 32  # a league on a server needs a secret seed
    result = run_cli(str(config), "--db", str(db), "--server", server, "--seed", seed)
    assert result.exit_code == 2, result.output
    *_, retry, error = lines_of(result.stderr)
    # The secret seed stays off the screen, as in every command line the league prints.
    assert retry == (
        f"to retry: arena league {config} --db {db} --seed <the secret seed> --server {server}"
    )
    assert error.startswith("error: 3 of 3 matches could not be played")


# -- 6. --show when a bot config file is gone ------------------------------------------------

WITH_A_CONFIG_FILE = """
name = "dice"
game = "liars-dice"
games = 4
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "tuned"
bot = "bayes"
config = "tuned.toml"
"""


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # a bot config is read from the current directory
    yield tmp_path


def test_a_show_whose_bot_config_is_gone_gives_the_show_id_that_works(in_tmp: Path) -> None:
    config = a_config(in_tmp, WITH_A_CONFIG_FILE)
    (in_tmp / "tuned.toml").write_text("", encoding="utf-8")
    assert run_cli(str(config), "--db", "y.sqlite").exit_code == 0
    (in_tmp / "tuned.toml").unlink()
    shown = run_cli(str(config), "--db", "y.sqlite", "--show")
    assert shown.exit_code == 2
    (error,) = lines_of(shown.output)
    assert "cannot read bot config tuned.toml" in error
    assert error.endswith(
        "; to show league 'dice' as y.sqlite holds it, without its files: "
        "arena league --db y.sqlite --show --id 1"
    )
    by_id = run_cli("--db", "y.sqlite", "--show", "--id", "1")
    assert by_id.exit_code == 0 and "random-guess vs tuned" in by_id.stdout
    # Of a name the file does not hold: how to see what it holds.
    other = a_config(in_tmp, WITH_A_CONFIG_FILE.replace('"dice"', '"other"'), "other.toml")
    (error,) = lines_of(run_cli(str(other), "--db", "y.sqlite", "--show").output)
    assert error.endswith(
        "; arena league --list --db y.sqlite lists the leagues y.sqlite holds, and arena league "
        "--db y.sqlite --show --id N shows one as it was stored, without its files"
    )
    # A run (not --show) is told only what to fix: it needs the file to play.
    played = run_cli(str(config), "--db", "y.sqlite")
    assert played.exit_code == 2 and "--show --id" not in played.output
