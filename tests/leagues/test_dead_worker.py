"""A worker process of `run_in_processes` that dies mid-call (what the OOM killer or ``kill -9``
does to it) stops the run with one typed error, at once, instead of leaving its call forever
unfinished and the parent waiting on it: the other workers are stopped, the clean-up runs, no
worker is left, and the error says how the worker ended and which call it was running.

Every test here is bounded by a pytest timeout only so that a broken build fails rather than
hangs; nothing is timed.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.process
import os
import signal
import struct
import time
from collections.abc import Callable, Iterator

import pytest

from arena import processes
from arena.processes import WorkerDiedError, report, run_in_processes

ON_POSIX = pytest.mark.skipif(os.name != "posix", reason="signals")
GUARD = pytest.mark.timeout(240)
"""Far beyond what a run takes on a loaded machine: a hang fails the test instead of the
suite."""


def act(what: str) -> str:
    """A call in a worker: ``die`` is killed (SIGKILL) mid-call, ``exit`` ends with status 3,
    ``wait`` runs for ten minutes, anything else returns at once."""
    if what == "die":
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(600)  # the signal is on its way
    if what == "exit":
        os._exit(3)
    if what == "wait":
        time.sleep(600)
    return what


def die_mid_answer() -> None:
    """Dies part-way through writing a message to the parent: what a worker killed while it
    sends back a large result leaves in its pipe."""
    assert processes._to_parent is not None
    cut = struct.pack("!i", 1_000_000) + b"x" * 100  # a length, then a tenth of the bytes
    os.write(processes._to_parent.fileno(), cut)
    os._exit(9)


def count_to(n: int) -> int:
    for k in range(n):
        report(k)
    return n


class Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("not for a pipe")
        self.hook = lambda: None


def raise_unpicklable() -> None:
    raise Unpicklable


def fail_with_value_error(text: str) -> None:
    raise ValueError(text)


@pytest.fixture
def sigint_handler() -> Iterator[None]:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class CleanUp:
    """An ``on_stop`` that notes the workers still running when it runs."""

    def __init__(self) -> None:
        self.calls = 0
        self.alive: list[multiprocessing.process.BaseProcess] = []

    def __call__(self) -> None:
        self.calls += 1
        self.alive.extend(multiprocessing.active_children())


@ON_POSIX
@GUARD
def test_a_worker_killed_mid_call_stops_the_run_naming_that_call() -> None:
    # The other worker is in a ten-minute call: it is stopped at once, not waited for.
    clean_up = CleanUp()
    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(act, [("wait",), ("die",)], 2, on_stop=clean_up)
    assert (raised.value.exitcode, raised.value.call) == (-signal.SIGKILL, 1)
    assert str(raised.value) == "a worker process died (signal 9) while running call 2"
    assert clean_up.calls == 1 and clean_up.alive == []
    assert multiprocessing.active_children() == []


@ON_POSIX
@GUARD
def test_the_results_that_came_before_the_death_are_heard_and_the_call_that_died_named() -> None:
    # One worker: the calls run one after the other, the third dies.
    heard: list[str] = []
    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(act, [("a",), ("b",), ("die",), ("c",)], 1, on_done=heard.append)
    assert heard == ["a", "b"]
    assert raised.value.call == 2
    assert multiprocessing.active_children() == []


@GUARD
def test_a_worker_that_exits_mid_call_is_reported_with_its_exit_status() -> None:
    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(act, [("exit",)], 1)
    assert raised.value.exitcode == 3
    assert raised.value.line("playing A vs B") == (
        "a worker process died (exit status 3) while playing A vs B"
    )
    assert multiprocessing.active_children() == []


@GUARD
def test_a_worker_that_dies_mid_answer_is_reported_not_waited_for() -> None:
    # (concurrent.futures.ProcessPoolExecutor waits for the rest of such an answer forever,
    # and so does the interpreter's exit, which joins its reading thread.)
    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(die_mid_answer, [()], 1)
    assert (raised.value.exitcode, raised.value.call) == (9, 0)
    assert multiprocessing.active_children() == []


@ON_POSIX
@GUARD
@pytest.mark.usefixtures("sigint_handler")
def test_a_ctrl_c_while_a_dead_workers_run_stops_the_others_is_ignored(
    ctrl_c_in_each_kill: list[int | None],
) -> None:
    # The Ctrl-C lands as the stop of the workers begins (the first kill): the stop goes on,
    # the clean-up runs once no worker is left, and the dead worker is what the caller hears.
    clean_up = CleanUp()
    try:
        with pytest.raises(WorkerDiedError):
            run_in_processes(act, [("wait",), ("die",)], 2, on_stop=clean_up)
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C cut the stop of the workers short")
    assert clean_up.calls == 1 and clean_up.alive == []
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@ON_POSIX
@GUARD
@pytest.mark.usefixtures("sigint_handler")
def test_a_second_ctrl_c_inside_the_stop_is_ignored_until_the_workers_are_gone(
    ctrl_c_in_each_kill: list[int | None],
) -> None:
    def first_ctrl_c(_seconds: float) -> None:
        signal.raise_signal(signal.SIGINT)

    clean_up = CleanUp()
    with pytest.raises(KeyboardInterrupt):
        run_in_processes(act, [("wait",), ("wait",)], 2, wait=first_ctrl_c, on_stop=clean_up)
    assert clean_up.calls == 1 and clean_up.alive == []
    assert multiprocessing.active_children() == []


@GUARD
def test_a_worker_exception_is_raised_with_its_traceback_and_the_others_stopped() -> None:
    clean_up = CleanUp()
    with pytest.raises(ValueError, match=r"^bad seed$") as raised:
        run_in_processes(fail_with_value_error, [("bad seed",)], 1, on_stop=clean_up)
    assert "fail_with_value_error" in str(raised.value.__cause__)
    assert clean_up.calls == 1 and clean_up.alive == []


@GUARD
def test_an_exception_that_cannot_be_pickled_comes_back_as_its_text() -> None:
    with pytest.raises(RuntimeError, match=r"could not be sent back: .*Unpicklable: not for a"):
        run_in_processes(raise_unpicklable, [()], 1)
    assert multiprocessing.active_children() == []


@GUARD
def test_a_result_that_cannot_be_pickled_is_the_calls_failure() -> None:
    # pickle's own words: "Can't pickle local object …" until Python 3.12, "Can't get …" on 3.13.
    with pytest.raises(Exception, match=r"local object 'lambda_maker\.<locals>\.<lambda>'"):
        run_in_processes(lambda_maker, [()], 1)
    assert multiprocessing.active_children() == []


def lambda_maker() -> Callable[[], None]:
    return lambda: None


@GUARD
def test_what_a_call_reports_reaches_the_parent_before_its_result() -> None:
    heard: list[tuple[str, int]] = []
    results = run_in_processes(
        count_to,
        [(3,), (2,)],
        1,
        on_report=lambda k: heard.append(("report", k)),
        on_done=lambda n: heard.append(("done", n)),
    )
    assert results == [3, 2]
    assert heard == [
        ("report", 0),
        ("report", 1),
        ("report", 2),
        ("done", 3),
        ("report", 0),
        ("report", 1),
        ("done", 2),
    ]


def test_report_outside_a_worker_is_refused() -> None:
    with pytest.raises(RuntimeError, match="run_in_processes"):
        report(1)


def test_results_come_in_call_order_and_no_calls_start_no_worker() -> None:
    assert run_in_processes(abs, [(-k,) for k in range(7)], 3) == list(range(7))
    assert run_in_processes(abs, [], 2) == []
    assert multiprocessing.active_children() == []
    with pytest.raises(ValueError, match="at least 1"):
        run_in_processes(abs, [(-1,)], 0)
