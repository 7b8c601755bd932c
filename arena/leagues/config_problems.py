"""A league config that does not validate, said in the file's terms: a bot by its number in the
file (from 1) and its name, an unknown key with the key it most resembles, a name's allowed
characters in words. Pydantic's own wording (``bots.1.confg: Extra inputs are not permitted``)
reads as the program's internals to a person editing a TOML file.

`arena.leagues.config` gives the shapes of its tables (`ConfigShapes`), so that this module
need not import it."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError


@dataclass(frozen=True, slots=True)
class ConfigShapes:
    """The keys of each table of a league config, and the error a rule of leagues on a server
    raises."""

    league_keys: Sequence[str]
    bot_keys: Sequence[str]
    rules_keys: Sequence[str]
    on_server_error: type[Exception]


_NAME_CHARACTERS: dict[tuple[str, str], str] = {
    ("league", "name"): "letters, digits and _ . -",
    ("bot", "name"): "letters, digits and _ . # + -",
}
"""What a name may hold, in words, where pydantic would print the pattern."""


def validation_problems(
    exc: ValidationError,
    where: str,
    options: Mapping[str, str],
    data: Mapping[str, Any],
    shapes: ConfigShapes,
) -> str:
    """The problems of a config that does not validate, in one line: those of a key the
    command line gave (``options``) under its option (``--games: …``), a rule of leagues on a
    server that the file breaks once ``--server`` put it there under both (``league.toml with
    --server: …``), the others under the file (``league.toml: games: …``), each in the file's
    terms (`_problem`)."""
    in_file: list[str] = []
    in_options: list[str] = []
    top_level = 0  # how many problems of the file's own keys lead ``in_file``
    server_option = options.get("server")
    for error in exc.errors():
        loc = error["loc"]
        option = options.get(str(loc[0])) if loc else None
        if option is not None:
            in_options.append(f"{option}: {_problem(error, data, shapes, with_key=False)}")
        elif server_option is not None and isinstance(
            error.get("ctx", {}).get("error"), shapes.on_server_error
        ):
            # The file's bots and keys break a rule of leagues on a server, and the command
            # line put this league there: both are to blame, so name both.
            in_options.append(
                f"{where} with {server_option}: {_problem(error, data, shapes, with_key=False)}"
            )
        elif _in_a_table(error["loc"]):
            in_file.append(_problem(error, data, shapes))
        else:
            # The file's own keys first: after a bot's problem, "unknown key 'gmes'" would
            # read as another key of that bot.
            in_file.insert(top_level, _problem(error, data, shapes))
            top_level += 1
    return "; ".join(([f"{where}: {'; '.join(in_file)}"] if in_file else []) + in_options)


def _in_a_table(loc: Sequence[Any]) -> bool:
    """Whether a validation error's place is inside a bot's or the rules' table."""
    return len(loc) > 1 and loc[0] in ("bots", "rules")


def _problem(
    error: Any, data: Mapping[str, Any], shapes: ConfigShapes, *, with_key: bool = True
) -> str:
    """One validation error in the file's terms: ``bot 2 ('bayes'): unknown key 'confg' (did
    you mean 'config'?)`` where pydantic says ``bots.1.confg: Extra inputs are not permitted``.
    ``with_key``: name the key (not when the caller names the option that gave it)."""
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "too_short" and loc == ("bots",):
        given = error.get("input")
        count = len(given) if isinstance(given, list) else 0
        return f"a league needs at least 2 bots, the file lists {count}"
    place: list[str] = []  # a bot of the file, by its number and name
    path = loc  # the key, below the bot if any
    table_kind, keys = "league", shapes.league_keys  # the table that holds the key
    if loc[:1] == ("bots",) and len(loc) > 1 and isinstance(loc[1], int):
        place, path = [_bot_place(data, loc[1])], loc[2:]
        table_kind, keys = "bot", shapes.bot_keys
    elif loc[:1] == ("rules",) and len(loc) > 1:
        table_kind, keys = "rules", shapes.rules_keys
    table = ".".join(str(part) for part in path[:-1])
    if kind == "extra_forbidden" and path:
        return _joined([*place, table], _unknown_key(str(path[-1]), keys))
    if kind == "missing" and path:
        return _joined([*place, table], f"missing key {path[-1]!r}")
    if kind == "model_type" and table_kind == "bot" and not path:
        return _joined(place, "not a table: each bot is a [[bots]] table with a name")
    message = error["msg"].removeprefix("Value error, ")
    characters = _NAME_CHARACTERS.get((table_kind, ".".join(map(str, path))))
    if kind == "string_pattern_mismatch" and characters is not None:
        message = f"{error.get('input')!r} may hold only {characters}"
    key = ".".join(str(part) for part in path)
    if not with_key and not place:
        return message
    return _joined([*place, key or ("" if place else "config")], message)


def _joined(where: Sequence[str], message: str) -> str:
    return ": ".join([*(part for part in where if part), message])


def _bot_place(data: Mapping[str, Any], index: int) -> str:
    """``bot 2 ('bayes')``: the bot by its number in the file, from 1, and its name if it has
    one (the error may be that it has none)."""
    bots = data.get("bots")
    entry = bots[index] if isinstance(bots, list) and 0 <= index < len(bots) else None
    name = entry.get("name") if isinstance(entry, dict) else None
    return f"bot {index + 1}" + (f" ({name!r})" if isinstance(name, str) and name else "")


def _unknown_key(key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
    return f"unknown key {key!r} ({hint})"
