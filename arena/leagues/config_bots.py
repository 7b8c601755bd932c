"""The bots of a league config: what each entrant's config file and inline options say, and
the message for a bot its strategy refuses, naming the file the bad key is in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from bots.registry import BotConfigError, UnknownBotError, make_bot, read_config

if TYPE_CHECKING:
    from arena.leagues.config import LeagueBot


class LeagueConfigError(ArenaError):
    """A league config that cannot be played; the text names the file and the key."""


def bot_options(entry: LeagueBot) -> tuple[str, dict[str, Any]]:
    """(strategy, config) of an entrant: the config file's keys, then the inline options; a
    ``strategy`` key in the file (1A2B configs carry one) names the strategy when ``bot`` does
    not, and must agree with it when it does."""
    strategy, options = _file_options(entry)
    options.update(entry.options)
    return strategy, options


def _file_options(entry: LeagueBot) -> tuple[str, dict[str, Any]]:
    """(strategy, the keys of the entrant's config file): `bot_options` without the inline
    options. The file is read as `bots run --config` reads it (`bots.registry.read_config`)."""
    if entry.config is None:
        return entry.strategy(), {}
    try:
        named, options = read_config(entry.config)
    except BotConfigError as exc:
        where = (
            f" (paths are read from the current directory, {Path.cwd()})"
            if not entry.config.is_absolute() and not entry.config.exists()
            else ""
        )
        raise LeagueConfigError(f"bot {entry.name!r}: {exc}{where}") from exc
    if named is None:
        return entry.strategy(), options
    if entry.bot is not None and named != entry.bot:
        raise LeagueConfigError(
            f"bot {entry.name!r}: {entry.config} is a {named!r} config, not {entry.bot!r}"
        )
    return named, options


BOT_ERRORS = (ValueError, TypeError, ArenaError)
"""What `make_bot` raises for a strategy or config it refuses."""


def _refusal(game: str, strategy: str, options: dict[str, Any], name: str) -> str | None:
    """Why `make_bot` refuses this bot, or `None` when it builds."""
    try:
        make_bot(game, strategy, options, name=name)
    except BOT_ERRORS as exc:
        return str(exc)
    return None


def bot_error(game: str, entry: LeagueBot, where: str, error: Exception) -> str:
    """The message for a bot `make_bot` refused, naming the file the bad key is in: the bot's
    own config file when its keys alone (those the league overrides inline left out) are refused
    for the same reason — and the strategy builds bare, unless the file named it — else the
    league file. An unknown strategy that is only the bot's name (no ``bot``, and no
    ``strategy`` key in its config file) says that the entry needs ``bot``."""
    if entry.config is not None:
        strategy, from_file = _file_options(entry)
        kept = {key: value for key, value in from_file.items() if key not in entry.options}
        strategy_ok = (
            strategy != entry.strategy() or _refusal(game, strategy, {}, entry.name) is None
        )
        if strategy_ok and _refusal(game, strategy, kept, entry.name) == str(error):
            return f"{entry.config}: {error} (the config of bot {entry.name!r} in {where})"
        if isinstance(error, UnknownBotError) and entry.bot is None and strategy == entry.name:
            # The file names no strategy (no shipped liar's dice config does): the bot's name
            # stood in for one, which is rarely what the user meant.
            return (
                f"{where}: bot {entry.name!r}: its config {entry.config} does not name its "
                f'strategy (no `strategy = "…"` key), so the entry needs bot = "…"; without '
                f"one the bot's name is taken as the strategy, and {error}"
            )
    elif isinstance(error, UnknownBotError) and entry.bot is None:
        return (
            f'{where}: bot {entry.name!r}: {error} (an entry without bot = "…" takes its '
            "name as the strategy)"
        )
    return f"{where}: bot {entry.name!r}: {error}"
