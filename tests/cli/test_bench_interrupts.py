"""Ctrl-C during a bench, or while `arena` imports its commands, is one line and exit 130."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app


def _interrupt(*args: Any, **kwargs: Any) -> Any:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("module", "name", "args"),
    [
        ("arena.cli.audit", "run_dealing_bench", ["bench", "dealing"]),
        ("arena.cli.mahjong", "run_hand_bench", ["bench", "mahjong"]),
    ],
)
def test_an_interrupted_bench_says_so(
    monkeypatch: pytest.MonkeyPatch, module: str, name: str, args: list[str]
) -> None:
    monkeypatch.setattr(f"{module}.{name}", _interrupt)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130
    assert result.output.strip() == "error: interrupted"


def test_an_interrupt_while_importing_the_commands_is_one_line() -> None:
    # The first game CLI module's import raises KeyboardInterrupt, as a Ctrl-C there would.
    code = (
        "import sys, types\n"
        "class Stop(types.ModuleType):\n"
        "    def __getattr__(self, name):\n"
        "        raise KeyboardInterrupt\n"
        "sys.modules['arena.cli.records_cmd'] = Stop('arena.cli.records_cmd')\n"
        "import arena.cli.main\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "error: interrupted"
