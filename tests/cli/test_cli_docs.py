"""Every `arena …` and `bots …` command the README and docs/ show names a command that exists and
only long options that command has, so a renamed command or option cannot leave the docs behind.

Only names are checked, not values: the docs write synopses (`--deals N`, `RECORD`) that are
meant to be filled in. Lines with a placeholder command (`arena match … --server URL`) are
skipped.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

from arena.cli.main import app as arena_app
from bots.cli import app as bots_app

REPO = Path(__file__).resolve().parents[2]
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_ROOTS: dict[str, Any] = {
    "arena": typer.main.get_command(arena_app),
    "bots": typer.main.get_command(bots_app),
}
_CODE_BLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`((?:arena|bots) [-a-z][^`\n]*)`")
_COMMAND_LINE = re.compile(r"(?:\$ )?((?:arena|bots) [-a-z].*)")  # not a diagram's arrows


def doc_commands(text: str) -> list[str]:
    """Command lines in code blocks (comments cut, continuations joined) and inline code."""
    found: list[str] = []
    for block in _CODE_BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            match = _COMMAND_LINE.fullmatch(line.split("  #")[0].strip())
            if match:
                found.append(match.group(1))
    found += _INLINE.findall(text)
    return [line for line in found if "…" not in line]


def command_problems(line: str) -> list[str]:
    """What is wrong with one documented command line: an unknown command or option."""
    try:
        argv = shlex.split(line)
    except ValueError:
        return []  # prose that only looks like a command (an unbalanced quote)
    command, args, path = _ROOTS[argv[0]], argv[1:], [argv[0]]
    while hasattr(command, "commands") and args and args[0] in command.commands:
        path.append(args[0])
        command, args = command.commands[args[0]], args[1:]
    if hasattr(command, "commands"):
        if args and not args[0].startswith("-") and args[0] not in {"|", "&"}:
            return [f"{' '.join(path)} has no command {args[0]!r}"]
        return []
    known = {"--help"}
    for param in command.params:
        known.update(param.opts, param.secondary_opts)
    options = (arg.split("=")[0].strip("[]") for arg in args if arg.lstrip("[").startswith("--"))
    return [f"{' '.join(path)} has no option {name}" for name in options if name not in known]


DOCUMENTED = [
    pytest.param(line, id=f"{doc.name}:{line[:60]}")
    for doc in DOC_FILES
    for line in dict.fromkeys(doc_commands(doc.read_text(encoding="utf-8")))
]


def test_the_docs_show_commands_of_every_kind() -> None:
    lines = [param.values[0] for param in DOCUMENTED]
    assert len(lines) > 100
    for head in ("arena league", "arena match", "arena liars-dice", "arena mahjong", "bots run"):
        assert any(str(line).startswith(head) for line in lines), head


@pytest.mark.parametrize("line", DOCUMENTED)
def test_a_documented_command_exists_with_its_options(line: str) -> None:
    assert command_problems(line) == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "arena liars-dice gauntlet --bot bayes --gamez 5",
            "liars-dice gauntlet has no option --gamez",
        ),
        ("arena liars-dice gantlet --bot bayes", "has no command 'gantlet'"),
        ("arena audit bridge --deals N [--sead S]", "audit bridge has no option --sead"),
        ("bots run random --url=ws://x --colour red", "bots run has no option --colour"),
    ],
)
def test_a_misspelt_command_or_option_is_reported(line: str, problem: str) -> None:
    problems = command_problems(line)
    assert len(problems) == 1
    assert problem in problems[0]


def test_comments_placeholders_and_continuations_are_read_as_the_docs_mean_them() -> None:
    text = (
        "```bash\n"
        "arena match mahjong --bots a,b \\\n  --games 8   # a comment --not-an-option\n"
        "$ bots run greedy\n"
        "arena match … --server URL\n"
        "bots ──ws──▶ arena serve\n"
        "```\n"
        "and inline `arena league FILE --show`."
    )
    assert doc_commands(text) == [
        "arena match mahjong --bots a,b    --games 8",
        "bots run greedy",
        "arena league FILE --show",
    ]


def _every_command(command: Any, path: str) -> list[tuple[str, Any]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _every_command(sub, f"{path} {name}")
    return found


def test_help_texts_keep_their_square_brackets() -> None:
    """Help is rendered as rich markup, where ``[default: 1]`` or ``[time]`` is a tag and
    vanishes from ``--help``; written ``\\[…]`` it shows."""
    bare_tag = re.compile(r"(?<!\\)\[[a-z][^\]]*\]")
    hidden = [
        f"{path} {param.opts[0]}: {param.help}"
        for root, command in _ROOTS.items()
        for path, each in _every_command(command, root)
        for param in getattr(each, "params", [])
        if isinstance(getattr(param, "help", None), str) and bare_tag.search(param.help)
    ]
    assert hidden == []
