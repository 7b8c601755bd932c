"""The results file under trouble: another program reading or locking it, numbers JSON has no
words for, a damaged file, another program's SQLite file, a file ``--show`` must only read.
Every failure is one line naming the file, never a traceback, and nothing is written into a file
that is not ours."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.store
from arena.cli.main import app
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.runner import run_league
from arena.store import ResultStore, StoredLeague, StoreError
from tests.leagues.test_league_cli import DICE as CLI_DICE
from tests.leagues.test_league_runner import DICE, MAHJONG, league

SHORT_S = 0.2
"""A lock wait for tests that expect it to run out."""


def lock_for_writing(path: Path) -> sqlite3.Connection:
    """Another connection holding the file's write lock until it commits."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def a_league(store: ResultStore) -> StoredLeague:
    return store.open_league("l", "liars-dice", "seed", "fingerprint", {"games": 1})


def an_outcome(summary: dict[str, object] | None = None) -> MatchOutcome:
    plan = MatchPlan(0, ("a", "b"), "seed")
    return MatchOutcome(plan, [GameOutcome(0, 0, {"a": 1.0, "b": 0.0})], summary or {}, 1.0)


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def contents(path: Path) -> tuple[int, str, list[tuple[str, str]]]:
    """The file's user_version, journal mode and schema objects."""
    with closing(sqlite3.connect(path)) as db:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        objects = db.execute("SELECT type, name FROM sqlite_master ORDER BY name").fetchall()
    return version, mode, objects


def one_line_error(output: str, path: Path) -> None:
    """``output`` is one line of error naming ``path`` (a stopped progress bar may leave a
    blank line before it), no traceback."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert str(path) in lines[0]


def results_file(tmp_path: Path, name: str = "r.sqlite") -> tuple[Path, Path]:
    """A results file holding a played two-game league, and that league's config."""
    config = tmp_path / "dice.toml"
    config.write_text(CLI_DICE, encoding="utf-8")
    db = tmp_path / name
    played = CliRunner().invoke(app, ["league", str(config), "--db", str(db), "--games", "2"])
    assert played.exit_code == 0, played.output
    return db, config


# -- locks ------------------------------------------------------------------------------------


def test_a_reader_holding_a_read_transaction_does_not_stop_the_league(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1, games=2)
    path = tmp_path / "r.sqlite"
    with ResultStore(path, timeout_s=SHORT_S) as store:
        # Someone runs a long query in another program while the league plays.
        reader = sqlite3.connect(path, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM games").fetchone()
        run = run_league(config, store)
        reader.close()
    assert run.complete and run.played == 3
    assert contents(path)[1] == "wal"


def test_a_write_lock_held_too_long_is_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path, timeout_s=SHORT_S) as store:
        stored = a_league(store)
        other = lock_for_writing(path)
        with pytest.raises(StoreError) as raised:
            store.save_match(stored, an_outcome())
        message = str(raised.value)
        assert str(path) in message and "'a vs b'" in message and "locked" in message
        assert "\n" not in message
        other.execute("COMMIT")
        other.close()
        # The failed attempt left nothing behind: the match can be stored now.
        assert store.save_match(stored, an_outcome()) is True
        assert len(store.matches(stored)) == 1


def test_a_write_waits_for_a_lock_released_within_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite's own wait made short, so the store's retries do the waiting.
    monkeypatch.setattr(arena.store, "_BUSY_WAIT_S", 0.01)
    path = tmp_path / "r.sqlite"
    with ResultStore(path, timeout_s=60) as store:
        stored = a_league(store)
        locked, release = threading.Event(), threading.Event()

        def hold() -> None:
            other = lock_for_writing(path)
            locked.set()
            release.wait(60)
            other.execute("COMMIT")
            other.close()

        holder = threading.Thread(target=hold)
        holder.start()
        locked.wait(60)
        # Released while the store waits for it: a lock that goes within timeout_s costs no match.
        timer = threading.Timer(0.3, release.set)
        timer.start()
        try:
            assert store.save_match(stored, an_outcome()) is True
        finally:
            release.set()
            holder.join()
            timer.cancel()


# -- JSON -------------------------------------------------------------------------------------


def test_undefined_numbers_are_stored_as_json_null(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    summary: dict[str, object] = {
        "ci": {"low": -math.inf, "high": math.inf},
        "list": [math.nan, 1.5, (math.inf,)],
    }
    with ResultStore(path) as store:
        stored = a_league(store)
        store.save_match(stored, an_outcome(summary))
        (back,) = store.matches(stored)
    assert back.summary == {"ci": {"low": None, "high": None}, "list": [None, 1.5, [None]]}
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT json_valid(summary) FROM matches").fetchone() == (1,)
        assert db.execute("SELECT json_extract(summary, '$.list[1]') FROM matches").fetchone() == (
            1.5,
        )


def test_a_one_round_mahjong_league_stores_standard_json(tmp_path: Path) -> None:
    # One round: a Student-t interval of one value is undefined (±inf in the match's summary).
    config = league(tmp_path, MAHJONG, jobs=1, games=4)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        run_league(config, store)

    def no_constants(name: str) -> object:
        raise AssertionError(f"{name} stored in the results file")

    with closing(sqlite3.connect(path)) as db:
        for table, column in (
            ("matches", "summary"),
            ("matches", "penalties"),
            ("games", "scores"),
        ):
            for (text,) in db.execute(f"SELECT {column} FROM {table}"):
                json.loads(text, parse_constant=no_constants)
        lows = db.execute(
            "SELECT json_extract(summary, '$.points_difference_ci95.low') FROM matches"
        ).fetchall()
    assert lows == [(None,)] * 3


# -- damaged and foreign files ----------------------------------------------------------------


def damage(path: Path) -> None:
    """Garbage over every page but the first (the schema stays readable, the data does not)."""
    size = path.stat().st_size
    page = 4096
    assert size > page, "too small a file to damage"
    noise = random.Random(1)
    with path.open("r+b") as file:
        file.seek(page)
        file.write(bytes(noise.randrange(256) for _ in range(size - page)))


@pytest.mark.parametrize("show", [True, False], ids=["show", "play"])
def test_a_damaged_file_is_one_line_of_error(tmp_path: Path, show: bool) -> None:
    db, config = results_file(tmp_path)
    damage(db)
    args = ["league", str(config), "--db", str(db), "--games", "2"]
    result = CliRunner().invoke(app, [*args, "--show"] if show else args)
    assert result.exit_code == 2, result.output
    one_line_error(result.output, db)
    assert "malformed" in result.output


def test_every_store_method_turns_a_damaged_file_into_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        stored = a_league(store)
        for index in range(40):  # enough to fill more than the first page
            outcome = an_outcome({"padding": "x" * 200})
            outcome.plan = MatchPlan(index, ("a", f"b{index}"), "seed")
            store.save_match(stored, outcome)
    damage(path)
    with ResultStore(path) as store:
        calls = [
            lambda: store.league("l"),
            store.leagues,
            lambda: store.matches(stored),
            lambda: store.stored_keys(stored),
            lambda: store.save_match(stored, an_outcome()),
            lambda: store.mark_finished(stored),
            lambda: store.clear_league(stored),
        ]
        for call in calls:
            with pytest.raises(StoreError, match=str(path)):
                call()


FOREIGN = {
    "our table name, other columns": "CREATE TABLE matches(a, b)",
    "other tables": "CREATE TABLE foo(x)",
    "a view": "CREATE VIEW answer AS SELECT 42",
    "ours beside another's": "CREATE TABLE games(match_id, idx, unit, scores); CREATE TABLE x(y)",
}


@pytest.fixture(params=list(FOREIGN), ids=list(FOREIGN))
def foreign(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Another program's SQLite file (user_version 0), in the default journal mode."""
    path = tmp_path / "foreign.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(FOREIGN[request.param])
    return path


def test_a_foreign_file_is_refused_and_left_as_it_was(foreign: Path) -> None:
    before, was = snapshot(foreign), contents(foreign)
    with pytest.raises(StoreError, match="is not an arena results file") as raised:
        ResultStore(foreign)
    assert str(foreign) in str(raised.value) and "\n" not in str(raised.value)
    assert snapshot(foreign) == before and contents(foreign) == was


@pytest.mark.parametrize("show", [True, False], ids=["show", "play"])
def test_the_cli_refuses_a_foreign_file_in_one_line(
    tmp_path: Path, foreign: Path, show: bool
) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(CLI_DICE, encoding="utf-8")
    before = snapshot(foreign)
    args = ["league", str(config), "--db", str(foreign), "--games", "2"]
    result = CliRunner().invoke(app, [*args, "--show"] if show else args)
    assert result.exit_code == 2, result.output
    one_line_error(result.output, foreign)
    assert "holds no arena results" in result.output or "not an arena results" in result.output
    assert snapshot(foreign) == before


def test_a_results_file_with_wrong_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.executescript("CREATE TABLE leagues(id, name); PRAGMA user_version = 1;")
    with pytest.raises(StoreError, match="leagues table has no column game"):
        ResultStore(path)
    with pytest.raises(StoreError, match="leagues table has no column game"):
        ResultStore(path, read_only=True)
    assert contents(path)[2] == [("table", "leagues")]


def test_a_results_file_keeps_a_users_own_tables_and_an_unfinished_schema_is_completed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        a_league(store)
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE VIEW names AS SELECT name FROM leagues")
        db.execute("CREATE TABLE notes(text)")
    with ResultStore(path) as store:
        assert [league.name for league in store.leagues()] == ["l"]
    # An interrupted first run of an older arena: some of our tables, user_version still 0.
    partial = tmp_path / "partial.sqlite"
    with closing(sqlite3.connect(partial)) as db:
        db.execute(arena.store._TABLES["leagues"])
    with ResultStore(partial) as store:
        a_league(store)
    version, mode, objects = contents(partial)
    assert (version, mode) == (1, "wal")
    assert {name for kind, name in objects if kind == "table"} == {
        "leagues",
        "matches",
        "games",
        "league_runs",
    }


# -- reading only -----------------------------------------------------------------------------


def test_show_changes_nothing_in_the_results_file(tmp_path: Path) -> None:
    db, config = results_file(tmp_path)
    # As an older arena left it: not in WAL mode. --show must not switch it.
    with closing(sqlite3.connect(db)) as other:
        assert other.execute("PRAGMA journal_mode = DELETE").fetchone() == ("delete",)
    before, was = snapshot(db), contents(db)
    shown = CliRunner().invoke(
        app, ["league", str(config), "--db", str(db), "--games", "2", "--show", "--json"]
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["matches_stored"] == 1
    assert snapshot(db) == before and contents(db) == was


def test_show_says_a_file_without_results_holds_none_and_leaves_it_alone(tmp_path: Path) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(CLI_DICE, encoding="utf-8")
    for name, script in (("empty.sqlite", ""), ("other.sqlite", "CREATE TABLE foo(x)")):
        path = tmp_path / name
        with closing(sqlite3.connect(path)) as db:
            db.executescript(script)
        before, was = snapshot(path), contents(path)
        result = CliRunner().invoke(app, ["league", str(config), "--db", str(path), "--show"])
        assert result.exit_code == 2, result.output
        one_line_error(result.output, path)
        assert "holds no arena results" in result.output
        assert snapshot(path) == before and contents(path) == was


def test_a_read_only_store_reads_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        stored = a_league(store)
        store.save_match(stored, an_outcome())
    before = snapshot(path)
    with ResultStore(path, read_only=True) as store:
        assert [m.plan.key for m in store.matches(stored)] == ["a vs b"]
        with pytest.raises(StoreError, match="readonly"):
            store.mark_finished(stored)
    assert snapshot(path) == before
    # A read-only connection to a WAL file would leave -wal and -shm behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite"]


# Reading as a user the permission bits stop: this user, or, for root (whom they do not stop,
# as in a CI container), the user nobody: a subprocess that starts as root, imports what it
# needs (the interpreter and the venv may lie where nobody cannot reach, such as /root), then
# drops to nobody (os.setgid, os.setuid: no way back) before it runs the code under test.

READER = "nobody"
WAIT_S = 120.0

AS_READER = """
import os, sys
uid, gid, warm, code = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
exec(warm)
if uid >= 0:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    assert os.geteuid() == uid and os.getuid() == uid
sys.argv = ["reader", *sys.argv[5:]]
exec(code)
"""


def as_reader(code: str, *args: str, cwd: Path, warm: str = "") -> subprocess.CompletedProcess[str]:
    """Run Python ``code`` (``sys.argv[1:]`` = ``args``) as a user who cannot write what this
    user made read-only: this user, or when it is root, `READER` (skipped only where there is
    none). ``warm`` runs first, before the privileges go: the imports ``code`` will need."""
    uid = gid = -1
    if os.geteuid() == 0:
        import pwd  # POSIX only, as root is

        try:
            user = pwd.getpwnam(READER)
        except KeyError:
            pytest.skip(f"running as root, and no user {READER!r} to read as")
        uid, gid = user.pw_uid, user.pw_gid
    return subprocess.run(
        [sys.executable, "-c", AS_READER, str(uid), str(gid), warm, code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory the reader (`as_reader`) can enter and read: not under pytest's tmp_path,
    which only its owner can enter."""
    base = Path(tempfile.mkdtemp(prefix="arena-store-"))
    base.chmod(0o755)
    yield base
    for directory in [base, *base.rglob("*")]:
        if directory.is_dir():
            directory.chmod(0o755)
    shutil.rmtree(base)


READ_MATCHES = """
import sys
from pathlib import Path
from arena.store import ResultStore
with ResultStore(Path(sys.argv[1]), read_only=True) as store:
    (league,) = store.leagues()
    print("\\n".join(m.plan.key for m in store.matches(league)))
"""


def test_a_read_only_store_reads_a_wal_file_in_a_directory_it_cannot_write(shared: Path) -> None:
    """SQLite cannot make the -shm file beside a WAL file there: it says SQLITE_CANTOPEN, or
    (3.40) SQLITE_READONLY_DIRECTORY, "attempt to write a readonly database"; either way the
    store reads the file as immutable."""
    directory = shared / "unwritable"
    directory.mkdir()
    path = directory / "r.sqlite"
    with ResultStore(path) as store:
        stored = a_league(store)
        store.save_match(stored, an_outcome())
    assert contents(path)[1] == "wal" and not path.with_name("r.sqlite-wal").exists()
    path.chmod(0o444)
    directory.chmod(0o555)
    before = snapshot(path)
    # Path.as_uri imports urllib.parse when first called on Python 3.13.
    warm = "import arena.store, urllib.parse"
    read = as_reader(READ_MATCHES, str(path), cwd=shared, warm=warm)
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines() == ["a vs b"]
    assert snapshot(path) == before
    assert sorted(p.name for p in directory.iterdir()) == ["r.sqlite"]


CLI = "from arena.cli.main import main; main()"
CLI_IMPORTS = """
import arena.cli.main, arena.leagues.standings, arena.matches.stats
import rich.json, scipy.special, scipy.stats
"""


@pytest.mark.parametrize("directory_writable", [False, True])
def test_a_finished_league_on_a_read_only_file_is_shown_and_a_rerun_says_use_show(
    shared: Path, directory_writable: bool
) -> None:
    config = shared / "dice.toml"
    config.write_text(CLI_DICE, encoding="utf-8")
    directory = shared / "results"
    directory.mkdir()
    db = directory / "r.sqlite"
    played = CliRunner().invoke(app, ["league", str(config), "--db", str(db), "--games", "2"])
    assert played.exit_code == 0, played.output
    db.chmod(0o444)
    directory.chmod(0o777 if directory_writable else 0o555)
    before = snapshot(db)
    league = ["league", str(config), "--db", str(db), "--games", "2"]
    shown = as_reader(CLI, *league, "--show", "--json", cwd=shared, warm=CLI_IMPORTS)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["matches_stored"] == 1
    again = as_reader(CLI, *league, cwd=shared, warm=CLI_IMPORTS)
    assert again.returncode == 2, again.stdout + again.stderr
    one_line_error(again.stderr, db)
    assert "league 'dice' is complete in" in again.stderr and "use --show" in again.stderr
    assert snapshot(db) == before


def test_sqlite_saying_it_cannot_make_the_shm_file_either_way_is_recognised() -> None:
    """What `test_a_read_only_store_reads_a_wal_file_in_a_directory_it_cannot_write` meets, by
    code: SQLITE_CANTOPEN (14) or SQLITE_READONLY_DIRECTORY (1544), not a plain SQLITE_READONLY
    (8: a write refused)."""

    def error(code: int) -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError("attempt to write a readonly database")
        exc.sqlite_errorcode = code
        return exc

    assert arena.store._no_shm_here(error(1544))
    assert arena.store._no_shm_here(error(14))
    assert not arena.store._no_shm_here(error(8))


def test_a_new_results_file_and_its_journal_are_the_owners_alone(tmp_path: Path) -> None:
    # Until a league is over the file holds its seed, from which every deal still to come follows.
    def mode(path: Path) -> int:
        return path.stat().st_mode & 0o777

    previous = os.umask(0o022)
    try:
        db = tmp_path / "r.sqlite"
        with ResultStore(db) as store:
            a_league(store)
            journal = [db.with_name(db.name + end) for end in ("-wal", "-shm")]
            assert journal[0].exists()
            assert {mode(path) for path in [db, *journal] if path.exists()} == {0o600}
        shared = tmp_path / "shared.sqlite"
        shared.touch(mode=0o644)
        with ResultStore(shared) as store:
            a_league(store)
        assert mode(shared) == 0o644  # a file that exists keeps the mode its owner gave it
    finally:
        os.umask(previous)


def test_a_results_file_named_by_a_link_to_nothing_yet_is_made_owner_only(tmp_path: Path) -> None:
    link, target = tmp_path / "link.sqlite", tmp_path / "target.sqlite"
    link.symlink_to(target)
    previous = os.umask(0o022)
    try:
        with ResultStore(link) as store:
            a_league(store)
    finally:
        os.umask(previous)
    assert target.stat().st_mode & 0o777 == 0o600


def test_a_results_file_that_cannot_be_made_names_its_path_once() -> None:
    # A directory the file cannot be made in (root may write anywhere, /proc takes no files).
    path = Path("/proc/no-such-results.sqlite")
    with pytest.raises(StoreError) as caught:
        ResultStore(path)
    assert str(caught.value).count(str(path)) == 1, caught.value


def test_a_link_that_loops_or_a_parent_that_is_a_file_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(StoreError, match="cannot use as a results database"):
        ResultStore(tmp_path / "a")
    (tmp_path / "notdir").touch()
    with pytest.raises(StoreError, match=r"File exists: '.*notdir'"):
        ResultStore(tmp_path / "notdir" / "x.sqlite")
