"""``arena``: the referee side's command line.

Each game or room registers its commands from its own module (``register(app, match_app,
bench_app)``): adding a game adds its module and one line to `CLI_MODULES` below (which sets
the help order), and edits no other game's CLI.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import NoReturn

from arena.cli.stopping import (
    hold_an_ignored_sigint,
    interrupted_exit,
    settle_sigint,
    stop_like_ctrl_c,
)

# Before the slow imports below (typer, and every game's CLI: a second or so), so that
# `arena serve` started as a script's background job does not lose a SIGINT sent meanwhile.
hold_an_ignored_sigint()

import typer  # noqa: E402

from arena.cli.common import fail, log_level_option, version_option  # noqa: E402
from arena.console_streams import tolerate_unencodable_output  # noqa: E402
from arena.games.errors import DecisionCapError  # noqa: E402
from arena.logs import LOG_LEVELS, LogSetupError, configure_logging  # noqa: E402

app = typer.Typer(
    help="Table-game bot arena: engines, referee, matches, benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
match_app = typer.Typer(help="Play a match between bots.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks, measured side by side in one run.", no_args_is_help=True)


SETS_OWN_LOGGING = frozenset({"serve"})
"""Commands with logging options of their own, which also read the two here
(`arena.cli.serve.serve_logging`): set up here first, a ``--log-file`` would be created and then
left empty, and the level overridden without a word."""

STOPS_ON_SIGINT_IN_THE_BACKGROUND = frozenset({"serve"})
"""Commands that stop on SIGINT even when started ignoring it, as a script's background job is
(`arena.server.app.ArenaServer.run_until_signalled`): ``kill -INT`` is how a script stops its
server. Every other command keeps ignoring it there (`arena.cli.stopping.settle_sigint`)."""


@app.callback()
def _logging(
    context: typer.Context,
    log_level: str = typer.Option(
        "warning",
        callback=log_level_option,
        help=f"terminal log level: {', '.join(LOG_LEVELS)}",
    ),
    log_file: Path | None = typer.Option(
        # Written, never read: a write-only file will do (the default asks click for readable).
        None,
        help="also write JSON logs (all levels) here",
        readable=False,
    ),
    _version: bool = version_option("arena"),
) -> None:
    settle_sigint(stops_the_command=context.invoked_subcommand in STOPS_ON_SIGINT_IN_THE_BACKGROUND)
    if context.invoked_subcommand in SETS_OWN_LOGGING:
        return
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
    "arena.cli.mahjong_seed",
    "arena.cli.liars_dice",
    "arena.cli.serve",
    "arena.cli.league",
)


INTERRUPTED_EXIT = 130
"""128 + SIGINT, what a shell reports for a command stopped by Ctrl-C."""


def _interrupted() -> NoReturn:
    # Plain stderr: rich (common.fail's console) may be the very import that was interrupted.
    print("error: interrupted", file=sys.stderr)
    raise SystemExit(interrupted_exit())


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
    """Run the command line. SIGTERM and SIGHUP (`kill`, `timeout`, systemd, ``docker stop``,
    a dropped SSH session) stop a command as Ctrl-C does (`stop_like_ctrl_c`): a match writes
    its record's reveal line and shows its fresh seed, a league stops its workers; the exit
    status is then 128 + the signal's number (143, 129; 130 for Ctrl-C)."""
    tolerate_unencodable_output()
    stop_like_ctrl_c()
    try:
        app()
    except DecisionCapError as exc:
        # An engine that never ends (a bug of the engine, `GameSpec.max_decisions`): the match
        # stops with one line naming the game and the cap, whichever command played it (and,
        # as for any `fail`, a progress bar stopped and a fresh seed shown).
        try:
            fail(str(exc), code=1)
        except typer.Exit as stop:
            raise SystemExit(stop.exit_code) from None
    except KeyboardInterrupt:
        # Typer turns Ctrl-C inside a command into a silent exit 130 (so each long command
        # says it was interrupted itself, `common.interrupt_exits`); this is for the rest,
        # e.g. while typer builds the command line.
        _interrupted()
    except SystemExit as exc:
        if exc.code == INTERRUPTED_EXIT and _interrupted_silently(exc):
            # A command with no interruption of its own to report (`arena verify` on a long
            # record): typer exits 130 without a word; one line says why it stopped.
            _interrupted()
        # A command that says it was interrupted exits 130 (`fail(..., code=130)`); stopped by
        # SIGTERM or SIGHUP, the status names that signal instead.
        if exc.code == INTERRUPTED_EXIT and interrupted_exit() != INTERRUPTED_EXIT:
            raise SystemExit(interrupted_exit()) from None
        raise


def _interrupted_silently(exc: BaseException) -> bool:
    """Whether ``exc`` is typer's silent exit on a `KeyboardInterrupt` the command did not
    handle (``raise Exit(130) from KeyboardInterrupt``), not a command's own `fail`."""
    seen: BaseException | None = exc
    visited: set[int] = set()
    while seen is not None and id(seen) not in visited:
        if isinstance(seen, typer.Exit) and isinstance(seen.__cause__, KeyboardInterrupt):
            return True
        visited.add(id(seen))
        seen = seen.__context__
    return False


if __name__ == "__main__":
    main()
