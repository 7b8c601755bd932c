"""Nothing lost when the machine misbehaves: what a mutation audit of the day's code found
untested.

The worker pool (`arena.processes`): how an ended worker is named (an exit status of 0, an
unknown one, a worker that died idle), an initializer's own failure, a worker that ends right
after its last answer, one worker per call at most, workers that end on their own (or are
killed when they do not), and a report to a parent that has gone.

The results file (`arena.store`): a chmod is not a replacement, a saved copy's name and mode, a
removed file another program holds, another database's -wal left alone, an interrupt with a
replaced file, extra games rows, a full disk's hint, a copy cut short, and the -wal and -shm a
--show or another user leaves.

``arena league``: another user's -wal and -shm named as the cause, a file made read-only
mid-run, a dead worker's line, a fast match's time, a file name with brackets, the ids of
several stored leagues of a name; a gauntlet's dead worker. A match record moved into place: a
directory that refuses a sync, no descriptor left open, the error when the record is gone.

Nothing here is timed: waits are bounded only so that a broken build fails rather than hangs.
"""

from __future__ import annotations

import errno
import multiprocessing
import multiprocessing.process
import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import pytest
from test_league_results_file_trouble import (
    MATCHES,
    THREE_BOTS,
    a_config,
    a_league,
    after_saves,
    an_outcome,
    keys_in,
    lines_of,
    run_cli,
    second_store_fails,
    stored_keys,
)

import arena.bench.liars_dice
import arena.leagues.play
import arena.leagues.runner
import arena.store_in_place
from arena import processes
from arena.bench.liars_dice import run_gauntlet
from arena.errors import ArenaError
from arena.leagues.outcomes import MatchOutcome
from arena.leagues.play import RecordWriteError
from arena.processes import ORPHAN_EXIT, WorkerDiedError, run_in_processes
from arena.store import ReadOnlyStoreError, ResultStore, StoredLeague, StoreError
from arena.store_open import ResultsReplacedError, companions, make_companions_writable

ON_POSIX = pytest.mark.skipif(os.name != "posix", reason="signals")
ON_LINUX = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc")
GUARD = pytest.mark.timeout(240)
"""Far beyond what a run takes on a loaded machine: a hang fails the test, not the suite."""


# -- calls run in the workers -----------------------------------------------------------------


def exit_with(status: int) -> None:
    os._exit(status)


def pid_or_sleep(what: str) -> int:
    """``pid``: this worker's pid, at once; anything else: a long call (stopped by the run)."""
    if what == "pid":
        return os.getpid()
    time.sleep(30)
    return -1


def fail_to_start(text: str) -> None:
    raise ValueError(text)


class EndsTheWorkerWhenDropped:
    """A result whose worker ends (exit status 0) once it has sent it back: dropped there after
    it is sent, its ``__del__`` ends the process; in the parent it is a plain value."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __del__(self) -> None:
        if processes._to_parent is not None:
            os._exit(0)


def answer_then_end(pid_file: str) -> EndsTheWorkerWhenDropped:
    Path(pid_file).write_text(str(os.getpid()), encoding="ascii")
    return EndsTheWorkerWhenDropped(7)


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie, not yet reaped, has)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return True
    return status.rsplit(")", 1)[1].split()[0] in ("Z", "X")


# -- how a dead worker is named -----------------------------------------------------------------


@GUARD
def test_a_worker_that_exits_with_status_0_mid_call_is_said_to_have_exited() -> None:
    # A status of 0 is an exit, not a signal: "signal 0" would send a reader after a kill.
    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(exit_with, [(0,)], 1)
    assert (raised.value.exitcode, raised.value.call) == (0, 0)
    assert str(raised.value) == "a worker process died (exit status 0) while running call 1"
    assert multiprocessing.active_children() == []


def test_a_worker_whose_exit_status_is_unknown_is_said_so() -> None:
    died = WorkerDiedError(None, 4)
    assert str(died) == "a worker process died (its exit status unknown) while running call 5"
    assert died.line("playing A vs B") == (
        "a worker process died (its exit status unknown) while playing A vs B"
    )


@ON_POSIX
@GUARD
def test_a_worker_killed_while_idle_stops_the_run_without_blaming_a_call() -> None:
    # Worker 1 answers call 1 and is killed, idle, while worker 2 is still in call 2: the run
    # stops at once (it would wait 30 s for call 2 otherwise), and the error names no call, not
    # the one the dead worker had finished.
    def kill_the_idle_worker(pid: int) -> None:
        if pid > 0:  # not the long call's answer (none comes unless the run failed to stop)
            os.kill(pid, signal.SIGKILL)

    with pytest.raises(WorkerDiedError) as raised:
        run_in_processes(pid_or_sleep, [("pid",), ("sleep",)], 2, on_done=kill_the_idle_worker)
    assert (raised.value.exitcode, raised.value.call) == (-signal.SIGKILL, None)
    assert str(raised.value) == "a worker process died (signal 9)"
    assert multiprocessing.active_children() == []


@ON_LINUX
@GUARD
def test_a_worker_that_ends_right_after_its_last_answer_costs_nothing(tmp_path: Path) -> None:
    # Its answer is in before its end is seen (the parent looks only once it has ended): every
    # call is answered, so the run returns its results rather than report a death.
    pid_file = tmp_path / "worker.pid"

    def until_the_worker_has_ended(seconds: float) -> None:
        if not pid_file.is_file():
            time.sleep(seconds)
            return
        pid = int(pid_file.read_text(encoding="ascii"))
        while not gone(pid):
            time.sleep(0.01)

    results = run_in_processes(
        answer_then_end, [(str(pid_file),)], 1, wait=until_the_worker_has_ended
    )
    assert [result.value for result in results] == [7]
    assert multiprocessing.active_children() == []


# -- starting and ending workers ----------------------------------------------------------------


@GUARD
def test_a_failing_initializer_is_raised_as_its_own_error() -> None:
    # A league's worker that cannot set up its logging says why, not "a worker process died".
    with pytest.raises(ValueError, match=r"^no log file here$") as raised:
        run_in_processes(abs, [(-1,)], 1, initializer=fail_to_start, initargs=("no log file here",))
    assert "fail_to_start" in str(raised.value.__cause__)
    assert multiprocessing.active_children() == []


@GUARD
def test_no_more_workers_start_than_there_are_calls() -> None:
    # --jobs 8 for two matches: two processes, not eight (each spends a second importing).
    alive: list[int] = []

    def count_the_workers(_result: int) -> None:
        alive.append(len(multiprocessing.active_children()))

    results = run_in_processes(abs, [(-1,), (-2,)], 8, on_done=count_the_workers)
    assert results == [1, 2]
    assert alive and max(alive) <= 2


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[multiprocessing.process.BaseProcess]:
    """The worker processes the runs of this test spawn."""
    processes_spawned: list[multiprocessing.process.BaseProcess] = []
    spawn = processes._spawn

    def noted_spawn(*args: Any) -> Any:
        worker = spawn(*args)
        processes_spawned.append(worker.process)
        return worker

    monkeypatch.setattr(processes, "_spawn", noted_spawn)
    return processes_spawned


@GUARD
def test_workers_end_on_their_own_once_every_call_is_answered(
    spawned: list[multiprocessing.process.BaseProcess],
) -> None:
    # Told to stop, each ends with status 0 (its own exit, its clean-up run), not killed after
    # the parent waited for it in vain.
    assert run_in_processes(abs, [(-1,), (-2,), (-3,)], 2) == [1, 2, 3]
    assert [process.exitcode for process in spawned] == [0, 0]


def start_a_thread_that_never_ends() -> int:
    """Leaves a thread that keeps the worker from ending when told to stop."""
    threading.Thread(target=time.sleep, args=(600,), daemon=False).start()
    return 1


@GUARD
def test_a_worker_that_does_not_end_when_told_is_stopped_by_the_run(
    spawned: list[multiprocessing.process.BaseProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wait for it is cut short here (a bound, not a pause); then it is killed, as after a
    # failure, rather than left running once the run has returned.
    monkeypatch.setattr(processes, "_END_WAIT_S", 0.1)
    assert run_in_processes(start_a_thread_that_never_ends, [()], 1) == [1]
    (worker,) = spawned
    worker.join(120)  # a killed process ends at once; the bound only fails a broken build
    assert worker.exitcode == -signal.SIGKILL


REPORT_TO_A_GONE_PARENT = """
import multiprocessing
from arena import processes

here, there = multiprocessing.Pipe()
processes._to_parent = there
here.close()  # the parent's end: it has gone, or is stopping this worker
processes.report(1)
print("still running")
"""


@ON_POSIX
def test_a_report_to_a_parent_that_has_gone_ends_the_worker_without_a_traceback() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", REPORT_TO_A_GONE_PARENT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == ORPHAN_EXIT
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr


# -- the results file at its path -------------------------------------------------------------


def replace_with_another_file(path: Path) -> None:
    path.unlink()
    path.write_text("another file", encoding="utf-8")


def test_a_results_file_whose_mode_changes_while_in_use_is_still_the_same_file(
    tmp_path: Path,
) -> None:
    # A chmod (to share the results, or to protect them) is not a replacement: no copy, no
    # warning, and the league goes on storing into the file it was given.
    path = tmp_path / "r.sqlite"
    warnings: list[str] = []
    with ResultStore(path, on_warning=warnings.append) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        path.chmod(0o640)
        store.save_match(league, an_outcome(1))
    assert warnings == []
    assert keys_in(path) == ["a vs b0", "a vs b1"]
    assert sorted(each.name for each in tmp_path.iterdir()) == ["r.sqlite"]


class _At2026(datetime):
    """The clock at 2026-01-02 03:04:05 UTC, for a saved copy's name."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _At2026:
        return cls(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_saved_copy_is_named_for_its_time_and_never_overwrites_an_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena.store_in_place, "datetime", _At2026)
    path = tmp_path / "r.sqlite"
    earlier = tmp_path / "r.saved-20260102T030405Z.sqlite"
    earlier.write_text("a copy saved earlier in the same second", encoding="utf-8")
    with ResultStore(path) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        replace_with_another_file(path)
        with pytest.raises(ResultsReplacedError) as caught:
            store.save_match(league, an_outcome(1))
    assert caught.value.saved == tmp_path / "r.saved-20260102T030405Z-1.sqlite"
    assert earlier.read_text(encoding="utf-8") == "a copy saved earlier in the same second"
    assert keys_in(caught.value.saved) == ["a vs b0", "a vs b1"]


def test_a_replaced_file_is_left_as_it_is_and_the_copy_keeps_the_files_mode(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        a_league(store)
    path.chmod(0o640)  # the owner shares the results with the group
    with ResultStore(path) as store:
        (league,) = store.leagues()
        store.save_match(league, an_outcome(0))
        replace_with_another_file(path)
        with pytest.raises(ResultsReplacedError) as caught:
            store.save_match(league, an_outcome(1))
    saved = caught.value.saved
    assert str(caught.value) == (
        f"{path} was replaced by another file while the league used it; that file is left as "
        f"it is, and this league's results are saved to {saved}: resume with --db {saved} (or "
        f"move it to {path} once nothing else needs that name)"
    )
    assert stat.S_IMODE(saved.stat().st_mode) == 0o640
    assert path.read_text(encoding="utf-8") == "another file"


def test_a_file_removed_while_another_program_has_it_open_is_saved_beside_it(
    tmp_path: Path,
) -> None:
    # The other program keeps the removed file's -wal and -shm at the path: a file written back
    # there would take them for its own, so the results go to a copy instead, and the path is
    # left empty.
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        with closing(sqlite3.connect(path)) as reader:
            reader.execute("SELECT count(*) FROM matches").fetchone()
            path.unlink()
            with pytest.raises(ResultsReplacedError) as caught:
                store.save_match(league, an_outcome(1))
            saved = caught.value.saved
            assert str(caught.value).startswith(
                f"{path} was removed while the league used it; cannot be written back (another "
                f"program has it open, or a file took its place), and this league's results are "
                f"saved to {saved}: resume with --db {saved}"
            )
            assert not path.exists()
    assert keys_in(saved) == ["a vs b0", "a vs b1"]


OTHER_DATABASE = """
import os, sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute("PRAGMA journal_mode = WAL")
connection.execute("CREATE TABLE notes (text TEXT)")
connection.execute("INSERT INTO notes VALUES ('kept')")
connection.commit()
os._exit(0)  # no close: the committed row is in the -wal only
"""


def test_a_file_moved_in_with_its_own_wal_keeps_what_its_wal_holds(tmp_path: Path) -> None:
    # Another program's database moved to the path with its -wal (its committed rows not yet
    # in the file): the store saves its own results beside it and removes nothing of it.
    path, other = tmp_path / "r.sqlite", tmp_path / "other.sqlite"
    made = subprocess.run([sys.executable, "-c", OTHER_DATABASE, str(other)], check=False)
    assert made.returncode == 0
    with ResultStore(path) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        for suffix in ("-wal", "-shm", ""):
            os.replace(f"{other}{suffix}", f"{path}{suffix}")
        with pytest.raises(ResultsReplacedError) as caught:
            store.save_match(league, an_outcome(1))
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT text FROM notes").fetchall() == [("kept",)]
    assert keys_in(caught.value.saved) == ["a vs b0", "a vs b1"]


def test_an_interrupt_is_what_the_caller_hears_and_the_saved_copy_a_warning(
    tmp_path: Path,
) -> None:
    # Ctrl-C while the file had been replaced: the interrupt stops the command as it should,
    # and the warning says where the results went.
    path = tmp_path / "r.sqlite"
    warnings: list[str] = []
    with pytest.raises(KeyboardInterrupt), ResultStore(path, on_warning=warnings.append) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0))
        replace_with_another_file(path)
        raise KeyboardInterrupt
    (saved,) = tmp_path.glob("r.saved-*.sqlite")
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path} was replaced by another file")
    assert f"resume with --db {saved}" in warnings[0]
    assert keys_in(saved) == ["a vs b0"]


def test_a_match_with_more_games_rows_than_its_summary_counts_is_damaged(tmp_path: Path) -> None:
    # Rows added by hand would count in the standings: damaged, as rows deleted are.
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        league = a_league(store)
        store.save_match(league, an_outcome(0, games=2))
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "INSERT INTO games (match_id, idx, unit, scores) "
            "SELECT match_id, 2, unit, scores FROM games WHERE idx = 0"
        )
    said = (
        "damaged match 'a vs b0' (matches id 1): its summary counts 2 games, the games table "
        "holds 3 of them"
    )
    with ResultStore(path, read_only=True) as store:
        (league,) = store.leagues()
        with pytest.raises(StoreError, match=re.escape(said)):
            store.stored_keys(league)
        with pytest.raises(StoreError, match=re.escape(said)):
            store.matches(league)


WRITE_PAST_A_SIZE_LIMIT = """
import os, resource, signal, sys
from pathlib import Path
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.store import ResultStore, StoreError

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
path = Path(sys.argv[1])


def outcome(index, note=""):
    plan = MatchPlan(index, ("a", f"b{index}"), "seed")
    games = [GameOutcome(0, 0, {"a": 1.0, f"b{index}": 0.0})]
    return MatchOutcome(plan, games, {"games": 1, "note": note}, 1.0)


store = ResultStore(path)
league = store.open_league("l", "liars-dice", "seed", "fingerprint", {"games": 1})
store.save_match(league, outcome(0))
if sys.argv[2] == "store":
    # No file may grow any more: the next match cannot be stored.
    largest = max(os.path.getsize(each) for each in path.parent.iterdir())
    resource.setrlimit(resource.RLIMIT_FSIZE, (largest, resource.RLIM_INFINITY))
    action = lambda: store.save_match(league, outcome(1, "x" * 100_000))
else:
    # Removed, and no room for a copy of it: what it held cannot be saved.
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    path.unlink()
    action = store.close
try:
    action()
except StoreError as exc:
    print(exc)
"""


def _past_a_size_limit(path: Path, what: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", WRITE_PAST_A_SIZE_LIMIT, str(path), what],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_write_that_fails_for_want_of_room_names_the_usual_causes(tmp_path: Path) -> None:
    # SQLite says only "disk I/O error".
    said = _past_a_size_limit(tmp_path / "r.sqlite", "store")
    assert said == (
        f"{tmp_path / 'r.sqlite'}: cannot store match 'a vs b1': disk I/O error (a full disk, "
        "or a file size limit, is the usual cause)"
    )


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_copy_that_cannot_be_saved_is_not_left_behind_cut_short(tmp_path: Path) -> None:
    # A partial copy named like a saved results file would be taken for one (and resumed from).
    said = _past_a_size_limit(tmp_path / "r.sqlite", "close")
    assert said.startswith(
        f"{tmp_path / 'r.sqlite'} was removed while the league used it, and what it held "
        "cannot be saved beside it: "
    )
    assert list(tmp_path.glob("r.saved-*")) == []


# -- the -wal and -shm beside a results file ----------------------------------------------------


WRITE_AND_DIE = """
import os, sys
from pathlib import Path
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.store import ResultStore
store = ResultStore(Path(sys.argv[1]))
league = store.open_league("l", "liars-dice", "seed", "fingerprint", {"games": 1})
plan = MatchPlan(0, ("a", "b"), "seed")
store.save_match(league, MatchOutcome(plan, [GameOutcome(0, 0, {"a": 1.0, "b": 0.0})], {}, 1.0))
os._exit(0)  # no close: the -wal and -shm stay
"""


def _left_with_wal_and_shm(path: Path) -> tuple[Path, Path]:
    died = subprocess.run(
        [sys.executable, "-c", WRITE_AND_DIE, str(path)],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        check=False,
    )
    assert died.returncode == 0
    wal, shm = companions(path)
    assert wal.is_file() and shm.is_file()
    return wal, shm


def test_a_show_changes_nothing_it_did_not_make(tmp_path: Path) -> None:
    # --show reads: a -wal and -shm that were there before it keep their mode.
    path = tmp_path / "r.sqlite"
    wal, shm = _left_with_wal_and_shm(path)
    for each in (wal, shm):
        each.chmod(0o440)
    with ResultStore(path, read_only=True) as store:
        (league,) = store.leagues()
        assert [match.plan.key for match in store.matches(league)] == ["a vs b"]
    assert [stat.S_IMODE(each.stat().st_mode) for each in (wal, shm)] == [0o440, 0o440]


AS_ROOT = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="makes files of another user"
)
ANOTHER_USER = 65534
"""nobody"""


@AS_ROOT
def test_another_users_wal_and_shm_keep_their_mode(tmp_path: Path) -> None:
    # Only this user's own are made writable: another's are theirs to change.
    path = tmp_path / "r.sqlite"
    wal, shm = _left_with_wal_and_shm(path)
    for each in (wal, shm):
        os.chown(each, ANOTHER_USER, -1)
        each.chmod(0o444)
    make_companions_writable(path)
    assert [stat.S_IMODE(each.stat().st_mode) for each in (wal, shm)] == [0o444, 0o444]


NO_OVERRIDE = "-dac_override,-dac_read_search,-fowner"


def _as_plain_user(*command: str) -> subprocess.CompletedProcess[str]:
    """``command`` as a user the permission bits stop: this one, or, for root (whom they do not
    stop), root without the capabilities that pass them (``setpriv``); skipped as root where
    that cannot be done."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        drop = [f"--inh-caps={NO_OVERRIDE}", f"--bounding-set={NO_OVERRIDE}"]
        if setpriv is None or subprocess.run([setpriv, *drop, "true"], check=False).returncode:
            pytest.skip("running as root, and setpriv cannot drop what passes permission bits")
        prefix = [setpriv, *drop]
    return subprocess.run(
        [*prefix, *command],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


STORE_ONE_MORE = """
import sys
from pathlib import Path
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.store import ResultStore, StoreError
try:
    with ResultStore(Path(sys.argv[1])) as store:
        (league,) = store.leagues()
        plan = MatchPlan(1, ("a", "c"), "seed")
        outcome = MatchOutcome(plan, [GameOutcome(0, 0, {"a": 1.0, "c": 0.0})], {}, 1.0)
        store.save_match(league, outcome)
except StoreError as exc:
    print(exc)
"""


@AS_ROOT
def test_another_users_read_only_wal_and_shm_are_named_as_the_cause(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    wal, shm = _left_with_wal_and_shm(path)
    for each in (wal, shm):
        os.chown(each, ANOTHER_USER, -1)
        each.chmod(0o444)
    done = _as_plain_user(sys.executable, "-c", STORE_ONE_MORE, str(path))
    assert done.returncode == 0, done.stderr
    assert f": {wal} and {shm} are read-only to this process (left by a program" in done.stdout


DICE_CONFIG = """
name = "dice"
game = "liars-dice"
games = 2
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


@AS_ROOT
def test_a_league_stopped_by_another_users_wal_and_shm_names_them_not_show(
    tmp_path: Path,
) -> None:
    # The file itself is writable: "use --show" would send the user after the wrong cause.
    path = tmp_path / "r.sqlite"
    wal, shm = _left_with_wal_and_shm(path)
    for each in (wal, shm):
        os.chown(each, ANOTHER_USER, -1)
        each.chmod(0o444)
    config = tmp_path / "dice.toml"
    config.write_text(DICE_CONFIG, encoding="utf-8")
    cli = "from arena.cli.main import main; main()"
    done = _as_plain_user(sys.executable, "-c", cli, "league", str(config), "--db", str(path))
    assert done.returncode == 2, done.stderr
    assert lines_of(done.stderr)[-1] == (
        f"error: {path}: cannot start league 'dice': attempt to write a readonly database: "
        f"{wal} and {shm} are read-only to this process (left by a program that could only "
        "read it); make them writable, or remove them when no program has the results file "
        "open"
    )


READ_AND_CLOSE = """
import sys
from pathlib import Path
from arena.store import ResultStore
with ResultStore(Path(sys.argv[1]), read_only=True) as store:
    (league,) = store.leagues()
    print(len(store.matches(league)))
"""

WRITE_WITH_SQLITE = """
import sqlite3, sys
with sqlite3.connect(sys.argv[1]) as connection:
    connection.execute("PRAGMA user_version = 7")
print("written")
"""


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_a_show_of_a_read_only_file_leaves_nothing_that_stops_another_program(
    tmp_path: Path,
) -> None:
    # Not only a later league (which makes its own -wal and -shm writable): sqlite3, or an
    # earlier arena, writing the file once it is writable again.
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        store.save_match(a_league(store), an_outcome(0))
    path.chmod(0o444)
    shown = _as_plain_user(sys.executable, "-c", READ_AND_CLOSE, str(path))
    assert shown.returncode == 0 and shown.stdout.strip() == "1", shown.stderr
    path.chmod(0o644)
    written = _as_plain_user(sys.executable, "-c", WRITE_WITH_SQLITE, str(path))
    assert written.returncode == 0 and written.stdout.strip() == "written", written.stderr


# -- arena league: what it says when a store, a record or a worker fails ------------------------


def test_a_results_file_made_read_only_mid_run_says_what_is_kept_and_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not the advice for a file that was read-only from the start (use --show): the league was
    # under way, its stored matches are kept, and the same command goes on.
    config, db = a_config(tmp_path), tmp_path / "r.sqlite"
    second_store_fails(
        monkeypatch,
        lambda store, outcome: ReadOnlyStoreError(
            f"{store.path}: cannot store match {outcome.plan.key!r}: attempt to write a "
            "readonly database"
        ),
    )
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 2, result.output
    *_, resume, error = lines_of(result.stderr)
    assert resume == f"to resume: arena league {config} --db {db}"
    assert error == (
        f"error: {db}: cannot store match 'random-guess vs bayes': attempt to write a readonly "
        f"database; the matches stored so far are kept in {db}: once the cause is fixed, run "
        "the command above to go on"
    )
    assert stored_keys(db) == MATCHES[:1]


def test_a_dead_worker_says_which_match_and_how_many_were_stored_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first match is played and stored, then the worker playing the second dies.
    config, db = a_config(tmp_path, THREE_BOTS.replace("jobs = 1", "jobs = 2")), tmp_path / "r.db"

    def one_match_then_a_dead_worker(
        function: Callable[..., Any],
        calls: Sequence[tuple[Any, ...]],
        _jobs: int,
        *,
        on_done: Callable[[Any], None],
        **_kw: Any,
    ) -> list[Any]:
        on_done(function(*calls[0]))
        raise WorkerDiedError(-signal.SIGKILL, 1)

    monkeypatch.setattr(arena.leagues.runner, "_worker_progress", _Discard())
    monkeypatch.setattr(arena.leagues.runner, "run_in_processes", one_match_then_a_dead_worker)
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 2, result.output
    *_, resume, error = lines_of(result.stderr)
    assert resume == f"to resume: arena league {config} --db {db}"
    assert error == (
        f"error: a worker process died (signal 9) while playing {MATCHES[1]}, after 1 match of "
        f"this run finished; the matches stored so far are kept in {db}: once the cause is "
        "fixed, run the command above to go on"
    )
    assert stored_keys(db) == MATCHES[:1]


class _Discard:
    """Where a match played in this process, as a worker would, sends its game counts."""

    @staticmethod
    def put(_games: int) -> None:
        pass


def test_a_gauntlet_with_a_dead_worker_names_the_duel_it_was_playing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def third_duel_dies(*_args: Any, **_kw: Any) -> list[Any]:
        raise WorkerDiedError(-signal.SIGKILL, 2)

    monkeypatch.setattr(arena.bench.liars_dice, "run_in_processes", third_duel_dies)
    with pytest.raises(ArenaError) as raised:
        run_gauntlet("random-guess", 4, "1", opponents=["type1", "type2", "type3"], jobs=2)
    assert str(raised.value) == (
        "a worker process died (signal 9) while playing random-guess against type3 (seed '1'); "
        "the other workers are stopped, and a gauntlet is reported only once every "
        "personality is played"
    )


def test_a_progress_line_shows_a_fast_matchs_time_in_two_significant_digits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, db = a_config(tmp_path), tmp_path / "r.sqlite"
    original = ResultStore.save_match

    def save_match(
        self: ResultStore, league: StoredLeague, outcome: MatchOutcome, **kw: Any
    ) -> bool:
        outcome.seconds = 0.0312  # what a 50-game liar's dice match takes
        return original(self, league, outcome, **kw)

    monkeypatch.setattr(ResultStore, "save_match", save_match)
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 0, result.output
    assert f"  {MATCHES[0]}: 4 games in 0.031 s (1/3)" in lines_of(result.stderr)


def test_a_warning_shows_a_results_file_name_with_brackets_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "[b]" in a file name is not a style: the warning names the file the user gave.
    config, db = a_config(tmp_path), tmp_path / "r[b].sqlite"
    after_saves(monkeypatch, 1, lambda _store: db.unlink())
    result = run_cli(str(config), "--db", str(db))
    assert result.exit_code == 0, result.output
    warning = [line for line in lines_of(result.stderr) if line.startswith("warning:")]
    assert warning == [
        f"warning: {db} was removed while the league used it: what it held is written back "
        "to it, nothing lost"
    ]


WITH_A_CONFIG_FILE = """
name = "dice"
game = "liars-dice"
games = 4
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "tuned"
bot = "bayes"
config = "tuned.toml"
"""


def test_a_show_whose_bot_config_is_gone_lists_each_stored_league_of_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Played twice with other games, the file holds two leagues named "dice": the hint gives
    # both ids, not the first one as if it were the only one.
    monkeypatch.chdir(tmp_path)  # a bot config is read from the current directory
    config = a_config(tmp_path, WITH_A_CONFIG_FILE)
    (tmp_path / "tuned.toml").write_text("", encoding="utf-8")
    assert run_cli(str(config), "--db", "y.sqlite").exit_code == 0
    assert run_cli(str(config), "--db", "y.sqlite", "--games", "2").exit_code == 0
    (tmp_path / "tuned.toml").unlink()
    shown = run_cli(str(config), "--db", "y.sqlite", "--show")
    assert shown.exit_code == 2
    (error,) = lines_of(shown.output)
    assert error.endswith(
        "; to show a league 'dice' as y.sqlite holds it, without its files: arena league --db "
        "y.sqlite --show --id N, N one of 1, 2 (arena league --list --db y.sqlite says which is "
        "which)"
    )


# -- a match record moved into place --------------------------------------------------------


def a_partial_record(directory: Path) -> tuple[Path, Path]:
    part, path = directory / "m.jsonl.1.ab.part", directory / "m.jsonl"
    part.write_text('{"type": "match_start"}\n', encoding="utf-8")
    return part, path


def test_a_directory_that_refuses_to_be_synced_still_gets_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Some file systems refuse fsync on a directory (EINVAL): the record is in place all the
    # same, as durable as that system makes a rename.
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    part, path = a_partial_record(tmp_path)
    arena.leagues.play._move_into_place(part, path)
    assert path.read_text(encoding="utf-8") == '{"type": "match_start"}\n'
    assert not part.exists()


def test_a_directory_that_cannot_be_opened_still_gets_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A records directory this user may write but not list (mode -wx): no sync, the record
    # is in place.
    real_open = os.open

    def open_(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(file) == tmp_path:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    part, path = a_partial_record(tmp_path)
    arena.leagues.play._move_into_place(part, path)
    assert path.read_text(encoding="utf-8") == '{"type": "match_start"}\n'


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_moving_records_into_place_leaves_no_file_open(tmp_path: Path) -> None:
    # The league's process moves every match's record: a descriptor kept per record would run
    # a long league out of them.
    opened = len(os.listdir("/proc/self/fd"))
    for number in range(20):
        part, path = tmp_path / f"m{number}.jsonl.1.ab.part", tmp_path / f"m{number}.jsonl"
        part.write_text("{}\n", encoding="utf-8")
        arena.leagues.play._move_into_place(part, path)
    assert len(os.listdir("/proc/self/fd")) == opened


def test_a_partial_record_gone_is_not_blamed_on_its_directory(tmp_path: Path) -> None:
    part, path = a_partial_record(tmp_path)
    part.unlink()  # removed by hand; the directory is there
    with pytest.raises(RecordWriteError) as raised:
        arena.leagues.play._move_into_place(part, path)
    assert str(raised.value) == (f"cannot write the match record {path}: No such file or directory")


def test_a_record_that_cannot_be_moved_into_place_leaves_no_partial_record(
    tmp_path: Path,
) -> None:
    part, path = a_partial_record(tmp_path)
    path.mkdir()  # something else holds the record's name
    (path / "inside").write_text("", encoding="utf-8")
    with pytest.raises(
        RecordWriteError, match=f"^cannot write the match record {re.escape(str(path))}: "
    ):
        arena.leagues.play._move_into_place(part, path)
    assert not part.exists()
