"""``bots``: the player side's command line — list our bots, or connect one to a server.

    bots list [--game G] [--options] [--json]
    bots run NAME --url ws://HOST:PORT|mqtt[s]://[USER:PASSWORD@]HOST:PORT [--game G]
             [--config FILE] [--token T …] [--name N] [--copies N] [--resume-file FILE]
             [--seed TEXT]

``bots run`` plays every game that has a strategy called NAME (or only ``--game``), as one
client named ``--name`` (default NAME), until the server says bye; SIGINT/SIGTERM (Ctrl-Break
on Windows too) says bye first.
A game is named as everywhere in ``arena`` (``bulls-cows``, ``liars-dice``) or by its wire name
(``bulls_cows``, ``liars_dice``).

Every random choice of a bot it runs (a 1A2B secret, a liar's dice bluff) comes from a seed
derived from a secret drawn afresh by each process, the bot's name and its config's own ``seed``:
its public name and config tell nobody what it will choose, and a restarted bot plays anew.
``--seed`` replaces that secret, to replay a run.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer

from arena.console_streams import json_ascii_only, tolerate_unencodable_output
from arena.dealing import MatchSeed
from arena.event_loops import is_mqtt_url, run_command, signals_named, stop_signals_handled
from arena.games.registry import ALIASES, UnknownGameError, canonical_name
from arena.logs import LOG_LEVELS, LogSetupError, check_log_level, configure_logging
from bots.adapters import AdapterRefused, adapter_for
from bots.base import Bot
from bots.client import (
    BotClient,
    ClientRefused,
    ResumeFileError,
    UnknownWireGame,
    check_resume_file,
)
from bots.options import OptionInfo, seed_problem, strategy_options
from bots.registry import (
    BOT_MODULES,
    BotConfigError,
    UnknownBotError,
    bot_names,
    config_for,
    make_bot,
)
from bots.seeds import seeded_options
from bots.version import version_option
from protocol.messages import is_bot_name

app = typer.Typer(
    help="Our bots: list them, or connect one to an arena server.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _options(_version: bool = version_option("bots")) -> None:
    """Our bots: list them, or connect one to an arena server."""


def _die(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _game_names() -> str:
    spelled = {wire: name for name, wire in ALIASES.items() if "-" in name}
    return ", ".join(
        f"{spelled[wire]} ({wire})" if wire in spelled else wire for wire in sorted(BOT_MODULES)
    )


def _game_option_help() -> str:
    """``--game``'s help: the games that have bots, as ``arena`` spells them, then the wire
    names that differ (from the registries, never by hand)."""
    spelled = {wire: name for name, wire in ALIASES.items() if "-" in name}
    games = sorted(BOT_MODULES)
    wire = [game for game in games if game in spelled]
    return (
        f"play only this game ({', '.join(spelled.get(game, game) for game in games)}"
        + (f"; or {', '.join(wire)}" if wire else "")
        + ")"
    )


def game_name(name: str) -> str:
    """The wire name of a game as typed: ``liars-dice`` (as ``arena`` spells it) or
    ``liars_dice`` (the protocol's) alike; an unknown game is a clear error."""
    try:
        wire = canonical_name(name)
    except UnknownGameError:
        wire = name
    if wire not in BOT_MODULES:
        _die(f"unknown game {name!r}; games: {_game_names()}")
    return wire


def _available(game: str) -> list[str]:
    try:
        return bot_names(game)
    except (ImportError, UnknownBotError):
        return []


@app.command("list")
def list_bots(
    game: str | None = typer.Option(None, help="only this game"),
    options: bool = typer.Option(
        False,
        "--options",
        help="each strategy's settings (for a config file): name, type, default, allowed values",
    ),
    json_output: bool = typer.Option(
        False, "--json", help="print one JSON object, every strategy with its settings"
    ),
) -> None:
    """Print every bot strategy, per game (with --options, each one's settings)."""
    spelled = {wire: name for name, wire in ALIASES.items() if "-" in name}
    games = [game_name(game)] if game else sorted(BOT_MODULES)
    if json_output:
        listed = [
            {
                "game": name,
                "name": spelled.get(name, name),
                "strategies": [
                    {"name": strategy, "options": _options_json(name, strategy)}
                    for strategy in _available(name)
                ],
            }
            for name in games
        ]
        typer.echo(json.dumps({"games": listed}, ensure_ascii=json_ascii_only()))
        return
    for name in games:
        # As `arena` spells the game (liars-dice), the wire name beside it when they differ.
        shown = f"{spelled[name]} ({name})" if name in spelled else name
        if not options:
            typer.echo(f"{shown}: {', '.join(_available(name)) or '(none yet)'}")
            continue
        typer.echo(shown)
        for strategies, settings in _alike(name):
            typer.echo(f"  {', '.join(strategies)}")
            for setting in settings if settings is not None else []:
                typer.echo(f"    {setting}")
            if settings is None:
                typer.echo("    (its settings are not described)")
            elif not settings:
                typer.echo("    (no settings)")
    if options:
        typer.echo(
            "A config file (TOML) sets them, with a `strategy` key naming the strategy; an "
            "unknown key is refused. In a match or league, and under `bots run`, a bot's `seed` "
            "names a stream of the match's (or the run's) own secret seed."
        )


def _options_json(game: str, strategy: str) -> list[dict[str, Any]] | None:
    settings = strategy_options(game, strategy)
    return None if settings is None else [setting.to_json() for setting in settings]


def _alike(game: str) -> list[tuple[list[str], list[OptionInfo] | None]]:
    """The strategies of ``game`` with their settings, those with the same settings together
    (the 32 liar's dice personalities take only a seed), in `bots list` order."""
    groups: list[tuple[list[str], list[OptionInfo] | None]] = []
    for strategy in _available(game):
        settings = strategy_options(game, strategy)
        same = next((group for group in groups if group[1] == settings), None)
        if same is None:
            groups.append(([strategy], settings))
        else:
            same[0].append(strategy)
    return groups


def build_bots(
    strategy: str,
    game: str | None,
    config: dict[str, Any],
    name: str,
    seed: MatchSeed | None = None,
) -> dict[str, Bot]:
    """The bot ``strategy`` for ``game``, or for every game that has one, by wire name.

    Its ``seed`` setting is derived from ``seed`` (default: a fresh secret one), ``name`` and
    the config's own ``seed``, as `arena match` derives an in-process bot's from the match seed:
    left to itself a bot would seed its streams from public text (its name, ``"0"``, the seed a
    shipped config names), so anyone could compute its 1A2B secrets and bluffs in advance."""
    if game:
        games = [game_name(game)]
    else:
        games = [g for g in sorted(BOT_MODULES) if strategy in _available(g)]
    if not games:
        _die(f"no game has a bot called {strategy!r}; see `bots list`")
    own_seed = config.get("seed")
    problem = None if own_seed is None else seed_problem(own_seed)
    if problem is not None:
        # Folded into the derived seed as text, true or 1.5 would pass unnoticed.
        _die(problem)
    run_seed = seed if seed is not None else MatchSeed.generate()
    bots: dict[str, Bot] = {}
    for kind in games:
        settings = seeded_options(kind, strategy, run_seed, name, config)
        try:
            bots[kind] = make_bot(kind, strategy, settings, name=name)
        except (UnknownBotError, ValueError) as exc:
            _die(str(exc))
    return bots


def load_settings(strategy: str, config: Path | None) -> dict[str, Any]:
    """The settings of ``--config`` for the bot ``strategy``. The file is read as leagues and
    ``arena match`` read it (`bots.registry.config_for`): a ``strategy`` key naming this bot is
    fine and is not a setting; one naming another bot is an error."""
    if config is None:
        return {}
    try:
        return config_for(strategy, config)
    except BotConfigError as exc:
        _die(str(exc))


TOKEN_ENV = "ARENA_BOT_TOKEN"
MAX_COPIES = 256


def _log_level(value: str) -> str:
    try:
        return check_log_level(value)
    except LogSetupError as exc:
        _die(f"--log-level: {exc}")


def _copies_in_range(value: int) -> int:
    if not 1 <= value <= MAX_COPIES:
        _die(f"--copies must be from 1 to {MAX_COPIES}, got {value}")
    return value


def token_env(player: str) -> str:
    """The environment variable holding the token of the bot ``player`` alone:
    ``ARENA_BOT_TOKEN_<NAME>``, the name upper-cased with every other character than a letter or
    digit as ``_`` (``tb-0`` → ``ARENA_BOT_TOKEN_TB_0``)."""
    return f"{TOKEN_ENV}_{re.sub(r'[^A-Z0-9]', '_', player.upper())}"


def copy_tokens(
    players: Sequence[str], given: Sequence[str], environ: Mapping[str, str]
) -> list[str | None]:
    """Each player's token: ``--token`` given once per copy (in order), else the player's own
    ``ARENA_BOT_TOKEN_<NAME>``, else the one ``--token`` (or ``ARENA_BOT_TOKEN``) they share."""
    if len(given) > 1:
        if len(given) != len(players):
            _die(
                f"--token was given {len(given)} times for {len(players)} copies: give it once "
                "(one token for every copy) or once per copy, in the order of the copies"
            )
        return list(given)
    shared = given[0] if given else None
    return [environ.get(token_env(player)) or shared for player in players]


NAME_IN_USE = "already has a session"
TOKEN_REFUSED = "unknown token for bot"
"""What the server's texts say for a name already connected and for a wrong or missing token
(`arena.server.lobby`). A server gives a name in use its own code, ``name_in_use``; one from
before that code said ``auth_failed`` for both, and only the text told them apart."""


def refusal_hint(error: ClientRefused, players: Sequence[str], tokens: Sequence[str | None]) -> str:
    """The error for a bot the server refused, with what to do about that refusal: for a name
    already connected, stop the other bot or choose another name; for a refused token when
    copies share one, that a token belongs to one name."""
    message = f"the server refused a bot: {error}"
    text = str(error)
    if not text.startswith(("auth_failed", "name_in_use")):
        return message
    if text.startswith("name_in_use") or NAME_IN_USE in text:
        named = (
            f"; --copies names the copies {', '.join(players[:2])}, …" if len(players) > 1 else ""
        )
        if "(absent)" in text:
            # Its connection dropped, and the server keeps its seat for it to come back.
            return message + (
                " (a bot of that name lost its connection and the server keeps its seat: the "
                "bot takes it back when run again with the --resume-file it had; or choose "
                f"another --name{named})"
            )
        if "(seated)" in text:
            return message + (
                " (a bot of that name holds a seat at a table: stop that bot, or choose another "
                f"--name{named}; if it was this bot, stopped without saying bye, run it again "
                "with the --resume-file it had to take the seat back, or once the server has "
                "noticed it gone: within a minute over MQTT)"
            )
        return message + (
            " (a bot of that name is connected to the server already: stop that bot, or choose "
            f"another --name{named})"
        )
    shared = len(players) > 1 and len(set(tokens)) < len(tokens)
    if shared and TOKEN_REFUSED in text:
        first = players[0]
        message += (
            f" (--copies names each copy ({', '.join(players[:2])}, …) and a token belongs to one "
            f"name: make one per copy (`arena tokens add {first}`, …) and give --token once per "
            f"copy, or set {token_env(first)}, …)"
        )
    return message


STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGBREAK")
"""What makes `bots run` say bye and stop, of those the platform has (SIGBREAK: Ctrl-Break, on
Windows)."""


async def _play(clients: list[BotClient]) -> list[str]:
    loop = asyncio.get_running_loop()
    runners = [asyncio.ensure_future(client.run()) for client in clients]
    stopping: list[asyncio.Future[None]] = []

    def request_stop(_number: int) -> None:
        for client in clients:
            stopping.append(asyncio.ensure_future(client.stop("the bot's owner stopped it")))

    with stop_signals_handled(loop, signals_named(*STOP_SIGNALS), request_stop):
        return list(await asyncio.gather(*runners))


# One paragraph per string line, not a docstring: typer keeps a docstring's line breaks (in
# the parent command's list, and after the first paragraph) and cuts sentences there.
RUN_HELP = (
    "Connect a bot to a server and play until told to stop.\n\n"
    "With --copies N on a server with --tokens, every copy (NAME-0 … NAME-(N-1)) is its own bot "
    "and needs its own token: `arena tokens add NAME-0`, …, then --token once per copy or "
    "ARENA_BOT_TOKEN_<NAME> per copy."
)


@app.command("run", help=RUN_HELP)
def run(
    strategy: str = typer.Argument(..., metavar="NAME", help="bot strategy (see `bots list`)"),
    url: str = typer.Option(
        ...,
        help="ws://HOST:PORT or mqtt://HOST:PORT; mqtt://USER:PASSWORD@HOST:PORT logs in to the "
        "broker (percent-encode : @ / ? # % in them), mqtts:// speaks TLS (port 8883)",
    ),
    game: str | None = typer.Option(None, help=_game_option_help()),
    config: Path | None = typer.Option(
        None,
        help="strategy config (TOML), as leagues and `arena match` take it: a 'strategy' key, "
        "if any, must name NAME",
        readable=False,
    ),
    token: list[str] = typer.Option(
        [],
        envvar=TOKEN_ENV,
        metavar="TOKEN",
        help="the bot's token (server with --tokens). A token belongs to one name: with --copies "
        "give it once per copy (in order), or set ARENA_BOT_TOKEN_<NAME> per copy (e.g. "
        "ARENA_BOT_TOKEN_G_0 for g-0), after `arena tokens add g-0` and so on",
    ),
    name: str | None = typer.Option(None, help="name on the server (default: NAME)"),
    resume_file: Path | None = typer.Option(
        None,
        help="keep the resume token here (written readable by you only), so a restarted process "
        "gets its seat back; with it, SIGINT or SIGTERM closes a websocket without bye, so the "
        "seat waits the server's grace (without it the bot says bye and gives its seat up)",
        readable=False,
    ),
    copies: int = typer.Option(
        1,
        callback=_copies_in_range,
        help="run N copies, named NAME-0 … NAME-(N-1), one connection each; on a server with "
        "--tokens each copy needs its own token (see --token)",
    ),
    seed: str | None = typer.Option(
        None,
        help="make the run reproducible: the bots' random choices (1A2B secrets, bluffs) follow "
        "from this text, their name and their config. Anyone who knows it can predict the "
        "bot's hidden choices; without it each run draws a fresh secret seed",
    ),
    log_level: str = typer.Option(
        "info",
        callback=_log_level,
        help=f"console log level: {', '.join(LOG_LEVELS)} (decisions are info)",
    ),
    log_json: Path | None = typer.Option(None, help="also write JSON logs here", readable=False),
    stay: bool = typer.Option(
        False,
        "--stay",
        help="keep playing across server restarts: after the server's bye, reconnect (with "
        "backoff) instead of stopping; Ctrl-C or SIGTERM stops it",
    ),
) -> None:
    try:
        configure_logging(log_level, log_json)
    except LogSetupError as exc:
        _die(f"--log-json: {exc}")
    settings = load_settings(strategy, config)
    base = name or strategy
    players = [base] if copies == 1 else [f"{base}-{i}" for i in range(copies)]
    for player in players:
        if not is_bot_name(player):
            _die(
                f"{player!r} is no valid bot name: 1-64 of A-Z a-z 0-9 _ . -"
                + (" (with --copies, NAME-0 … NAME-N)" if copies > 1 else "")
                + "; see --name"
            )
    tokens = copy_tokens(players, token, os.environ)
    try:
        adapter_for(url, base)
    except ValueError as exc:
        _die(str(exc))
    # One secret for the whole process: each copy's seed still differs, by its name.
    run_seed = MatchSeed.generate() if seed is None else MatchSeed.from_text(seed)
    clients = []
    for player, player_token in zip(players, tokens, strict=True):
        resume = resume_file
        if resume is not None and copies > 1:
            resume = resume.with_name(f"{resume.name}.{player}")
        try:
            if resume is not None:
                check_resume_file(resume)
            client = BotClient(
                build_bots(strategy, game, settings, player, run_seed),
                name=player,
                token=player_token,
                adapter_factory=functools.partial(adapter_for, url, player),
                resume_file=resume,
                stay=stay,
            )
        except ResumeFileError as exc:
            _die(f"--resume-file: {exc}")
        clients.append(client)
    try:
        reasons = run_command(_play(clients), speaks_mqtt=is_mqtt_url(url))
    except ClientRefused as exc:
        _die(refusal_hint(exc, players, tokens))
    except (AdapterRefused, UnknownWireGame) as exc:
        _die(str(exc))
    for client, reason in zip(clients, reasons, strict=True):
        typer.echo(f"{client.name}: {reason} ({client.decisions} decisions)", err=True)


def main() -> None:
    tolerate_unencodable_output()
    app()


if __name__ == "__main__":
    main()
