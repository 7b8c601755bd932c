"""``arena``: the referee side's command line.

Each game or room registers its commands from its own module (``register(app, match_app,
bench_app)``), so adding a game never edits another game's CLI.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    help="Table-game bot arena: engines, referee, matches, benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
match_app = typer.Typer(help="Play a match between bots.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks, measured side by side in one run.", no_args_is_help=True)
app.add_typer(match_app, name="match")
app.add_typer(bench_app, name="bench")

#: modules with a ``register(app, match_app, bench_app)`` function, in help order
CLI_MODULES: tuple[str, ...] = (
    "arena.cli.records_cmd",
    "arena.cli.protocol_cmd",
)


def _register_all() -> None:
    for module_name in CLI_MODULES:
        importlib.import_module(module_name).register(app, match_app, bench_app)


_register_all()


def main() -> None:
    app()
