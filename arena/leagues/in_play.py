"""One run at a time per league and results file: a second `arena league` of the same league on
the same file is refused, by name, instead of playing every match a second time.

Two runs of one league would give the same games (a match's seed is its own) and the file keeps
the first of each, so nothing goes wrong but the time: each run plays everything. The guard is a
lock file beside the results file, ``<file>.league-<id>.lock``, held with ``flock`` while the
league plays and removed when it stops. The kernel drops the lock with its process, however it
ends (``kill -9`` too), so a league is never left locked; a lock file left by a killed run is
taken over by the next. It holds who plays (process, host, start) for the refusal's message.

Windows has no ``flock``: there the lock is `msvcrt.locking`'s on one byte far beyond that text
(its locks are mandatory, so the text stays readable to the run that is refused), released
with the file, or with its process however it ends. A file open there cannot be removed: the
run that stops empties it instead, so that it names nobody, and the next run takes it over.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.files import lock_byte, unlock_byte
from arena.processes import process_alive

try:
    import fcntl
except ImportError:  # Windows: msvcrt's locks instead (`_lock`)
    fcntl = None  # type: ignore[assignment]

LOCK_FILE_MODE = 0o644
"""Readable by anyone who can read the results file's directory: who plays is no secret, and
another user sharing the file can then name the run that holds its league."""


WINDOWS_LOCKED_BYTE = 1 << 30
"""The byte of a lock file that holds its lock on Windows: far past the few bytes of text that
name the holder, which a locked byte would stop anyone else from reading, and within the
2 GiB that `msvcrt.locking` can reach (it locks from the file position, a C ``long``)."""

_BINARY = getattr(os, "O_BINARY", 0)
"""Without it Windows opens a descriptor in text mode, whose writes turn each newline into two
characters (CR LF)."""


class LeagueInPlayError(ArenaError):
    """The league is being played into the same results file by another run."""


class LeagueLockError(ArenaError):
    """The league's lock file cannot be made, opened or locked; the message names it."""


@dataclass(frozen=True, slots=True)
class Player:
    """Who holds a league's lock, as its lock file says (fields it does not say are None)."""

    pid: int | None = None
    host: str | None = None
    started: str | None = None

    def describe(self) -> str:
        parts = []
        if self.pid is not None:
            here = self.host is None or self.host == socket.gethostname()
            parts.append(f"process {self.pid}" + ("" if here else f" on {self.host}"))
        if self.started is not None:
            parts.append(f"since {self.started}")
        return ", ".join(parts) or "a run that did not say who it is"


def lock_path(db: Path, league_id: int) -> Path:
    """The lock file of league ``league_id`` of results file ``db``: beside the file it points
    to, so two names of one file (a link, a relative path) share it."""
    target = db.resolve()
    return target.with_name(f"{target.name}.league-{league_id}.lock")


@contextmanager
def hold_league(db: Path, league_id: int, name: str) -> Iterator[None]:
    """Hold the league's lock while the block runs; `LeagueInPlayError` if another run holds
    it (in this process too)."""
    if not _can_lock():  # pragma: no cover - neither POSIX nor Windows
        yield
        return
    path = lock_path(db, league_id)
    fd = _acquire(path, db, name)
    try:
        yield
    finally:
        _release(fd, path)


def _can_lock() -> bool:
    if fcntl is not None:
        return True
    try:
        importlib.import_module("msvcrt")
    except ImportError:
        return False
    return True


def _lock(fd: int) -> None:
    """Lock ``fd``'s file, or raise `BlockingIOError` when another descriptor holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        lock_byte(fd, WINDOWS_LOCKED_BYTE, wait=False)


def _release(fd: int, path: Path) -> None:
    # Removed while still held: a run that opened it meanwhile finds, once it has the lock,
    # that the name leads elsewhere, and starts over on the name (`_acquire`).
    try:
        os.unlink(path)
    except OSError:
        if fcntl is None:
            # Windows removes no file that is open: emptied instead, it names nobody for
            # `league_player`, and the next run takes it over.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    if fcntl is None:
        with contextlib.suppress(OSError):
            unlock_byte(fd, WINDOWS_LOCKED_BYTE)
    os.close(fd)


def _acquire(path: Path, db: Path, name: str) -> int:
    while True:
        fd = _open(path)
        try:
            _lock(fd)
        except BlockingIOError:
            player = _read_player(fd)
            os.close(fd)
            raise LeagueInPlayError(
                f"league {name!r} is being played into {db} by another run right now "
                f"({player.describe()}): let it finish, or stop it, then run again (what it "
                "stores is kept); --show prints what it has stored so far"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise LeagueLockError(f"{path}: cannot lock the league's lock file: {exc}") from None
        if _still_named(fd, path):
            _write_player(fd)
            return fd
        os.close(fd)  # its holder removed it between our open and our lock: take the new one


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | _BINARY, LOCK_FILE_MODE)
    except PermissionError:
        pass  # another user's lock file: a lock needs only a descriptor, not write access
    except OSError as exc:
        raise LeagueLockError(
            f"{path}: cannot make the league's lock file: {exc.strerror}"
        ) from None
    try:
        return os.open(path, os.O_RDONLY | _BINARY)
    except OSError as exc:
        raise LeagueLockError(
            f"{path}: cannot open the league's lock file: {exc.strerror}"
        ) from None


def _still_named(fd: int, path: Path) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _write_player(fd: int) -> None:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": started})
    with contextlib.suppress(OSError):  # read-only (another user's file): the lock still holds
        os.ftruncate(fd, 0)
        if hasattr(os, "pwrite"):
            os.pwrite(fd, text.encode() + b"\n", 0)
        else:  # Windows
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, text.encode() + b"\n")


def _read_start(fd: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, 4096, 0)
    os.lseek(fd, 0, os.SEEK_SET)  # Windows
    return os.read(fd, 4096)


def _read_player(fd: int) -> Player:
    try:
        data = json.loads(_read_start(fd) or b"{}")
    except (OSError, ValueError):
        return Player()
    if not isinstance(data, dict):
        return Player()
    pid, host, started = data.get("pid"), data.get("host"), data.get("started")
    return Player(
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        host if isinstance(host, str) else None,
        started if isinstance(started, str) else None,
    )


def league_player(db: Path, league_id: int) -> Player | None:
    """Who is playing the league into ``db`` now, if a run on this machine is; None when none
    is, or when it cannot be told. Takes no lock, so that looking (``--show``) never makes a run
    that starts at that moment think its league taken."""
    if not _can_lock():  # pragma: no cover - neither POSIX nor Windows
        return None
    try:
        fd = os.open(lock_path(db, league_id), os.O_RDONLY | _BINARY)
    except OSError:
        return None
    try:
        player = _read_player(fd)
    finally:
        os.close(fd)
    if player.pid is None or player.host != socket.gethostname():
        return None
    # A file left by a killed run names a process that is gone.
    return player if process_alive(player.pid) else None
