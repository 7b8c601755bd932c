"""Pools of worker processes, shared by the league runner and the gauntlet."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def ignore_interrupts() -> None:
    """Run at a worker's start: Ctrl-C is the parent's to handle (it stops the workers at once),
    so a worker does not also die on it mid-task and print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    ignore_interrupts()
    if initializer is not None:
        initializer(*initargs)


def spawn_context() -> Any:
    """spawn, not fork: the parent may run a progress thread, and a forked lock could be held."""
    return multiprocessing.get_context("spawn")


def run_in_processes(
    function: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    wait: Callable[[float], None] | None = None,
    on_done: Callable[[T], None] | None = None,
) -> list[T]:
    """``function(*args)`` for every ``args`` of ``calls`` in ``jobs`` spawned worker processes;
    the results in the order of ``calls``. ``on_done`` hears of each result as it comes (a
    worker's exception is raised then); ``wait(seconds)`` is how the parent waits between looks
    (default: on the oldest call). Ctrl-C or a failure stops every worker at once."""
    pool = spawn_context().Pool(jobs, _start_worker, (initializer, initargs))
    try:
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
        pool.terminate()
        raise
    return [result.get() for result in results]
