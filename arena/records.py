"""Game records: one JSON object per line, enough to replay and verify a game exactly.

A record file holds one or more games; each game is:

* ``header`` — record and dealing versions, game kind, match and game ids, players, rules, the
  deal parameters and the SHA-256 commitment of the match seed;
* ``event`` lines — every engine event with its audience (``to``: ``null`` = public);
* ``decision`` lines — every applied action (``fallback: true`` when the referee chose it);
* ``failure`` lines — a late, malformed or illegal answer (the seat was told with an ``error``);
* ``result`` — the outcome and the penalties per seat;
* ``reveal`` — the seed itself, written once the game is over.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from arena.errors import ArenaError

RECORD_VERSION = 1


class RecordError(ArenaError, ValueError):
    """A record file cannot be read; the message names the line."""


class Recorder(ABC):
    """Where the referee writes a game's lines."""

    @abstractmethod
    def write(self, line: dict[str, Any]) -> None: ...

    def close(self) -> None:
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class MemoryRecorder(Recorder):
    """Keeps the lines in a list (tests, comparisons between transports)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def write(self, line: dict[str, Any]) -> None:
        self.lines.append(line)


class JsonlRecorder(Recorder):
    """Appends lines to a JSONL file; each line is flushed so a crash loses nothing written."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8")

    def write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read_lines(path: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise RecordError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(value, dict) or "type" not in value:
                raise RecordError(f"{path}:{number}: a record line is an object with a 'type'")
            value["_line"] = number
            lines.append(value)
    return lines


def split_games(lines: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Group a record's lines into games, each starting at its header."""
    current: list[dict[str, Any]] = []
    for line in lines:
        if line["type"] == "header":
            if current:
                yield current
            current = [line]
        elif not current:
            raise RecordError(f"line {line.get('_line')}: {line['type']!r} before any header")
        else:
            current.append(line)
    if current:
        yield current
