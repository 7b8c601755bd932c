"""The form of each line of a record, compared with what the referee writes.

`arena verify` says "ok" only when every byte a participant reads was checked, so each line
kind has exactly the keys the referee writes, with the JSON types it writes (``1`` is neither
``1.0`` nor ``true``): an added key (a ``note``), a score written as a string or a seat as
``"0"`` is a problem named by its line and field, not a value silently coerced. The values
themselves are checked by the replay (`arena.replay`); this module says whether a line is
well formed, compares lines strictly and names what differs, and finds the games that come
without the frame of the match they belong to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.dealing import DealingError, verify_commitment
from arena.matches.frame import match_id_for
from arena.records import MatchLines
from protocol.messages import ErrorCode


class LineProblem(Exception):
    """A line that is not what the referee writes; the message names its line and field."""


@dataclass(frozen=True, slots=True)
class Field:
    """What a key of a line must hold: ``accepts`` says whether a value does, ``what`` says it
    in words for the message."""

    accepts: Callable[[Any], bool]
    what: str


def _is_int(value: Any) -> bool:
    return type(value) is int  # bool is an int subclass: true is no seat, no count


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_positive(value: Any) -> bool:
    return type(value) is int and value > 0


def _is_str(value: Any) -> bool:
    return type(value) is str


def _is_object(value: Any) -> bool:
    return type(value) is dict


def _list_of(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: type(value) is list and all(item(x) for x in value)


def _is_code(value: Any) -> bool:
    return type(value) is str and value in {code.value for code in ErrorCode}


INTEGER = Field(_is_int, "an integer")
COUNT = Field(_is_count, "a whole number")
TEXT = Field(_is_str, "a string")
OBJECT = Field(_is_object, "an object")
NAMES = Field(_list_of(_is_str), "a list of names")

HEADER = {
    "record_version": INTEGER,
    "dealing_version": TEXT,
    "game_kind": TEXT,
    "match": TEXT,
    "game": TEXT,
    "players": NAMES,
    "rules": OBJECT,
    "deal": OBJECT,
    "seed_commitment": TEXT,
}
MATCH = {
    "record_version": INTEGER,
    "match": TEXT,
    "game_kind": TEXT,
    "players": NAMES,
    "games": COUNT,
    "seating": TEXT,
    "rules": OBJECT,
    "seed_commitment": TEXT,
}
MATCH_REVEAL = {
    "match": TEXT,
    "seed": TEXT,
    "games": COUNT,
    "totals": Field(_list_of(lambda x: type(x) is float), "a list of numbers with a decimal point"),
}
GAME_REVEAL = {"seed": TEXT}
DECISION = {"seat": INTEGER, "action": TEXT}
FALLBACK = {"fallback": Field(lambda value: value is True, "true (the referee writes no false)")}
FAILURE = {
    "seat": INTEGER,
    "seq": Field(_is_positive, "a request number (1, 2, …)"),
    "code": Field(_is_code, "an error code of the protocol"),
    "text": TEXT,
}


def show(value: Any) -> str:
    """A value as JSON, so that ``"0"``, ``0``, ``0.0`` and ``true`` read differently."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def check_shape(
    line: Mapping[str, Any],
    fields: Mapping[str, Field],
    optional: Mapping[str, Field] | None = None,
    kind: str | None = None,
) -> None:
    """Raise `LineProblem` unless ``line`` has every key of ``fields``, no key but those and
    ``optional``'s, and each value of the form its field says."""
    optional = optional or {}
    number = line.get("_line")
    kind = kind or str(line.get("type"))
    for key in line:
        if key not in ("type", "_line") and key not in fields and key not in optional:
            raise LineProblem(f"line {number}: unknown key {key!r} in a {kind} line")
    for key in fields:
        if key not in line:
            raise LineProblem(f"line {number}: {kind} line without {key!r}")
    for key, field in {**fields, **optional}.items():
        if key in line and not field.accepts(line[key]):
            raise LineProblem(f"line {number}: {kind} {key} {show(line[key])} is not {field.what}")


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values, types included: ``1 == 1.0 == True`` in Python, not in a record."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_ABSENT = object()


def differences(recorded: Any, replay: Any, path: str = "") -> list[str]:
    """What differs between a recorded line (or value) and the replay's, key by key: nested
    objects are followed down to the keys that differ, so two payloads that print alike (an
    audience changed, a number turned into a string) are told apart."""
    if same(recorded, replay):
        return []
    if isinstance(recorded, dict) and isinstance(replay, dict):
        found = []
        for key in [*replay, *(k for k in recorded if k not in replay)]:
            if key == "_line":
                continue
            inner = f"{path}.{key}" if path else str(key)
            found += differences(recorded.get(key, _ABSENT), replay.get(key, _ABSENT), inner)
        return found
    return [f"{path or 'value'}: recorded {_shown(path, recorded)}, replay {_shown(path, replay)}"]


def _shown(path: str, value: Any) -> str:
    if value is _ABSENT:
        return "(no such key)"
    if path == "to":
        return "everyone" if value is None else show(value)
    return show(value)


def game_index(kind: str, deal: Mapping[str, Any]) -> int | None:
    """Which game of its match a deal deals (None when the deal does not say it plainly)."""
    if kind == "mahjong":
        round_index, hand = deal.get("round", 0), deal.get("hand", 0)
        if _is_count(round_index) and _is_count(hand):
            return int(round_index) * 4 + int(hand)
        return None
    index = deal.get("game_index", 0)
    return int(index) if _is_count(index) else None


@dataclass(frozen=True, slots=True)
class UnframedGame:
    """A game recorded outside a match frame that belongs to a match all the same."""

    kind: str
    match: str
    """The id its seed gives a match."""
    problem: str


def unframed_games(blocks: Sequence[MatchLines]) -> list[UnframedGame]:
    """The games recorded without a match frame that cannot be games played on their own.

    Games played on their own (a test's series, version 1 records) on one seed are that seed's
    games 0, 1, 2, … in order, each with its own reveal. A game dealing another game of its
    seed's match than its place among them — a later game alone, a gap, games reordered — is
    what is left of a match whose frame was cut away, whatever its header's version or match
    id say: only the frame says which games the match held.

    What this cannot see: the first games of a match, in order, with the frame cut away and
    their ids changed, read as a series played on its own (a record is not signed,
    docs/DEALING.md)."""
    seen: dict[tuple[str, str], int] = {}
    found = []
    for block in blocks:
        if block.framed:
            continue  # a match's games (a headless match's are the match check's)
        for lines in block.games:
            header = lines[0]
            reveal = next((line for line in lines if line["type"] == "reveal"), None)
            try:
                check_shape(header, HEADER)
                if reveal is None:
                    continue
                seed = verify_commitment(header["seed_commitment"], str(reveal.get("seed")))
                match = match_id_for(header["game_kind"], seed)
            except (LineProblem, DealingError, ValueError):
                continue  # the game's own replay reports it
            kind = header["game_kind"]
            place = seen.get((kind, seed.hex()), 0)
            seen[(kind, seed.hex())] = place + 1
            index = game_index(kind, header["deal"])
            if index != place:
                dealt = "an unnamed game" if index is None else f"game {index}"
                found.append(
                    UnframedGame(
                        kind,
                        match,
                        f"line {header['_line']}: game {header['game']} deals {dealt} of match "
                        f"{match} but is game {place} of that seed in this record, recorded "
                        "without its match frame (match line and final reveal): which games "
                        "the match held cannot be checked",
                    )
                )
    return found
