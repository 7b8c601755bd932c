"""Find a game engine by its wire name. Game packages are imported on first use."""

from __future__ import annotations

import importlib

from arena.games.base import GameSpec
from arena.games.errors import GameError

#: wire name -> module exposing ``SPEC: GameSpec``
GAME_MODULES: dict[str, str] = {
    "bulls_cows": "arena.games.bulls_cows",
    "liars_dice": "arena.games.liars_dice",
    "mahjong": "arena.games.mahjong.engine",
}

#: names a person may type on the command line
ALIASES: dict[str, str] = {
    "bulls-cows": "bulls_cows",
    "1a2b": "bulls_cows",
    "liars-dice": "liars_dice",
}


class UnknownGameError(GameError):
    """No game of that name."""


def canonical_name(name: str) -> str:
    name = ALIASES.get(name, name)
    if name not in GAME_MODULES:
        known = ", ".join(sorted(GAME_MODULES))
        raise UnknownGameError(f"unknown game {name!r}; known games: {known}")
    return name


def get_spec(name: str) -> GameSpec:
    module = importlib.import_module(GAME_MODULES[canonical_name(name)])
    spec = module.SPEC
    if not isinstance(spec, GameSpec):
        raise UnknownGameError(f"{module.__name__}.SPEC is not a GameSpec")
    return spec
