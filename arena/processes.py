"""Pools of worker processes, shared by the league runner and the gauntlet.

A worker never outlives the process that started it: on Linux the kernel kills it when its
parent dies (``PR_SET_PDEATHSIG``), even when the parent is killed with SIGKILL; elsewhere (and
as a second guard) a thread of the worker watches its parent and ends the worker when the parent
is gone. Ctrl-C is the parent's to handle: a worker ignores it, from the moment it is spawned,
and the parent heeds the first one only, so that a second cannot cut the stopping of the
workers short.

The parent never waits on something a worker could leave half done. Each worker has a pipe of
its own to the parent and shares no lock with the others (``multiprocessing.Pool`` shares its
task and result queues, and their locks, among all workers: a worker killed while it held one
left a task that never became ready, and ``Pool.terminate`` waiting for that lock). A worker
that dies, killed by a signal (the OOM killer, ``kill -9``) or exiting, closes its pipe, so the
parent sees the end of the file, or its exit, at its next look, and stops the run with a
`WorkerDiedError` that says how the worker ended and which call it was running.
(``concurrent.futures.ProcessPoolExecutor`` fails every pending future alike when a worker dies,
so it cannot say which call died; and it reads results from a pipe the parent itself holds open
for writing, so a worker killed part-way through sending one leaves it, and the interpreter's
exit that joins its thread, waiting forever.)
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

from arena.errors import ArenaError

T = TypeVar("T")

_PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when the thread that made it ends."""

ORPHAN_EXIT = 1
"""A worker's exit status when it stops because its parent is gone."""

_LOOK_EVERY_S = 0.2
"""The longest the parent waits between two looks at its workers (``wait``'s argument)."""

_END_WAIT_S = 10.0
"""How long the parent waits for a worker it told to stop, or killed, to end: a bound only, so
that a worker stuck in the kernel cannot hold the command up forever (a killed one ends at
once)."""


WINDOWS_WAIT_HANDLES = 63
"""The most handles `multiprocessing.connection.wait` takes on Windows: it waits with
``WaitForMultipleObjects`` (64 at most), of which CPython keeps one for Ctrl-C, and more raise
``ValueError: need at most 63 handles`` (CPython issues #89240, #94242; `concurrent.futures`
caps its Windows workers at 61 for the same reason)."""

_HANDLES_PER_WORKER = 2
"""The parent waits on each worker's pipe and on its process (`_run`)."""

MAX_WINDOWS_WORKERS = WINDOWS_WAIT_HANDLES // _HANDLES_PER_WORKER
"""The most workers `run_in_processes` runs at once on Windows."""


def usable_jobs(jobs: int) -> int:
    """How many of ``jobs`` workers `run_in_processes` runs at once on this platform: all of
    them, except beyond `MAX_WINDOWS_WORKERS` on Windows (a 32-thread PC asks for 32 by
    default)."""
    return min(jobs, MAX_WINDOWS_WORKERS) if sys.platform == "win32" else jobs


def jobs_cut_note(option: str, jobs: int, calls: int | None = None) -> str | None:
    """The one line a command prints when ``jobs`` workers, asked for by ``option`` (``--jobs``),
    are more than run at once here (`usable_jobs`); None when all of them run, or when the
    ``calls`` to run (if known) need no more workers than run anyway."""
    wanted = jobs if calls is None else min(jobs, calls)
    usable = usable_jobs(wanted)
    if usable == wanted:
        return None
    return (
        f"{option} {jobs}: at most {usable} worker processes run at once on Windows (it waits on "
        f"at most {WINDOWS_WAIT_HANDLES} handles, {_HANDLES_PER_WORKER} per worker)"
    )


class WorkerDiedError(ArenaError):
    """A worker process ended while the run still needed it: killed by a signal (the OOM
    killer, ``kill -9``) or exiting of its own. ``exitcode`` is its exit status as
    `multiprocessing` gives it (minus the signal's number when a signal killed it; None if
    unknown), ``call`` the index in ``calls`` of the call it was running (None if idle)."""

    def __init__(self, exitcode: int | None, call: int | None) -> None:
        self.exitcode = exitcode
        self.call = call
        running = None if call is None else f"running call {call + 1}"
        super().__init__(self.line(running))

    @property
    def how(self) -> str:
        """How the worker ended: ``signal 9``, ``exit status 1``."""
        if self.exitcode is None:
            return "its exit status unknown"
        if self.exitcode < 0:
            return f"signal {-self.exitcode}"
        return f"exit status {self.exitcode}"

    def line(self, running: str | None) -> str:
        """The start of a one-line message, ``running`` saying in the caller's words what the
        worker was doing (``playing A vs B``)."""
        doing = "" if running is None else f" while {running}"
        return f"a worker process died ({self.how}){doing}"


_SYNCHRONIZE = 0x0010_0000
"""The access right to wait on a process, which is all `_windows_process_alive` does with it."""

_ERROR_INVALID_PARAMETER = 87
"""How ``OpenProcess`` says that no process has the id."""

_WAIT_OBJECT_0 = 0
"""``WaitForSingleObject``: the object is signaled, as a process is once it has ended."""


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine; in doubt, yes (callers keep what a live
    process may still be using)."""
    if sys.platform == "win32":
        return _windows_process_alive(pid)
    if os.name != "posix":
        return True  # no way to ask here (and os.kill may end the process)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by another user
    return True


def _windows_process_alive(pid: int) -> bool:
    # os.kill(pid, 0) would terminate the process there: kernel32 is asked instead.
    if sys.platform != "win32":  # never (`process_alive` asks first): mypy, the rest is Windows'
        return True
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    # A HANDLE is as wide as a pointer: ctypes' default return type, a C int, would cut it.
    kernel32.OpenProcess.argtypes = (ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32)
    kernel32.OpenProcess.restype = ctypes.c_void_p
    kernel32.WaitForSingleObject.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
    kernel32.WaitForSingleObject.restype = ctypes.c_uint32
    kernel32.CloseHandle.argtypes = (ctypes.c_void_p,)
    kernel32.CloseHandle.restype = ctypes.c_int
    handle = kernel32.OpenProcess(_SYNCHRONIZE, False, pid)
    if not handle:
        # Refused (another user's process, a system one) is a process that exists.
        return ctypes.get_last_error() != _ERROR_INVALID_PARAMETER
    try:
        # A process that has ended keeps its id while anyone holds a handle to it (this
        # process keeps its workers'), so an open handle is no proof of life: its signal is.
        # (GetExitCodeProcess's STILL_ACTIVE is also the code of a process that exited with
        # status 259.) A failed wait is a doubt: alive.
        return kernel32.WaitForSingleObject(handle, 0) != _WAIT_OBJECT_0
    finally:
        kernel32.CloseHandle(handle)


def ignore_interrupts() -> None:
    """Run at a worker's start: Ctrl-C is the parent's to handle (it stops the workers at once),
    so a worker does not also die on it mid-task and print a traceback. The worker was spawned
    with SIGINT blocked (`_interrupts_held`), so a Ctrl-C while it started (importing) waited;
    ignoring SIGINT discards it, and the worker's own children start with it unblocked."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # SIGTERM (``kill PID``) ends a worker at once, whatever the modules it imported (the
    # parent's main module among them) set: as the parent's stop does (SIGKILL).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def die_with_parent() -> None:
    """Run at a worker's start: end this process when its parent ends, however the parent ends
    (SIGKILL too), rather than play on for a league nobody stores, and write into a pipe nobody
    reads (a BrokenPipeError traceback). Linux: the kernel sends SIGKILL (``prctl``); anywhere:
    a daemon thread waits on the parent's sentinel and exits the process."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    sentinel = parent.sentinel
    if sentinel is None:  # pragma: no cover - every spawned process has one
        return

    def watch() -> None:
        # Readable when the parent is gone (its end of the pipe closed): also when it died
        # before prctl above took effect.
        multiprocessing.connection.wait([sentinel])
        os._exit(ORPHAN_EXIT)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def spawn_context() -> Any:
    """spawn, not fork: the parent may run a progress thread, and a forked lock could be held."""
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT blocked in this thread while it spawns workers: a blocked signal stays blocked
    across fork and exec, so a Ctrl-C while a worker starts (a second or so of imports, when it
    cannot yet ignore it) waits instead of killing it mid-import with a traceback; the worker
    then discards it (`ignore_interrupts`). Here a Ctrl-C that came meanwhile is delivered
    when the block ends. (Where signal masks do not exist, nothing is held.)"""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # Spawning a worker starts multiprocessing's resource tracker (the worker is handed its
    # pipe): started while SIGINT is blocked, it would unblock SIGINT when it is up (its own
    # start blocks, then unblocks, it).
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _OneInterrupt:
    """A SIGINT handler that raises `KeyboardInterrupt` once: from the first Ctrl-C (or from
    ``stopping`` set by a failure) on, further SIGINTs are ignored, so that they cannot cut the
    stopping of the workers short. GNU ``timeout -s INT`` sends SIGINT twice within
    microseconds (to the command, then to its process group): the second used to land in
    ``pool.terminate()``, which then left workers running and writing while their partial
    records were removed."""

    def __init__(self) -> None:
        self.stopping = False

    def __call__(self, _number: int, _frame: FrameType | None) -> None:
        if self.stopping:
            return
        self.stopping = True
        raise KeyboardInterrupt


@contextlib.contextmanager
def _one_interrupt() -> Iterator[_OneInterrupt]:
    """`_OneInterrupt` as the SIGINT handler within, where Python's own handler was (the main
    thread's, raising `KeyboardInterrupt`); elsewhere the handler stays as it is (a signal
    that is ignored stays ignored) and a second Ctrl-C behaves as it would have."""
    guard = _OneInterrupt()
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield guard
        return
    signal.signal(signal.SIGINT, guard)
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# -- in a worker -----------------------------------------------------------------------------


_to_parent: multiprocessing.connection.Connection | None = None
"""In a worker: its pipe to the parent (set by `_serve`)."""
_sending = threading.Lock()
"""One message at a time on the pipe, should a call `report` from a thread of its own."""


def report(value: Any) -> None:
    """In a worker of `run_in_processes`, from the call it runs: hand ``value`` to the parent's
    ``on_report`` while the call goes on (a league's finished-game counts)."""
    if _to_parent is None:
        raise RuntimeError("report() is for a call run by run_in_processes")
    _send(("report", value))


def _send(message: tuple[Any, ...]) -> None:
    assert _to_parent is not None
    with _sending:
        try:
            _to_parent.send(message)
        except (BrokenPipeError, ConnectionResetError):
            # The parent has closed the pipe: it is gone or stopping this worker, and nobody
            # reads what it would still do (nor a traceback of it).
            os._exit(ORPHAN_EXIT)


def _send_failure(call: int | None, error: BaseException) -> None:
    """The exception of call ``call`` (None: the initializer) to the parent, which raises it,
    with this side's traceback as text; an exception that cannot be pickled goes as its text
    alone."""
    text = "".join(traceback.format_exception(error))
    try:
        _send(("failed", call, error, text))
    except Exception:
        _send(("failed", call, None, text))


def _serve(
    connection: multiprocessing.connection.Connection,
    initializer: Callable[..., None] | None,
    initargs: tuple[Any, ...],
) -> None:
    """A worker's life: run each call the parent sends, and send back its result (or its
    exception), until the parent says stop (None) or closes the pipe."""
    global _to_parent
    _to_parent = connection
    ignore_interrupts()
    die_with_parent()
    try:
        if initializer is not None:
            initializer(*initargs)
    except BaseException as exc:
        _send_failure(None, exc)
        return
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        call, function, args = message
        try:
            result = function(*args)
        except BaseException as exc:
            _send_failure(call, exc)
            continue
        try:
            _send(("done", call, result))
        except Exception as exc:  # a result that cannot be pickled: the call's failure
            _send_failure(call, exc)
        del result


# -- in the parent ---------------------------------------------------------------------------


class _RemoteTraceback(Exception):
    """The traceback of a worker's exception, as its ``__cause__`` in the parent."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f"\n'''\n{self.text}'''"


@dataclass(eq=False, slots=True)
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: multiprocessing.connection.Connection
    call: int | None = None
    """The index of the call it was sent and has not answered."""
    lost: bool = False
    """Its pipe is closed (it died, or is dying): it can be sent nothing more."""

    def ended(self) -> bool:
        """Whether the process has ended (its sentinel is ready; it is not reaped here)."""
        return self.lost or bool(multiprocessing.connection.wait([self.process.sentinel], 0))

    def exitcode(self) -> int | None:
        self.process.join(_END_WAIT_S)  # it has ended: this reaps it
        return self.process.exitcode


def _spawn(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> _Worker:
    context = spawn_context()
    here, there = context.Pipe()
    # daemon: multiprocessing's own exit handler ends a worker a crash of this process left
    process = context.Process(target=_serve, args=(there, initializer, initargs), daemon=True)
    try:
        process.start()
    except BaseException:
        here.close()
        raise
    finally:
        # Only the worker holds its end now, so its death is an end of file here.
        there.close()
    return _Worker(process, here)


def _messages(worker: _Worker) -> Iterator[tuple[Any, ...]]:
    """Every message ``worker`` has sent that is here, oldest first. A worker that dies
    mid-message closes its pipe: the read ends there (`_Worker.lost`), it cannot wait on."""
    while not worker.lost:
        try:
            if not worker.connection.poll():
                return
            message = worker.connection.recv()
        except (EOFError, OSError):
            worker.lost = True
            return
        except Exception as exc:  # read whole, but it cannot be unpickled here
            raise RuntimeError(f"a worker's answer could not be read: {exc!r}") from exc
        yield message


def _raise_failure(error: BaseException | None, text: str) -> None:
    if error is None:
        last = text.strip().splitlines()[-1] if text.strip() else "an exception"
        error = RuntimeError(f"a worker's exception could not be sent back: {last}")
    error.__cause__ = _RemoteTraceback(text)
    raise error


def _stop(workers: Sequence[_Worker]) -> None:
    """Kill every worker still running, at once (not after its call), and reap them all: when
    this returns, none runs (unless the kernel holds one past `_END_WAIT_S`)."""
    for worker in workers:
        if worker.process.exitcode is None:
            worker.process.kill()
    for worker in workers:
        worker.process.join(_END_WAIT_S)
        worker.connection.close()


def _finish(workers: Sequence[_Worker]) -> None:
    """Every call answered: tell each worker to stop, and wait for it (a bounded wait; one
    that does not end in time is killed)."""
    for worker in workers:
        with contextlib.suppress(OSError):  # a worker that died meanwhile lost nothing
            worker.connection.send(None)
    for worker in workers:
        worker.process.join(_END_WAIT_S)
    _stop(workers)


def run_in_processes(
    function: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    wait: Callable[[float], None] | None = None,
    on_done: Callable[[T], None] | None = None,
    on_report: Callable[[Any], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> list[T]:
    """``function(*args)`` for every ``args`` of ``calls`` in ``jobs`` spawned worker processes;
    the results in the order of ``calls``. ``on_done`` hears of each result as it comes (a
    worker's exception is raised then), ``on_report`` of each value a call hands on meanwhile
    (`report`); ``wait(seconds)`` is how the parent waits between looks (default: on the
    workers' pipes and exits). Ctrl-C or a failure stops every worker at once, then runs
    ``on_stop`` (the clean-up of what the stopped workers left), then raises; a further Ctrl-C
    meanwhile is ignored (`_OneInterrupt`), so when this returns or raises no worker runs. A
    worker that dies is a failure: `WorkerDiedError`, naming the call it ran. A worker never
    outlives this process either way (`die_with_parent`). On Windows at most
    `MAX_WINDOWS_WORKERS` run at once (`usable_jobs`)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    workers: list[_Worker] = []
    with _one_interrupt() as guard:
        try:
            with _interrupts_held():
                for _ in range(min(usable_jobs(jobs), len(calls))):
                    workers.append(_spawn(initializer, initargs))
            results = _run(function, calls, workers, wait, on_done, on_report)
            _finish(workers)
        except BaseException:
            guard.stopping = True
            _stop(workers)
            if on_stop is not None:
                on_stop()
            raise
    return results


def _run(
    function: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    workers: Sequence[_Worker],
    wait: Callable[[float], None] | None,
    on_done: Callable[[T], None] | None,
    on_report: Callable[[Any], None] | None,
) -> list[T]:
    results: dict[int, T] = {}
    unsent = iter(range(len(calls)))

    def give_work(worker: _Worker) -> None:
        call = next(unsent, None)
        if call is None:
            return
        try:
            worker.connection.send((call, function, calls[call]))
        except (BrokenPipeError, ConnectionResetError):
            worker.lost = True  # it died idle: the look below reports it, with no call
        else:
            worker.call = call

    for worker in workers:
        give_work(worker)
    while len(results) < len(calls):
        if wait is None:
            multiprocessing.connection.wait(
                [w.connection for w in workers] + [w.process.sentinel for w in workers],
                _LOOK_EVERY_S,
            )
        else:
            wait(_LOOK_EVERY_S)
        for worker in workers:
            # Whether it has ended, asked before its messages are read: whatever it sent
            # before it died is read (and a result kept) before its death is reported.
            ended = worker.ended()
            messages = list(_messages(worker))
            if any(kind == "done" for kind, *_ in messages):
                worker.call = None
                if not (ended or worker.lost):
                    give_work(worker)  # before ``on_done``, which may take a while
            for kind, *rest in messages:
                if kind == "report":
                    if on_report is not None:
                        on_report(rest[0])
                elif kind == "done":
                    call, value = rest
                    results[call] = value
                    if on_done is not None:
                        on_done(value)
                else:
                    _raise_failure(rest[1], rest[2])
            # An idle worker that ends once every result is in has cost nothing.
            if (ended or worker.lost) and (worker.call is not None or len(results) < len(calls)):
                raise WorkerDiedError(worker.exitcode(), worker.call)
    return [results[call] for call in range(len(calls))]
