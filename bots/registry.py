"""Find a bot by game and strategy name. Each ``bots.<game>`` package exposes ``BOTS``:
a mapping from strategy name to a factory ``(name, config) -> Bot``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot

BotFactory = Callable[[str, Mapping[str, Any]], Bot]

BOT_MODULES: dict[str, str] = {
    "bulls_cows": "bots.bulls_cows",
    "liars_dice": "bots.liars_dice",
    "mahjong": "bots.mahjong",
}


class UnknownBotError(ValueError):
    """No bot of that name for that game."""


def factories(game: str) -> Mapping[str, BotFactory]:
    if game not in BOT_MODULES:
        raise UnknownBotError(f"no bots for game {game!r}; games: {', '.join(sorted(BOT_MODULES))}")
    module = importlib.import_module(BOT_MODULES[game])
    found: Mapping[str, BotFactory] = module.BOTS
    return found


def _natural(name: str) -> tuple[str, int]:
    # type2 before type10: a person reads the personalities in the seed's order.
    stem = name.rstrip("0123456789")
    return stem, int(name[len(stem) :] or -1)


def bot_names(game: str) -> list[str]:
    return sorted(factories(game), key=_natural)


def make_bot(
    game: str, strategy: str, config: Mapping[str, Any] | None = None, name: str | None = None
) -> Bot:
    """Build the bot ``strategy`` of ``game``; ``name`` defaults to the strategy name."""
    found = factories(game)
    if strategy not in found:
        known = ", ".join(sorted(found, key=_natural))
        raise UnknownBotError(f"no {game} bot named {strategy!r}; known: {known}")
    return found[strategy](name or strategy, dict(config or {}))
