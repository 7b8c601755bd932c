"""Small file-system checks and operations shared by the commands and the bots, the same on
every system (Windows renames and locks files its own way)."""

from __future__ import annotations

import errno
import importlib
import os
import stat
import sys
import tempfile
import time
from pathlib import Path


def probe_writable(directory: Path, prefix: str = ".arena-write-check-") -> None:
    """Create and remove a file in ``directory``; raises `OSError` when that fails.

    Creating a file is the test, not `os.access`: permission bits say nothing of a read-only
    mount or an immutable directory, nor of root, whom they do not stop. So an output that
    cannot be written is refused before any game is played, not after."""
    handle, probe = tempfile.mkstemp(dir=directory, prefix=prefix)
    os.close(handle)
    os.unlink(probe)


def why_not_written(path: Path, exc: OSError) -> str:
    """Why ``path`` (a directory to make, or a file to write) could not be: a file in the way
    is named — "File exists" or "Not a directory" would not say which one is a file — else the
    system's reason."""
    blocker = _not_a_directory(path if isinstance(exc, FileExistsError) else path.parent)
    if blocker is not None:
        return f"{blocker} is {'a file' if blocker.is_file() else 'not a directory'}"
    return exc.strerror or str(exc)


def _not_a_directory(path: Path) -> Path | None:
    """The nearest of ``path`` and its parents that exists, when it is not a directory (a file
    in the way of the directory to make); None when that one is a directory or none exists."""
    for candidate in (path, *path.parents):
        try:
            found = candidate.stat()
        except OSError:
            continue
        return None if stat.S_ISDIR(found.st_mode) else candidate
    return None


REPLACE_ATTEMPTS = 6
"""How often `replace_file` tries on Windows before it gives up."""
REPLACE_FIRST_PAUSE_S = 0.05
"""Its first pause between two tries, doubled after each: five pauses, 1.55 s in all."""


def replace_file(source: Path, target: Path) -> None:
    """`os.replace`, patient on Windows: there a file that another process has open (another
    worker reading the same learnt tables, a viewer showing a record, a virus scanner) cannot
    be replaced, and the replace fails with `PermissionError` until that process lets go, most
    often within moments. Tried again a few times with a short pause; the last failure is
    raised. Elsewhere a rename is never refused for that reason, so any failure is final."""
    attempts = REPLACE_ATTEMPTS if sys.platform == "win32" else 1
    pause = REPLACE_FIRST_PAUSE_S
    for attempt in range(1, attempts + 1):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if attempt == attempts:
                raise
        time.sleep(pause)
        pause *= 2


_LOCK_CONFLICTS = frozenset({errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)})
"""What `msvcrt.locking` sets when another handle holds a byte: EACCES at once (LK_NBLCK),
EDEADLOCK after LK_LOCK's ten tries a second apart."""


def lock_byte(descriptor: int, offset: int, *, wait: bool) -> None:
    """Lock the byte at ``offset`` of ``descriptor``'s file for this descriptor with Windows'
    `msvcrt.locking` (with ``wait``, LK_LOCK: ten tries a second apart); `BlockingIOError`
    when another descriptor holds it, as `fcntl.flock` with ``LOCK_NB`` says it.

    Windows' locks are mandatory: nobody else may read or write a locked byte. A byte beyond
    the text of a file that others read (a lock file naming its holder) keeps that text
    readable; a lock may lie past the end of the file. The lock goes with the descriptor when
    it is closed, or with its process however that ends (`unlock_byte` first when it can)."""
    msvcrt = importlib.import_module("msvcrt")
    # msvcrt.locking locks from the descriptor's current position.
    os.lseek(descriptor, offset, os.SEEK_SET)
    try:
        msvcrt.locking(descriptor, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
    except OSError as exc:
        if exc.errno in _LOCK_CONFLICTS:
            raise BlockingIOError(exc.errno, "held by another process") from None
        raise


def unlock_byte(descriptor: int, offset: int) -> None:
    """Release what `lock_byte` locked: Windows asks for a lock to be released before its file
    is closed (closing releases it too, but not always at once)."""
    msvcrt = importlib.import_module("msvcrt")
    os.lseek(descriptor, offset, os.SEEK_SET)
    msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
