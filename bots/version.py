"""``--version`` for both command lines, ``arena`` and ``bots``.

Here rather than in ``arena.cli`` so that ``bots`` does not import the referee's command line
(and the records, statistics and progress bars it pulls in) to print one line.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import typer

from protocol.messages import PROTOCOL_VERSION


def version_line(program: str) -> str:
    """What ``--version`` prints: the installed package's version and the protocol version it
    speaks, the two figures a bug report or a server operator asks for."""
    try:
        package = version("table-arena")
    except PackageNotFoundError:  # run from a source tree that was never installed
        package = "unknown"
    return f"{program} (table-arena {package}), protocol version {PROTOCOL_VERSION}"


def version_option(program: str) -> Any:
    """An eager ``--version`` option printing `version_line` and exiting."""

    def show(value: bool) -> None:
        if value:
            typer.echo(version_line(program))
            raise typer.Exit()

    return typer.Option(
        False, "--version", callback=show, is_eager=True, help="print the version and exit"
    )
