"""Fixtures of the worker-pool tests."""

from __future__ import annotations

import multiprocessing.process
import signal

import pytest


@pytest.fixture
def ctrl_c_in_each_kill(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """A Ctrl-C lands inside every kill of a worker, as the stop of the workers begins (where a
    second Ctrl-C could cut it short); the pids killed, so a test can tell that one landed."""
    kill = multiprocessing.process.BaseProcess.kill
    kills: list[int | None] = []

    def interrupted_kill(process: multiprocessing.process.BaseProcess) -> None:
        kills.append(process.pid)
        signal.raise_signal(signal.SIGINT)
        kill(process)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "kill", interrupted_kill)
    return kills
