"""On Windows `multiprocessing.connection.wait` takes at most 63 handles (``WaitForMultipleObjects``
waits on 64, one kept for Ctrl-C: ``ValueError: need at most 63 handles``), and the parent of a
worker pool waits on two per worker, so 32 workers (``--jobs`` defaults to the cores: a
32-thread PC) crashed the run. There at most 31 run at once, and a command whose ``--jobs`` is
cut says so in one line; elsewhere nothing changes.

Windows is simulated (``sys.platform``); the workers are stand-ins answering at once, with the
wait behaving as Windows' does, so that no test starts 40 processes on a shared machine."""

from __future__ import annotations

# Imported here, not first under the simulated Windows: multiprocessing.spawn keeps the path
# of the interpreter as text or bytes by the platform it is imported on, for good.
import multiprocessing.resource_tracker
import multiprocessing.spawn  # noqa: F401
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.cli.league as league_cli
import arena.cli.liars_dice_gauntlet as gauntlet_cli
import arena.cli.liars_dice_targets as targets_cli
from arena import processes
from arena.cli.main import app
from arena.errors import ArenaError
from arena.processes import run_in_processes

WINDOWS_LIMIT = 63
"""``_winapi.WaitForMultipleObjects``' own limit (CPython issues #89240, #94242)."""


class _Pipe:
    """A worker's pipe as the parent sees it: a call sent is answered at once."""

    def __init__(self) -> None:
        self.answers: list[tuple[Any, ...]] = []

    def send(self, message: Any) -> None:
        if message is not None:
            call, function, args = message
            self.answers.append(("done", call, function(*args)))

    def poll(self) -> bool:
        return bool(self.answers)

    def recv(self) -> tuple[Any, ...]:
        return self.answers.pop(0)

    def close(self) -> None:
        pass


class _Process:
    exitcode: int | None = None

    def __init__(self) -> None:
        self.sentinel = object()

    def join(self, timeout: float | None = None) -> None:
        self.exitcode = 0

    def kill(self) -> None:
        self.exitcode = -9


@pytest.fixture
def stand_in_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers that answer at once, and a wait that refuses more than 63 handles as Windows'
    does (on every platform, so that the Linux run shows it waits on more); the list of every
    wait's handle count."""
    waits: list[int] = []

    def spawn(initializer: Any, initargs: tuple[Any, ...]) -> processes._Worker:
        return processes._Worker(_Process(), _Pipe())  # type: ignore[arg-type]

    def wait(handles: Sequence[Any], timeout: float | None = None) -> list[Any]:
        waits.append(len(handles))
        if sys.platform == "win32" and len(handles) > WINDOWS_LIMIT:
            raise ValueError(
                f"need at most {WINDOWS_LIMIT} handles, got a sequence of length {len(handles)}"
            )
        return []

    monkeypatch.setattr(processes, "_spawn", spawn)
    monkeypatch.setattr(processes.multiprocessing.connection, "wait", wait)
    return waits


def _square(number: int) -> int:
    return number * number


def test_on_windows_40_jobs_run_in_31_workers_and_elsewhere_in_40(
    stand_in_workers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [(number,) for number in range(100)]
    squares = [number * number for number in range(100)]
    monkeypatch.setattr(sys, "platform", "win32")
    assert run_in_processes(_square, calls, 40) == squares
    assert max(stand_in_workers) == 2 * 31 <= WINDOWS_LIMIT
    stand_in_workers.clear()
    monkeypatch.setattr(sys, "platform", "linux")
    assert run_in_processes(_square, calls, 40) == squares
    assert max(stand_in_workers) == 2 * 40


@pytest.mark.parametrize(("platform", "usable"), [("win32", 31), ("linux", 64), ("darwin", 64)])
def test_the_workers_that_run_at_once(
    platform: str, usable: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    assert processes.usable_jobs(64) == usable
    assert processes.usable_jobs(31) == 31


# -- the commands say so -----------------------------------------------------------------------

runner = CliRunner()

NOTE = (
    "note: {option} 40: at most 31 worker processes run at once on Windows (it waits on at "
    "most 63 handles, 2 per worker)"
)

LEAGUE = """name = "tiny"
game = "liars-dice"
games = 2
{jobs}
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


def _not_played(*args: Any, **kwargs: Any) -> Any:
    raise ArenaError("not played in this test")


def _said(args: list[str]) -> list[str]:
    result = runner.invoke(app, args)
    lines = [" ".join(line.split()) for line in result.output.splitlines() if line.strip()]
    assert lines[-1] == "error: not played in this test", result.output
    return lines[:-1]


def _jobs_notes(said: list[str]) -> list[str]:
    return [line for line in said if "worker processes" in line]


@pytest.mark.parametrize(
    ("given", "in_file", "option"),
    [(["--jobs", "40"], "", "--jobs"), ([], "jobs = 40", "jobs =")],
    ids=["--jobs", "config jobs"],
)
def test_a_league_says_when_its_jobs_are_cut_on_windows_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: list[str], in_file: str, option: str
) -> None:
    config = tmp_path / "league.toml"
    config.write_text(LEAGUE.format(jobs=in_file), encoding="utf-8")
    args = ["league", str(config), "--db", str(tmp_path / "l.sqlite"), *given]
    monkeypatch.setattr(league_cli, "_play", _not_played)
    monkeypatch.setattr(sys, "platform", "win32")
    assert _jobs_notes(_said(args)) == [NOTE.format(option=option)]
    monkeypatch.setattr(sys, "platform", "linux")
    assert _jobs_notes(_said(args)) == []


def test_a_gauntlet_says_when_its_jobs_are_cut_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gauntlet_cli, "run_gauntlet", _not_played)
    monkeypatch.setattr(sys, "platform", "win32")
    args = ["liars-dice", "gauntlet", "--bot", "random-guess", "--jobs", "40"]
    assert _jobs_notes(_said(args)) == [NOTE.format(option="--jobs")]
    # Two personalities need two workers, however many --jobs asks for.
    assert _jobs_notes(_said([*args, "--opponents", "type1,type2"])) == []


def test_targets_say_when_their_jobs_are_cut_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(targets_cli, "measure_targets", _not_played)
    monkeypatch.setattr(sys, "platform", "win32")
    assert _jobs_notes(_said(["liars-dice", "targets", "--jobs", "40"])) == [
        NOTE.format(option="--jobs")
    ]
