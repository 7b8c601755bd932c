"""The results file kept at its path: `KeepsFileInPlace`, the part of `ResultStore` that makes
sure, after each write and when it closes, that its path still names the file it has open (device
and inode, `OpenFile`). A file removed meanwhile (``rm``: SQLite in WAL mode goes on writing it
without a word) is written back; one replaced is left alone and what the store held is saved
beside it (``NAME.saved-<UTC time>.SUFFIX``); the -wal and -shm of the file that left are retired.
It is apart from `arena.store` because it deals with the file on disk (inodes, hard links,
companions, a backup copy), not with the leagues and matches in it: `ResultStore` takes it in as
a base class, and it imports nothing of `arena.store`."""

from __future__ import annotations

import abc
import contextlib
import itertools
import os
import sqlite3
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from arena.store_open import (
    RESULTS_FILE_MODE,
    ResultsReplacedError,
    StoreError,
    companions,
    connect,
    use_wal,
)


@dataclass(frozen=True, slots=True)
class OpenFile:
    """Which file a path names (device and inode), and its mode."""

    device: int
    inode: int
    mode: int = field(compare=False)

    @classmethod
    def at(cls, path: Path) -> OpenFile:
        found = os.stat(path)
        return cls(found.st_dev, found.st_ino, stat.S_IMODE(found.st_mode))


def opened_file(path: Path) -> OpenFile:
    """The file just opened at ``path``: what the path names right after SQLite opened it."""
    try:
        return OpenFile.at(path)
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None


def _new_file_beside(path: Path, mode: int) -> Path:
    """A new empty file beside ``path`` with ``mode``, named for what it is:
    ``NAME.saved-<UTC time>[-N].SUFFIX`` (a results file still, for ``--db``)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for attempt in itertools.count():
        extra = f"-{attempt}" if attempt else ""
        copy = path.with_name(f"{path.stem}.saved-{stamp}{extra}{path.suffix}")
        try:
            # Created owner-only, as a new results file is (it holds the league's seed), then
            # given the mode the owner gave the file it copies.
            os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, RESULTS_FILE_MODE))
        except FileExistsError:
            continue
        copy.chmod(mode)
        return copy
    raise AssertionError("unreachable")


class KeepsFileInPlace(abc.ABC):
    """The part of `ResultStore` that keeps the file it writes at its path (see the module's
    docstring); the attributes are those `ResultStore.__init__` sets."""

    path: Path
    _db: sqlite3.Connection
    _busy_wait: float
    _open_file: OpenFile | None
    _wal: OpenFile | None

    @abc.abstractmethod
    def _warn(self, text: str) -> None:
        """Tell the store's user: `ResultStore._warn` (its ``on_warning``, else a log line)."""

    # -- the file at its path -----------------------------------------------------------------

    def _keep_in_place(self) -> None:
        """Make sure the path still names the file this store writes; else save what it holds.

        A file removed while open (``rm``) is still the open connection's until it closes, and
        then gone with every match in it; SQLite in WAL mode goes on writing it without a word.
        So: a path that names nothing now gets the file written back; a path that names another
        file keeps that one, and what this store holds is saved beside it
        (`ResultsReplacedError`, after which the store writes the saved copy)."""
        held = self._open_file
        if held is None:
            return
        wal = companions(self.path)[0]
        try:
            now: OpenFile | None = OpenFile.at(self.path)
        except FileNotFoundError:
            now = None
        except OSError:
            return  # the path cannot be looked at (a directory made unreadable): no verdict
        if now == held:
            self._note_wal()
            return
        what = "removed" if now is None else "replaced by another file"
        copy = self._save_copy(held, what)
        self._retire(wal)
        if now is None and self._put_back(copy):
            self._warn(
                f"{self.path} was removed while the league used it: what it held is written "
                "back to it, nothing lost"
            )
            return
        if now is None:
            why = "cannot be written back (another program has it open, or a file took its place)"
        else:
            why = "that file is left as it is"
        gone = self.path
        self._reopen(copy)
        raise ResultsReplacedError(
            f"{gone} was {what} while the league used it; {why}, and this league's results are "
            f"saved to {copy}: resume with --db {copy} (or move it to {gone} once nothing else "
            "needs that name)",
            copy,
        )

    def _note_wal(self) -> None:
        """Which file the -wal beside the open file is, once SQLite has made it (at the first
        transaction in WAL mode), for `_retire`."""
        if self._wal is None:
            with contextlib.suppress(OSError):
                self._wal = OpenFile.at(companions(self.path)[0])

    def _save_copy(self, held: OpenFile, what: str) -> Path:
        """Copy the open file (its committed transactions) to a new file beside its path."""
        copy = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            copy = _new_file_beside(self.path, held.mode)
            target = sqlite3.connect(copy)
            try:
                self._db.backup(target)
            finally:
                target.close()
        except (OSError, sqlite3.Error) as exc:
            if copy is not None:
                copy.unlink(missing_ok=True)  # a copy cut short is no copy
            raise StoreError(
                f"{self.path} was {what} while the league used it, and what it held cannot "
                f"be saved beside it: {exc}"
            ) from None
        return copy

    def _retire(self, wal: Path) -> None:
        """Close the connection to the file that left the path (its contents are copied), with
        its -wal and -shm when the -wal at the path is still its own.

        Closed as it is, a connection to a file that moved leaves them behind (SQLite will not
        fold a -wal into a file no longer at its path), where the next file of that name would
        take them for its own. Leaving WAL mode is SQLite's own way to remove them: under the
        file's exclusive lock, so never while another program has the file open; the statement
        then fails (the file has moved), which does not matter. A -wal that is not its own
        (another file's, moved in with it) is left alone: closing removes nothing then."""
        try:
            own = self._wal is not None and OpenFile.at(wal) == self._wal
        except OSError:
            own = False
        if own:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA journal_mode = DELETE")
        with contextlib.suppress(sqlite3.Error):
            self._db.close()

    def _put_back(self, copy: Path) -> bool:
        """Make the saved ``copy`` the file at the path again, if nothing took its place and
        nothing of the removed file is left beside it (another program that has it open keeps
        its -wal and -shm, which the copy must not take for its own); False (and ``copy``
        kept) otherwise."""
        if any(each.exists() for each in companions(self.path)):
            return False
        try:
            os.link(copy, self.path)  # never over a file that appeared meanwhile
        except FileExistsError:
            return False
        except OSError:
            # A file system without hard links: a rename, after one more look.
            if self.path.exists():
                return False
            try:
                copy.replace(self.path)
            except OSError:
                return False
        else:
            copy.unlink()
        self._reopen(self.path)
        return True

    def _reopen(self, path: Path) -> None:
        """Go on writing ``path`` (the file written back, or the saved copy)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()  # closing twice is harmless
        db = connect(path, self._busy_wait)
        try:
            db.execute("PRAGMA foreign_keys = ON")
            use_wal(db)
            self._open_file = opened_file(path)
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(f"{path}: cannot use as a results database: {exc}") from None
        except StoreError:
            db.close()
            raise
        self._db = db
        self.path = path
        self._wal = None
        self._note_wal()
