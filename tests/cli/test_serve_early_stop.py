"""A stop sent to `arena serve` while it starts, as a script's background job, is not lost (a soak
test's finding).

A background job of a non-interactive shell starts with SIGINT ignored; the server takes SIGINT
all the same (``kill -INT`` is how a script stops it), but did so only once its event loop's
handlers were in place. For the second or so before (imports, logging, the tokens file) the
kernel dropped the signal, and the server then ran until another one. Now `arena` holds such a
SIGINT from its first import on (`arena.cli.stopping.hold_an_ignored_sigint`), and once the
command is known `serve` stops on it as on Ctrl-C: one line, exit 130. Any other command keeps
ignoring SIGINT there, as it was started to.

The commands run as subprocesses; each signal is sent at a point the test can see the command
has reached (its own ``kill`` after the imports, or a tokens file that is a FIFO the server
waits on), never after a delay. Waits are bounded only so that a broken build fails rather than
hangs (ARENA_TEST_TIMEOUT_SCALE scales the bounds).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from arena.cli import stopping

SCALE = float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
WAIT_S = 90.0 * SCALE

# SIGINT ignored as in a script's background job; the others at their defaults whatever the test
# runner passed down. The signal the test names is sent by the child to itself once `arena`'s
# imports are done (they are what took the time), before the command line is read.
STARTED_IN_THE_BACKGROUND = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
from arena.cli.main import app, main

@app.command("sigint-disposition")
def sigint_disposition() -> None:
    handler = signal.getsignal(signal.SIGINT)
    print("ignored" if handler is signal.SIG_IGN else repr(handler), flush=True)

if {kill_self}:
    os.kill(os.getpid(), signal.SIGINT)
sys.argv = ["arena", *sys.argv[1:]]
main()
"""


def start(*args: str, kill_self: bool, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", STARTED_IN_THE_BACKGROUND.format(kill_self=kill_self), *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


class Output:
    """The merged output of a child, read as it comes, so that a test can wait for a line or
    for the end without blocking on either."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        self.process = process
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._done = False
        self._reader = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._done = True
            self._changed.notify_all()

    def wait_for_end_or(self, text: str) -> bool:
        """True once the output has ended (the child closed it: it exited), False if ``text``
        shows up before."""
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not self._done:
                if any(text in line for line in self.lines):
                    return False
                left = deadline - time.monotonic()
                if left <= 0:
                    self.process.kill()
                    pytest.fail(f"neither the end nor {text!r} within {WAIT_S:.0f} s")
                self._changed.wait(left)
        return True

    def text(self) -> str:
        return "".join(self.lines)


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[str]]]:
    """Children still running at the end are killed (a server the old code left running)."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=WAIT_S)


def test_a_sigint_during_the_imports_stops_a_background_server(
    tmp_path: Path, children: list[subprocess.Popen[str]]
) -> None:
    process = start("serve", "--port", "0", kill_self=True, cwd=tmp_path)
    children.append(process)
    output = Output(process)
    ended = output.wait_for_end_or("listening")
    assert ended, f"the SIGINT was lost: the server started\n{output.text()}"
    assert process.wait(timeout=WAIT_S) == 128 + signal.SIGINT, output.text()
    assert output.text().splitlines() == ["error: interrupted"], output.text()


def open_for_writing_once_read(fifo: Path, process: subprocess.Popen[str]) -> int:
    """The write end of ``fifo``, opened once ``process`` has opened it to read (before, the
    open fails: no reader)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the server did not open its tokens file: {process.communicate()}")
        time.sleep(0.02)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_a_stop_while_the_server_reads_its_tokens_ends_the_start(
    number: int, tmp_path: Path, children: list[subprocess.Popen[str]]
) -> None:
    """The command is known, its loop not yet running: the server waits on its tokens file (a
    FIFO nobody writes yet) when the stop comes. SIGTERM was handled there already; SIGINT
    was dropped."""
    fifo = tmp_path / "tokens.toml"
    os.mkfifo(fifo)
    process = start("serve", "--port", "0", "--tokens", str(fifo), kill_self=False, cwd=tmp_path)
    children.append(process)
    output = Output(process)
    write_end = open_for_writing_once_read(fifo, process)
    try:
        process.send_signal(number)
    finally:
        # An empty tokens file: a server that did not stop goes on to listen.
        os.close(write_end)
    ended = output.wait_for_end_or("listening")
    assert ended, f"signal {number} was lost: the server started\n{output.text()}"
    assert process.wait(timeout=WAIT_S) == 128 + number, output.text()
    assert output.text().splitlines() == ["error: interrupted"], output.text()


def test_another_command_started_in_the_background_still_ignores_sigint(tmp_path: Path) -> None:
    """A SIGINT held during the imports is dropped, as the kernel would have, and SIGINT is
    ignored again once the command runs: only `serve` takes it."""
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            STARTED_IN_THE_BACKGROUND.format(kill_self=True),
            "sigint-disposition",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert completed.returncode == 0, completed
    assert completed.stdout == "ignored\n", completed
    assert completed.stderr == "", completed


# -- the hold itself, in this process -----------------------------------------------------------


@pytest.fixture
def sigint_restored() -> Iterator[None]:
    before = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        stopping._held_interrupts.clear()


@pytest.mark.usefixtures("sigint_restored")
def test_a_held_sigint_stops_only_a_command_that_takes_it() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopping.hold_an_ignored_sigint()
    signal.raise_signal(signal.SIGINT)  # held, not raised
    with pytest.raises(KeyboardInterrupt):
        stopping.settle_sigint(stops_the_command=True)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopping.hold_an_ignored_sigint()
    signal.raise_signal(signal.SIGINT)
    stopping.settle_sigint(stops_the_command=False)  # dropped
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert stopping._held_interrupts == []


@pytest.mark.usefixtures("sigint_restored")
def test_nothing_is_held_where_sigint_is_not_ignored() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stopping.hold_an_ignored_sigint()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    stopping.settle_sigint(stops_the_command=False)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.usefixtures("sigint_restored")
def test_a_sigterm_while_sigint_is_held_still_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    """`stop_like_ctrl_c` passes SIGTERM on as SIGINT where SIGINT is handled; a held SIGINT is
    not handled yet (for most commands it will be dropped), so the stop is raised directly."""
    monkeypatch.setattr(stopping, "_stopped_by", [])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopping.hold_an_ignored_sigint()
    with pytest.raises(KeyboardInterrupt):
        stopping._stop(signal.SIGTERM, None)
    assert stopping._held_interrupts == []
    assert stopping.interrupted_exit() == 128 + signal.SIGTERM
