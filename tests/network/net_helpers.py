"""Shared pieces of the network tests: a server on a free loopback port, in-process bot clients,
a raw websocket peer, a Mosquitto broker, and bounded waiting.

Nothing here asserts on time. Every wait is bounded only so that a broken build fails instead of
hanging, and every bound scales with ARENA_TEST_TIMEOUT_SCALE (4 = four times as long).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from websockets.asyncio.client import ClientConnection, connect

from arena.dealing import MatchSeed
from arena.leagues.config import LeagueConfig
from arena.leagues.runner import run_league
from arena.matches.frame import MatchFrame
from arena.records import Recorder
from arena.referee import PlayedGame, play_game
from arena.server.app import ArenaServer, ServerConfig
from arena.server.hub import Limits
from arena.server.remote import RemoteTableError, server_status
from arena.store import ResultStore
from arena.transports.base import Seat
from bots.adapters import (
    AdapterClosed,
    ClientMessage,
    ServerAdapter,
    ServerMessage,
    adapter_for,
)
from bots.base import Bot
from bots.client import Backoff, BotClient
from protocol.messages import FEATURES

SCALE = float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
LOOPBACK = "127.0.0.1"
REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def scaled(seconds: float) -> float:
    return seconds * SCALE


def handshake_failures(logs: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The listener's ``handshake_failed`` lines among the structured logs."""
    return [entry for entry in logs() if entry.get("event") == "handshake_failed"]


async def raw_exchange(port: int, data: bytes) -> bytes:
    """Send ``data`` on a plain TCP connection to ``port``; what comes back until the server
    closes (a reset, the server aborting the connection, ends it too)."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(scaled(10)):
            return await reader.read()
    except ConnectionResetError:
        return b""
    finally:
        writer.close()


async def wait_until(
    predicate: Callable[[], bool | Awaitable[bool]], what: str, seconds: float = 20.0
) -> None:
    """Poll ``predicate`` until true; fail (naming ``what``) after a scaled bound."""
    deadline = time.monotonic() + scaled(seconds)
    while True:
        outcome = predicate()
        if not isinstance(outcome, bool):
            outcome = await outcome
        if outcome:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
    return port


@asynccontextmanager
async def running_server(
    *, reconnect_grace_s: float | None = None, **options: Any
) -> AsyncIterator[ArenaServer]:
    """An `ArenaServer` on a free loopback port (``options`` go to `ServerConfig`);
    ``reconnect_grace_s`` replaces that of its limits (0: a dropped bot is answered for at
    once, for tests of what follows a drop that need not wait out the default grace)."""
    limits = options.setdefault("limits", Limits(hello_timeout_s=scaled(10)))
    if reconnect_grace_s is not None:
        options["limits"] = dataclasses.replace(limits, reconnect_grace_s=reconnect_grace_s)
    server = ArenaServer(ServerConfig(host=LOOPBACK, port=0, **options))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@asynccontextmanager
async def embedded_server(**options: Any) -> AsyncIterator[tuple[ArenaServer, int]]:
    """A server that starts its own MQTT broker (none answers at the free port it is given),
    and that port; ``options`` go to `running_server`."""
    port = free_port()
    async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}", **options) as server:
        assert server.broker is not None, "no broker should answer on a fresh port"
        yield server, port


def ws_url(server: ArenaServer) -> str:
    return f"ws://{LOOPBACK}:{server.port}"


@asynccontextmanager
async def clients(
    url: str, game: str, bots: Mapping[str, Bot], *, token: Mapping[str, str] | None = None
) -> AsyncIterator[dict[str, BotClient]]:
    """One in-process `BotClient` per bot (keyed by its server name), welcomed before yield."""
    made = {
        name: BotClient(
            {game: bot},
            name=name,
            token=(token or {}).get(name),
            adapter_factory=functools.partial(adapter_for, url, name),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        for name, bot in bots.items()
    }
    tasks = [asyncio.create_task(client.run()) for client in made.values()]
    try:
        for name, client in made.items():
            await wait_until(client.welcomed.is_set, f"welcome of {name}")
        yield made
    finally:
        for client in made.values():
            await client.stop()
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class RawPeer:
    """A hand-driven websocket peer: send any text, read frames as JSON."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection

    async def send(self, data: str | Mapping[str, Any]) -> None:
        await self.connection.send(data if isinstance(data, str) else json.dumps(data))

    async def recv(self, seconds: float = 10.0) -> dict[str, Any]:
        async with asyncio.timeout(scaled(seconds)):
            frame = await self.connection.recv()
        value = json.loads(frame)
        assert isinstance(value, dict)
        return value

    async def recv_until(self, wanted: str, seconds: float = 10.0) -> dict[str, Any]:
        while True:
            message = await self.recv(seconds)
            if message["type"] == wanted:
                return message

    async def closed(self, seconds: float = 10.0) -> bool:
        """True once the server has closed the connection (frames before that are dropped)."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(scaled(seconds)):
                async for _frame in self.connection:
                    pass
        return self.connection.close_code is not None


@asynccontextmanager
async def raw_peer(url: str) -> AsyncIterator[RawPeer]:
    async with connect(url, compression=None, max_size=None) as connection:
        yield RawPeer(connection)


@asynccontextmanager
async def raw_dice_pair(
    referee: str, *, alice_features: Sequence[str] | None = None
) -> AsyncIterator[tuple[RawPeer, RawPeer, Sequence[Seat]]]:
    """Alice and Bob, raw peers welcomed for liar's dice on a fresh server, and their seats for
    a referee: ``remote`` (a table through the server, as `arena match --server` plays) or
    ``in-server`` (the server's own seats). Alice asks for ``alice_features`` if given."""
    from arena.server.remote import remote_seats

    async with running_server() as server:
        url = ws_url(server)
        async with raw_peer(url) as alice, raw_peer(url) as bob:
            for peer, name in ((alice, "alice"), (bob, "bob")):
                hello: dict[str, Any] = {"type": "hello", "name": name, "games": ["liars_dice"]}
                if peer is alice and alice_features is not None:
                    hello["features"] = list(alice_features)
                await peer.send(hello)
                assert (await peer.recv())["type"] == "welcome"
            seats_of = (
                remote_seats(url, ["alice", "bob"], game="liars_dice")
                if referee == "remote"
                else server.hub.local_seats(["alice", "bob"], "liars_dice")
            )
            async with seats_of as seats:
                yield alice, bob, seats


FAR_DEADLINE_S = 600.0
"""Far beyond any wait of the tests: a re-ask that comes at all did not wait for it."""


def pick(request: dict[str, Any]) -> str:
    """The first legal action that is not a challenge, so the game lasts a while."""
    legal: list[str] = request["legal"]
    return next((action for action in legal if action != "challenge"), legal[0])


def good_answer(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "v": 1,
        "type": "action",
        "match": request["match"],
        "game": request["game"],
        "seat": request["seat"],
        "seq": request["seq"],
        "action": pick(request),
    }


async def play_along(peer: RawPeer) -> None:
    """Answer every request well until the game ends."""
    while True:
        message = await peer.recv(scaled(30))
        if message["type"] == "event" and message["payload"]["kind"] == "game_end":
            return
        if message["type"] == "request":
            await peer.send(good_answer(message))


async def duel(seats: Sequence[Seat]) -> PlayedGame:
    """A liar's dice game between the seats of `raw_dice_pair`, with a deadline no test waits
    out."""
    return await play_game(
        "liars_dice",
        list(seats),
        rules={},
        seed=MatchSeed.from_text("answers"),
        deal={"game_index": 0, "first": 0},
        players=["alice", "bob"],
        match_id="ld-test",
        game_id="g0",
        deadline_ms=round(FAR_DEADLINE_S * 1000),
    )


class ScriptedAdapter(ServerAdapter):
    """One connection's server side, said from ``script`` in order, for a `BotClient` with no
    server; ``sent`` keeps what the client says. An empty script is a connection the server
    has closed."""

    def __init__(self, script: list[ServerMessage], sent: list[ClientMessage]) -> None:
        self.script = list(script)
        self.sent = sent

    async def connect(self) -> None:
        return None

    async def send(self, message: ClientMessage) -> None:
        self.sent.append(message)

    async def receive(self) -> ServerMessage:
        await asyncio.sleep(0)
        if not self.script:
            raise AdapterClosed("the server closed the connection")
        return self.script.pop(0)

    async def close(self) -> None:
        return None


class QuietLink:
    """A `Link` that takes every message and drops it: a hub connection without a peer."""

    transport = "test"
    peer = "test"

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        return True

    async def close(self, reason: str) -> None:
        pass

    def abort(self) -> None:
        pass


class KeptLink:
    """A `Link` that keeps every frame the server sends it, read back as JSON objects."""

    def __init__(self, transport: str = "websocket") -> None:
        self.transport = transport
        self.peer = f"test:{transport}"
        self.frames: list[dict[str, Any]] = []
        self.closed = False

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        if self.closed:
            return False
        value = json.loads(text)
        assert isinstance(value, dict)
        self.frames.append(value)
        return True

    async def close(self, reason: str) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def types(self) -> list[str]:
        return [str(frame["type"]) for frame in self.frames]

    def last(self, kind: str) -> dict[str, Any]:
        return next(frame for frame in reversed(self.frames) if frame["type"] == kind)


# -- Mosquitto -------------------------------------------------------------------------------


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()),
        None,
    )


def require_mosquitto() -> str:
    """The mosquitto binary; skips when it is absent, except under CI=true, where the MQTT tests
    must run."""
    binary = mosquitto_binary()
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but the mosquitto binary is missing (apt-get install mosquitto)")
        pytest.skip("mosquitto is not installed (apt-get install mosquitto); CI always runs this")
    return binary


@contextlib.contextmanager
def mosquitto_process(
    folder: Path, config: str = "allow_anonymous true\n"
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """Mosquitto on a free loopback port: our listener, then ``config``, then quiet defaults,
    written in ``folder``; yields (port, process) once it accepts connections, and stops it (if
    the test has not) at the end."""
    binary = require_mosquitto()
    port = free_port()
    conf = folder / "mosquitto.conf"
    # Started as root, Mosquitto would become user "mosquitto", who may not read the files the
    # test made; for any other user the option does nothing.
    owner = "user root\n" if os.geteuid() == 0 else ""
    conf.write_text(
        f"listener {port} {LOOPBACK}\n"
        + config
        + f"\n{owner}persistence false\nset_tcp_nodelay true\n"
        "log_dest stderr\nlog_type error\nlog_type warning\n",
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + scaled(10)
        while True:
            with socket.socket() as probe:
                if probe.connect_ex((LOOPBACK, port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                _out, err = process.communicate(timeout=scaled(5))
                pytest.fail(f"mosquitto did not start: {err.decode(errors='replace')}")
            time.sleep(0.02)
        yield port, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=scaled(5))
            except subprocess.TimeoutExpired:
                process.kill()
        process.wait()


@contextlib.contextmanager
def mosquitto(tmp: Path) -> Iterator[int]:
    """A Mosquitto broker on a free loopback port, anyone let in; yields the port."""
    with mosquitto_process(tmp) as (port, _process):
        yield port


async def next_json(client: aiomqtt.Client, seconds: float = 10.0) -> dict[str, Any] | None:
    """The next MQTT message ``client`` receives, as a JSON object; None after ``seconds``."""
    try:
        async with asyncio.timeout(scaled(seconds)):
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                value = json.loads(message.payload)
                assert isinstance(value, dict)
                return value
    except TimeoutError:
        return None
    return None


def subprocess_env() -> dict[str, str]:
    """Environment for child processes: the repo importable, quiet logs."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


ARENA = str(Path(PYTHON).with_name("arena"))


def arena_command(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``arena`` command with ``args``, whatever its exit code, and capture its output."""
    return subprocess.run(
        [ARENA, *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=scaled(60),
    )


async def run_arena(*args: str) -> dict[str, Any]:
    """Run the ``arena`` command (it must succeed) and return the JSON object it prints."""
    process = await asyncio.create_subprocess_exec(
        ARENA,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=scaled(120))
    assert process.returncode == 0, err.decode()
    data: dict[str, Any] = json.loads(out)
    return data


def without_names(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A match's `players` figures without the bots' names (which differ by transport)."""
    return [{k: v for k, v in p.items() if k != "bot"} for p in players]


DUEL = {"mode": "duel", "digits": 3, "alphabet": "123456789", "max_guesses": 20}
"""The 1A2B duel the network tests play between "alice" and "bob"."""


async def play_duel_game(
    seats: Sequence[Seat],
    seed: str,
    game_index: int = 0,
    *,
    deadline_s: float = 10.0,
    recorder: Recorder | None = None,
) -> PlayedGame:
    """Game ``game_index`` (id ``g<index>``) of the 1A2B duel through the referee."""
    return await play_game(
        "bulls_cows",
        seats,
        rules=DUEL,
        seed=MatchSeed.from_text(seed),
        deal={"game_index": game_index},
        players=["alice", "bob"],
        game_id=f"g{game_index}",
        deadline_ms=round(scaled(deadline_s * 1000)),
        recorder=recorder,
        reveal=True,  # a lone game: its record ends with the seed, so verify can replay it
    )


async def signal_twice(process: Any, url: str, number: int) -> None:
    """Send the server ``process`` (at ``url``) the stop signal ``number``, wait until it drains,
    and send it again: two signals sent at once may arrive as one."""
    process.send_signal(number)

    async def draining() -> bool:
        return (await server_status(url)).draining

    await wait_until(draining, "the server to drain")
    process.send_signal(number)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@asynccontextmanager
async def server_process(
    port: int, *more: str, ignoring_sigint: bool = False
) -> AsyncIterator[Any]:
    """``arena serve`` on ``port`` in a child process (``more``: further options), once it
    answers; killed on exit if it has not stopped by then. ``ignoring_sigint``: started with
    SIGINT ignored, as a shell starts a script's background job."""
    process = await asyncio.create_subprocess_exec(
        ARENA,
        "serve",
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--log-level",
        "warning",
        *more,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=subprocess_env(),
        preexec_fn=_ignore_sigint if ignoring_sigint else None,
    )
    try:

        async def answering() -> bool:
            try:
                await server_status(f"ws://{LOOPBACK}:{port}")
            except RemoteTableError:
                return False
            return True

        await wait_until(answering, "the server to listen", seconds=30)
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def dice_bot_clients(url: str, prefix: str, count: int) -> list[BotClient]:
    """``count`` random-guess liar's dice bots named ``<prefix>0`` … on the MQTT server at
    ``url``, reconnecting quickly."""
    from bots.registry import make_bot

    return [
        BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name=f"{prefix}{i}",
            adapter_factory=functools.partial(adapter_for, url, f"{prefix}{i}"),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        for i in range(count)
    ]


async def byes_when_signalled(
    url: str, clients: list[BotClient], signal_number: int, *, idle_s: float, within_s: float
) -> list[str]:
    """Run ``clients`` against an ``arena serve --mqtt URL`` child process, let them idle
    ``idle_s`` after their welcomes, send the server ``signal_number``, and return the reason
    each client's run ended with (its bye's). A client that missed its bye would reconnect for
    ever: the wait fails after ``within_s``."""
    async with server_process(free_port(), "--mqtt", url) as process:
        runners = [asyncio.create_task(client.run()) for client in clients]
        try:
            for client in clients:
                await wait_until(client.welcomed.is_set, f"the welcome of {client.name}")
            await asyncio.sleep(scaled(idle_s))
            process.send_signal(signal_number)
            async with asyncio.timeout(scaled(within_s)):
                reasons = await asyncio.gather(*runners)
                assert await process.wait() == 0
        finally:
            for runner in runners:
                runner.cancel()
    return list(reasons)


def play_and_read(config: LeagueConfig, db: Path) -> tuple[Exception | None, set[str]]:
    """Run the league (in a thread: it runs its own event loop); its error and stored keys."""
    with ResultStore(db) as store:
        error: Exception | None = None
        try:
            run_league(config, store)
        except Exception as exc:
            error = exc
        stored = store.league(config.name, config.fingerprint())
        assert stored is not None
        return error, {m.plan.key for m in store.matches(stored)}


async def bots_run_copies(
    url: str, name: str, *more: str, env: Mapping[str, str] | None = None
) -> asyncio.subprocess.Process:
    """``bots run greedy --game mahjong --name NAME --copies 2`` on ``url`` in a child process
    (``more``: further options), its stderr piped for the refusal it prints."""
    return await asyncio.create_subprocess_exec(
        str(Path(PYTHON).with_name("bots")),
        "run",
        "greedy",
        "--game",
        "mahjong",
        "--name",
        name,
        "--copies",
        "2",
        "--url",
        url,
        "--log-level",
        "warning",
        *more,
        stdout=subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**subprocess_env(), **(env or {})},
    )


class MqttBot:
    """A hand-driven MQTT bot on one topic pair, client id ``<name>-<conn>``, with no will."""

    def __init__(self, client: aiomqtt.Client, name: str, conn: str) -> None:
        self.client = client
        self.name = name
        self.conn = conn
        self.up = f"arena/v1/bots/{name}/{conn}/up"

    async def send(self, data: dict[str, Any]) -> None:
        await self.client.publish(self.up, json.dumps(data), qos=1)

    async def recv(self, seconds: float = 10.0) -> dict[str, Any]:
        async with asyncio.timeout(scaled(seconds)):
            async for message in self.client.messages:
                payload = message.payload
                assert isinstance(payload, bytes)
                value = json.loads(payload)
                assert isinstance(value, dict)
                return value
        raise AssertionError("the broker connection ended")

    async def hello(self, token: str | None = None) -> dict[str, Any]:
        """Say hello; the server's reply."""
        said: dict[str, Any] = {
            "v": 1,
            "type": "hello",
            "name": self.name,
            "games": ["liars_dice"],
            "features": list(FEATURES),
        }
        if token is not None:
            said["token"] = token
        await self.send(said)
        return await self.recv()


@asynccontextmanager
async def mqtt_bot(
    port: int, name: str, conn: str, *, client_id: str | None = None
) -> AsyncIterator[MqttBot]:
    """Connected and subscribed (client id ``<name>-<conn>``, what the embedded broker asks,
    unless ``client_id``); leaves with a clean DISCONNECT (and no bye) at the end."""
    identifier = client_id if client_id is not None else f"{name}-{conn}"
    async with aiomqtt.Client(LOOPBACK, port, identifier=identifier) as client:
        await client.subscribe(f"arena/v1/bots/{name}/{conn}/down", qos=1)
        yield MqttBot(client, name, conn)


TABLE_BOTS = ("alice", "bob")
"""The two bots `open_table` seats."""


@asynccontextmanager
async def open_table(
    server: ArenaServer,
) -> AsyncIterator[tuple[RawPeer, Mapping[str, RawPeer], dict[str, Any]]]:
    """Alice and Bob welcomed for liar's dice, and a raw admin that opened a table for them:
    yields the admin, the bots by name, and the admin's ``table_opened``."""
    url = ws_url(server)
    async with contextlib.AsyncExitStack() as stack:
        bots = {name: await stack.enter_async_context(raw_peer(url)) for name in TABLE_BOTS}
        for name, peer in bots.items():
            await peer.send({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]})
            assert (await peer.recv())["type"] == "welcome"
        admin = await stack.enter_async_context(raw_peer(url))
        await admin.send({"v": 1, "type": "admin_hello", "name": "admin"})
        assert (await admin.recv())["type"] == "admin_welcome"
        await admin.send(
            {"v": 1, "type": "open_table", "game": "liars_dice", "bots": list(TABLE_BOTS)}
        )
        opened = await admin.recv()
        assert opened["type"] == "table_opened", opened
        yield admin, bots, opened


async def attach(peer: RawPeer, opened: dict[str, Any], slot: int, key: str) -> dict[str, Any]:
    await peer.send({"v": 1, "type": "attach", "table": opened["table"], "slot": slot, "key": key})
    return await peer.recv()


async def dice_match(
    seats: Sequence[Seat], names: Sequence[str], seed_text: str, games: int, match_id: str = "m"
) -> None:
    """A liar's dice match of ``games`` games framed as a match is (``match_start`` first,
    ``match_end`` after the last game), seat 0 opening every game; games ``g0``, ``g1``, …"""
    seed = MatchSeed.from_text(seed_text)
    frame = MatchFrame("liars_dice", seed, list(seats), list(names), games=games, match_id=match_id)
    await frame.start()
    for index in range(games):
        played = await play_game(
            "liars_dice",
            list(seats),
            rules={},
            seed=seed,
            deal={"game_index": index, "first": 0},
            players=list(names),
            match_id=match_id,
            game_id=f"g{index}",
            deadline_ms=round(scaled(60_000)),
            reveal=False,
        )
        frame.tally(list(names), played.result.scores)
    await frame.finish()
