"""``arena protocol …``: the wire format for bot authors."""

from __future__ import annotations

import json

import typer

from protocol.codec import json_schema

protocol_app = typer.Typer(help="The JSON protocol bots speak.", no_args_is_help=True)


@protocol_app.command("schema")
def schema(indent: int = typer.Option(2, help="JSON indentation")) -> None:
    """Print the JSON Schema of every message."""
    typer.echo(json.dumps(json_schema(), indent=indent, ensure_ascii=False))


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(protocol_app, name="protocol")
