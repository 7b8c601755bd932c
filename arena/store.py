"""SQLite results: every league, every match it played and every game's scores.

One file holds any number of leagues. A league is identified by its name and the fingerprint of
its config (`LeagueConfig.fingerprint`; a league stored under one of its ``aliases``, what an
earlier release fingerprinted it as, is taken over): running the same config again resumes it,
skipping the matches already stored; a changed config is a new league. A match is written in one
transaction when it finishes (a restart's replaces the stored one in that same transaction), so
an interrupted league loses at most the matches still being played.

Schema (``PRAGMA user_version = 1``)::

    leagues(id, name, game, seed, fingerprint, config JSON, created, finished)
    matches(id, league_id, idx, key, bots JSON, seed, summary JSON, penalties JSON,
            seconds, record, finished)                  -- UNIQUE(league_id, key)
    games(match_id, idx, unit, scores JSON)             -- PRIMARY KEY(match_id, idx)
    league_runs(league_id, runs)                        -- PRIMARY KEY(league_id)

``league_runs`` counts the runs of each league (`begin_run`): a later run of a league on a
server deals its matches from seeds of their own (`LeagueConfig.match_seed`). A file of an
earlier release, without that table, is read as it is and gets the table when next written.

``games.scores`` maps each bot of the match to its score in that game: a win is 1, a loss 0
and a 1A2B draw ½; a mahjong hand's score is the bot's points (copies added). Times are UTC ISO
8601. The JSON is standard: a number that is not defined (the interval of a one-round match) is
``null``, never ``Infinity`` or ``NaN``. Plain SQL reads it, e.g.
``SELECT key, seconds, json_extract(summary, '$.games') FROM matches``. What is read back is
checked against what the store writes (each column's type, each JSON cell's shape, a score for
every bot of the match, as many ``games`` rows as the match's summary counts): a file edited into
another shape is damaged, a one-line `StoreError` naming the cell, never a traceback where the
value is used.

The file is in WAL journal mode, so a program reading it (``sqlite3`` in another terminal) never
stops a league from storing its matches; while it is open the file has ``-wal`` and ``-shm``
companions in its directory. A read or write that finds the file locked by another writer
retries for up to ``timeout_s`` (`LOCK_TIMEOUT_S`), then fails with a `StoreError`. Opening
(`arena.store_open`) refuses a file that is not a results file (another program's tables, or
ours with other columns) and writes nothing into it; ``read_only`` opening writes nothing into
the file (the -wal and -shm SQLite makes beside a read-only one are left writable to their
owner, so that they stop no later run; a run gets past such files left read-only without
removing them). A store that writes checks after each write, and when it closes, that its path
still names the file it has open: a file removed meanwhile is written back, one replaced is left
alone and what the store held saved beside it (`arena.store_in_place`). A store may be used
from any thread, one call at a time (a league on a server stores its matches from a worker
thread, so that a wait for the lock never stops the event loop its tables play on).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import structlog

from arena.leagues.outcomes import MatchOutcome
from arena.matches.stats import finite_json
from arena.store_in_place import KeepsFileInPlace, OpenFile, opened_file
from arena.store_open import (
    TABLES,
    ReadOnlyStoreError,
    StoreError,
    blocking_companions,
    busy,
    check_read_only,
    companions,
    connect,
    connect_read_only,
    create_schema,
    make_companions_writable,
    make_writable,
    needs_schema,
    no_shm_here,
    owner_only,
    use_wal,
)
from arena.store_rows import (
    DamagedValue,
    StoredLeague,
    check_game_count,
    json_object,
    league_of_row,
    match_of_rows,
    parsed_json,
    text_cell,
)

log = structlog.get_logger(__name__)

# Reached through this module (``arena.store._TABLES``, ``_no_shm_here``) by tests written
# before the opening code had a module of its own.
_TABLES = TABLES
_no_shm_here = no_shm_here

LOCK_TIMEOUT_S = 300.0
"""How long a read or write waits for another program's lock on the file before it fails: a
match may have taken minutes to play, so storing it is worth a wait."""

_BUSY_WAIT_S = 2.0
"""SQLite's own wait for a lock within one attempt; between attempts the store backs off."""
_FIRST_PAUSE_S = 0.05
_MAX_PAUSE_S = 1.0

_LEAGUE_COLUMNS = "id, name, game, seed, fingerprint, config, created, finished"

T = TypeVar("T")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _json(data: Any) -> str:
    return json.dumps(finite_json(data), ensure_ascii=False, allow_nan=False)


class ResultStore(KeepsFileInPlace):
    """The results file; use as a context manager or call `close`.

    ``read_only`` opens an existing results file for reading and changes nothing in it (no
    schema, no journal mode). ``timeout_s`` bounds each read or write's wait for another
    program's lock (default `LOCK_TIMEOUT_S`).

    A store that writes makes sure, after each write and when it closes, that its path still
    names the file it has open (`_keep_in_place`): a file removed meanwhile is written back
    (``on_warning`` hears so, in one line; without it, a structlog warning), and one replaced
    by another file is saved beside it instead (`ResultsReplacedError`)."""

    def __init__(
        self,
        path: Path,
        *,
        read_only: bool = False,
        timeout_s: float | None = None,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self.read_only = read_only
        self.timeout_s = LOCK_TIMEOUT_S if timeout_s is None else timeout_s
        self._busy_wait = min(self.timeout_s, _BUSY_WAIT_S)
        self._on_warning = on_warning
        self._lock = threading.RLock()
        self._companions_before = {each for each in companions(path) if each.exists()}
        self._open_file: OpenFile | None = None
        self._wal: OpenFile | None = None
        """The -wal SQLite made for the open file, once it is there (`_retire`)."""
        try:
            if read_only:
                self._db = connect_read_only(path, self._busy_wait)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                owner_only(path)
                make_companions_writable(path)
                self._db = connect(path, self._busy_wait)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot use as a results database: {exc}") from None
        except OSError as exc:
            # The path once: the OS error repeats it when it is about the file itself, but
            # names the culprit when that is another (a parent directory that is a file).
            about_path = exc.filename in (None, str(path)) and exc.strerror
            raise StoreError(f"{path}: {exc.strerror if about_path else exc}") from None
        try:
            if not read_only:
                self._open_file = opened_file(path)
            self._open()
            if not read_only:
                self._note_wal()
        except BaseException:
            self._db.close()
            raise

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_exc: object) -> None:
        if exc_type is None:
            self.close()
            return
        # What stopped the caller is what it reports; what closing found is said beside it.
        try:
            self.close()
        except StoreError as exc:
            self._warn(str(exc))

    def close(self) -> None:
        """Close the file: one that writes first makes sure what it holds is at its path (or
        saved beside it: `ResultsReplacedError`); one that reads leaves the -wal and -shm
        SQLite made beside a read-only file writable to their owner."""
        try:
            with self._lock:
                try:
                    self._keep_in_place()
                finally:
                    self._db.close()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot close the results database: {exc}") from None
        if self.read_only:
            made = [each for each in companions(self.path) if each not in self._companions_before]
            make_writable(each for each in made if each.exists())

    def _warn(self, text: str) -> None:
        if self._on_warning is not None:
            self._on_warning(text)
        else:
            log.warning("results_file", message=text)

    # -- opening ------------------------------------------------------------------------------

    def _open(self) -> None:
        what = "use as a results database"
        db, path = self._db, self.path
        # Outside a transaction: SQLite ignores this pragma within one.
        self._attempt(what, lambda: db.execute("PRAGMA foreign_keys = ON"), begin=None)
        if self.read_only:
            self._read(what, lambda: check_read_only(db, path))
            return
        if self._read(what, lambda: needs_schema(db, path)):
            self._write(what, lambda: create_schema(db, path))
        self._attempt(what, lambda: use_wal(db), begin=None)

    # -- transactions -------------------------------------------------------------------------

    def _read(self, what: str, op: Callable[[], T]) -> T:
        """``op`` in one read transaction: a consistent view of the file."""
        return self._attempt(what, op, begin="BEGIN")

    def _write(self, what: str, op: Callable[[], T]) -> T:
        # IMMEDIATE takes the write lock first, where SQLite waits for it, instead of at the
        # first write, where it may fail at once (a deadlock with another writer).
        with self._lock:
            result = self._attempt(what, op, begin="BEGIN IMMEDIATE")
            # After the write, so that what it wrote is kept too.
            self._keep_in_place()
            return result

    def _attempt(self, what: str, op: Callable[[], T], *, begin: str | None) -> T:
        """``op`` (within ``begin`` … COMMIT unless ``begin`` is None), tried again with a
        growing pause while another connection holds a lock, for up to ``timeout_s``. Every
        SQLite error becomes a one-line `StoreError` naming the file: ``cannot {what}: …``."""
        # Held for the whole transaction and its retries: the connection is shared by threads.
        with self._lock:
            deadline = time.monotonic() + self.timeout_s
            pause = _FIRST_PAUSE_S
            while True:
                try:
                    return self._once(op, begin)
                except sqlite3.OperationalError as exc:
                    if not busy(exc):
                        error = StoreError
                        code = getattr(exc, "sqlite_errorcode", 0)
                        if code & 0xFF == sqlite3.SQLITE_READONLY:
                            error = ReadOnlyStoreError
                        raise error(f"{self.path}: cannot {what}: {self._why(exc)}") from None
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise StoreError(
                            f"{self.path}: cannot {what}: another program kept the file locked "
                            f"for {self.timeout_s:g} s ({exc}); stop it or wait, then try again"
                        ) from None
                    time.sleep(min(pause, left))
                    pause = min(2 * pause, _MAX_PAUSE_S)
                except sqlite3.DatabaseError as exc:
                    raise StoreError(f"{self.path}: cannot {what}: {exc}") from None
                except DamagedValue as exc:
                    raise StoreError(f"{self.path}: cannot {what}: damaged {exc}") from None

    def _why(self, exc: sqlite3.OperationalError) -> str:
        """SQLite's reason, with a hint where its own words mislead: an existing file it
        "cannot open" is most likely in a directory it cannot write its -wal file to."""
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code == sqlite3.SQLITE_CANTOPEN and not self.read_only and self.path.is_file():
            return f"{exc} (SQLite writes a -wal file beside it: is the directory writable?)"
        if code == sqlite3.SQLITE_IOERR and not self.read_only:
            # SQLite's words name no cause; these are the usual ones on a machine that works.
            return f"{exc} (a full disk, or a file size limit, is the usual cause)"
        stale = [] if self.read_only else blocking_companions(self.path)
        if code == sqlite3.SQLITE_READONLY and stale:
            # Another user's, left by a connection that could only read (this user's own are
            # made writable when the store opens: `make_companions_writable`).
            names = " and ".join(str(each) for each in stale)
            return (
                f"{exc}: {names} {'is' if len(stale) == 1 else 'are'} read-only to this process "
                "(left by a program that could only read it); make them writable, or remove "
                "them when no program has the results file open"
            )
        return str(exc)

    def _once(self, op: Callable[[], T], begin: str | None) -> T:
        if begin is None:
            return op()
        self._db.execute(begin)
        try:
            result = op()
            self._db.execute("COMMIT")
        except BaseException:
            # Also after a failed COMMIT (still locked): the whole transaction is tried again.
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise
        return result

    # -- leagues ------------------------------------------------------------------------------

    def open_league(
        self,
        name: str,
        game: str,
        seed: str,
        fingerprint: str,
        config: dict[str, Any],
        *,
        aliases: Sequence[str] = (),
    ) -> StoredLeague:
        """The stored league of that name and fingerprint, created if new. A league stored
        under one of ``aliases`` (what an earlier release fingerprinted the same league as) is
        that league: it takes the fingerprint and is resumed. A league stored in-process and
        opened with a ``server`` in ``config`` keeps that server in its stored config."""

        def insert() -> StoredLeague:
            if self._find_league(name, fingerprint) is None:
                for alias in aliases:
                    old = self._find_league(name, alias)
                    if old is not None:
                        # What its config says now is what its matches play from here on.
                        self._db.execute(
                            "UPDATE leagues SET fingerprint = ?, config = ? WHERE id = ?",
                            (fingerprint, _json(config), old.id),
                        )
                        break
            created = self._db.execute(
                "INSERT OR IGNORE INTO leagues (name, game, seed, fingerprint, config, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, game, seed, fingerprint, _json(config), _now()),
            )
            found = self._find_league(name, fingerprint)
            assert found is not None
            if config.get("server") is not None and found.config.get("server") is None:
                # A league begun in-process and resumed on a server: its stored config says so
                # from now on, so that it lends no match to a league in-process (some were
                # played by connected bots) and no later league on a server reuses its seed.
                self._db.execute(
                    "UPDATE leagues SET config = ? WHERE id = ?",
                    (_json({**found.config, "server": config["server"]}), found.id),
                )
                found = self._find_league(name, fingerprint)
                assert found is not None
            if created.rowcount == 1:
                # A league of this release: its runs are counted from none (`begin_run`).
                self._db.execute(
                    "INSERT OR IGNORE INTO league_runs (league_id, runs) VALUES (?, 0)",
                    (found.id,),
                )
            return found

        return self._write(f"start league {name!r}", insert)

    def league(
        self, name: str, fingerprint: str | None = None, *, aliases: Sequence[str] = ()
    ) -> StoredLeague | None:
        """The league of that name and fingerprint (else of the first of ``aliases`` stored,
        see `open_league`); without a fingerprint the latest of that name."""

        def find() -> StoredLeague | None:
            for each in (fingerprint, *aliases) if fingerprint is not None else (None,):
                found = self._find_league(name, each)
                if found is not None:
                    return found
            return None

        return self._read(f"read league {name!r}", find)

    def _find_league(self, name: str, fingerprint: str | None) -> StoredLeague | None:
        query = f"SELECT {_LEAGUE_COLUMNS} FROM leagues WHERE name = ?"
        args: tuple[Any, ...] = (name,)
        if fingerprint is not None:
            query += " AND fingerprint = ?"
            args += (fingerprint,)
        row = self._db.execute(query + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return None if row is None else league_of_row(row)

    def begin_run(self, league: StoredLeague) -> int:
        """Count one more run of ``league`` and return how many came before it: 0 for the run
        that created it. A league created by an earlier release, which counted no runs, is
        taken to have had one (its matches may have been dealt)."""

        def count() -> int:
            row = self._db.execute(
                "SELECT runs FROM league_runs WHERE league_id = ?", (league.id,)
            ).fetchone()
            before = 1 if row is None else int(row[0])
            self._db.execute(
                "INSERT OR REPLACE INTO league_runs (league_id, runs) VALUES (?, ?)",
                (league.id, before + 1),
            )
            return before

        return self._write(f"count a run of league {league.name!r}", count)

    def leagues(self) -> list[StoredLeague]:
        def read() -> list[StoredLeague]:
            rows = self._db.execute(f"SELECT {_LEAGUE_COLUMNS} FROM leagues ORDER BY id")
            return [league_of_row(row) for row in rows.fetchall()]

        return self._read("read the leagues", read)

    def clear_league(self, league: StoredLeague) -> None:
        """Forget every match of ``league`` (a restart)."""

        def clear() -> None:
            self._db.execute("DELETE FROM matches WHERE league_id = ?", (league.id,))
            self._db.execute("UPDATE leagues SET finished = NULL WHERE id = ?", (league.id,))

        self._write(f"clear league {league.name!r}", clear)

    def mark_finished(self, league: StoredLeague, *, again: bool = False) -> None:
        """Record when the league's last match was stored (kept on later resumes; with
        ``again``, a restart that played every match again, replaced)."""
        keep = "" if again else " AND finished IS NULL"
        self._write(
            f"mark league {league.name!r} finished",
            lambda: self._db.execute(
                f"UPDATE leagues SET finished = ? WHERE id = ?{keep}", (_now(), league.id)
            ),
        )

    # -- matches ------------------------------------------------------------------------------

    def save_match(
        self, league: StoredLeague, outcome: MatchOutcome, *, replace: bool = False
    ) -> bool:
        """Store a finished match and its games in one transaction; `False` when the match is
        already stored (a run of the same league that held no lock got there first: an earlier
        release, or a system without ``flock``) and nothing changed.
        With ``replace`` (a restart) a stored match of the same key is replaced, in the same
        transaction: the league never holds the match less than once."""
        plan = outcome.plan

        def insert() -> bool:
            if replace:
                old = "SELECT id FROM matches WHERE league_id = ? AND key = ?"
                self._db.execute(
                    f"DELETE FROM games WHERE match_id IN ({old})", (league.id, plan.key)
                )
                self._db.execute(
                    "DELETE FROM matches WHERE league_id = ? AND key = ?", (league.id, plan.key)
                )
            try:
                cursor = self._db.execute(
                    "INSERT INTO matches (league_id, idx, key, bots, seed, summary, penalties, "
                    "seconds, record, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        league.id,
                        plan.index,
                        plan.key,
                        _json(list(plan.bots)),
                        plan.seed,
                        _json(outcome.summary),
                        _json(outcome.penalties),
                        outcome.seconds,
                        outcome.record,
                        _now(),
                    ),
                )
            except sqlite3.IntegrityError:
                stored = self._db.execute(
                    "SELECT 1 FROM matches WHERE league_id = ? AND key = ?", (league.id, plan.key)
                ).fetchone()
                if stored is not None:
                    return False
                raise
            self._db.executemany(
                "INSERT INTO games (match_id, idx, unit, scores) VALUES (?, ?, ?, ?)",
                [
                    (cursor.lastrowid, game.index, game.unit, _json(game.scores))
                    for game in outcome.games
                ],
            )
            return True

        return self._write(f"store match {plan.key!r}", insert)

    def matches(self, league: StoredLeague) -> list[MatchOutcome]:
        """Every stored match of ``league`` with its games, in plan order."""
        return self._read(f"read the matches of {league.name!r}", lambda: self._matches(league))

    def _matches(self, league: StoredLeague) -> list[MatchOutcome]:
        rows = self._db.execute(
            "SELECT id, idx, bots, seed, summary, penalties, seconds, record FROM matches "
            "WHERE league_id = ? ORDER BY idx",
            (league.id,),
        ).fetchall()
        found = []
        for row in rows:
            games = self._db.execute(
                "SELECT idx, unit, scores FROM games WHERE match_id = ? ORDER BY idx", (row[0],)
            ).fetchall()
            found.append(match_of_rows(row, games))
        return found

    def stored_keys(self, league: StoredLeague) -> set[str]:
        """The keys of the stored matches of ``league``; a match whose ``games`` rows are not
        the games its summary counts is damaged (a resume would take it as played)."""

        def read() -> set[str]:
            rows = self._db.execute(
                "SELECT id, key, summary, "
                "(SELECT count(*) FROM games WHERE games.match_id = matches.id) "
                "FROM matches WHERE league_id = ?",
                (league.id,),
            ).fetchall()
            keys = set()
            for match_id, key, summary, games in rows:
                cell = f"matches.summary (id {match_id})"
                keys.add(text_cell(key, f"matches.key (id {match_id})"))
                check_game_count(
                    match_id, key, json_object(parsed_json(summary, cell), cell), games
                )
            return keys

        return self._read(f"read the matches of {league.name!r}", read)
