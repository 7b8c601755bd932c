"""Two SIGINTs in quick succession to a league played in worker processes (CLI audit L5): what
GNU ``timeout -s INT`` sends, to the command and again to its process group. The second must not
cut the clean-up of the first short: when the command has ended no worker runs and no partial
record is left behind.

The league runs as a subprocess, as a user runs it. The checks are of what is left, not of
timing: wherever the second signal lands, nothing may remain; every wait is bounded only so that
a broken build fails rather than hangs.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.process
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from arena.processes import run_in_processes
from tests.leagues.test_league_interrupt import DICE, WAIT_S, playing, start_league, wait_until
from tests.leagues.test_signal_league import children, running


def workers_of(pid: int) -> dict[int, str]:
    """The pool workers ``pid`` started (not its resource tracker, which ends on its own once
    its parent has gone), each with its start time: a pid the system reuses is not the same
    process."""
    found = {}
    for child in children(pid):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found[child] = _started(child)
    return found


def _started(pid: int) -> str:
    # Field 22 of /proc/PID/stat, counted after the command name (which may hold spaces).
    return Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[19]


def still_running(workers: dict[int, str]) -> list[int]:
    """The ``workers`` still running: neither gone nor a zombie, and not another process that
    took a pid over."""
    left = []
    for pid, started in workers.items():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            if running(pid) and _started(pid) == started:
                left.append(pid)
    return left


GAP_S = 0.001
"""The second signal follows the first by about this long: while the first one's clean-up (the
workers' termination) is under way."""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("attempt", range(2))
def test_a_second_sigint_leaves_no_partial_record_and_no_worker(
    tmp_path: Path, attempt: int
) -> None:
    records = tmp_path / "records"
    process, _db = start_league(tmp_path, DICE, "--jobs", "2")
    # Both workers are writing their match's partial record when the signals come.
    wait_until(playing(records, 0), process, "the first match")
    wait_until(playing(records, 1), process, "the second match")
    workers = workers_of(process.pid)
    assert len(workers) == 2, "not two worker processes"
    os.kill(process.pid, signal.SIGINT)
    time.sleep(GAP_S)
    os.kill(process.pid, signal.SIGINT)
    try:
        _out, err = process.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("two SIGINTs did not stop the league")
    assert process.returncode == 130, err
    # The workers are stopped before the command ends, not by the kernel when it has ended
    # (PR_SET_PDEATHSIG): so they are gone now, and could not have written after the clean-up.
    assert still_running(workers) == [], "a worker outlived the league"
    assert not list(records.glob("*.part")), f"partial records left behind: {err}"


def test_a_second_interrupt_inside_the_stop_is_ignored_until_the_workers_are_gone(
    ctrl_c_in_each_kill: list[int | None],
) -> None:
    # In this process, where the second Ctrl-C lands is certain: inside the first worker's kill, as
    # the stop of the workers begins.
    alive_at_clean_up: list[multiprocessing.process.BaseProcess] = []

    def first_ctrl_c(_seconds: float) -> None:
        signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_in_processes(
                time.sleep,
                [(600.0,), (600.0,)],
                2,
                wait=first_ctrl_c,
                on_stop=lambda: alive_at_clean_up.extend(multiprocessing.active_children()),
            )
        handler_after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert ctrl_c_in_each_kill, "the stop killed no worker: the second Ctrl-C never landed in it"
    assert alive_at_clean_up == [], "the clean-up ran while workers still ran"
    assert multiprocessing.active_children() == []
    assert handler_after is signal.default_int_handler, "Ctrl-C not given back to Python"
