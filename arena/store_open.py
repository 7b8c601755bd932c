"""Opening a results file (`arena.store`): the connection, the schema, and the checks that
refuse a file that is not ours before anything is written to it.

A file another program made (its tables, and ``user_version`` 0), or ours with other columns, is
refused with a `StoreError`; a file of ours from before the schema was complete gets the missing
tables. A ``read_only`` opening changes nothing in the file (the -wal and -shm files SQLite may make
beside a read-only one are left writable to their owner: `make_companions_writable`).
The store's errors are defined here, since opening is where they are first raised.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import stat
from collections.abc import Iterable
from pathlib import Path

from arena.errors import ArenaError

SCHEMA_VERSION = 1

TABLES = {
    "leagues": """
        CREATE TABLE IF NOT EXISTS leagues (
            id          INTEGER PRIMARY KEY,
            name        TEXT NOT NULL,
            game        TEXT NOT NULL,
            seed        TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            config      TEXT NOT NULL,
            created     TEXT NOT NULL,
            finished    TEXT,
            UNIQUE (name, fingerprint)
        )""",
    "matches": """
        CREATE TABLE IF NOT EXISTS matches (
            id          INTEGER PRIMARY KEY,
            league_id   INTEGER NOT NULL REFERENCES leagues(id) ON DELETE CASCADE,
            idx         INTEGER NOT NULL,
            key         TEXT NOT NULL,
            bots        TEXT NOT NULL,
            seed        TEXT NOT NULL,
            summary     TEXT NOT NULL,
            penalties   TEXT NOT NULL,
            seconds     REAL NOT NULL,
            record      TEXT,
            finished    TEXT NOT NULL,
            UNIQUE (league_id, key)
        )""",
    "games": """
        CREATE TABLE IF NOT EXISTS games (
            match_id    INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
            idx         INTEGER NOT NULL,
            unit        INTEGER NOT NULL,
            scores      TEXT NOT NULL,
            PRIMARY KEY (match_id, idx)
        )""",
    "league_runs": """
        CREATE TABLE IF NOT EXISTS league_runs (
            league_id   INTEGER PRIMARY KEY REFERENCES leagues(id) ON DELETE CASCADE,
            runs        INTEGER NOT NULL
        )""",
}

OPTIONAL_TABLES = frozenset({"league_runs"})
"""Tables a results file of an earlier release lacks: made when it is next written, and not
needed to read it."""


class StoreError(ArenaError):
    """The results file cannot be used (not SQLite, damaged, another program's file, a newer
    schema, unwritable, locked too long)."""


class ReadOnlyStoreError(StoreError):
    """A write to a results file this process may only read (the file, or its directory, is
    read-only): reading it (``read_only``) works."""


class ResultsReplacedError(StoreError):
    """The results file was replaced by another file while the store had it open (or removed,
    and could not be written back): whatever is at the path now is left as it is, and what the
    store held is saved to ``saved`` instead, where the store goes on writing
    (`arena.store.ResultStore`)."""

    def __init__(self, message: str, saved: Path) -> None:
        super().__init__(message)
        self.saved = saved


_READONLY_DIRECTORY = 1544
"""SQLITE_READONLY_DIRECTORY (SQLITE_READONLY | 6 << 8): a WAL file's -shm cannot be made in
its directory. The sqlite3 module names it from Python 3.11 on, not as a constant."""

RESULTS_FILE_MODE = 0o600
"""A results file opened for writing is its owner's alone, as a record file is
(`arena.records.RECORD_FILE_MODE`): until a league is over it holds the league's seed (its
`leagues` row and config), from which every deal of the matches still to play follows. SQLite
gives the -wal and -shm files beside it the same mode."""


@functools.cache
def _columns() -> dict[str, tuple[str, ...]]:
    """Each table's columns, as the schema above makes them."""
    db = sqlite3.connect(":memory:")
    try:
        for create in TABLES.values():
            db.execute(create)
        return {
            table: tuple(row[1] for row in db.execute(f"PRAGMA table_info({table})"))
            for table in TABLES
        }
    finally:
        db.close()


def connect(target: str | Path, busy_wait: float, *, uri: bool = False) -> sqlite3.Connection:
    # isolation_level=None: the store begins its transactions itself (`ResultStore._attempt`).
    # Any thread may call, one at a time (`ResultStore._lock`).
    return sqlite3.connect(
        target, uri=uri, timeout=busy_wait, isolation_level=None, check_same_thread=False
    )


def no_shm_here(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says SQLite cannot make a WAL file's -shm beside it: SQLITE_CANTOPEN
    from some SQLite versions, SQLITE_READONLY_DIRECTORY from others (3.40: "attempt to write
    a readonly database", though nothing was written)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return False
    return code & 0xFF == sqlite3.SQLITE_CANTOPEN or code == _READONLY_DIRECTORY


def busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` is another connection's lock (worth waiting for), not a real failure."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "locked" in str(exc) or "busy" in str(exc)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def owner_only(path: Path) -> None:
    """Create ``path`` with `RESULTS_FILE_MODE` (the umask can only narrow it) before SQLite
    opens it, so that a league never writes its seed into a file another user of the machine
    can read. An existing file keeps the mode its owner gave it (`chmod` it, or copy it, to
    share the results of a finished league)."""
    # Resolved: O_EXCL refuses a symbolic link even when its target does not exist yet, and
    # SQLite would then make that target with the umask's mode.
    try:
        target = path.resolve()
    except RuntimeError:
        return  # a link that loops (Python 3.11 says so this way): SQLite refuses it, in one line
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, RESULTS_FILE_MODE))
    except FileExistsError:
        pass
    except OSError as exc:
        # Named as given, not resolved, so that the error names it once (`ResultStore`).
        raise OSError(exc.errno, exc.strerror, str(path)) from None


def companions(path: Path) -> tuple[Path, Path]:
    """The -wal and -shm files SQLite keeps beside a WAL file while it is open."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def make_companions_writable(path: Path) -> None:
    """Give this user write permission on a -wal or -shm of ``path`` that is its own and
    lacks it, so that a connection that writes can use them (`make_writable`).

    A read-only connection to a WAL file whose directory it can write makes the two files
    with the file's mode (so, of a read-only file, read-only ones) and, not being a writer,
    never removes them; a connection that writes then finds a -shm it cannot write and fails
    with "attempt to write a readonly database", though the file and its directory are
    writable. Nothing is removed here: a -wal may hold committed changes not yet in the file,
    and another program may be using both; a mode is all that changes, which no program that
    has them open notices. Files of another user are left as they are
    (`blocking_companions` names them)."""
    make_writable(companions(path))


def make_writable(files: Iterable[Path]) -> None:
    """Add the owner's write permission to each of ``files`` that is this user's regular file
    and lacks it; best effort (a file that cannot be changed is reported when SQLite fails on
    it)."""
    for each in files:
        try:
            found = each.lstat()
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode) and _this_users(found) and not found.st_mode & stat.S_IWUSR:
            with contextlib.suppress(OSError):
                each.chmod(stat.S_IMODE(found.st_mode) | stat.S_IWUSR)


def _this_users(found: os.stat_result) -> bool:
    """Whether a file is this user's, as far as `make_writable` needs to know.

    Windows has no user ids (``st_uid`` is always 0, ``os.geteuid`` is missing): there a file
    counts as this user's. That is safe: `chmod` there only clears the read-only attribute,
    which the file's access list lets this user do or not (a refusal is ignored, as above),
    and `make_writable` is only given the companions of a results file this process is about
    to write, or files it made itself, so it grants no access to anything this user could
    not already write through the results file."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid is None or found.st_uid == geteuid()


def blocking_companions(path: Path) -> list[Path]:
    """The -wal and -shm files of ``path`` that this process cannot write, though it can write
    ``path``: what stops it writing there (a read-only ``path`` is the cause of its own)."""
    if not os.access(path, os.W_OK):
        return []
    return [
        companion
        for companion in companions(path)
        if companion.is_file() and not os.access(companion, os.W_OK)
    ]


def connect_read_only(path: Path, busy_wait: float) -> sqlite3.Connection:
    """A connection that reads ``path`` and changes nothing in it. Beside it, only a file that
    this process cannot write, in a directory it can, gets the -wal and -shm SQLite makes to
    read a WAL file (and, not writing, never removes): `ResultStore` makes them writable to
    their owner when it closes, so that they stop no later run (`make_companions_writable`)."""
    wal_before = path.with_name(path.name + "-wal").exists()
    if not wal_before and _writable_here(path):
        # A read-only connection to a WAL file leaves -wal and -shm behind when it closes
        # (only a connection that may write removes them). A writable connection told to
        # refuse every change removes them; with no -wal file before it there is nothing for
        # its close to fold into the file, so not a byte of the file changes.
        db = connect(path, busy_wait)
        db.execute("PRAGMA query_only = ON")
        return db
    uri = path.absolute().as_uri() + "?mode=ro"
    db = connect(uri, busy_wait, uri=True)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        wal = path.with_name(path.name + "-wal")
        if not no_shm_here(exc) or wal.exists():
            return db  # the reads that follow wait for the lock or report the failure
        # A WAL file in a directory this process cannot write to: SQLite cannot make the
        # -shm file it reads through. Without a -wal file no writer is at work (nor could one
        # start there), so reading the file as immutable is safe.
        db.close()
        db = connect(uri + "&immutable=1", busy_wait, uri=True)
    return db


def _writable_here(path: Path) -> bool:
    return path.is_file() and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _inspect(db: sqlite3.Connection, path: Path) -> tuple[int, set[str], list[str]]:
    """The file's schema version, which of our tables it has (each checked for our columns)
    and the names of everything else in it."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: results schema {version} is newer than this arena's "
            f"({SCHEMA_VERSION}); upgrade the arena or use another --db"
        )
    objects = db.execute("SELECT type, name, tbl_name FROM sqlite_master").fetchall()
    ours = {name for kind, name, _table in objects if kind == "table" and name in TABLES}
    others = sorted(
        {
            table
            for _kind, name, table in objects
            if table not in TABLES and not name.startswith("sqlite_")
        }
    )
    for table in sorted(ours):
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = [column for column in _columns()[table] if column not in have]
        if missing:
            raise _not_ours(path, f"its {table} table has no column {', '.join(missing)}")
    return version, ours, others


def _not_ours(path: Path, why: str) -> StoreError:
    return StoreError(f"{path} is not an arena results file ({why}); use another --db")


def _refuse_foreign(path: Path, version: int, ours: set[str], others: list[str]) -> None:
    # Another program's file (user_version 0 is SQLite's default). A results file may hold a
    # user's own tables and views beside ours: its user_version says it is ours.
    if others and (not ours or version == 0):
        shown = ", ".join(others[:5]) + (", …" if len(others) > 5 else "")
        raise _not_ours(path, f"it holds {shown}")


def needs_schema(db: sqlite3.Connection, path: Path) -> bool:
    """Whether the file lacks (some of) our schema; raises `StoreError` for a file not ours."""
    version, ours, others = _inspect(db, path)
    _refuse_foreign(path, version, ours, others)
    return version < SCHEMA_VERSION or len(ours) < len(TABLES)


def create_schema(db: sqlite3.Connection, path: Path) -> None:
    """Make what is missing of the schema (within the store's write transaction)."""
    # Checked again within the write transaction: another run may have made the schema (or
    # another program its own tables) since the first look.
    if needs_schema(db, path):
        for create in TABLES.values():
            db.execute(create)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def check_read_only(db: sqlite3.Connection, path: Path) -> None:
    """Raise `StoreError` unless the file holds our whole schema, for reading."""
    version, ours, others = _inspect(db, path)
    if not ours:
        raise StoreError(f"{path} holds no arena results")
    _refuse_foreign(path, version, ours, others)
    absent = [table for table in TABLES if table not in ours and table not in OPTIONAL_TABLES]
    if absent:
        raise _not_ours(path, f"it has no {', '.join(absent)} table")


def use_wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL journal mode where SQLite can (kept in the file)."""
    # A reader of a WAL file never blocks the writer: a long query in another program
    # cannot stop a league from storing its matches. Where WAL is impossible (no shared
    # memory) SQLite keeps the old mode: still a working store.
    (mode,) = db.execute("PRAGMA journal_mode").fetchone()
    if str(mode).lower() == "wal":
        return
    try:
        db.execute("PRAGMA journal_mode = WAL").fetchone()
    except sqlite3.OperationalError as exc:
        if not busy(exc):
            raise
        # Another program has the file open and SQLite cannot switch under it: carry on in
        # the old mode (the retries cover its locks) rather than wait; a later run switches.
