"""Peers that stop reading (docs/NETWORK.md, "Robustness"): a write to a peer waits a few seconds
at most (`SEND_TIMEOUT_S`), and no more than `MAX_BACKLOG_BYTES` may pile up for it; then its
connection is aborted and it counts as gone. So one bot's backlog never stalls its table, the
referee's seat connection, other bots, the hello timeout, or the server's shutdown.

The "deaf" peers here are hand-written websocket clients on a plain socket with a tiny receive
buffer, which never read after the handshake. Each first sends pings: the server's websocket
library answers every one with a pong, so the server's send buffer for the peer fills up without
any help from the code under test. Every test then waits until that buffer is over the library's
write limit (the state in which the server's next write to the peer has to wait) before it goes
on, so nothing depends on how fast the kernel or the machine is.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import pytest
from net_helpers import LOOPBACK, clients, free_port, raw_peer, running_server, scaled, wait_until
from websockets.asyncio.server import ServerConnection

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.server.app import ArenaServer
from arena.server.connection import Role
from arena.server.hub import Limits
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState
from arena.transports import websocket
from arena.transports.websocket import MAX_BACKLOG_BYTES
from bots.registry import make_bot

FULL = 64 * 1024
"""Unsent bytes for a peer above the library's write limit (32 KiB): writes to it must wait."""
PINGS_BYTES = 1 << 20
"""Pings a deaf peer sends to fill the server's send buffer: far over `FULL` once the kernel's
small buffers are full, far under `MAX_BACKLOG_BYTES`."""


def ws_frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (payloads under 64 KiB)."""
    mask = b"\x01\x02\x03\x04"
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = len(payload)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size)
    )
    return head + mask + masked


def text_frame(data: dict[str, Any]) -> bytes:
    return ws_frame(1, json.dumps(data).encode())


class DeafPeer:
    """A websocket client that never reads a byte after the handshake."""

    def __init__(self, port: int) -> None:
        self.sock = socket.socket()
        # Set before connecting, so the window the server sees is small from the start.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(scaled(30))
        self.sock.connect((LOOPBACK, port))
        self.sock.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)  # byte by byte: not one byte past the handshake
            assert chunk, "the server closed the connection during the handshake"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, data: bytes) -> bool:
        """False once the server has dropped the connection."""
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        return True

    def ping_flood(self, total: int) -> bool:
        batch = ws_frame(9, b"p" * 125) * 1000
        sent = 0
        while sent < total:
            if not self.send(batch):
                return False
            sent += len(batch)
        return True

    def close(self) -> None:
        self.sock.close()


@asynccontextmanager
async def deaf_peer(server: ArenaServer) -> AsyncIterator[DeafPeer]:
    peer = await asyncio.to_thread(DeafPeer, server.port)
    try:
        yield peer
    finally:
        peer.close()


def server_side(server: ArenaServer, *, bot: str | None = None, role: Role | None = None) -> Any:
    """The server's connection object for the bot named ``bot`` (or the one in ``role``)."""
    for conn in server.hub.connections:
        named = conn.session is not None and conn.session.name == bot
        if named or (role is not None and conn.role is role):
            return conn
    return None


def unsent(conn: Any) -> int:
    connection: ServerConnection = conn.link.connection
    transport = connection.transport
    return 0 if transport.is_closing() else transport.get_write_buffer_size()


async def deafen(server: ArenaServer, peer: DeafPeer, **which: Any) -> Any:
    """Fill the server's send buffer for ``peer`` (see the module docstring); its connection."""
    await wait_until(lambda: server_side(server, **which) is not None, "the deaf peer's connection")
    conn = server_side(server, **which)
    # The kernel's buffer for the server's socket would otherwise grow to megabytes on loopback
    # before anything is left waiting in the server itself.
    sock = conn.link.connection.transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    assert await asyncio.to_thread(peer.ping_flood, PINGS_BYTES)
    await wait_until(lambda: unsent(conn) > FULL, "the server's send buffer for the deaf peer")
    return conn


def liars_dice_hello(name: str) -> dict[str, Any]:
    return {"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]}


async def test_a_bot_that_stops_reading_is_dropped_and_its_table_plays_on() -> None:
    """Audit r13: the server's first write to a deaf seated bot used to wait for ever, so the
    server stopped reading that seat's connection from the referee, whose keep-alive failed:
    the match was lost for every bot at the table. Now the bot is dropped (absent) after
    `SEND_TIMEOUT_S` and the referee plays its fallbacks to the end of the match."""
    recorder = MemoryRecorder()
    alice = make_bot("liars_dice", "random-guess", {"seed": "a"}, name="alice")
    # The deaf bot never comes back: no reconnect grace to wait out.
    async with running_server(reconnect_grace_s=0) as server:
        url = f"ws://{LOOPBACK}:{server.port}"
        async with clients(url, "liars_dice", {"alice": alice}), deaf_peer(server) as deaf:
            assert await asyncio.to_thread(deaf.send, text_frame(liars_dice_hello("deaf")))
            await deafen(server, deaf, bot="deaf")
            async with (
                asyncio.timeout(scaled(120)),
                remote_seats(url, ["alice", "deaf"], game="liars_dice") as seats,
            ):
                played = [
                    await play_game(
                        "liars_dice",
                        list(seats),
                        rules={},
                        seed=MatchSeed.from_text("deaf"),
                        deal={"game_index": index, "first": index % 2},
                        players=["alice", "deaf"],
                        match_id="deaf",
                        game_id=f"g{index}",
                        deadline_ms=round(scaled(30) * 1000),
                        recorder=recorder,
                        reveal=False,
                    )
                    for index in range(3)
                ]
                assert server.hub.lobby.sessions["deaf"].state is SessionState.ABSENT
    assert [game.penalties[0] for game in played] == [0, 0, 0], "alice was never penalised"
    assert all(game.penalties[1] > 0 for game in played), "the deaf bot's fallbacks played"
    failures = {line["code"] for line in recorder.lines if line["type"] == "failure"}
    assert failures == {"late"}


async def test_pings_from_a_peer_that_never_reads_cannot_grow_the_server_without_bound() -> None:
    """Audit r04: the library answers each ping with a pong; 200 MB of pings from a peer that
    read nothing grew the server by 193 MB. Past `MAX_BACKLOG_BYTES` unsent, the connection is
    aborted (no keep-alive here: only the cap can close it)."""
    async with running_server(ping_interval_s=None) as server, deaf_peer(server) as deaf:
        assert await asyncio.to_thread(deaf.send, text_frame(liars_dice_hello("pinger")))
        await wait_until(lambda: server_side(server, bot="pinger") is not None, "the welcome")
        connection = server_side(server, bot="pinger").link.connection
        await asyncio.to_thread(deaf.ping_flood, 3 * MAX_BACKLOG_BYTES)
        await wait_until(lambda: not server.hub.connections, "the connection to be dropped")
    assert "unread by the peer" in (connection.dropped_because or "")


async def test_the_hello_timeout_closes_a_peer_that_does_not_read() -> None:
    """Audit r04 --no-hello: the hello timeout's error waited for ever on a peer that did not
    read, and the connection stayed open. The write now gives up and the connection closes."""
    limits = Limits(hello_timeout_s=scaled(1))
    async with (
        running_server(limits=limits, ping_interval_s=None) as server,
        deaf_peer(server) as deaf,
    ):
        await deafen(server, deaf, role=Role.NEW)
        await wait_until(lambda: not server.hub.connections, "the hello timeout to close it")


async def test_a_stopping_server_does_not_wait_for_ever_on_a_bot_that_does_not_read() -> None:
    """Audit r04: the bye of a shutdown waited for ever on a deaf bot, and SIGTERM (`stop`)
    never finished. The bye is given up on after `SEND_TIMEOUT_S`."""
    async with running_server(ping_interval_s=None) as server, deaf_peer(server) as deaf:
        assert await asyncio.to_thread(deaf.send, text_frame(liars_dice_hello("deaf")))
        connection = (await deafen(server, deaf, bot="deaf")).link.connection
        async with asyncio.timeout(scaled(60)):
            await server.stop()
        assert "read nothing" in (connection.dropped_because or "")


async def test_a_forced_close_aborts_a_deaf_peer_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second signal (`close_all` with a limit) closes everything at once: a peer that does not
    read is aborted when the limit is up, however long a write to it may otherwise wait. The
    others still get their bye."""
    monkeypatch.setattr(websocket, "SEND_TIMEOUT_S", scaled(3600))
    async with running_server(ping_interval_s=None) as server:
        url = f"ws://{LOOPBACK}:{server.port}"
        async with deaf_peer(server) as deaf, raw_peer(url) as polite:
            await polite.send(liars_dice_hello("polite"))
            assert (await polite.recv())["type"] == "welcome"
            assert await asyncio.to_thread(deaf.send, text_frame(liars_dice_hello("deaf")))
            await deafen(server, deaf, bot="deaf")
            async with asyncio.timeout(scaled(30)):
                await server.hub.close_all("the server is shutting down now", limit_s=scaled(2))
            assert not server.hub.connections
            bye = await polite.recv_until("bye")
            assert bye["reason"] == "the server is shutting down now"


# -- MQTT: one bot's stuck frame must not hold up the others' --------------------------------


def up(name: str, conn: str) -> str:
    return f"arena/v1/bots/{name}/{conn}/up"


def down(name: str, conn: str) -> str:
    return f"arena/v1/bots/{name}/{conn}/down"


async def next_json(mqtt: aiomqtt.Client, seconds: float) -> dict[str, Any]:
    async with asyncio.timeout(scaled(seconds)):
        async for message in mqtt.messages:
            assert isinstance(message.payload, bytes)
            value: dict[str, Any] = json.loads(message.payload)
            return value
    raise AssertionError("no message")


@asynccontextmanager
async def mqtt_bot(port: int, name: str, conn: str) -> AsyncIterator[aiomqtt.Client]:
    """A hand-driven MQTT bot, welcomed."""
    async with aiomqtt.Client(LOOPBACK, port, identifier=f"{name}-{conn}") as mqtt:
        await mqtt.subscribe(down(name, conn), qos=1)
        await mqtt.publish(up(name, conn), json.dumps(liars_dice_hello(name)), qos=1)
        assert (await next_json(mqtt, 20))["type"] == "welcome"
        yield mqtt


async def test_one_mqtt_bots_stuck_frame_does_not_hold_up_the_other_mqtt_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's one MQTT client used to handle every bot's messages in one loop: while the
    action of one bot waited on its write to a referee that does not read, no other MQTT bot was
    heard (not even a hello). Each bot connection now has its own worker. The write is made to
    wait as long as the test runs, so only that independence can let the hello through."""
    monkeypatch.setattr(websocket, "SEND_TIMEOUT_S", scaled(3600))
    broker = free_port()
    async with running_server(mqtt=f"mqtt://{LOOPBACK}:{broker}", ping_interval_s=None) as server:
        url = f"ws://{LOOPBACK}:{server.port}"
        async with (
            mqtt_bot(broker, "stuck", "c1") as stuck,
            raw_peer(url) as other,
            raw_peer(url) as admin,
        ):
            await other.send(liars_dice_hello("other"))
            assert (await other.recv())["type"] == "welcome"
            await admin.send({"v": 1, "type": "admin_hello", "name": "admin"})
            assert (await admin.recv())["type"] == "admin_welcome"
            await admin.send({"v": 1, "type": "open_table", "game": "liars_dice",
                              "bots": ["stuck", "other"]})  # fmt: skip
            opened = await admin.recv()
            assert opened["type"] == "table_opened", opened
            key = opened["seats"][0]["key"]
            # A referee for the MQTT bot's slot that never reads what the server sends it.
            async with deaf_peer(server) as referee:
                attach = {"v": 1, "type": "attach", "table": opened["table"], "slot": 0, "key": key}
                assert await asyncio.to_thread(referee.send, text_frame(attach))
                await deafen(server, referee, role=Role.SEAT)
                request = {"v": 1, "type": "request", "match": "m", "game": "g0", "seat": 0,
                           "seq": 1, "deadline_ms": 60000, "legal": ["challenge"]}  # fmt: skip
                assert await asyncio.to_thread(referee.send, text_frame(request))
                asked = await next_json(stuck, 20)
                assert asked["type"] == "request"
                session = server.hub.lobby.sessions["stuck"]
                answer = {"v": 1, "type": "action", "seq": 1, "action": "challenge"}
                await stuck.publish(up("stuck", "c1"), json.dumps(answer), qos=1)
                # The answer was taken (no request pends) and is on its way to the referee,
                # whose connection cannot take it.
                await wait_until(lambda: session._pending is None, "the answer to be taken")
                async with mqtt_bot(broker, "late", "c2"):
                    pass  # welcomed: the bridge heard it
                assert session.state is SessionState.SEATED
