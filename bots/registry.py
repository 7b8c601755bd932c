"""Find a bot by game and strategy name. Each ``bots.<game>`` package exposes ``BOTS``:
a mapping from strategy name to a factory ``(name, config) -> Bot``."""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena.text_files import NotUTF8Error, read_text_file
from bots.base import Bot

BotFactory = Callable[[str, Mapping[str, Any]], Bot]

BOT_MODULES: dict[str, str] = {
    "bulls_cows": "bots.bulls_cows",
    "liars_dice": "bots.liars_dice",
    "mahjong": "bots.mahjong",
}


class UnknownBotError(ValueError):
    """No bot of that name for that game."""


class BotConfigError(ValueError):
    """A strategy config file that cannot be read, or that configures another strategy."""


STRATEGY_KEY = "strategy"
"""The key of a strategy config file naming the bot it configures (the 1A2B configs carry one);
it is not one of the bot's settings."""


def read_config(path: Path) -> tuple[str | None, dict[str, Any]]:
    """(the strategy the file names, or ``None``; the bot's settings) of a strategy config
    (TOML). The ``strategy`` key is taken out of the settings, as leagues and ``arena match``
    read it; raises `BotConfigError` for a file that cannot be read or parsed."""
    try:
        settings = tomllib.loads(read_text_file(path))
    except (OSError, NotUTF8Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise BotConfigError(f"cannot read bot config {path}: {reason}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BotConfigError(f"{path}: not valid TOML: {exc}") from None
    named = settings.pop(STRATEGY_KEY, None)
    if named is not None and not isinstance(named, str):
        raise BotConfigError(f"{path}: {STRATEGY_KEY} must be a bot name (text), got {named!r}")
    return named, settings


def config_for(strategy: str, path: Path) -> dict[str, Any]:
    """The settings of the bot ``strategy`` from the config file ``path`` (`read_config`): a
    ``strategy`` key in the file must name that same bot."""
    named, settings = read_config(path)
    if named is not None and named != strategy:
        raise BotConfigError(
            f"{path} configures the {named!r} bot ({STRATEGY_KEY} = {named!r}), not {strategy!r}"
        )
    return settings


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
