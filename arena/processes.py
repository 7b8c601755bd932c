"""Pools of worker processes, shared by the league runner and the gauntlet.

A worker never outlives the process that started it: on Linux the kernel kills it when its
parent dies (``PR_SET_PDEATHSIG``), even when the parent is killed with SIGKILL; elsewhere (and
as a second guard) a thread of the worker watches its parent and ends the worker when the parent
is gone. Ctrl-C is the parent's to handle: a worker ignores it, from the moment it is spawned,
and the parent heeds the first one only, so that a second cannot cut the stopping of the
workers short.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

_PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when the thread that made it ends."""

ORPHAN_EXIT = 1
"""A worker's exit status when it stops because its parent is gone."""


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine; in doubt, yes (callers keep what a live
    process may still be using)."""
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by another user
    return True


def ignore_interrupts() -> None:
    """Run at a worker's start: Ctrl-C is the parent's to handle (it stops the workers at once),
    so a worker does not also die on it mid-task and print a traceback. The worker was spawned
    with SIGINT blocked (`_interrupts_held`), so a Ctrl-C while it started (importing) waited;
    ignoring SIGINT discards it, and the worker's own children start with it unblocked."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # pool.terminate() stops a worker with SIGTERM: its default action, whatever the modules
    # the worker imported (the parent's main module among them) set.
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


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    ignore_interrupts()
    die_with_parent()
    if initializer is not None:
        initializer(*initargs)


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
    # The pool's locks need multiprocessing's resource tracker: started while SIGINT is
    # blocked, it would unblock SIGINT when it is up (its own start blocks, then unblocks, it).
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


def run_in_processes(
    function: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    wait: Callable[[float], None] | None = None,
    on_done: Callable[[T], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> list[T]:
    """``function(*args)`` for every ``args`` of ``calls`` in ``jobs`` spawned worker processes;
    the results in the order of ``calls``. ``on_done`` hears of each result as it comes (a
    worker's exception is raised then); ``wait(seconds)`` is how the parent waits between looks
    (default: on the oldest call). Ctrl-C or a failure stops every worker at once, then runs
    ``on_stop`` (the clean-up of what the stopped workers left), then raises; a further Ctrl-C
    meanwhile is ignored (`_OneInterrupt`), so when this returns or raises no worker runs. A
    worker never outlives this process either way (`die_with_parent`)."""
    pool = None
    with _one_interrupt() as guard:
        try:
            with _interrupts_held():
                pool = spawn_context().Pool(jobs, _start_worker, (initializer, initargs))
            results = [pool.apply_async(function, args) for args in calls]
            waiting = list(results)
            while waiting:
                if wait is None:
                    waiting[0].wait(0.2)
                else:
                    wait(0.2)
                for result in [r for r in waiting if r.ready()]:
                    waiting.remove(result)
                    value = result.get()
                    if on_done is not None:
                        on_done(value)
            pool.close()
            pool.join()
        except BaseException:
            guard.stopping = True
            if pool is not None:
                pool.terminate()  # stops the workers and waits for them to end
            if on_stop is not None:
                on_stop()
            raise
    return [result.get() for result in results]
