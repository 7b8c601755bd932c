"""``arena serve``, ``arena tokens add``, ``arena lobby`` and ``arena bench network``."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Protocol, TypeVar

import typer

from arena.cli.common import between, existing_file, fail, log_level_option, print_json
from arena.errors import ArenaError, ServerLost
from arena.server.sessions import DEFAULT_RECONNECT_GRACE_S
from arena.server.wire import TableStatus
from arena.transports.base import Seat

tokens_app = typer.Typer(
    help="Bot and admin tokens for `arena serve --tokens`.", no_args_is_help=True
)

DEFAULT_TOKENS = Path("tokens.toml")
T = TypeVar("T")

ADMIN_HELP = (
    "a server with --tokens wants an admin: its name from ARENA_ADMIN_NAME (default 'admin') "
    "and its token from ARENA_ADMIN_TOKEN (see `arena tokens add NAME --admin`)"
)

SERVER_HELP = (
    "play through the arena server at this ws:// URL: the --bots names are bots connected "
    f"there ({ADMIN_HELP})"
)


def server_url(url: str | None) -> str | None:
    """Typer callback of every ``--server`` option: a URL no connection could reach is refused
    before the command prints or plays anything."""
    if url is not None:
        from arena.server.remote import RemoteTableError, check_server_url

        try:
            check_server_url(url)
        except RemoteTableError as exc:
            fail(str(exc))
    return url


def run_on_server(
    url: str,
    bot_names: Sequence[str],
    game: str,
    play: Callable[[list[Seat]], Awaitable[T]],
    *,
    start_timeout_s: float = 30.0,
    record: Path | None = None,
) -> T:
    """For ``arena match … --server URL``: run ``play(seats)`` on a table of the named bots;
    a table that cannot open (bots absent past the start timeout, bad token, no server) is a
    clear error, not a traceback. So is a server lost mid-match (`ServerLost`): the match
    stops there, and the command exits non-zero rather than report a match it did not play
    (``record``: the ``--record`` directory, named in that error)."""
    from arena.server.remote import RemoteTableError, play_on_server

    try:
        return asyncio.run(
            play_on_server(url, bot_names, game, play, start_timeout_s=start_timeout_s)
        )
    except RemoteTableError as exc:
        fail(str(exc))
    except ServerLost as exc:
        fail(server_lost_message(url, exc, record))


def server_lost_message(url: str, lost: ServerLost, record: Path | None = None) -> str:
    """One line: the match stopped when its server connection was lost, after how many games,
    and where the record of those games is."""
    played = f"{lost.games} game" if lost.games == 1 else f"{lost.games} games"
    kept = (
        f"; the partial record in {record}/ holds the games played (and the one cut short)"
        if record is not None
        else ""
    )
    return (
        f"lost the connection to the server at {url} after {played} of the match "
        f"({lost.reason}); the match was stopped, its results not reported{kept}"
    )


def grace_option(param: typer.CallbackParam, value: float) -> float:
    """Typer callback of ``--grace``: any number of seconds (0: none, below 0 or ``inf``: for
    ever), but not ``nan``, which is no time at all and would cut the drain short at random."""
    if math.isnan(value):
        fail(f"{param.opts[0]} must be a number of seconds (0: none, <0: for ever), got nan")
    return value


def reconnect_grace_option(param: typer.CallbackParam, value: float) -> float:
    """Typer callback of ``--reconnect-grace``: a finite number of seconds, 0 or more."""
    if not 0 <= value < math.inf:  # nan too
        fail(f"{param.opts[0]} must be a number of seconds, 0 or more, got {value}")
    return value


def drain_grace_s(grace: float) -> float | None:
    """``--grace`` as `ServerConfig.grace_s`: None (wait for ever) for a negative or infinite
    value."""
    return None if grace < 0 or math.isinf(grace) else grace


def serve(
    context: typer.Context,
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(
        8765, callback=between(0, 65535), help="websocket port (0: any free port)"
    ),
    mqtt: str | None = typer.Option(
        None,
        help="mqtt://HOST:PORT of a broker to serve bots through (an embedded broker is started "
        "there if none answers, on a loopback address only), or 'embedded' for one on "
        "127.0.0.1:1883. mqtt://USER:PASSWORD@HOST:PORT logs in to the broker (percent-encode "
        ": @ / ? # % in them), mqtts:// speaks TLS (port 8883); neither starts an embedded broker. "
        "The embedded broker needs no MQTT login, but lets each client use only the topic pair "
        "its client id <name>-<conn> names; another broker must restrict its clients itself "
        "(docs/NETWORK.md)",
    ),
    mqtt_takeover: bool = typer.Option(
        False,
        "--mqtt-takeover",
        help="start even though the MQTT broker holds another arena server's presence marker: "
        "only for a server that is gone, killed without its broker noticing (two servers on "
        "one broker would both answer every bot)",
    ),
    tokens: Path | None = typer.Option(
        None,
        callback=existing_file,
        readable=False,  # an unreadable file is one error line from loading it, not click's box
        help="tokens file (without it: any bot, loopback only)",
    ),
    grace: float = typer.Option(
        300.0,
        callback=grace_option,
        help="seconds a shutdown waits for running tables (0: none, <0 or inf: for ever)",
    ),
    reconnect_grace: float = typer.Option(
        DEFAULT_RECONNECT_GRACE_S,
        callback=reconnect_grace_option,
        help="seconds a seated bot that dropped has to resume: its requests wait for it until "
        "then, and are answered for it at once after (0: at once)",
    ),
    log_level: str = typer.Option(
        "info",
        callback=log_level_option,
        help="console log level: debug, info, warning, error or critical (default: info, or "
        "arena's --log-level when given)",
    ),
    log_json: Path | None = typer.Option(
        None,
        readable=False,  # written, never read
        help="also write JSON logs (all levels) here (arena's --log-file does the same)",
    ),
) -> None:
    """Host tables for every game: bots connect and wait; `arena match … --server` seats them."""
    from arena.event_loops import run_command
    from arena.logs import LogSetupError, configure_logging
    from arena.server.app import ArenaServer, ServerConfig
    from arena.server.hub import Limits

    log_level, log_json, log_option = serve_logging(context, log_level, log_json)
    try:
        configure_logging(log_level, log_json)
    except LogSetupError as exc:
        fail(f"{log_option}: {exc}")
    if log_level != "debug":
        # The library logs every connection's opening and closing; the hub logs what matters.
        logging.getLogger("websockets").setLevel(logging.WARNING)
    config = ServerConfig(
        host=host,
        port=port,
        mqtt=mqtt,
        tokens=tokens,
        grace_s=drain_grace_s(grace),
        limits=Limits(reconnect_grace_s=reconnect_grace),
        mqtt_takeover=mqtt_takeover,
    )
    try:
        server = ArenaServer(config)
        run_command(server.run_until_signalled(), speaks_mqtt=mqtt is not None)
    except ArenaError as exc:
        fail(str(exc))
    except OSError as exc:
        address = f"[{host}]" if ":" in host else host
        fail(f"cannot listen on {address}:{port}: {exc}")


def serve_logging(
    context: typer.Context, log_level: str, log_json: Path | None
) -> tuple[str, Path | None, str]:
    """The level and JSON file `serve` logs with, and the option that named the file. Its own
    ``--log-level`` and ``--log-json`` come first; arena's ``--log-level`` and ``--log-file``
    (``arena --log-file F serve``), which `arena.cli.main` leaves to this command, apply when
    given and the own ones are not. Two different JSON files are refused, before either is
    created."""
    parent = context.parent
    if parent is None:
        return log_level, log_json, "--log-json"
    if _given(parent, "log_level") and not _given(context, "log_level"):
        log_level = parent.params["log_level"]
    # typer >= 0.29 gives the parent's --log-file as a Path, older ones as the text typed.
    given_log_file = parent.params.get("log_file")
    log_file = None if given_log_file is None else Path(given_log_file)
    if log_file is not None:
        if log_json is not None and log_json != log_file:
            fail(
                f"arena --log-file {log_file} and serve --log-json {log_json} name two JSON "
                "log files; give one of them"
            )
        return log_level, log_file, "--log-file"
    return log_level, log_json, "--log-json"


class _OptionSources(Protocol):
    """A click context (typer's, or its parent's, which typer types as its bundled click's)."""

    def get_parameter_source(self, name: str) -> Enum | None: ...


def _given(context: _OptionSources, name: str) -> bool:
    """The option ``name`` was set by the user, not left at its default. (click's
    ``ParameterSource``, compared by name: typer bundles click under a private module.)"""
    source = context.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


# One paragraph per string line, not a docstring: typer keeps a docstring's line breaks (in
# the parent command's list, and after the first paragraph) and cuts sentences there.
TOKENS_ADD_HELP = (
    "Create a token: printed once on stdout, stored only as its SHA-256. A name that already has "
    "a token is refused unless --replace is given."
)


@tokens_app.command("add", help=TOKENS_ADD_HELP)
def tokens_add(
    name: str = typer.Argument(..., help="bot (or admin) name"),
    file: Path = typer.Option(DEFAULT_TOKENS, "--file", help="tokens file to update"),
    admin: bool = typer.Option(
        False,
        "--admin",
        help="a token to open tables, not to play (a referee then sets ARENA_ADMIN_NAME=NAME "
        "and ARENA_ADMIN_TOKEN; the name defaults to 'admin')",
    ),
    replace: bool = typer.Option(
        False, "--replace", help="issue a new token for a name that has one (the old one stops)"
    ),
) -> None:
    from arena.server.auth import add_token

    try:
        token = add_token(file, name, admin=admin, replace=replace)
    except ArenaError as exc:
        fail(str(exc))
    typer.echo(token)
    kind = "admin" if admin else "bot"
    typer.echo(f"stored the {kind} token of {name} in {file} (shown only now)", err=True)


LOBBY_HELP = (
    "Show the bots connected to a server and its open tables.\n\n"
    "A server with --tokens wants an admin: its name from ARENA_ADMIN_NAME (default 'admin') and "
    "its token from ARENA_ADMIN_TOKEN (see `arena tokens add NAME --admin`)."
)


def lobby(
    server: str = typer.Option("ws://127.0.0.1:8765", help="server URL"),
    json_output: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    from arena.server.remote import server_status

    try:
        report = asyncio.run(server_status(server))
    except ArenaError as exc:
        fail(str(exc))
    if json_output:
        print_json(report.model_dump(mode="json"))
        return
    typer.echo(
        f"{len(report.bots)} bots, {len(report.tables)} tables"
        + (" (draining)" if report.draining else "")
    )
    for bot in report.bots:
        where = f" at {bot.table}" if bot.table else ""
        typer.echo(
            f"  {bot.name:<20} {bot.state:<7} {bot.transport:<9} {','.join(bot.games)}{where}"
        )
    for table in report.tables:
        typer.echo(
            f"  table {table.table} {table.game}: {', '.join(table.bots)}"
            f"{_match_progress(table)} {table.label}".rstrip()
        )


def _match_progress(table: TableStatus) -> str:
    if table.match_games is None:
        return ", match not started" if not table.games_begun else ""
    return f", game {table.games_begun} of {table.match_games}"


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    from arena.bench.network import bench_network

    bench_app.command("network")(bench_network)
    app.command("serve")(serve)
    app.command("lobby", help=LOBBY_HELP)(lobby)
    app.add_typer(tokens_app, name="tokens")
