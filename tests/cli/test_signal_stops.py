"""SIGTERM and SIGHUP stop an `arena` command as Ctrl-C does (records audit, H1): a match on a
fresh seed still writes its record's reveal line and shows its seed, says it was interrupted in
one line, and exits 128 + the signal. What `kill`, `timeout`, systemd, `docker stop` and CI
send must not cost the only copy of the seed (SIGKILL cannot be caught: docs/DEALING.md).

The commands run as subprocesses, as a user runs them; every wait is bounded only so that a
broken build fails rather than hangs (ARENA_TEST_TIMEOUT_SCALE scales the bounds).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.stopped_match import assert_stopped_cleanly

SCALE = float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
WAIT_S = 90.0 * SCALE

# The child starts from a known state whatever the test runner passed down: a runner may start
# tests with SIGINT ignored (a background job) or under nohup (SIGHUP ignored).
START = (
    "import signal; "
    "signal.signal(signal.SIGINT, signal.{sigint}); "
    "signal.signal(signal.SIGHUP, signal.SIG_DFL); "
    "signal.signal(signal.SIGTERM, signal.SIG_DFL); "
    "from arena.cli.main import main; main()"
)
MATCH = ["match", "mahjong", "--bots", "greedy,greedy,random,random", "--games", "384"]


def start(tmp_path: Path, *args: str, sigint: str = "default_int_handler") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", START.format(sigint=sigint), *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the command ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no {what} within {WAIT_S:.0f} s")
        time.sleep(0.02)


def a_game_finished(records: Path) -> Callable[[], bool]:
    """Whether the match's record holds a finished game: the match is under way, inside
    ``asyncio.run``, when the signal comes."""

    def check() -> bool:
        return any('"type":"result"' in path.read_text("utf-8") for path in records.glob("*.jsonl"))

    return check


def stop(process: subprocess.Popen[str], number: int) -> tuple[int, str]:
    process.send_signal(number)
    try:
        _out, err = process.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"signal {number} did not stop the command")
    return process.returncode, err


@pytest.mark.parametrize(
    "number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"]
)
def test_a_signal_stops_a_match_as_ctrl_c_does(number: int, tmp_path: Path) -> None:
    records = tmp_path / "records"
    process = start(tmp_path, *MATCH, "--record", str(records))
    wait_until(a_game_finished(records), process, "finished game")
    code, err = stop(process, number)
    assert_stopped_cleanly(code, err, number, records)


def test_sigterm_stops_a_match_started_with_ctrl_c_ignored(tmp_path: Path) -> None:
    # A background job of a script starts with SIGINT ignored; SIGTERM must still stop the
    # match cleanly (the ignored Ctrl-C stays ignored).
    records = tmp_path / "records"
    process = start(tmp_path, *MATCH, "--record", str(records), sigint="SIG_IGN")
    wait_until(a_game_finished(records), process, "finished game")
    code, err = stop(process, signal.SIGTERM)
    assert_stopped_cleanly(code, err, signal.SIGTERM, records)


# A command with no interruption of its own to report (as `arena verify` on a long record): the
# child adds one to the real command line, says when it runs, and waits.
WAITING = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
from arena.cli.main import app, main
@app.command("wait-for-a-signal")
def wait() -> None:
    print("waiting", flush=True)
    time.sleep(600)
sys.argv = ["arena", "wait-for-a-signal"]
main()
"""


@pytest.mark.parametrize(
    "number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"]
)
def test_any_command_stopped_by_a_signal_says_so_in_one_line(number: int, tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", WAITING],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], WAIT_S)
    if not ready:
        process.kill()
        pytest.fail(f"the command did not start within {WAIT_S:.0f} s")
    assert process.stdout.readline() == "waiting\n", process.communicate()
    code, err = stop(process, number)
    assert code == 128 + number, err
    assert err.splitlines() == ["error: interrupted"], err


def test_a_second_stop_signal_does_not_cut_the_clean_up_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review of the stop: a second SIGTERM or SIGHUP (``kill; kill``, systemd's SIGTERM then
    SIGHUP) became a second Ctrl-C, which asyncio answers by raising `KeyboardInterrupt` in the
    middle of the clean-up, where it could swallow the seed. Only the first stop is passed on."""
    from arena.cli import stopping

    raised: list[int] = []
    monkeypatch.setattr(stopping, "_stopped_by", [])
    monkeypatch.setattr(signal, "getsignal", lambda number: lambda *_args: None)
    monkeypatch.setattr(signal, "raise_signal", raised.append)
    stopping._stop(signal.SIGTERM, None)
    stopping._stop(signal.SIGHUP, None)
    stopping._stop(signal.SIGTERM, None)
    assert raised == [signal.SIGINT]
    assert stopping.interrupted_exit() == 128 + signal.SIGTERM


class InterruptedOnce:
    """A console whose first print is interrupted (a Ctrl-C landing on the write)."""

    def __init__(self) -> None:
        self.printed: list[str] = []

    def print(self, text: str, **_style: object) -> None:
        if not self.printed:
            self.printed.append("")
            raise KeyboardInterrupt
        self.printed.append(text)


def test_a_seed_interrupted_while_shown_is_still_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import common

    monkeypatch.setattr(common, "_PENDING_SEEDS", [])
    console = InterruptedOnce()
    with pytest.raises(KeyboardInterrupt):
        common._PENDING_SEEDS.append(("ab" * 32, console))  # type: ignore[arg-type]
        common._reveal_pending_seeds()
    common._reveal_pending_seeds()  # what `fail` does on the way out
    assert console.printed[-1] == f"seed: {'ab' * 32}"


# Windows' Ctrl-Break (SIGBREAK exists only there), played by SIGUSR1: the child names it so
# before `arena` computes the signals it stops on.
START_WITH_CTRL_BREAK = START.replace(
    "from arena.cli.main", "signal.SIGBREAK = signal.SIGUSR1; from arena.cli.main"
)


def test_ctrl_break_stops_a_match_as_ctrl_c_does(tmp_path: Path) -> None:
    """Ctrl-Break ended a Windows match at once: no reveal line, the fresh seed never shown."""
    records = tmp_path / "records"
    process = subprocess.Popen(
        [sys.executable, "-c", START_WITH_CTRL_BREAK.format(sigint="default_int_handler"), *MATCH,
         "--record", str(records)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    wait_until(a_game_finished(records), process, "finished game")
    code, err = stop(process, signal.SIGUSR1)
    assert_stopped_cleanly(code, err, signal.SIGUSR1, records)
