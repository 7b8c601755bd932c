"""What Windows does differently with files, simulated on Linux for the tests of the code that
copes with it (each helper patches for one test, through its ``monkeypatch``):

* `simulate_windows_fsync`: ``os.fsync`` of a read-only descriptor fails with EBADF (Windows'
  ``_commit`` needs a descriptor open for writing);
* `simulate_windows_newlines`: a text file written through ``os.fdopen`` without ``newline``
  gets CR LF line ends, and so, once more, does one whose descriptor ``os.open`` opened without
  ``O_BINARY`` (``descriptors=True``: ``os.O_BINARY`` exists, and a descriptor opened without it
  is in text mode);
* `simulate_windows_locks`: no ``fcntl`` for the code to import, and a fake ``msvcrt`` whose
  ``locking`` locks byte ranges as Windows does: mandatory (no other descriptor may read or write
  a locked byte), per descriptor (a second descriptor of the same process is refused too), and
  released when the descriptor is closed; a file that is open cannot be removed; no
  ``os.pread``/``os.pwrite``;
* `arena_in_code_page`: the ``arena`` command with its output in a Windows code page, into a
  pipe (how Windows encodes piped output unless PYTHONUTF8=1);
* `simulate_a_reader_holding_the_target`: ``os.replace`` refused a number of times, as Windows
  refuses to replace a file another process holds open, then done.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import stat
import subprocess
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import pytest

FAKE_O_BINARY = 0x8000
"""Windows' value of ``O_BINARY``; stripped before the real ``os.open`` sees it."""


def simulate_windows_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``os.fsync`` refuses a read-only descriptor, as Windows' does; returns the descriptors of
    files it refused (not of directories, which Windows does not even open)."""
    real_fsync = os.fsync
    refused: list[int] = []

    def fsync(fd: Any) -> None:
        number = fd if isinstance(fd, int) else fd.fileno()
        if fcntl.fcntl(number, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
            if not stat.S_ISDIR(os.fstat(number).st_mode):
                refused.append(number)
            raise OSError(errno.EBADF, "Bad file descriptor")
        real_fsync(number)

    monkeypatch.setattr(os, "fsync", fsync)
    return refused


class _CrtTextMode(io.RawIOBase):
    """The C runtime's text mode of a Windows descriptor: every "\\n" written is "\\r\\n"."""

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._raw.write(bytes(data).replace(b"\n", b"\r\n"))
        return len(data)

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:
        self._raw.close()
        super().close()


def simulate_windows_newlines(monkeypatch: pytest.MonkeyPatch, *, descriptors: bool) -> None:
    """Text written through ``os.fdopen`` gets Windows' line ends: CR LF unless ``newline``
    says otherwise; with ``descriptors``, ``os.O_BINARY`` exists and a descriptor ``os.open``
    opened without it translates once more ("\\r\\r\\n")."""
    real_open, real_fdopen = os.open, os.fdopen
    text_mode: set[int] = set()

    if descriptors:
        monkeypatch.setattr(os, "O_BINARY", FAKE_O_BINARY, raising=False)

        def open_(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
            fd = real_open(path, flags & ~FAKE_O_BINARY, mode, **kwargs)
            if flags & FAKE_O_BINARY:
                text_mode.discard(fd)
            else:
                text_mode.add(fd)
            return fd

        monkeypatch.setattr(os, "open", open_)

    def fdopen(
        fd: int,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
        closefd: bool = True,
    ) -> Any:
        if "b" in mode or not any(letter in mode for letter in "wa+"):
            return real_fdopen(fd, mode, buffering, encoding, errors, newline, closefd)
        raw: io.RawIOBase = io.FileIO(fd, mode.replace("t", "").replace("+", ""), closefd=closefd)
        if fd in text_mode:
            raw = _CrtTextMode(raw)
        return io.TextIOWrapper(
            io.BufferedWriter(raw),
            encoding=encoding,
            errors=errors,
            newline="\r\n" if newline is None else newline,
            line_buffering=buffering == 1,
        )

    monkeypatch.setattr(os, "fdopen", fdopen)


@dataclass(frozen=True, slots=True)
class _Lock:
    file: tuple[int, int]
    start: int
    length: int
    fd: int

    def overlaps(self, file: tuple[int, int], start: int, length: int) -> bool:
        return (
            file == self.file and start < self.start + self.length and self.start < start + length
        )


@dataclass
class FakeMsvcrt:
    """The part of ``msvcrt`` that locks, as Windows locks; ``calls`` holds every call to
    ``locking`` as (descriptor, mode, file position, bytes)."""

    LK_UNLCK: int = 0
    LK_LOCK: int = 1
    LK_NBLCK: int = 2
    LK_RLCK: int = 3
    LK_NBRLCK: int = 4
    calls: list[tuple[int, int, int, int]] = field(default_factory=list)
    locks: list[_Lock] = field(default_factory=list)

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        position = os.lseek(fd, 0, os.SEEK_CUR)
        self.calls.append((fd, mode, position, nbytes))
        file = _identity(fd)
        if mode == self.LK_UNLCK:
            held = _Lock(file, position, nbytes, fd)
            if held not in self.locks:
                raise OSError(errno.EACCES, "Permission denied")
            self.locks.remove(held)
            return
        if any(lock.overlaps(file, position, nbytes) for lock in self.locks):
            if mode in (self.LK_LOCK, self.LK_RLCK):  # after ten tries, a second apart
                raise OSError(errno.EDEADLOCK, "Resource deadlock avoided")
            raise OSError(errno.EACCES, "Permission denied")
        self.locks.append(_Lock(file, position, nbytes, fd))

    def hold(self, fd: int, start: int, length: int = 1) -> None:
        """Lock bytes of ``fd``'s file for ``fd``, as another process would."""
        self.locks.append(_Lock(_identity(fd), start, length, fd))

    def blocks(self, fd: int, start: int, length: int) -> bool:
        """Whether a lock of another descriptor covers some of these bytes of ``fd``'s file."""
        file = _identity(fd)
        return any(lock.fd != fd and lock.overlaps(file, start, length) for lock in self.locks)

    def forget(self, fd: int) -> None:
        self.locks = [lock for lock in self.locks if lock.fd != fd]

    def module(self) -> types.ModuleType:
        module = types.ModuleType("msvcrt")
        for name in ("LK_UNLCK", "LK_LOCK", "LK_NBLCK", "LK_RLCK", "LK_NBRLCK", "locking"):
            setattr(module, name, getattr(self, name))
        return module


def _identity(fd: int) -> tuple[int, int]:
    found = os.fstat(fd)
    return found.st_dev, found.st_ino


def simulate_windows_locks(monkeypatch: pytest.MonkeyPatch) -> FakeMsvcrt:
    """No ``fcntl`` to import, the fake ``msvcrt``, mandatory locks on reads and writes, locks
    released with their descriptor, no removing a file that is open, no pread or pwrite."""
    fake = FakeMsvcrt()
    monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` raises ImportError
    monkeypatch.setitem(sys.modules, "msvcrt", fake.module())
    monkeypatch.delattr(os, "pread", raising=False)
    monkeypatch.delattr(os, "pwrite", raising=False)
    real_open, real_close, real_read, real_write = os.open, os.close, os.read, os.write
    real_unlink = os.unlink
    open_files: dict[int, tuple[int, int]] = {}

    def open_(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        fd = real_open(path, flags, mode, **kwargs)
        open_files[fd] = _identity(fd)
        return fd

    def close(fd: int) -> None:
        fake.forget(fd)
        open_files.pop(fd, None)
        real_close(fd)

    def read(fd: int, size: int) -> bytes:
        if fake.blocks(fd, os.lseek(fd, 0, os.SEEK_CUR), size):
            raise OSError(errno.EACCES, "The process cannot access the file (locked)")
        return real_read(fd, size)

    def write(fd: int, data: Any) -> int:
        if fake.blocks(fd, os.lseek(fd, 0, os.SEEK_CUR), len(data)):
            raise OSError(errno.EACCES, "The process cannot access the file (locked)")
        return real_write(fd, data)

    def unlink(path: Any, **kwargs: Any) -> None:
        try:
            found = os.stat(path)
        except OSError:
            found = None
        if found is not None and (found.st_dev, found.st_ino) in open_files.values():
            raise OSError(errno.EACCES, "The process cannot access the file", str(path))
        real_unlink(path, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "close", close)
    monkeypatch.setattr(os, "read", read)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "unlink", unlink)
    return fake


def simulate_a_reader_holding_the_target(
    monkeypatch: pytest.MonkeyPatch, refusals: int
) -> list[float]:
    """On "win32", ``os.replace`` fails with `PermissionError` ``refusals`` times, then replaces;
    returns the pauses `arena.files.replace_file` makes meanwhile, recorded instead of slept."""
    from arena import files  # the module under test, imported where it is patched

    real_replace = os.replace
    left = [refusals]
    pauses: list[float] = []

    def replace(source: str, target: str) -> None:
        if left[0]:
            left[0] -= 1
            raise PermissionError(errno.EACCES, "The process cannot access the file")
        real_replace(source, target)

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(files, "time", types.SimpleNamespace(sleep=pauses.append), raising=False)
    return pauses


CODE_PAGE_RUN_WAIT_S = 120.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))


def arena_in_code_page(
    *args: str, encoding: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """``python -m arena ARGS`` with standard output and error in ``encoding``, into a pipe."""
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.pop("PYTHONUTF8", None)
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=CODE_PAGE_RUN_WAIT_S,
        check=False,
    )
