"""``arena replay`` and ``arena verify``: read a game record back."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from arena.cli.common import fail, print_json
from arena.errors import ArenaError
from arena.replay import Step, verify_record

out = Console(highlight=False)

STYLE = {
    "header": "bold magenta",
    "event": "default",
    "decision": "bold cyan",
    "failure": "bold red",
    "result": "bold green",
    "reveal": "dim",
}


def replay(
    record: Path = typer.Argument(..., help="a .jsonl game record", exists=True, dir_okay=False),
    game: str | None = typer.Option(None, help="only the game with this id"),
) -> None:
    """Print a recorded game step by step, re-checking every step against the engine."""

    def show(step: Step) -> None:
        style = STYLE.get(step.kind, "default")
        out.print(f"[dim]{step.line:>5}[/] [{style}]{escape(step.text)}[/]")

    try:
        checks = verify_record(record, on_step=show, game=game)
    except ArenaError as exc:
        fail(str(exc))
    failed = [c for c in checks if not c.ok]
    for check in failed:
        for problem in check.problems:
            out.print(f"[bold red]mismatch in game {check.game}:[/] {problem}")
    if failed:
        raise typer.Exit(1)


def verify(
    record: Path = typer.Argument(..., help="a .jsonl game record", exists=True, dir_okay=False),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Check a record: the seed matches its commitment and re-derives every deal and event."""
    try:
        checks = verify_record(record)
    except ArenaError as exc:
        fail(str(exc))
    ok = all(c.ok for c in checks)
    if json_output:
        print_json(
            {
                "record": str(record),
                "ok": ok,
                "games": [
                    {"game": c.game, "kind": c.game_kind, "steps": c.steps, "problems": c.problems}
                    for c in checks
                ],
            }
        )
    else:
        for c in checks:
            mark = "[green]ok[/]" if c.ok else "[bold red]FAILED[/]"
            out.print(f"{c.game_kind} game {c.game}: {c.steps} decisions {mark}")
            for problem in c.problems:
                out.print(f"  {problem}")
    if not ok:
        raise typer.Exit(1)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command()(replay)
    app.command()(verify)
