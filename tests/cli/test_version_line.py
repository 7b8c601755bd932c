"""``arena --version`` and ``bots --version`` say which mahjong checks run: an install without
a C compiler falls back to the Python checks (several times slower) and pip hides the build's
warning, so the version line, which a bug report quotes, says so, and why."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bots.version
from arena.cli.main import app as arena_app
from arena.games.mahjong import speedups
from bots.cli import app as bots_app

NOT_BUILT = "Python (no C compiler at install; see README)"
ASKED_FOR = "Python (ARENA_PURE_PYTHON is set)"


@pytest.mark.parametrize("program", ["arena", "bots"])
def test_the_version_line_says_which_mahjong_checks_run(program: str) -> None:
    result = CliRunner().invoke(arena_app if program == "arena" else bots_app, ["--version"])
    assert result.exit_code == 0, result.output
    said = "C" if speedups.IMPLEMENTATION == "C" else NOT_BUILT
    assert result.output.endswith(f", mahjong checks: {said}\n")


def _without_the_loaded_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in ``bots --version``, which does not load the mahjong package."""
    monkeypatch.delitem(sys.modules, bots.version.SPEEDUPS_MODULE, raising=False)


def _arena_installed_in(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in ``arena`` package at ``root``, found where the real one would be; its mahjong
    directory, empty (the C checks not built)."""
    package = root / "arena"
    mahjong = package / "games" / "mahjong"
    mahjong.mkdir(parents=True)
    spec = ModuleSpec("arena", None, is_package=True)
    spec.submodule_search_locations = [str(package)]
    monkeypatch.setattr(bots.version, "find_spec", lambda name: spec if name == "arena" else None)
    return mahjong


def test_an_install_without_the_c_checks_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_the_loaded_choice(monkeypatch)
    monkeypatch.delenv("ARENA_PURE_PYTHON", raising=False)
    mahjong = _arena_installed_in(tmp_path, monkeypatch)
    assert bots.version.version_line("bots").endswith(f", mahjong checks: {NOT_BUILT}")
    # Once built (a compiler, then the install again), the same install says C.
    (mahjong / f"_speedups{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    assert bots.version.version_line("bots").endswith(", mahjong checks: C")


@pytest.mark.parametrize(("value", "said"), [("1", ASKED_FOR), ("0", "C"), ("", "C")])
def test_the_variable_that_asks_for_python_is_named(
    value: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_the_loaded_choice(monkeypatch)
    mahjong = _arena_installed_in(tmp_path, monkeypatch)
    (mahjong / f"_speedups{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    monkeypatch.setenv("ARENA_PURE_PYTHON", value)
    assert bots.version.version_line("bots").endswith(f", mahjong checks: {said}")


def test_the_name_of_the_variable_is_the_one_the_checks_read() -> None:
    assert bots.version.PURE_PYTHON_VARIABLE == speedups.PURE_PYTHON_VARIABLE


@pytest.mark.parametrize("pure_python", ["1", "0"])
def test_bots_version_agrees_with_the_checks_in_a_fresh_process(pure_python: str) -> None:
    """``bots --version`` finds the answer without loading the checks: in a process of its
    own, with the variable set or not, it says what loading them then says."""
    environment = {**os.environ, "ARENA_PURE_PYTHON": pure_python}
    script = (
        "from bots.version import version_line; print(version_line('bots'));"
        "from arena.games.mahjong import speedups; print(speedups.IMPLEMENTATION)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    line, implementation = ran.stdout.splitlines()
    said = line.rsplit("mahjong checks: ", 1)[1]
    assert said.split(" ", 1)[0] == implementation
