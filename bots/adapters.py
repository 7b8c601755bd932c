"""The adapter seam: how a bot client reaches a server, whatever protocol that server speaks.

`BotClient` (bots/client.py) only ever talks to a `ServerAdapter`: it sends `Hello`, `Action`
and `Bye`, and receives `Welcome`, `Event`, `Request`, `Error` and `Bye` — the arena protocol's
messages as Python values. An adapter carries them over some connection and, for a server with
another protocol, translates both ways. Two adapters ship, both for arena servers:

* `WebSocketAdapter` — ``ws://HOST:PORT``, one JSON message per text frame;
* `MqttAdapter` — ``mqtt://[USER:PASSWORD@]HOST:PORT`` (``mqtts://`` over TLS), the topic pair
  ``arena/v1/bots/<name>/<conn>/{up,down}`` with QoS 1, a ``bye`` as the connection's will and
  ``<name>-<conn>`` as its client id.

To reach another kind of server, subclass `ServerAdapter`: `connect` opens the link (raise
`AdapterClosed` when it cannot), `send` writes our message in the server's terms, `receive`
returns the next message translated into ours (raise `AdapterClosed` once the link is gone; a
server message with no arena meaning can simply be skipped), `close` ends the link. The client's
reconnect, resume, routing and logging then work unchanged. docs/NETWORK.md has a worked example.

Bots may not import the referee or its transports: the MQTT topic names, client ids and broker
refusals, and the URL helpers, are the wire's (`protocol.mqtt`, `protocol.urls`), which the
server reads too.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import ssl
from abc import ABC, abstractmethod
from contextlib import AsyncExitStack
from urllib.parse import unquote

import aiomqtt
import structlog
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol.codec import ProtocolError, decode, encode, load_object, read_message
from protocol.messages import (
    Action,
    Bye,
    Error,
    Event,
    Hello,
    Message,
    Ping,
    Request,
    Welcome,
)
from protocol.mqtt import (
    DEFAULT_PORT,
    DEFAULT_TLS_PORT,
    TOPIC_ROOT,
    bot_client_id,
    bot_filter,
    connack_refusal,
    down_topic,
    login_refused_message,
    subscription_refused,
    tls_failure,
    tls_failure_message,
    up_topic,
)
from protocol.urls import redact_url, split_url

log = structlog.get_logger(__name__)

ClientMessage = Hello | Action | Bye | Ping
ServerMessage = Welcome | Event | Request | Error | Bye

MQTT_TOPIC_ROOT = TOPIC_ROOT
"""`protocol.mqtt.TOPIC_ROOT`, under the name this module gave it before the wire held it."""
CONNECT_TIMEOUT_S = 10.0


class AdapterClosed(ConnectionError):
    """The link to the server is gone (or could not be opened); a reconnect may help."""


class AdapterRefused(Exception):
    """The link can never work as set up (the broker refused the login or the subscription, no
    server answers): retrying would not help. The message is one line for a command's
    ``error:``, and shows no password."""


class ServerAdapter(ABC):
    """One connection at a time to one server (see the module docstring)."""

    @abstractmethod
    async def connect(self) -> None: ...

    @abstractmethod
    async def send(self, message: ClientMessage) -> None: ...

    @abstractmethod
    async def receive(self) -> ServerMessage: ...

    @abstractmethod
    async def close(self) -> None: ...

    def no_welcome(self, seconds: float) -> str:
        """Why no ``welcome`` came within ``seconds`` of our ``hello``, as far as we can tell."""
        return f"no welcome from the server within {seconds:g} s"

    bye_gives_up_the_seat: bool = True
    """Whether the server reads our ``bye`` as "I leave now" (websockets: the session ends, no
    resume). Over MQTT a ``bye`` is also the connection's will, so there it counts as a drop."""

    wants_events: bool = True
    """False when no bot of the client listens to events: they may then be dropped unread
    (`BotClient` sets it; reading a mahjong event costs more than some bots' decisions)."""

    def decode(self, raw: str | bytes) -> ServerMessage | None:
        """Our protocol's frame as a message; None for one the client need not see (an unwanted
        event) or cannot use (logged). Read as strictly as the server reads ours (the codec's
        types and version rule), whatever its size: a server's frame has no limit but the
        transport's."""
        message: Message
        try:
            if self.wants_events:
                message = read_message(raw)
            else:
                # An unwanted event is dropped once its JSON is read, unvalidated: reading a
                # mahjong observation costs more than some bots' decisions.
                data = load_object(raw)
                if data.get("type") == "event":
                    return None
                message = decode(data)
        except ProtocolError as exc:
            log.warning("bad_frame_from_server", code=exc.code.value, text=exc.text)
            return None
        if isinstance(message, Welcome | Event | Request | Error | Bye):
            return message
        log.warning("unexpected_message_from_server", type=message.type)
        return None


class WebSocketAdapter(ServerAdapter):
    """The arena protocol over a websocket (``ws://HOST:PORT``)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._connection: ClientConnection | None = None

    def no_welcome(self, seconds: float) -> str:
        return f"no welcome from the server at {redact_url(self.url)} within {seconds:g} s"

    async def connect(self) -> None:
        try:
            self._connection = await connect(
                self.url, compression=None, open_timeout=CONNECT_TIMEOUT_S, close_timeout=2.0
            )
        except InvalidURI:
            # Its message quotes the URL whole, password and all.
            raise AdapterRefused(f"{redact_url(self.url)!r} is not a valid websocket URL") from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise AdapterClosed(f"cannot connect to {redact_url(self.url)}: {exc}") from None

    def _open(self) -> ClientConnection:
        if self._connection is None:
            raise AdapterClosed("not connected")
        return self._connection

    async def send(self, message: ClientMessage) -> None:
        try:
            await self._open().send(encode(message))
        except ConnectionClosed as exc:
            raise AdapterClosed(str(exc)) from None

    async def receive(self) -> ServerMessage:
        connection = self._open()
        while True:
            try:
                frame = await connection.recv()
            except ConnectionClosed as exc:
                raise AdapterClosed(str(exc)) from None
            message = self.decode(frame)
            if message is not None:
                return message

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
            self._connection = None


class MqttAdapter(ServerAdapter):
    """The arena protocol over MQTT (``mqtt://HOST:PORT``): see the module docstring. With
    ``username`` it logs in to the broker; with ``tls`` it speaks TLS, checking the broker's
    certificate against the system's CA store."""

    bye_gives_up_the_seat = False

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        *,
        username: str | None = None,
        password: str | None = None,
        tls: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.username = username
        self.password = password
        self.tls = tls
        self.conn = ""
        self._stack: AsyncExitStack | None = None
        self._client: aiomqtt.Client | None = None
        self._ignored_logged = False
        """A message not from the server was skipped and logged (`receive`: once per
        connection, however many follow)."""

    def topics(self) -> tuple[str, str]:
        return up_topic(self.name, self.conn), down_topic(self.name, self.conn)

    def client_id(self) -> str:
        """``<name>-<conn>``: the server's embedded broker grants a client only the topic pair
        its id names."""
        return bot_client_id(self.name, self.conn)

    def broker(self) -> str:
        return f"the MQTT broker at {self.host}:{self.port}"

    def no_welcome(self, seconds: float) -> str:
        return (
            f"no welcome from the server within {seconds:g} s: is `arena serve --mqtt` running "
            f"on {self.broker()}, and may this user publish on "
            f"{bot_filter(self.name, 'up')}?"
        )

    async def connect(self) -> None:
        # A fresh id per connection: a will from a dead connection then names only its topics,
        # and the broker, which refuses an id still connected, never sees this one again.
        self.conn = secrets.token_hex(6)
        self._ignored_logged = False
        up, down = self.topics()
        stack = AsyncExitStack()
        session = aiomqtt.Client(
            self.host,
            self.port,
            identifier=self.client_id(),
            username=self.username,
            password=self.password,
            tls_context=ssl.create_default_context() if self.tls else None,
            will=aiomqtt.Will(up, encode(Bye(reason="connection lost")), qos=1),
            keepalive=15,
            timeout=CONNECT_TIMEOUT_S,
            # Nagle's algorithm, on by default in the MQTT library, would hold each small
            # action back until the previous segment is acknowledged.
            socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
        )
        try:
            client = await stack.enter_async_context(session)
            granted = await client.subscribe(down, qos=1)
        except asyncio.CancelledError:
            # Stopped while connecting (`BotClient.stop`): leave no half-open session behind.
            with contextlib.suppress(aiomqtt.MqttError):
                await stack.aclose()
            _abandon_connect(session)
            raise
        except aiomqtt.MqttError as exc:
            await stack.aclose()
            reason = connack_refusal(exc.rc) if isinstance(exc, aiomqtt.MqttCodeError) else None
            if reason is not None:
                raise AdapterRefused(
                    login_refused_message(
                        self.host, self.port, reason, with_login=self.username is not None
                    )
                ) from None
            tls = tls_failure(exc) if self.tls else None
            if tls is not None:
                raise AdapterRefused(tls_failure_message(self.host, self.port, tls)) from None
            scheme = "mqtts" if self.tls else "mqtt"
            raise AdapterClosed(
                f"cannot connect to {scheme}://{self.host}:{self.port}: {exc}"
            ) from None
        if subscription_refused(granted):
            # Without its down topic the bot would wait for a welcome that never comes.
            await stack.aclose()
            who = f"user {self.username!r}" if self.username is not None else "this client"
            raise AdapterRefused(
                f"{self.broker()} refused the subscription to {down}: its ACL must let {who} "
                f"read {bot_filter(self.name, 'down')} and write "
                f"{bot_filter(self.name, 'up')} (docs/NETWORK.md, MQTT)"
            )
        self._stack = stack
        self._client = client

    def _open(self) -> aiomqtt.Client:
        if self._client is None:
            raise AdapterClosed("not connected")
        return self._client

    async def send(self, message: ClientMessage) -> None:
        try:
            await self._open().publish(self.topics()[0], encode(message), qos=1)
        except aiomqtt.MqttError as exc:
            raise AdapterClosed(str(exc)) from None

    async def receive(self) -> ServerMessage:
        client = self._open()
        down = self.topics()[1]
        try:
            async for incoming in client.messages:
                payload = incoming.payload
                if not isinstance(payload, bytes | bytearray):
                    continue
                if incoming.retain or str(incoming.topic) != down:
                    # Not the server speaking: it publishes on our down topic only, never
                    # retained. A broker replays a retained message to every new subscriber,
                    # long after whoever left it (a planted `bye` would stop every bot that
                    # connects), and one may deliver other topics than the one we asked for.
                    self._ignore(incoming)
                    continue
                message = self.decode(bytes(payload))
                if message is not None:
                    return message
        except aiomqtt.MqttError as exc:
            raise AdapterClosed(str(exc)) from None
        raise AdapterClosed("the broker connection ended")

    def _ignore(self, incoming: aiomqtt.Message) -> None:
        """Log the first message of this connection skipped by `receive`, not its text (a
        retained one may hold anyone's token), nor a topic that names a connection whole."""
        if self._ignored_logged:
            return
        self._ignored_logged = True
        ours = str(incoming.topic) == self.topics()[1]
        log.warning(
            "mqtt_message_ignored",
            why="retained" if incoming.retain else "not this connection's down topic",
            topic="this connection's down topic" if ours else "another topic",
            further="ignored without a log line",
        )

    async def close(self) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            try:
                await stack.aclose()
            except aiomqtt.MqttError as exc:
                log.debug("mqtt_close_failed", error=str(exc))


def _abandon_connect(session: aiomqtt.Client) -> None:
    """Close a session whose connect was cancelled before the broker's CONNACK.

    aiomqtt (2.x) has no public way to do it: its ``__aexit__`` waits for an acknowledgement a
    silent broker never sends, and its disconnect callback reads the connect future that the
    cancellation left cancelled, raising in the event loop. So the future is replaced with a
    pending one (the callback then ignores the disconnect) and the paho client disconnects,
    which sends DISCONNECT and closes the socket. Attributes a later aiomqtt lacks are skipped:
    the socket is then closed with the process.
    """
    connected = getattr(session, "_connected", None)
    paho = getattr(session, "_client", None)
    if not isinstance(connected, asyncio.Future) or paho is None:
        return
    if connected.done():
        connected = asyncio.get_running_loop().create_future()
        session._connected = connected

    def disconnect(_: object = None) -> None:
        with contextlib.suppress(Exception):
            paho.disconnect()

    disconnect()
    # Cancelled while paho's blocking connect still ran in its thread, the disconnect above
    # found no socket: the connect may yet land, and is then dropped as soon as it does.
    connected.add_done_callback(disconnect)


def adapter_for(url: str, name: str) -> ServerAdapter:
    """``ws://`` / ``wss://`` → `WebSocketAdapter`, ``mqtt://`` / ``mqtts://`` (TLS) →
    `MqttAdapter`, logging in with the URL's percent-decoded user and password if it has them;
    `ValueError` (naming the URL, its password hidden) for any other URL, one without a host,
    or one with a port out of range — no reconnect could ever reach those."""
    expected = "expected ws://HOST:PORT, wss://HOST:PORT or mqtt[s]://[USER:PASSWORD@]HOST:PORT"
    shown = redact_url(url)
    parts, port = split_url(url, expected)
    if parts.scheme not in ("ws", "wss", "mqtt", "mqtts"):
        raise ValueError(f"{shown!r}: {expected}")
    if not parts.hostname:
        raise ValueError(f"{shown!r}: no host; {expected}")
    if parts.scheme in ("mqtt", "mqtts"):
        tls = parts.scheme == "mqtts"
        return MqttAdapter(
            parts.hostname,
            port or (DEFAULT_TLS_PORT if tls else DEFAULT_PORT),
            name,
            username=unquote(parts.username) if parts.username is not None else None,
            password=unquote(parts.password) if parts.password is not None else None,
            tls=tls,
        )
    return WebSocketAdapter(url)
