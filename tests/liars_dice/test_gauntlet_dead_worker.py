"""A worker of ``arena liars-dice gauntlet --jobs 2`` killed mid-run (the OOM killer, ``kill
-9``): the gauntlet stops with one line naming the duel, a non-zero exit and no traceback, its
other worker stopped too, instead of waiting forever for the dead worker's duel.

The gauntlet runs as a subprocess, as a user runs it; every wait is bounded only so that a
broken build fails rather than hangs.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

# The child restores Python's own SIGINT handler (a test runner may start it ignored).
CLI = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from arena.cli.main import main; main()"
)
WAIT_S = 60.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
"""How long a step may take before the test gives up (a loaded machine is slow)."""


def workers_of(parent: int) -> list[int]:
    """The worker processes ``parent`` spawned (not its resource tracker)."""
    found = []
    for task in Path(f"/proc/{parent}/task").iterdir():
        for child in (task / "children").read_text(encoding="ascii").split():
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in command:
                found.append(int(child))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def busy_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (user and system), 0 once it has gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


PLAYING_S = 3.0
"""CPU seconds after which a worker is past its start (importing takes about one) and playing
duels, which take all of its time but a message to the parent between two."""


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {WAIT_S:.0f} s")
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.timeout(600)
def test_a_killed_worker_stops_the_gauntlet_with_one_line(tmp_path: Path) -> None:
    command = [sys.executable, "-c", CLI, "liars-dice", "gauntlet", "--bot", "random-guess"]
    command += ["--games", "2000", "--seeds", "1-4", "--driver", "direct", "--jobs", "2"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(lambda: len(workers_of(process.pid)) == 2, "two worker processes")
        workers = workers_of(process.pid)
        # Killed while it starts, a worker would lose no duel to `multiprocessing.Pool` (which
        # replaced it): the kill must come mid-duel.
        victim = min(workers)
        wait_for(lambda: busy_seconds(victim) > PLAYING_S, "a worker playing")
        os.kill(victim, signal.SIGKILL)
        _out, err = process.communicate(timeout=WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode not in (0, None), err
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err
    assert re.fullmatch(
        r"error: a worker process died \(signal 9\) while playing random-guess against "
        r"type\d+ \(seed '1'\); the other workers are stopped, and a gauntlet is reported only "
        r"once every personality is played",
        errors[0],
    ), err
    # Stopped by the gauntlet before it ended (the kernel would stop them only once it has).
    assert [pid for pid in workers if running(pid)] == []
