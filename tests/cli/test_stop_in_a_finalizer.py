"""A stop signal that lands while Python runs a finalizer still stops the command.

Python runs a signal handler between two bytecodes of whatever the main thread runs, a
``__del__`` included, and a `KeyboardInterrupt` raised there is printed ("Exception ignored
in …") and dropped. CI once saw a server match under SIGTERM play on that way (SIGINT ignored,
as for a script's background job). Each child below raises SIGTERM from inside a finalizer, so
the handler runs there every time; the stop must still end the command, with its clean-up,
and without a traceback from the finalizer.

Every wait is bounded only so that a broken build fails rather than hangs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from types import SimpleNamespace
from typing import Any, cast

import pytest

from arena.cli import stopping

WAIT_S = 30.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))

SETUP = """
import asyncio, signal, sys, time
signal.signal(signal.SIGINT, signal.{sigint})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
from arena.cli.stopping import interrupted_exit, stop_like_ctrl_c
stop_like_ctrl_c()

class StopsWhenCollected:
    def __del__(self):
        try:
            signal.raise_signal(signal.SIGTERM)  # the handler runs inside this finalizer
        finally:
            print("finalizer done", flush=True)
"""

PLAIN_WAIT = (
    SETUP
    + """
try:
    StopsWhenCollected()
    deadline = time.monotonic() + {wait}
    while time.monotonic() < deadline:
        time.sleep(0.01)
    print("played on", flush=True)
except KeyboardInterrupt:
    print("stopped", flush=True)
    sys.exit(interrupted_exit())
"""
)

EVENT_LOOP = (
    SETUP
    + """
async def command():
    try:
        StopsWhenCollected()
        deadline = time.monotonic() + {wait}
        while time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        print("played on", flush=True)
    finally:
        print("cleaned up", flush=True)

try:
    asyncio.run(command())
except KeyboardInterrupt:
    print("stopped", flush=True)
    sys.exit(interrupted_exit())
"""
)


def run_child(script: str, sigint: str) -> tuple[int, list[str], str]:
    source = script.format(sigint=sigint, wait=WAIT_S)
    try:
        done = subprocess.run(
            [sys.executable, "-c", source],
            capture_output=True,
            text=True,
            timeout=WAIT_S * 2,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child neither stopped nor played on: {exc}")
    return done.returncode, done.stdout.splitlines(), done.stderr


@pytest.mark.parametrize("sigint", ["SIG_IGN", "default_int_handler"])
def test_a_stop_swallowed_by_a_finalizer_is_delivered_again(sigint: str) -> None:
    code, out, err = run_child(PLAIN_WAIT, sigint)
    assert out == ["finalizer done", "stopped"], (out, err)
    assert code == 128 + signal.SIGTERM, err
    assert "Exception ignored" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("sigint", ["SIG_IGN", "default_int_handler"])
def test_a_stop_in_a_finalizer_under_an_event_loop_ends_the_command_with_its_clean_up(
    sigint: str,
) -> None:
    code, out, err = run_child(EVENT_LOOP, sigint)
    assert out == ["finalizer done", "cleaned up", "stopped"], (out, err)
    assert code == 128 + signal.SIGTERM, err
    assert "Exception ignored" not in err and "Traceback" not in err, err


def test_with_ctrl_c_ignored_a_running_loop_raises_the_stop_not_the_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The handler itself never raises while a loop runs: it could be inside a finalizer."""
    monkeypatch.setattr(stopping, "_stopped_by", [])
    monkeypatch.setattr(signal, "getsignal", lambda _number: signal.SIG_IGN)
    reached: list[str] = []

    async def command() -> None:
        try:
            stopping._stop(signal.SIGTERM, None)
            reached.append("after the handler")
            await asyncio.sleep(WAIT_S)
        finally:
            reached.append("cleaned up")

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(command())
    assert reached == ["after the handler", "cleaned up"]
    assert stopping.interrupted_exit() == 128 + signal.SIGTERM


def test_other_unraisable_errors_still_reach_the_previous_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[BaseException | None] = []
    monkeypatch.setattr(stopping, "_stopped_by", [signal.SIGTERM])
    monkeypatch.setattr(
        stopping, "_previous_unraisablehook", lambda args: seen.append(args.exc_value)
    )
    failure = ValueError("a finalizer's own error")
    # sys.UnraisableHookArgs cannot be built from Python; the hook reads exc_value only.
    unraisable = SimpleNamespace(exc_type=ValueError, exc_value=failure)
    stopping._deliver_a_swallowed_stop(cast(Any, unraisable))
    assert seen == [failure]
