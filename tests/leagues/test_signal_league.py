"""SIGTERM to a league run in worker processes (records audit, H1) takes Ctrl-C's path: one
line, exit 128 + SIGTERM, the finished matches stored, no partial record left, and the worker
processes stopped with it.

The league runs as a subprocess, as a user runs it; every wait is bounded only so that a broken
build fails rather than hangs.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from test_league_interrupt import DICE, WAIT_S, playing, start_league, wait_until


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux: /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text(encoding="ascii")
        found += [int(child) for child in text.split()]
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "zombie" not in state and "dead" not in state


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_sigterm_stops_a_league_and_its_workers(tmp_path: Path) -> None:
    records = tmp_path / "records"
    process, _db = start_league(tmp_path, DICE, "--jobs", "2")
    wait_until(playing(records, 1), process, "the second match")
    workers = children(process.pid)
    assert workers, "no worker processes"
    process.send_signal(signal.SIGTERM)
    try:
        _out, err = process.communicate(timeout=WAIT_S)
    except Exception:
        process.kill()
        raise
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: interrupted: finished matches are stored in {_db}; run again to resume"
    ], err
    assert not list(records.glob("*.part")), "a partial record was left behind"
    deadline = time.monotonic() + WAIT_S
    while any(running(pid) for pid in workers):
        assert time.monotonic() < deadline, "a worker outlived the league"
        time.sleep(0.05)
