"""Mutation gaps of `bots/adapters.py`: what the shipped adapters promise (the module docstring,
docs/NETWORK.md "The adapter seam" and "MQTT"), checked against bare peers.

`AdapterClosed` means a link that is gone or could not be opened (the client retries it), so
every way a websocket connect can fail for now — no answer, an answer that is not a websocket
handshake, a refused TCP connect — is that, and says so without the URL's password.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, ClassVar

import pytest
from net_helpers import LOOPBACK, free_port, scaled
from websockets.asyncio.server import ServerConnection, serve

from bots import adapters
from bots.adapters import AdapterClosed, MqttAdapter, WebSocketAdapter
from protocol.codec import encode, parse_message
from protocol.messages import Action, Bye, Welcome
from protocol.mqtt import down_topic, up_topic


def bound(seconds: float = 10.0) -> asyncio.Timeout:
    """A generous limit for something that happens at once unless the adapter is broken."""
    return asyncio.timeout(scaled(seconds))


@asynccontextmanager
async def tcp_server(
    handle: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> AsyncIterator[int]:
    """A plain TCP server on a loopback port (yielded), serving each connection with ``handle``."""
    server = await asyncio.start_server(handle, LOOPBACK, 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


async def test_a_server_that_never_answers_the_handshake_is_a_link_that_could_not_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(adapters, "CONNECT_TIMEOUT_S", 0.2)
    silent = asyncio.Event()

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await silent.wait()
        writer.close()

    async with tcp_server(never_answer) as port:
        try:
            with pytest.raises(AdapterClosed):
                async with bound():
                    await WebSocketAdapter(f"ws://{LOOPBACK}:{port}").connect()
        finally:
            silent.set()


async def test_a_server_that_is_no_websocket_server_is_a_link_that_could_not_open() -> None:
    async def not_found(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    async with tcp_server(not_found) as port:
        with pytest.raises(AdapterClosed):
            async with bound():
                await WebSocketAdapter(f"ws://{LOOPBACK}:{port}").connect()


async def test_a_refused_connect_says_where_without_the_password() -> None:
    adapter = WebSocketAdapter(f"ws://user:s3cret@{LOOPBACK}:{free_port()}")
    with pytest.raises(AdapterClosed) as closed:
        async with bound():
            await adapter.connect()
    assert f"cannot connect to ws://user:***@{LOOPBACK}:" in str(closed.value)
    assert "s3cret" not in str(closed.value)


@asynccontextmanager
async def websocket_server(
    script: Callable[[ServerConnection], Awaitable[None]],
) -> AsyncIterator[WebSocketAdapter]:
    """A `WebSocketAdapter` connected to a websocket server that plays ``script``."""
    async with serve(script, LOOPBACK, 0, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        adapter = WebSocketAdapter(f"ws://{LOOPBACK}:{port}")
        async with bound():
            await adapter.connect()
        try:
            yield adapter
        finally:
            await adapter.close()


WELCOME = Welcome(name="alice", session="s1", resume_token="r1")


async def test_a_frame_that_is_no_message_is_skipped_for_the_next_one() -> None:
    async def garbage_then_welcome(connection: ServerConnection) -> None:
        await connection.send("not json")
        await connection.send('{"v": 1, "type": "welcome"}')  # a welcome without its fields
        await connection.send(encode(WELCOME))
        await connection.wait_closed()

    async with websocket_server(garbage_then_welcome) as adapter, bound():
        assert await adapter.receive() == WELCOME


async def test_sending_on_a_connection_the_server_closed_is_a_closed_link() -> None:
    async def close_at_once(connection: ServerConnection) -> None:
        await connection.close()

    async with websocket_server(close_at_once) as adapter:
        with pytest.raises(AdapterClosed):
            async with bound():
                await adapter.receive()
        with pytest.raises(AdapterClosed):
            async with bound():
                await adapter.send(Action(seq=1, action="guess 123"))


async def test_an_mqtts_connect_that_fails_names_the_tls_scheme() -> None:
    adapter = MqttAdapter(LOOPBACK, free_port(), "alice", tls=True)
    with pytest.raises(AdapterClosed) as closed:
        async with bound():
            await adapter.connect()
    assert f"cannot connect to mqtts://{LOOPBACK}:" in str(closed.value)


class RecordingMqttClient:
    """Stands in for `aiomqtt.Client`: notes how the adapter set up its session and what it
    published, and grants every subscription."""

    made: ClassVar[list[RecordingMqttClient]] = []

    def __init__(self, hostname: str, port: int, **options: Any) -> None:
        self.options = options
        self.subscribed: list[tuple[str, int]] = []
        self.published: list[tuple[str, str, int, bool]] = []
        RecordingMqttClient.made.append(self)

    async def __aenter__(self) -> RecordingMqttClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None

    async def subscribe(self, topic: str, qos: int = 0) -> list[int]:
        self.subscribed.append((topic, qos))
        return [qos]

    async def publish(
        self, topic: str, payload: str | bytes, qos: int = 0, retain: bool = False
    ) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        self.published.append((topic, text, qos, retain))


async def test_an_mqtt_bot_leaves_a_bye_will_and_speaks_qos_1_on_its_own_topics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NETWORK.md, MQTT: QoS 1 both ways, nothing retained, a will that is a ``bye`` on the
    bot's up topic, and TCP_NODELAY on our clients' sockets."""
    monkeypatch.setattr(RecordingMqttClient, "made", [])
    monkeypatch.setattr(adapters.aiomqtt, "Client", RecordingMqttClient)
    adapter = MqttAdapter(LOOPBACK, 1883, "alice")
    await adapter.connect()
    await adapter.send(Action(seq=1, action="guess 123"))
    await adapter.close()
    (client,) = RecordingMqttClient.made
    up, down = up_topic("alice", adapter.conn), down_topic("alice", adapter.conn)
    assert client.options["identifier"] == f"alice-{adapter.conn}"
    will = client.options["will"]
    assert (will.topic, will.qos, will.retain) == (up, 1, False)
    assert isinstance(parse_message(will.payload), Bye)
    assert client.subscribed == [(down, 1)]
    assert client.published == [(up, encode(Action(seq=1, action="guess 123")), 1, False)]
    assert (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1) in client.options["socket_options"]


class UnluckyMqttClient(RecordingMqttClient):
    """Its session ends in the MQTT library's error (the broker went while we left)."""

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        raise adapters.aiomqtt.MqttError("the broker is gone")


async def test_closing_an_mqtt_link_whose_broker_is_gone_still_ends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`BotClient` closes its adapter after every drop, on its way to reconnecting: the close of
    a link that is already broken must not raise."""
    monkeypatch.setattr(RecordingMqttClient, "made", [])
    monkeypatch.setattr(adapters.aiomqtt, "Client", UnluckyMqttClient)
    adapter = MqttAdapter(LOOPBACK, 1883, "alice")
    await adapter.connect()
    await adapter.close()
    with pytest.raises(AdapterClosed):
        await adapter.send(Action(seq=1, action="guess 123"))


@pytest.mark.parametrize(
    "url", ["http://broker.example:8765", "tcp://broker.example:1883", "ws://:8765", "mqtt://"]
)
def test_a_url_no_adapter_can_reach_is_refused_at_once(url: str) -> None:
    """`adapter_for`: another scheme, or no host, is a `ValueError` (no reconnect could help)."""
    with pytest.raises(ValueError, match="expected ws://HOST:PORT"):
        adapters.adapter_for(url, "alice")
