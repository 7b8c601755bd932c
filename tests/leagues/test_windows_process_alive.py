"""Whether a process runs, on Windows (simulated on Linux): kernel32 is asked, since
``os.kill(pid, 0)`` would terminate the process there. Everything was once alive there, so a
league killed (``kill -9``, Task Manager, a crash) was named by ``--show`` as being played for
good, and the partial records of its dead processes piled up, also after a Ctrl-C of a league
with workers."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena import processes
from arena.leagues import in_play
from arena.leagues.in_play import hold_league, league_player, lock_path
from arena.leagues.play import plan_matches, record_path
from arena.leagues.runner import run_league
from arena.processes import process_alive
from arena.store import ResultStore
from tests.leagues.test_league_one_run import another_run, league_id, play, write_league
from tests.leagues.test_league_records import DICE_PAIR
from tests.leagues.test_league_runner import league
from tests.windows_simulation import simulate_windows_locks

LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table from /proc"
)

ERROR_SUCCESS = 0
ERROR_ACCESS_DENIED = 5
ERROR_INVALID_PARAMETER = 87
WAIT_OBJECT_0 = 0
WAIT_TIMEOUT = 0x102
WAIT_FAILED = 0xFFFF_FFFF
SYNCHRONIZE = 0x0010_0000

RUNNING, ENDED, GONE, REFUSED, ODD, UNWAITABLE = (
    "running",
    "ended",  # its id still held by a handle (as its parent holds a killed worker's)
    "gone",
    "refused",  # another user's, or a system process
    "odd",  # OpenProcess fails, saying nothing useful (ERROR_SUCCESS)
    "unwaitable",  # opened, but the wait fails
)


class _Function:
    """A function of the fake DLL: what it does, and the types the caller declares for it."""

    def __init__(self, call: Callable[..., object]) -> None:
        self.call = call
        self.argtypes: object = None
        self.restype: object = None

    def __call__(self, *args: object) -> object:
        return self.call(*args)


@dataclass
class FakeKernel32:
    """kernel32's OpenProcess, WaitForSingleObject and CloseHandle, over processes whose state
    ``state(pid)`` says; it records the handles it opened, waited on and closed."""

    state: Callable[[int], str]
    loaded: list[tuple[str, bool]] = field(default_factory=list)
    last_error: int = ERROR_SUCCESS
    opened: dict[int, int] = field(default_factory=dict)
    """Every handle handed out, with its process."""
    waits: list[tuple[int, int]] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.OpenProcess = _Function(self._open)
        self.WaitForSingleObject = _Function(self._wait)
        self.CloseHandle = _Function(self._close)

    def _open(self, access: int, inherit: bool, pid: int) -> int | None:
        assert access == SYNCHRONIZE and not inherit
        state = self.state(pid)
        if state in (GONE, REFUSED, ODD):
            self.last_error = {
                GONE: ERROR_INVALID_PARAMETER,
                REFUSED: ERROR_ACCESS_DENIED,
                ODD: ERROR_SUCCESS,
            }[state]
            return None  # what a NULL HANDLE (c_void_p) comes back as
        handle = 0x1000 + 4 * len(self.opened)
        self.opened[handle] = pid
        return handle

    def _wait(self, handle: int, milliseconds: int) -> int:
        self.waits.append((handle, milliseconds))
        state = self.state(self.opened[handle])
        return {ENDED: WAIT_OBJECT_0, UNWAITABLE: WAIT_FAILED}.get(state, WAIT_TIMEOUT)

    def _close(self, handle: int) -> int:
        assert handle in self.opened and handle not in self.closed
        self.closed.append(handle)
        return 1

    def open_handles(self) -> list[int]:
        return [handle for handle in self.opened if handle not in self.closed]


def simulate_windows_processes(
    monkeypatch: pytest.MonkeyPatch, state: Callable[[int], str]
) -> FakeKernel32:
    """`arena.processes` runs as on Windows: ``sys.platform`` is "win32", its ``os.name`` is
    "nt" and its ``os.kill`` fails the test (there it would terminate the process), and
    ``ctypes.WinDLL("kernel32")`` is a `FakeKernel32` over ``state``."""
    kernel32 = FakeKernel32(state)

    def win_dll(name: str, *, use_last_error: bool = False) -> FakeKernel32:
        kernel32.loaded.append((name, use_last_error))
        return kernel32

    def kill(pid: int, number: int) -> None:
        raise AssertionError(f"os.kill({pid}, {number}) terminates the process on Windows")

    windows_os = types.ModuleType("os")
    vars(windows_os).update(vars(os))
    vars(windows_os).update(name="nt", kill=kill)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(processes, "os", windows_os)
    monkeypatch.setattr(ctypes, "WinDLL", win_dll, raising=False)
    monkeypatch.setattr(ctypes, "get_last_error", lambda: kernel32.last_error, raising=False)
    return kernel32


# -- process_alive --------------------------------------------------------------------------


def test_a_process_that_is_gone_is_dead_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel32 = simulate_windows_processes(monkeypatch, lambda pid: GONE)
    assert not process_alive(4242)
    assert kernel32.loaded == [("kernel32", True)] and kernel32.opened == {}
    # Neither POSIX nor Windows: still in doubt, alive, and nothing asked.
    monkeypatch.setattr(sys, "platform", "elsewhere")
    assert process_alive(4242)
    assert kernel32.loaded == [("kernel32", True)]


def test_a_running_process_is_alive_on_windows_and_its_handle_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kernel32 = simulate_windows_processes(monkeypatch, lambda pid: RUNNING)
    assert process_alive(4242)
    (handle,) = kernel32.opened
    assert kernel32.waits == [(handle, 0)]  # looked at, never waited for
    assert kernel32.closed == [handle]
    # A HANDLE is as wide as a pointer: returned as a C int, it was cut on 64-bit Windows.
    assert kernel32.OpenProcess.restype is ctypes.c_void_p
    assert kernel32.WaitForSingleObject.argtypes == (ctypes.c_void_p, ctypes.c_uint32)
    assert kernel32.CloseHandle.argtypes == (ctypes.c_void_p,)


def test_a_process_that_ended_is_dead_on_windows_while_a_handle_holds_its_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A league's workers stopped by Ctrl-C: their parent still holds their handles when it
    # removes their partial records, so OpenProcess succeeds; the process has ended all the
    # same.
    kernel32 = simulate_windows_processes(monkeypatch, lambda pid: ENDED)
    assert not process_alive(4242)
    assert kernel32.open_handles() == [] and len(kernel32.closed) == 1


@pytest.mark.parametrize("state", [REFUSED, ODD, UNWAITABLE])
def test_a_process_windows_does_not_say_is_gone_is_alive(
    monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    # In doubt, alive: callers keep what a live process may still be using. Access denied
    # (another user's process) even says that the process exists.
    kernel32 = simulate_windows_processes(monkeypatch, lambda pid: state)
    assert process_alive(4242)
    assert kernel32.loaded == [("kernel32", True)] and kernel32.open_handles() == []
    opened = 1 if state == UNWAITABLE else 0
    assert len(kernel32.waits) == len(kernel32.closed) == opened


# -- what a user sees -----------------------------------------------------------------------


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def windows_view(pid: int) -> str:
    """What kernel32 would say of this machine's process ``pid``: a zombie (ended, held by the
    parent that has not reaped it) is a process that ended while a handle holds its id."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return GONE
    except PermissionError:
        return REFUSED
    return ENDED if _zombie(pid) else RUNNING


def ended_pid() -> int:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(ended.stdout)


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts, waiting on stdin; ended and reaped after it."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        child.kill()
        child.wait(timeout=60)


def waiting_child(children: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, text=True
    )
    children.append(child)
    return child


@LINUX
def test_show_names_no_run_of_a_league_killed_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = write_league(tmp_path), tmp_path / "r.sqlite"
    league = league_id(config, db)
    with another_run(db, league) as holder:
        holder.kill()  # its lock file stays, naming it
        holder.wait(timeout=60)
    assert str(holder.pid) in lock_path(db, league).read_text(encoding="utf-8")
    simulate_windows_locks(monkeypatch)
    monkeypatch.setattr(in_play, "fcntl", None)  # its import at load time found none
    simulate_windows_processes(monkeypatch, windows_view)
    code, _out, error = play(config, db, "--show")
    assert code == 0 and "being played now" not in error, error
    assert league_player(db, league) is None
    # A run that plays is still named.
    with hold_league(db, league, "dice"):
        code, _out, error = play(config, db, "--show")
    assert code == 0 and f"league 'dice' is being played now (process {os.getpid()}" in error


@LINUX
def test_a_resumed_run_on_windows_removes_the_partial_records_of_dead_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, children: list[subprocess.Popen[str]]
) -> None:
    records = tmp_path / "records"
    config = league(tmp_path, DICE_PAIR, games=2, jobs=1, records=records)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
    final = record_path(config, records, plan_matches(config)[0])

    def part(pid: int) -> Path:
        path = final.with_name(f"{final.name}.{pid}.0badc0de.part")
        path.write_text("{}\n", encoding="utf-8")
        return path

    killed = part(ended_pid())  # a league killed mid-match
    stopped = waiting_child(children)  # a worker stopped by Ctrl-C, its handle still held
    stopped.kill()
    deadline = time.monotonic() + 60
    while not _zombie(stopped.pid):  # killed, not reaped
        if time.monotonic() > deadline:
            pytest.fail("the killed child never ended")
        time.sleep(0.01)
    held = part(stopped.pid)
    playing = part(waiting_child(children).pid)  # another run's, still playing the match
    simulate_windows_locks(monkeypatch)
    monkeypatch.setattr(in_play, "fcntl", None)
    simulate_windows_processes(monkeypatch, windows_view)
    with ResultStore(tmp_path / "r.sqlite") as store:
        again = run_league(config, store)
    assert (again.resumed, again.played) == (1, 0)
    assert not killed.exists() and not held.exists()
    assert playing.exists() and final.exists()
