"""``bots``: the player side's command line — list our bots, or connect one to a server.

    bots list [--game G]
    bots run NAME --url ws://HOST:PORT|mqtt://HOST:PORT [--game G] [--config FILE]
             [--token T] [--name N] [--resume-file FILE]

``bots run`` plays every game that has a strategy called NAME (or only ``--game``), as one
client named ``--name`` (default NAME), until the server says bye; SIGINT/SIGTERM says bye first.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import tomllib
from pathlib import Path
from typing import Any

import typer

from arena.logs import configure_logging
from bots.adapters import adapter_for
from bots.base import Bot
from bots.client import BotClient, ClientRefused
from bots.registry import BOT_MODULES, UnknownBotError, bot_names, make_bot

app = typer.Typer(
    help="Our bots: list them, or connect one to an arena server.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _die(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _available(game: str) -> list[str]:
    try:
        return bot_names(game)
    except (ImportError, UnknownBotError):
        return []


@app.command("list")
def list_bots(game: str | None = typer.Option(None, help="only this game")) -> None:
    """Print every bot strategy, per game."""
    for name in [game] if game else sorted(BOT_MODULES):
        if name not in BOT_MODULES:
            _die(f"unknown game {name!r}; games: {', '.join(sorted(BOT_MODULES))}")
        typer.echo(f"{name}: {', '.join(_available(name)) or '(none yet)'}")


def build_bots(
    strategy: str, game: str | None, config: dict[str, Any], name: str
) -> dict[str, Bot]:
    """The bot ``strategy`` for ``game``, or for every game that has one, by wire name."""
    games = [game] if game else [g for g in sorted(BOT_MODULES) if strategy in _available(g)]
    if not games:
        _die(f"no game has a bot called {strategy!r}; see `bots list`")
    bots: dict[str, Bot] = {}
    for kind in games:
        try:
            bots[kind] = make_bot(kind, strategy, config, name=name)
        except (UnknownBotError, ValueError) as exc:
            _die(str(exc))
    return bots


async def _play(clients: list[BotClient]) -> list[str]:
    loop = asyncio.get_running_loop()
    runners = [asyncio.ensure_future(client.run()) for client in clients]
    stopping: list[asyncio.Future[None]] = []

    def request_stop() -> None:
        for client in clients:
            stopping.append(asyncio.ensure_future(client.stop("the bot's owner stopped it")))

    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, request_stop)
    try:
        return list(await asyncio.gather(*runners))
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(number)


@app.command("run")
def run(
    strategy: str = typer.Argument(..., metavar="NAME", help="bot strategy (see `bots list`)"),
    url: str = typer.Option(..., help="ws://HOST:PORT or mqtt://HOST:PORT"),
    game: str | None = typer.Option(None, help="play only this game"),
    config: Path | None = typer.Option(None, help="strategy config (TOML)", exists=True),
    token: str | None = typer.Option(None, envvar="ARENA_BOT_TOKEN", help="the bot's token"),
    name: str | None = typer.Option(None, help="name on the server (default: NAME)"),
    resume_file: Path | None = typer.Option(
        None, help="keep the resume token here, so a restarted process gets its seat back"
    ),
    copies: int = typer.Option(
        1, min=1, max=256, help="run N copies, named NAME-0 … NAME-(N-1), one connection each"
    ),
    log_level: str = typer.Option("info", help="console log level (decisions are info)"),
    log_json: Path | None = typer.Option(None, help="also write JSON logs here"),
) -> None:
    """Connect a bot to a server and play until told to stop."""
    configure_logging(log_level, log_json)
    settings: dict[str, Any] = {}
    if config is not None:
        try:
            settings = tomllib.loads(config.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            _die(f"{config}: {exc}")
    base = name or strategy
    players = [base] if copies == 1 else [f"{base}-{i}" for i in range(copies)]
    try:
        adapter_for(url, base)
    except ValueError as exc:
        _die(str(exc))
    clients = []
    for player in players:
        resume = resume_file
        if resume is not None and copies > 1:
            resume = resume.with_name(f"{resume.name}.{player}")
        clients.append(
            BotClient(
                build_bots(strategy, game, settings, player),
                name=player,
                token=token,
                adapter_factory=functools.partial(adapter_for, url, player),
                resume_file=resume,
            )
        )
    try:
        reasons = asyncio.run(_play(clients))
    except ClientRefused as exc:
        _die(f"the server refused a bot: {exc}")
    for client, reason in zip(clients, reasons, strict=True):
        typer.echo(f"{client.name}: {reason} ({client.decisions} decisions)", err=True)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
