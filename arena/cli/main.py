"""``arena``: the referee side's command line.

Each game or room registers its commands from its own module (``register(app, match_app,
bench_app)``), so adding a game never edits another game's CLI.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import NoReturn

import typer

from arena.cli.common import fail, log_level_option, version_option
from arena.logs import LOG_LEVELS, LogSetupError, configure_logging

app = typer.Typer(
    help="Table-game bot arena: engines, referee, matches, benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
match_app = typer.Typer(help="Play a match between bots.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks, measured side by side in one run.", no_args_is_help=True)


@app.callback()
def _logging(
    log_level: str = typer.Option(
        "warning",
        callback=log_level_option,
        help=f"terminal log level: {', '.join(LOG_LEVELS)}",
    ),
    log_file: Path | None = typer.Option(None, help="also write JSON logs (all levels) here"),
    _version: bool = version_option("arena"),
) -> None:
    try:
        configure_logging(log_level, log_file)
    except LogSetupError as exc:
        fail(f"--log-file: {exc}")


app.add_typer(match_app, name="match")
app.add_typer(bench_app, name="bench")

#: modules with a ``register(app, match_app, bench_app)`` function, in help order
CLI_MODULES: tuple[str, ...] = (
    "arena.cli.records_cmd",
    "arena.cli.protocol_cmd",
    "arena.cli.audit",
    "arena.cli.bulls_cows",
    "arena.cli.mahjong_match",
    "arena.cli.mahjong",
    "arena.cli.mahjong_score",
    "arena.cli.liars_dice",
    "arena.cli.serve",
    "arena.cli.league",
)


INTERRUPTED_EXIT = 130
"""128 + SIGINT, what a shell reports for a command stopped by Ctrl-C."""


def _interrupted() -> NoReturn:
    # Plain stderr: rich (common.fail's console) may be the very import that was interrupted.
    print("error: interrupted", file=sys.stderr)
    raise SystemExit(INTERRUPTED_EXIT)


def _register_all() -> None:
    for module_name in CLI_MODULES:
        importlib.import_module(module_name).register(app, match_app, bench_app)


try:
    # Importing every game's CLI takes about a second, long enough to be Ctrl-C'd: one line,
    # not a traceback through whichever import it hit.
    _register_all()
except KeyboardInterrupt:
    _interrupted()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        # Typer turns Ctrl-C inside a command into a silent exit 130 (so each long command
        # says it was interrupted itself, `common.interrupt_exits`); this is for the rest,
        # e.g. while typer builds the command line.
        _interrupted()
