"""Help texts keep their sentences whole. Typer shows a help text's line breaks as they are
written — in a group's list of commands, and in a command's own help after its first paragraph —
so a docstring wrapped at the source's 100 columns was cut mid-sentence there (`arena bulls-cows
eval --help`: "without the async referee," then "so the time" on a line of its own)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from arena.cli.main import app as arena_app
from bots.cli import app as bots_app

runner = CliRunner()
_ROOTS: dict[str, Any] = {
    "arena": typer.main.get_command(arena_app),
    "bots": typer.main.get_command(bots_app),
}


def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    yield " ".join(path), command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _line_breaks_inside_paragraphs() -> list[str]:
    """Every help text (a command's, a group's, an option's) with a paragraph that holds a
    line break; a paragraph starting with ``\\b`` is verbatim on purpose and is allowed one."""
    found = []
    for root, command in _ROOTS.items():
        for path, each in _commands(command, (root,)):
            texts = [(path, each.help or "")]
            texts += [
                (f"{path} {p.opts[0]}", p.help) for p in each.params if getattr(p, "help", "")
            ]
            for where, text in texts:
                for paragraph in inspect.cleandoc(text).split("\n\n"):
                    if "\n" in paragraph.strip() and not paragraph.startswith("\b"):
                        found.append(f"{where}: {paragraph[:60]!r}…")
    return found


def test_no_help_paragraph_holds_a_line_break() -> None:
    assert _line_breaks_inside_paragraphs() == []


@pytest.mark.parametrize(
    ("command", "cut_after"),
    [
        (["bulls-cows", "eval"], ("without the async referee,",)),
        (["bench"], ("every", "with the", "when a")),
        (["match"], ("strategies,", "given a config")),
    ],
    ids=["bulls-cows eval", "bench", "match"],
)
def test_the_reported_helps_wrap_only_where_the_width_ends(
    command: list[str], cut_after: tuple[str, ...]
) -> None:
    """The lines the walkthrough saw cut at 100 columns now run on to the width."""
    shown = runner.invoke(arena_app, [*command, "--help"], env={"COLUMNS": "100"})
    assert shown.exit_code == 0, shown.output
    lines = [line.strip("│ ") for line in shown.output.splitlines()]
    assert not [line for line in lines if line.endswith(cut_after)]
