"""``arena replay`` and ``arena verify``: read a game record back.

Every line either command prints is one line of output however narrow the terminal or when
piped (``soft_wrap``): a problem names its record line and field, and a script greps it whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.markup import escape

from arena.cli.common import (
    STANDARD_INPUT_NAME,
    InputFileError,
    existing_file_or_stdin,
    fail,
    input_file,
    input_name,
    output_console,
    print_json,
)
from arena.errors import ArenaError
from arena.replay import GameCheck, RecordCheck, Step, check_record
from arena.replay_match import MatchCheck

out = output_console()

STYLE = {
    "header": "bold magenta",
    "event": "default",
    "decision": "bold cyan",
    "failure": "bold red",
    "result": "bold green",
    "reveal": "dim",
    "mismatch": "bold red",
}

SHOWN_IDS = 8
"""How many failed games a match's verdict line names before it only counts them."""


def _line(text: str) -> None:
    out.print(text, soft_wrap=True)


RECORD_HELP = (
    "a .jsonl game record (or any file that can be read once: a FIFO, <(zcat r.jsonl.gz); - is "
    "standard input)"
)

# One paragraph each, not a docstring: `arena --help` would keep a docstring's line breaks and
# cut its summary mid-sentence.
REPLAY_HELP = (
    "Print a recorded game step by step, re-checking every step against the engine; a mismatch "
    "is shown where it happens. Without --game the matches are checked whole too, as `arena "
    "verify` does."
)
VERIFY_HELP = (
    "Check a record: the seed matches its commitment and re-derives every deal and event, and "
    "each match holds the games it announced. Exit 0 when every check passes, 1 when one "
    "fails, 2 when the file cannot be read as a record."
)


def replay(
    record: Path = typer.Argument(
        ..., help=RECORD_HELP, callback=existing_file_or_stdin, readable=False
    ),
    game: str | None = typer.Option(
        None, help="only the game with this id (its match as a whole is not checked)"
    ),
) -> None:

    def show(step: Step) -> None:
        style = STYLE.get(step.kind, "default")
        if step.kind == "mismatch":
            _line(f"[dim]{step.line:>5}[/] [{style}]mismatch:[/] {escape(step.text)}")
        else:
            _line(f"[dim]{step.line:>5}[/] [{style}]{escape(step.text)}[/]")

    try:
        report = check_record(record, on_step=show, game=game, name=input_name(record))
    except ArenaError as exc:
        fail(str(exc))
    for check in report.games:
        for problem in check.problems:
            _line(f"[bold red]mismatch in game {escape(check.game)}:[/] {escape(problem)}")
    for match in report.matches:
        for problem in match.problems:
            _line(f"[bold red]mismatch in match {escape(match.match)}:[/] {escape(problem)}")
    if game is None:
        for match in report.matches:
            _line(f"{match.game_kind} match {escape(match.match)}: {_match_verdict(match)}")
    else:
        piped = input_name(record) == STANDARD_INPUT_NAME
        whole = "`arena verify -` on the same record" if piped else f"`arena verify {record}`"
        _line(
            f"[dim]only game {escape(game)} was replayed: the checks of its match as a whole "
            "(the games it announced, their order and seating, the commitment in its match "
            f"line, its totals) were not run; {escape(whole)} runs them[/]"
        )
    if not report.ok:
        raise typer.Exit(1)


def verify(
    record: Path = typer.Argument(..., help=RECORD_HELP, readable=False),
    json_output: bool = typer.Option(
        False, "--json", help="print one JSON object (docs/DEALING.md, 'arena verify --json')"
    ),
    summary: bool = typer.Option(
        False, "--summary", help="print only each match's line and the games that failed"
    ),
) -> None:
    try:
        source = input_file(record, stdin=True)
    except InputFileError as exc:
        _unreadable(record, str(exc), json_output)
    try:
        report = check_record(source, name=input_name(record))
    except ArenaError as exc:
        _unreadable(record, str(exc), json_output)
    if json_output:
        print_json(verify_json(record, report))
    else:
        for c in report.games:
            if summary and c.ok:
                continue
            mark = "[green]ok[/]" if c.ok else "[bold red]FAILED[/]"
            _line(f"{c.game_kind} game {escape(c.game)}: {c.steps} decisions {mark}")
            for problem in c.problems:
                _line(f"  {escape(problem)}")
        for m in report.matches:
            _line(f"{m.game_kind} match {escape(m.match)}: {_match_verdict(m)}")
            for problem in m.problems:
                _line(f"  {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)


def _unreadable(record: Path, message: str, json_output: bool) -> NoReturn:
    """A file that cannot be read as a record: exit 2 with one error line, and with --json a
    JSON object carrying it first, so a script reading stdout gets one object whatever
    happened."""
    if json_output:
        print_json({"record": str(record), "ok": False, "error": message})
    fail(message)


def _match_verdict(match: MatchCheck) -> str:
    """``8 games ok``; ``8 games, 1 FAILED (r0h1)`` when games of it failed their own checks;
    ``8 games FAILED`` when the match as a whole did (its problems follow)."""
    text = f"{match.games} games"
    if match.failed_games:
        ids = match.failed_games
        shown = ", ".join(ids[:SHOWN_IDS]) + (", …" if len(ids) > SHOWN_IDS else "")
        text += f", [bold red]{len(ids)} FAILED[/] ({escape(shown)})"
        if match.problems:
            text += "; [bold red]the match FAILED[/]"
        return text + _totals(match)
    return text + (" [green]ok[/]" if match.ok else " [bold red]FAILED[/]") + _totals(match)


def _totals(match: MatchCheck) -> str:
    """``; totals: bayes 3, random-guess 1``: each player's score over the games the record
    finishes (a match cut short shows what it played); nothing when no game finished."""
    if not match.totals or not match.games:
        return ""
    shown = ", ".join(f"{name} {score:g}" for name, score in match.totals.items())
    return f"; totals: {escape(shown)}"


def verify_json(record: Path, report: RecordCheck) -> dict[str, Any]:
    """The object ``arena verify --json`` prints (its shape is documented in docs/DEALING.md)."""

    def game(c: GameCheck) -> dict[str, Any]:
        return {
            "match": c.match,
            "game": c.game,
            "kind": c.game_kind,
            "ok": c.ok,
            "steps": c.steps,
            "problems": c.problems,
        }

    def match(m: MatchCheck) -> dict[str, Any]:
        return {
            "match": m.match,
            "kind": m.game_kind,
            "ok": m.ok,
            "games": m.games,
            "failed_games": m.failed_games,
            "totals": m.totals,
            "problems": m.problems,
        }

    return {
        "record": str(record),
        "ok": report.ok,
        "matches": [match(m) for m in report.matches],
        "games": [game(c) for c in report.games],
    }


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command(help=REPLAY_HELP)(replay)
    app.command(help=VERIFY_HELP)(verify)
