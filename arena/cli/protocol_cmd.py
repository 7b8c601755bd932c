"""``arena protocol …``: the wire format for bot authors."""

from __future__ import annotations

import json

import typer

from arena.cli.common import between, fail
from arena.console_streams import json_ascii_only
from protocol.codec import json_schema

protocol_app = typer.Typer(help="The JSON protocol bots speak.", no_args_is_help=True)


MAX_INDENT = 16
"""The widest indentation `schema` writes: wider only pads the lines (a huge one would not fit
in memory)."""


@protocol_app.command("schema")
def schema(
    indent: int = typer.Option(
        2, callback=between(0, MAX_INDENT), help=f"JSON indentation, 0 to {MAX_INDENT}"
    ),
) -> None:
    """Print the JSON Schema of every message."""
    typer.echo(json.dumps(json_schema(), indent=indent, ensure_ascii=json_ascii_only()))


@protocol_app.command("doc")
def doc(
    write: bool = typer.Option(False, "--write", help="write docs/PROTOCOL.md"),
    check: bool = typer.Option(False, "--check", help="exit 1 if docs/PROTOCOL.md is stale"),
) -> None:
    """Generate docs/PROTOCOL.md (message tables and real game logs) from the code."""
    from arena.protocol_doc import DOC_PATH, render

    if check and write:
        fail("give --check (compare docs/PROTOCOL.md with the code) or --write, not both")
    text = render()
    if check:
        current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
        if current != text:
            typer.echo(f"{DOC_PATH} is stale: run `arena protocol doc --write`", err=True)
            raise typer.Exit(1)
        typer.echo(f"{DOC_PATH} is up to date")
    elif write:
        DOC_PATH.write_text(text, encoding="utf-8", newline="\n")  # LF on Windows too
        typer.echo(f"wrote {DOC_PATH}")
    else:
        typer.echo(text, nl=False)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(protocol_app, name="protocol")
