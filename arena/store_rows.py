"""Reading the results file back: every value checked against what `arena.store` writes.

A value of another type or shape (a file edited by hand, or by another program) would otherwise
surface as a traceback wherever it is used (the standings, ``--json``); it is a damaged file,
refused in one line naming the cell.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass
from typing import Any

from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan


@dataclass(frozen=True, slots=True)
class StoredLeague:
    id: int
    name: str
    game: str
    seed: str
    fingerprint: str
    config: dict[str, Any]
    created: str
    finished: str | None


class DamagedValue(Exception):
    """A value in the file that is not what the store writes there;
    `arena.store.ResultStore._attempt` makes it a one-line `StoreError` (``… damaged <what>``)."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not standard JSON")


def parsed_json(text: object, cell: str) -> Any:
    """The JSON in ``cell``: standard JSON only, as the store writes it (`arena.store._json`)."""
    if not isinstance(text, str):
        raise DamagedValue(f"{cell}: {_shown(text)} is not JSON text")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise DamagedValue(f"JSON in {cell} ({exc})") from None


def _integer(value: object, cell: str) -> int:
    if type(value) is not int:
        raise DamagedValue(f"{cell}: {_shown(value)} is not an integer")
    return value


def text_cell(value: object, cell: str) -> str:
    if not isinstance(value, str):
        raise DamagedValue(f"{cell}: {_shown(value)} is not text")
    return value


def _optional_text(value: object, cell: str) -> str | None:
    return None if value is None else text_cell(value, cell)


def _number(value: object, cell: str) -> float:
    """A finite number (the store writes no other: `arena.store._json`, and `seconds` is a
    duration)."""
    number = math.nan
    if isinstance(value, int | float) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):  # an integer beyond any float
            number = float(value)
    if not math.isfinite(number):
        raise DamagedValue(f"{cell}: {_shown(value)} is not a number")
    return number


def json_object(value: object, cell: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DamagedValue(f"{cell}: {_shown(value)} is not a JSON object")
    return value


def league_of_row(row: tuple[Any, ...]) -> StoredLeague:
    id_, name, game, seed, fingerprint, config, created, finished = row

    def cell(column: str) -> str:
        return f"leagues.{column} (id {id_})"

    return StoredLeague(
        _integer(id_, cell("id")),
        text_cell(name, cell("name")),
        text_cell(game, cell("game")),
        text_cell(seed, cell("seed")),
        text_cell(fingerprint, cell("fingerprint")),
        json_object(parsed_json(config, cell("config")), cell("config")),
        text_cell(created, cell("created")),
        _optional_text(finished, cell("finished")),
    )


def match_of_rows(row: tuple[Any, ...], game_rows: list[tuple[Any, ...]]) -> MatchOutcome:
    """A stored match from its ``matches`` row and its ``games`` rows."""
    match_id, index, bots, seed, summary, penalties, seconds, record = row

    def cell(column: str) -> str:
        return f"matches.{column} (id {match_id})"

    names = parsed_json(bots, cell("bots"))
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise DamagedValue(f"{cell('bots')}: {_shown(names)} is not a list of bot names")
    counts = json_object(parsed_json(penalties, cell("penalties")), cell("penalties"))
    plan = MatchPlan(_integer(index, cell("idx")), tuple(names), text_cell(seed, cell("seed")))
    found = json_object(parsed_json(summary, cell("summary")), cell("summary"))
    check_game_count(match_id, plan.key, found, len(game_rows))
    return MatchOutcome(
        plan,
        [_game(match_id, plan.bots, game) for game in game_rows],
        found,
        _number(seconds, cell("seconds")),
        _optional_text(record, cell("record")),
        {bot: _integer(n, f"{cell('penalties')} of {bot!r}") for bot, n in counts.items()},
    )


def check_game_count(match_id: object, key: object, summary: dict[str, Any], stored: int) -> None:
    """A match's ``games`` rows are the games its summary counts (``games``, in every format's
    summary; one without it, as the tests write, is not checked): rows deleted by hand would
    otherwise leave a match that shows fewer games, and that a resume takes as played."""
    counted = summary.get("games")
    if type(counted) is int and counted != stored:
        raise DamagedValue(
            f"match {_shown(key)} (matches id {match_id}): its summary counts {counted:,} games, "
            f"the games table holds {stored:,} of them; a resume plays it again once it is "
            f"deleted (DELETE FROM games WHERE match_id = {match_id}; DELETE FROM matches WHERE "
            f"id = {match_id})"
        )


def _game(match_id: int, bots: tuple[str, ...], row: tuple[Any, ...]) -> GameOutcome:
    """A stored game: ``scores`` holds a number for each bot of its match, and for no other."""
    idx, unit, scores = row

    def cell(column: str) -> str:
        return f"games.{column} (match_id {match_id}, idx {_shown(idx)})"

    found = json_object(parsed_json(scores, cell("scores")), cell("scores"))
    if set(found) != set(bots):
        raise DamagedValue(
            f"{cell('scores')}: scores for {', '.join(map(repr, sorted(found))) or 'no bot'}, "
            f"not for the match's {', '.join(map(repr, bots))}"
        )
    return GameOutcome(
        _integer(idx, cell("idx")),
        _integer(unit, cell("unit")),
        {bot: _number(found[bot], f"{cell('scores')} of {bot!r}") for bot in bots},
    )
