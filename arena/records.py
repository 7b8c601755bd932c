"""Game records: one JSON object per line, enough to replay and verify a game exactly.

A record file holds one or more matches. A match (record version 2) is a ``match`` line — the
match id, game kind, players, number of games and the SHA-256 commitment of the match seed —,
its games, and a closing ``reveal`` line with the seed, the games played and each player's
total, written once the match is over (a record read while the match runs gives no later deal
away). A game is:

* ``header`` — record and dealing versions, game kind, match and game ids, players, rules, the
  deal parameters and the SHA-256 commitment of the match seed;
* ``event`` lines — every engine event with its audience (``to``: ``null`` = public);
* ``decision`` lines — every applied action (``fallback: true`` when the referee chose it);
* ``failure`` lines — a late, malformed or illegal answer (the seat was told with an ``error``);
* ``result`` — the outcome and the penalties per seat;
* ``reveal`` — in version 1 (and for a game played on its own) the seed itself, once the game is
  over.
"""

from __future__ import annotations

import json
import os
import stat
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from arena.errors import ArenaError

RECORD_VERSION = 2
"""2: a match frame (a ``match`` line first, one ``reveal`` line last); 1: a reveal per game."""
READABLE_RECORD_VERSIONS = (1, 2)


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


RECORD_FILE_MODE = 0o600
"""A record file is its owner's alone (read and write): while a game runs, the file holds every
seat's private deal of it (both cups of dice, all four mahjong hands), which a bot or spectator
able to read the file would see (docs/DEALING.md)."""


class JsonlRecorder(Recorder):
    """Appends lines to a JSONL file; each line is flushed so a crash loses nothing written.

    The file is created with mode `RECORD_FILE_MODE` (0600: the umask can only narrow it); an
    existing file appended to loses any group and other permissions first, before a line of the
    match is written to it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # Binary descriptor and "\n" lines: a record is the same bytes on every system (the same
        # seed gives the same record, docs/DEALING.md), where Windows would turn each "\n" into
        # "\r\n" twice over, in the text wrapper and in a descriptor opened without O_BINARY.
        descriptor = os.open(
            path,
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0),
            RECORD_FILE_MODE,
        )
        try:
            mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
            if mode & 0o077 and hasattr(os, "fchmod"):
                os.fchmod(descriptor, mode & ~0o077)
            self._file = os.fdopen(descriptor, "a", encoding="utf-8", newline="\n")
        except BaseException:
            os.close(descriptor)
            raise

    def write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


MAX_DEPTH = 64
"""How deeply a record line may nest objects and lists. The referee's lines nest a few levels
(a result's detail, an event's payload); a deeper line is no record, and refusing it while
reading keeps every later check (strict comparisons recurse) clear of Python's recursion limit."""


class _NotRecordJson(ValueError):
    """Valid enough for Python's json, not for a record: a repeated key, NaN or Infinity."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A repeated key would let two readers of one line see different values (json keeps the
    # last one); the referee never writes one.
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise _NotRecordJson(f"the key {key!r} twice in one object")
        value[key] = item
    return value


def _constant(name: str) -> Any:
    raise _NotRecordJson(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """The nesting depth of a parsed line, without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _parse(text: str) -> Any:
    try:
        value = json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except RecursionError:
        raise _NotRecordJson("nested too deeply") from None
    if _depth(value) > MAX_DEPTH:
        raise _NotRecordJson("nested too deeply")
    return value


_SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file begins: a league's results file given where a record goes."""


def read_lines(path: Path, name: str | None = None) -> list[dict[str, Any]]:
    """Every non-blank line of a record, each with its line number under ``_line``; a line that
    is not a JSON object with a string ``type`` is an error naming the file (``name``, else the
    path) and line."""
    shown = name or str(path)
    lines: list[dict[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as handle:
            texts = list(handle)
    except UnicodeDecodeError as exc:
        if bytes(exc.object[: len(_SQLITE_HEADER)]) == _SQLITE_HEADER:
            raise RecordError(
                f"{shown}: a results file (SQLite), not a game record: a league's standings are "
                "shown by `arena league LEAGUE.toml --show --db FILE`, and its game records are "
                "the JSONL files written with `--records DIR`"
            ) from None
        raise RecordError(f"{shown}: not a text record (not UTF-8: {exc.reason})") from None
    except OSError as exc:
        raise RecordError(f"{shown}: cannot read: {exc.strerror}") from None
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        try:
            value = _parse(text)
        except ValueError as exc:  # _NotRecordJson too
            raise RecordError(f"{shown}:{number}: not JSON ({exc})") from None
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise RecordError(f"{shown}:{number}: a record line is an object with a 'type'")
        if "_line" in value:
            # The readers keep the line number under this key; a line carrying it would pass
            # off another number as its own.
            raise RecordError(f"{shown}:{number}: the key '_line' is not part of a record")
        value["_line"] = number
        lines.append(value)
    return lines


@dataclass
class MatchLines:
    """The lines of one match: its ``match`` line, its games (each a header and what follows
    it), and its closing ``reveal`` line (None while the match runs or when the record was cut
    short).

    ``match`` is None for games recorded without a match frame, each carrying its own reveal —
    or, when ``reveal`` is set all the same (`headless`), for the games of a match whose
    ``match`` line is missing (deleted, or the record cut at its start)."""

    match: dict[str, Any] | None
    games: list[list[dict[str, Any]]] = field(default_factory=list)
    reveal: dict[str, Any] | None = None

    @property
    def framed(self) -> bool:
        """Whether the games are a match's (a match line, or a match's reveal closing them)."""
        return self.match is not None or self.reveal is not None

    @property
    def headless(self) -> bool:
        """A match's games and its reveal without the match line that opens them."""
        return self.match is None and self.reveal is not None


def split_matches(lines: list[dict[str, Any]]) -> list[MatchLines]:
    """Group a record's lines into matches and games.

    A match's reveal (a ``reveal`` line naming its ``match``) after games recorded without a
    match line closes the games before it that name that match: what is left of a match whose
    match line is missing (`MatchLines.headless`), so that the check blames the missing line,
    not the games."""
    matches: list[MatchLines] = []
    current: MatchLines | None = None
    for line in lines:
        kind = line["type"]
        number = line.get("_line")
        if kind == "match":
            current = MatchLines(line)
            matches.append(current)
        elif kind == "header":
            if current is None or current.reveal is not None:
                current = MatchLines(None)
                matches.append(current)
            current.games.append([line])
        elif current is not None and current.reveal is not None:
            raise RecordError(f"line {number}: {kind!r} after the match's reveal line")
        elif (
            kind == "reveal"
            and current is not None
            and current.match is not None
            and "match" in line
        ):
            # The match's reveal; with no game before it, the match stopped before its first
            # game (the check reports the games it announced and does not hold).
            current.reveal = line
        elif current is None or not current.games:
            raise RecordError(f"line {number}: {kind!r} before any header")
        elif kind == "reveal" and "match" in line and _closes_headless(current, line):
            tail = len(current.games)
            while tail > 0 and _match_game(current.games[tail - 1], line["match"]):
                tail -= 1
            headless = MatchLines(None, current.games[tail:], line)
            del current.games[tail:]
            if not current.games:
                matches.pop()  # ``current``, the last block
            matches.append(headless)
            current = headless
        else:
            current.games[-1].append(line)
    return matches


def _match_game(game: list[dict[str, Any]], match: Any) -> bool:
    """Whether ``game`` names ``match`` in its header and has no reveal of its own (a game
    played on its own reveals its seed itself)."""
    return game[0].get("match") == match and not any(line["type"] == "reveal" for line in game)


def _closes_headless(block: MatchLines, reveal: dict[str, Any]) -> bool:
    """Whether ``reveal``, a match's reveal after ``block``'s games recorded without a match
    line, closes (at least) the last of them."""
    return _match_game(block.games[-1], reveal["match"])
