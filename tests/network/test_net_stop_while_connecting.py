"""A bot stopped while it connects stops then, not after the connect timeout, and leaves no
connection open behind it: a server that accepts the connection and never answers (a hung
server, a port that is not the arena's) must not hold a stopped `bots run` for 10 s."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Any

import paho.mqtt.client as paho_client
import pytest

from bots import adapters
from bots.adapters import (
    AdapterClosed,
    ClientMessage,
    ServerAdapter,
    ServerMessage,
    adapter_for,
)
from bots.client import BotClient
from bots.registry import make_bot


class SilentServer:
    """Accepts connections, reads whatever comes, never answers; notes each connection's end."""

    def __init__(self) -> None:
        self.accepted = asyncio.Event()
        self.closed = asyncio.Event()
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> SilentServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted.set()
        try:
            while await reader.read(4096):
                pass
        except ConnectionError:
            pass
        finally:
            self.closed.set()
            writer.close()


def client_of(url: str) -> BotClient:
    """A 1A2B bot for ``url`` whose adapters stay referenced (by the factory), so that no
    garbage collection closes a socket the client left open."""
    made: list[ServerAdapter] = []

    def connect() -> ServerAdapter:
        made.append(adapter_for(url, "b"))
        return made[-1]

    return BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=connect,
    )


@pytest.mark.parametrize("scheme", ["ws", "mqtt"])
async def test_a_stop_while_connecting_ends_the_client_at_once(
    scheme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Far longer than the test waits: a stop that waited for the connect would fail it.
    monkeypatch.setattr(adapters, "CONNECT_TIMEOUT_S", 600.0)
    async with SilentServer() as server:
        client = client_of(f"{scheme}://127.0.0.1:{server.port}")
        running = asyncio.ensure_future(client.run())
        await asyncio.wait_for(server.accepted.wait(), 30)
        await asyncio.sleep(0.2)  # well into the connect: the server has said nothing
        assert not running.done()
        await client.stop()
        assert await asyncio.wait_for(running, 30) == "stopped"
        # Nothing half-open is left: the server sees the connection end, and before the MQTT
        # client's keepalive (15 s) would have ended it.
        await asyncio.wait_for(server.closed.wait(), 10)
        assert client.welcomes == 0


class SlowToGiveUp(ServerAdapter):
    """A connect that never ends by itself and takes a while to clean up once cancelled, as
    an MQTT connect closing its half-made session does."""

    async def connect(self) -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)
            raise

    async def send(self, message: ClientMessage) -> None:
        raise AdapterClosed("not connected")

    async def receive(self) -> ServerMessage:
        raise AdapterClosed("not connected")

    async def close(self) -> None:
        return None


def silent_client() -> BotClient:
    return BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=SlowToGiveUp,
    )


async def test_cancelling_run_while_connecting_cancels_it() -> None:
    running = asyncio.ensure_future(silent_client().run())
    await asyncio.sleep(0.1)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_a_cancel_during_a_stop_in_progress_is_not_swallowed() -> None:
    """run() cancelled by its caller (a TaskGroup, a timeout) while a stop is abandoning the
    connect: the cancellation still ends it, as CancelledError, not as a clean "stopped"."""
    client = silent_client()
    running = asyncio.ensure_future(client.run())
    await asyncio.sleep(0.1)
    stopping = asyncio.ensure_future(client.stop())
    await asyncio.sleep(0.1)  # the connect is now cancelled and cleaning up
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    await stopping


async def test_an_mqtt_connect_that_lands_after_the_stop_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stopped while paho still opens its socket (in a thread, where no cancel reaches), the
    connect lands later and is then ended with DISCONNECT, not kept alive with pings."""
    received: list[int] = []
    disconnected = asyncio.Event()

    async def acknowledge(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while packet := await reader.read(4096):
                received.append(packet[0])
                if packet[0] == 0x10:  # CONNECT: accept it (CONNACK, session absent, 0)
                    writer.write(bytes([0x20, 2, 0, 0]))
                    await writer.drain()
                if packet[0] == 0xE0:  # DISCONNECT
                    disconnected.set()
        writer.close()

    slow_open = socket.create_connection

    def open_slowly(*args: Any, **kwargs: Any) -> socket.socket:
        time.sleep(1.0)  # a slow name lookup or SYN retry, in paho's connect thread
        return slow_open(*args, **kwargs)

    monkeypatch.setattr(paho_client.socket, "create_connection", open_slowly)
    server = await asyncio.start_server(acknowledge, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        client = client_of(f"mqtt://127.0.0.1:{port}")
        running = asyncio.ensure_future(client.run())
        await asyncio.sleep(0.3)  # paho's thread is still opening the socket
        await client.stop()
        assert await asyncio.wait_for(running, 30) == "stopped"
        await asyncio.wait_for(disconnected.wait(), 20)
        assert received[0] == 0x10
    finally:
        server.close()
