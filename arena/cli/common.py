"""Small helpers shared by the CLI modules: JSON output, errors that exit cleanly, progress bars,
record file names."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console(stderr=True)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=None) + "\n")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a clear error (no traceback) and exit non-zero."""
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def progress_bar(
    console: Console, *, transient: bool, remaining: bool = True, disable: bool = False
) -> Progress:
    """The arena's progress bar: label, bar, done/total, elapsed (and remaining) time."""
    columns: list[ProgressColumn] = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    if remaining:
        columns.append(TimeRemainingColumn())
    return Progress(*columns, console=console, transient=transient, disable=disable)


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def output_directory(path: Path | None, option: str) -> None:
    """Make the directory an output option names, now: a path that cannot be one is refused
    before any game is played, not after."""
    if path is None:
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{option} {path}: cannot make that directory: {exc.strerror or exc}")


def record_path(directory: Path, prefix: str, seed: str) -> Path:
    """``DIRECTORY/PREFIX-SEED.jsonl``, the seed cut to 48 file-name-safe characters."""
    return directory / f"{prefix}-{_UNSAFE.sub('_', seed)[:48] or 'seed'}.jsonl"
