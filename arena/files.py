"""Small file-system checks shared by the commands and the bots."""

from __future__ import annotations

import os
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
