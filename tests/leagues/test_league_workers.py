"""Worker processes of a league (or any `run_in_processes` pool): they never outlive the process
that started them, whatever ends it (SIGKILL too), never leave a complete record of a match the
results file does not hold, and a Ctrl-C while they start (importing) prints no traceback."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.leagues import play, runner
from arena.leagues.play import plan_matches, record_path
from arena.leagues.runner import run_league
from arena.store import ResultStore
from tests.leagues.test_league_interrupt import WAIT_S, start_league, stored
from tests.leagues.test_league_runner import DICE, THREE_DICE_BOTS, league

LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table from /proc"
)

ENDLESS = (
    """
name = "endless"
game = "liars-dice"
games = 1000000
"""
    + THREE_DICE_BOTS
)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {WAIT_S:.0f} s")
        time.sleep(0.02)


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def workers_of(parent: int) -> list[int]:
    """The pool workers ``parent`` spawned (not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text(encoding="utf-8")
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        ppid = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
        if int(ppid) == parent and "spawn_main" in command:
            found.append(int(entry.name))
    return found


@pytest.fixture
def leftover() -> Iterator[list[int]]:
    """Pids to kill after the test, should they outlive it (a failing run)."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_worker_leaves_its_finished_record_to_the_process_that_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = tmp_path / "records"
    config = league(tmp_path, DICE, games=2, records=records)
    plan = plan_matches(config)[0]
    monkeypatch.setattr(runner, "_worker_progress", queue.Queue())
    outcome = runner._play_in_worker(config, plan)
    assert outcome.record is not None
    final = Path(outcome.record)
    assert not final.exists()  # a worker whose parent is gone never finishes a record
    (part,) = records.glob("*.part")
    assert outcome.partial_record == str(part)
    play.finish_record(outcome)  # what the parent does, just before it stores the match
    assert final.exists() and not part.exists() and outcome.partial_record is None
    assert final.read_text(encoding="utf-8").count('"type":"result"') == 2


@LINUX
def test_killing_the_league_kills_its_workers_and_stores_nothing_more(
    tmp_path: Path, leftover: list[int]
) -> None:
    records = tmp_path / "records"
    process, db = start_league(tmp_path, ENDLESS, "--jobs", "2")
    leftover.append(process.pid)

    def both_playing() -> bool:
        return len([p for p in records.glob("*.part") if p.stat().st_size > 0]) >= 2

    wait_for(both_playing, "two matches under way")
    workers = workers_of(process.pid)
    assert len(workers) == 2
    leftover.extend(workers)
    process.kill()  # SIGKILL: nothing of the league's own runs any more
    process.wait()
    wait_for(lambda: not any(running(pid) for pid in workers), "end of the orphaned workers")
    _out, err = process.communicate(timeout=WAIT_S)
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert stored(db) == []
    # No complete record of a match that is not stored; the killed workers' partial records
    # are left, and removed by the next run (`test_a_run_removes_partial_records_of_dead_...`).
    assert [p.name for p in records.iterdir() if not p.name.endswith(".part")] == []


def test_a_run_removes_partial_records_of_dead_processes_even_of_stored_matches(
    tmp_path: Path,
) -> None:
    records = tmp_path / "records"
    config = league(tmp_path, DICE, games=2, jobs=1, records=records)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = int(gone.stdout)
    plan = plan_matches(config)[0]
    final = record_path(config, records, plan)
    stale = final.with_name(f"{final.name}.{dead}.0badc0de.part")  # a worker killed mid-match
    stale.write_text("{}\n", encoding="utf-8")
    alive = final.with_name(f"{final.name}.{os.getpid()}.0badc0de.part")  # a run still playing
    alive.write_text("{}\n", encoding="utf-8")
    with ResultStore(tmp_path / "r.sqlite") as store:
        again = run_league(config, store)
    assert (again.resumed, again.played) == (3, 0)
    assert not stale.exists()
    assert alive.exists() and final.exists()


ORPHANS = """
import ctypes, os, sys, time
from pathlib import Path

HERE = Path(sys.argv[1])


def clear_death_signal(watcher_only):
    if watcher_only:  # leave only the portable guard: the thread watching the parent
        ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)


def wait_forever(k):
    (HERE / f"worker-{os.getpid()}").touch()
    time.sleep(3600)


if __name__ == "__main__":
    from arena.processes import run_in_processes

    run_in_processes(
        wait_forever, [(0,), (1,)], 2,
        initializer=clear_death_signal, initargs=(sys.argv[2] == "watcher",),
    )
"""


@LINUX
@pytest.mark.parametrize("guard", ["kernel", "watcher"])
def test_workers_end_when_their_parent_is_killed(
    tmp_path: Path, guard: str, leftover: list[int]
) -> None:
    script = tmp_path / "orphans.py"
    script.write_text(ORPHANS, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), guard],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    leftover.append(process.pid)
    wait_for(lambda: len(list(tmp_path.glob("worker-*"))) == 2, "two workers")
    workers = [int(p.name.removeprefix("worker-")) for p in tmp_path.glob("worker-*")]
    leftover.extend(workers)
    process.kill()
    process.wait()
    wait_for(lambda: not any(running(pid) for pid in workers), "end of the orphaned workers")
    _out, err = process.communicate(timeout=WAIT_S)
    assert "Traceback" not in err, err


STARTING = """
import os, signal, sys, time
from pathlib import Path

HERE = Path(__file__).parent

if __name__ == "__mp_main__":
    # A spawned worker imports this module first: it says so, then stays in its import (as a
    # worker importing the arena for a second does) until released.
    (HERE / f"importing-{os.getpid()}").touch()
    deadline = time.monotonic() + 600
    while not (HERE / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def square(x):
    return x * x


if __name__ == "__main__":
    # The parent notes the Ctrl-C and goes on (stopping the workers at once, as the arena
    # does, could hide what a worker does with it); Python's own handler would raise.
    interrupted = []
    signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    from arena.processes import run_in_processes

    print(run_in_processes(square, [(1,), (2,)], 2))
    print("parent interrupted" if interrupted else "parent not interrupted", file=sys.stderr)
"""


@pytest.mark.skipif(os.name != "posix", reason="signals a process group")
def test_ctrl_c_while_the_workers_start_prints_no_traceback(
    tmp_path: Path, leftover: list[int]
) -> None:
    """Workers spawn with SIGINT held back: a Ctrl-C while one imports (a second or so, before
    it can ignore Ctrl-C) neither kills it mid-import with a KeyboardInterrupt traceback nor
    stops it later. (Before, each printed a traceback, or "Fatal Python error: init_import_site"
    when it came earlier still.)"""
    script = tmp_path / "starting.py"
    script.write_text(STARTING, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    leftover.append(process.pid)
    try:
        wait_for(lambda: len(list(tmp_path.glob("importing-*"))) == 2, "two workers importing")
        leftover.extend(int(p.name.removeprefix("importing-")) for p in tmp_path.glob("import*"))
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the whole group, workers mid-import
    finally:
        (tmp_path / "release").touch()
    out, err = process.communicate(timeout=WAIT_S)
    assert process.returncode == 0, err
    assert out.strip() == "[1, 4]"
    assert err.strip() == "parent interrupted", err
