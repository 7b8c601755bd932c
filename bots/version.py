"""``--version`` for both command lines, ``arena`` and ``bots``.

Here rather than in ``arena.cli`` so that ``bots`` does not import the referee's command line
(and the records, statistics and progress bars it pulls in) to print one line.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import typer

from protocol.messages import PROTOCOL_VERSION

SPEEDUPS_MODULE = "arena.games.mahjong.speedups"
"""The module that picks the C or the Python mahjong checks (its ``IMPLEMENTATION``)."""

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON"
"""`arena.games.mahjong.speedups.PURE_PYTHON_VARIABLE`, not imported from there: importing it
loads the whole mahjong package, which would add a third to ``bots --version``'s time."""

NOT_BUILT = "no C compiler at install; see README"
"""Why the checks run in Python when nobody asked for it: the C version was not built (pip
hides the build's warning)."""


def version_line(program: str) -> str:
    """What ``--version`` prints: the installed package's version, the protocol version it
    speaks and which mahjong checks run, the figures a bug report or a server operator asks for
    (a machine without a C compiler at install runs the checks in Python, several times
    slower, and nothing else says so)."""
    try:
        package = version("table-arena")
    except PackageNotFoundError:  # run from a source tree that was never installed
        package = "unknown"
    return (
        f"{program} (table-arena {package}), protocol version {PROTOCOL_VERSION}, "
        f"mahjong checks: {mahjong_checks()}"
    )


def mahjong_checks() -> str:
    """``C``, or ``Python (why)``: which one-hand mahjong checks run (`SPEEDUPS_MODULE`). Where
    that module is loaded (``arena`` loads it) its answer; elsewhere found as it would find it
    (the variable, then the built C module), without loading the mahjong package."""
    asked_for_python = os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")
    loaded = sys.modules.get(SPEEDUPS_MODULE)
    if loaded is not None:
        in_c = loaded.IMPLEMENTATION == "C"
    else:
        in_c = not asked_for_python and _c_checks_built()
    if in_c:
        return "C"
    return (
        f"Python ({PURE_PYTHON_VARIABLE} is set)" if asked_for_python else f"Python ({NOT_BUILT})"
    )


def _c_checks_built() -> bool:
    """Whether the C checks were built for this Python: the mahjong package's directory holds
    an extension module ``_speedups`` of a suffix it loads (the suffix names the Python
    version and platform). Found from the ``arena`` package's location, which importing nothing
    gives, wherever it is installed (editable or not)."""
    spec = find_spec("arena")
    if spec is None or spec.submodule_search_locations is None:
        return False
    return any(
        (Path(root, "games", "mahjong") / f"_speedups{suffix}").is_file()
        for root in spec.submodule_search_locations
        for suffix in EXTENSION_SUFFIXES
    )


def version_option(program: str) -> Any:
    """An eager ``--version`` option printing `version_line` and exiting."""

    def show(value: bool) -> None:
        if value:
            typer.echo(version_line(program))
            raise typer.Exit()

    return typer.Option(
        False, "--version", callback=show, is_eager=True, help="print the version and exit"
    )
