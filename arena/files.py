"""Small file-system checks shared by the commands and the bots."""

from __future__ import annotations

import os
import stat
import tempfile
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
