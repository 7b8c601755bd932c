"""`arena.processes`, the worker pools of leagues and gauntlets: what a mutation audit found
untested. Whether a process is alive, the state a worker starts in (Ctrl-C ignored and not held
back, SIGTERM at its default, the kernel's death signal set), no worker left when a run returns,
an ignored Ctrl-C left ignored, and a Ctrl-C while a failed run stops its workers."""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.process
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import processes
from arena.processes import process_alive, run_in_processes

ON_POSIX = pytest.mark.skipif(os.name != "posix", reason="signals and signal masks")


def test_a_live_process_is_alive_and_an_ended_one_is_not() -> None:
    assert process_alive(os.getpid())
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert not process_alive(int(ended.stdout))


def test_a_process_of_another_user_is_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(pid: int, number: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(processes.os, "kill", refused)
    assert process_alive(12345)


WORKER_STATE = """
import ctypes, json, signal, sys

# Run again in each spawned worker as its __mp_main__: a handler the main module sets.
signal.signal(signal.SIGTERM, lambda *_: None)


def state():
    death = ctypes.c_int(-1)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
    return {
        "sigint": str(signal.getsignal(signal.SIGINT)),
        "sigterm": str(signal.getsignal(signal.SIGTERM)),
        "sigint_blocked": signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []),
        "death_signal": death.value,
    }


if __name__ == "__main__":
    from arena.processes import run_in_processes

    print(json.dumps(run_in_processes(state, [()], 1)[0]))
"""


@ON_POSIX
def test_a_worker_starts_ignoring_ctrl_c_with_sigterm_at_its_default(tmp_path: Path) -> None:
    script = tmp_path / "worker_state.py"
    script.write_text(WORKER_STATE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert state["sigint"] == str(signal.SIG_IGN)
    assert state["sigint_blocked"] is False  # a Ctrl-C held back while it started is dropped
    # pool.terminate() stops a worker with SIGTERM, whatever the main module set.
    assert state["sigterm"] == str(signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        assert state["death_signal"] == signal.SIGKILL


def test_no_worker_runs_when_the_run_returns() -> None:
    workers = run_in_processes(os.getpid, [(), ()], 2)
    assert all(pid != os.getpid() for pid in workers)
    assert [pid for pid in set(workers) if process_alive(pid)] == []


@pytest.fixture
def sigint_handler() -> Iterator[None]:
    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)


@ON_POSIX
@pytest.mark.usefixtures("sigint_handler")
def test_an_ignored_ctrl_c_stays_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    assert run_in_processes(abs, [(-2,)], 1) == [2]
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


@ON_POSIX
@pytest.mark.usefixtures("sigint_handler")
def test_a_ctrl_c_while_a_failed_run_stops_its_workers_is_ignored(
    ctrl_c_in_each_kill: list[int | None],
) -> None:
    # One call fails at once (time.sleep("x") is a TypeError in the worker) while another runs;
    # a Ctrl-C lands as the stop of the workers begins. The stop goes on, the clean-up runs
    # once no worker is left, and the failure is what the caller gets.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    alive_at_clean_up: list[multiprocessing.process.BaseProcess] = []
    cleaned: list[bool] = []

    def clean_up() -> None:
        alive_at_clean_up.extend(multiprocessing.active_children())
        cleaned.append(True)

    try:
        with pytest.raises(TypeError):
            run_in_processes(time.sleep, [("x",), (600.0,)], 2, on_stop=clean_up)
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C cut the stop of the workers short")
    assert ctrl_c_in_each_kill, "the stop killed no worker: the Ctrl-C never landed in it"
    assert cleaned == [True] and alive_at_clean_up == []
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
