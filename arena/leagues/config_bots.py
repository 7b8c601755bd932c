"""The bots of a league config: what each entrant's config file and inline options say, the
message for a bot its strategy refuses, naming the file the bad key is in, the options
through which a strategy keeps state between runs (refused before the bot is built), and
`bot_problems`, which builds each bot once while the config loads and says why each is refused."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from bots.registry import BotConfigError, UnknownBotError, make_bot, read_config

if TYPE_CHECKING:
    from arena.leagues.config import LeagueBot, LeagueConfig


class LeagueConfigError(ArenaError):
    """A league config that cannot be played; the text names the file and the key."""


def bot_place(index: int, name: str) -> str:
    """``bot 2 ('mine')``: an entrant by its number in the file, from 1, and its name, as every
    message about a bot of a league config names it (`arena.leagues.config_problems` too)."""
    return f"bot {index + 1} ({name!r})"


def bot_options(entry: LeagueBot, index: int) -> tuple[str, dict[str, Any]]:
    """(strategy, config) of an entrant, the ``index``-th of its file (from 0): the config
    file's keys, then the inline options; a ``strategy`` key in the file (1A2B configs carry
    one) names the strategy when ``bot`` does not, and must agree with it when it does."""
    strategy, options = _file_options(entry, index)
    options.update(entry.options)
    return strategy, options


def _file_options(entry: LeagueBot, index: int) -> tuple[str, dict[str, Any]]:
    """(strategy, the keys of the entrant's config file): `bot_options` without the inline
    options. The file is read as `bots run --config` reads it (`bots.registry.read_config`)."""
    if entry.config is None:
        return entry.strategy(), {}
    place = bot_place(index, entry.name)
    try:
        named, options = read_config(entry.config)
    except BotConfigError as exc:
        where = (
            f" (paths are read from the current directory, {Path.cwd()})"
            if not entry.config.is_absolute() and not entry.config.exists()
            else ""
        )
        raise LeagueConfigError(f"{place}: {exc}{where}") from exc
    if named is None:
        return entry.strategy(), options
    if entry.bot is not None and named != entry.bot:
        raise LeagueConfigError(f"{place}: {entry.config} is a {named!r} config, not {entry.bot!r}")
    return named, options


STATE_OPTIONS: dict[tuple[str, str], dict[str, str]] = {
    ("liars_dice", "bayes"): {"tables_dir": "learnt tables loaded and saved every game"},
}
"""(engine game, strategy) → the options through which that strategy keeps state between runs
(what `bots.base.Bot.kept_state` reports once the bot is built), each with what it keeps. A
league refuses such a bot before building it (`kept_state_option`): building it already makes
the directory, so a refused config would leave it behind. A strategy missing here whose built
bot reports kept state is still refused, after it is built."""


def kept_state_option(game: str, strategy: str, options: dict[str, Any]) -> str | None:
    """What ``options`` make the strategy keep between runs, as `Bot.kept_state` says it
    (``tables_dir 'runs/t' (learnt tables loaded and saved every game)``), or `None`. Only an
    option of the type the strategy takes (text) counts: one of another type is the strategy's
    to refuse, which it does before making anything."""
    for key, what in STATE_OPTIONS.get((game, strategy), {}).items():
        value = options.get(key)
        if isinstance(value, str):
            return f"{key} {value!r} ({what})"
    return None


def without_state_options(game: str, strategy: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` without those that keep state (`STATE_OPTIONS`) as the strategy takes them
    (text): the bot built from them makes nothing, and refuses any other option that is wrong,
    one of those included when it is not text (``tables_dir = 5``)."""
    kept = STATE_OPTIONS.get((game, strategy), {})
    return {
        key: value for key, value in options.items() if not (key in kept and isinstance(value, str))
    }


BOT_ERRORS = (ValueError, TypeError, ArenaError)
"""What `make_bot` raises for a strategy or config it refuses."""


def _refusal(game: str, strategy: str, options: dict[str, Any], name: str) -> str | None:
    """Why `make_bot` refuses this bot, or `None` when it builds. Built without the options
    that keep state (`STATE_OPTIONS`), as the league builds it: with them it would make their
    directory."""
    try:
        make_bot(game, strategy, without_state_options(game, strategy, options), name=name)
    except BOT_ERRORS as exc:
        return str(exc)
    return None


def bot_error(game: str, entry: LeagueBot, index: int, where: str, error: Exception) -> str:
    """The message for a bot `make_bot` refused, naming the file the bad key is in: the bot's
    own config file when its keys alone (those the league overrides inline left out) are refused
    for the same reason — and the strategy builds bare, unless the file named it — else the
    league file. An unknown strategy that is only the bot's name (no ``bot``, and no
    ``strategy`` key in its config file) says that the entry needs ``bot``."""
    place = bot_place(index, entry.name)
    if entry.config is not None:
        strategy, from_file = _file_options(entry, index)
        kept = {key: value for key, value in from_file.items() if key not in entry.options}
        strategy_ok = (
            strategy != entry.strategy() or _refusal(game, strategy, {}, entry.name) is None
        )
        if strategy_ok and _refusal(game, strategy, kept, entry.name) == str(error):
            return f"{entry.config}: {error} (the config of {place} in {where})"
        if isinstance(error, UnknownBotError) and entry.bot is None and strategy == entry.name:
            # The file names no strategy (no shipped liar's dice config does): the bot's name
            # stood in for one, which is rarely what the user meant.
            return (
                f"{where}: {place}: its config {entry.config} does not name its "
                f'strategy (no `strategy = "…"` key), so the entry needs bot = "…"; without '
                f"one the bot's name is taken as the strategy, and {error}"
            )
    elif isinstance(error, UnknownBotError) and entry.bot is None:
        return (
            f'{where}: {place}: {error} (an entry without bot = "…" takes its name as the strategy)'
        )
    return f"{where}: {place}: {error}"


def bot_problems(
    config: LeagueConfig, bots: Mapping[str, tuple[str, dict[str, Any]]], where: str
) -> list[str]:
    """Build each in-process bot of ``bots`` (those whose files could be read) once: why each
    is refused. A bot that would keep state between runs (`kept_state_option`) is refused
    before it is built, since building it makes its directory: it is built without that
    option, so that its other problems are named too, and nothing is left behind."""
    problems = []
    game = config.engine_game
    for index, entry in enumerate(config.bots):
        if entry.name not in bots:
            continue  # its config file could not be read: said already
        strategy, options = bots[entry.name]
        kept = kept_state_option(game, strategy, options)
        try:
            bot = make_bot(
                game,
                strategy,
                copy.deepcopy(without_state_options(game, strategy, options)),
                name=entry.name,
            )
        except BOT_ERRORS as exc:
            problems.append(bot_error(game, entry, index, where, exc))
            bot = None
        if kept is None and bot is not None:
            # A strategy that keeps state through an option `STATE_OPTIONS` does not list.
            kept = bot.kept_state()
        if kept is not None:
            problems.append(
                f"{where}: {bot_place(index, entry.name)} keeps state between runs: {kept}. "
                "Its games would depend on what earlier runs left, so the same league config "
                "would not give the same results; enter it without that option (it then learns "
                "afresh in every match), or play it with `arena match`"
            )
    return problems
