"""Small helpers shared by the CLI modules: JSON output, errors that exit cleanly."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

console = Console(stderr=True)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=None) + "\n")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a clear error (no traceback) and exit non-zero."""
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)
