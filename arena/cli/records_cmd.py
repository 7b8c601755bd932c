"""``arena replay`` and ``arena verify``: read a game record back."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from arena.cli.common import existing_file, fail, output_console, print_json
from arena.errors import ArenaError
from arena.replay import Step, check_record

out = output_console()

STYLE = {
    "header": "bold magenta",
    "event": "default",
    "decision": "bold cyan",
    "failure": "bold red",
    "result": "bold green",
    "reveal": "dim",
}


def replay(
    record: Path = typer.Argument(..., help="a .jsonl game record", callback=existing_file),
    game: str | None = typer.Option(None, help="only the game with this id"),
) -> None:
    """Print a recorded game step by step, re-checking every step against the engine."""

    def show(step: Step) -> None:
        style = STYLE.get(step.kind, "default")
        out.print(f"[dim]{step.line:>5}[/] [{style}]{escape(step.text)}[/]")

    try:
        report = check_record(record, on_step=show, game=game)
    except ArenaError as exc:
        fail(str(exc))
    for check in report.games:
        for problem in check.problems:
            out.print(f"[bold red]mismatch in game {escape(check.game)}:[/] {escape(problem)}")
    for match in report.matches:
        for problem in match.problems:
            out.print(f"[bold red]mismatch in match {escape(match.match)}:[/] {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)


def verify(
    record: Path = typer.Argument(..., help="a .jsonl game record", callback=existing_file),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Check a record: the seed matches its commitment and re-derives every deal and event."""
    try:
        report = check_record(record)
    except ArenaError as exc:
        fail(str(exc))
    if json_output:
        print_json(
            {
                "record": str(record),
                "ok": report.ok,
                "matches": [
                    {
                        "match": m.match,
                        "kind": m.game_kind,
                        "games": m.games,
                        "problems": m.problems,
                    }
                    for m in report.matches
                ],
                "games": [
                    {"game": c.game, "kind": c.game_kind, "steps": c.steps, "problems": c.problems}
                    for c in report.games
                ],
            }
        )
    else:
        for c in report.games:
            mark = "[green]ok[/]" if c.ok else "[bold red]FAILED[/]"
            out.print(f"{c.game_kind} game {escape(c.game)}: {c.steps} decisions {mark}")
            for problem in c.problems:
                out.print(f"  {escape(problem)}")
        for m in report.matches:
            mark = "[green]ok[/]" if m.ok else "[bold red]FAILED[/]"
            out.print(f"{m.game_kind} match {escape(m.match)}: {m.games} games {mark}")
            for problem in m.problems:
                out.print(f"  {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command()(replay)
    app.command()(verify)
