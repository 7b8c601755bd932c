"""MQTT: bots reach the server through a broker; each bot connection has its own topic pair.

Topic tree (docs/NETWORK.md)::

    arena/v1/bots/<name>/<conn>/up     bot → server: hello, action, ping, bye  (QoS 1)
    arena/v1/bots/<name>/<conn>/down   server → bot: welcome, event, request,  (QoS 1)
                                       error, bye

``<name>`` is the bot's name (a hello on that topic may give no other) and ``<conn>`` a fresh id
the bot picks for each connection (its MQTT client id). Once seated, that pair is the seat's
channel in each direction. A bot sets its will to a ``bye`` on its up topic, so the broker tells
the server at once when the bot's connection dies; a will from an older connection concerns only
that connection's topics. A bot that sends nothing (not even ``ping``) for the hub's
``mqtt_silence_s`` is dropped all the same: without a will nothing else would ever say it left.

`MqttBridge` is the server's single MQTT client: it feeds every up topic to the `Hub` like a
websocket connection. `start_embedded_broker` runs an amqtt broker in-process for a server
started without a broker to talk to. That broker takes anyone (no MQTT credentials for bots),
but grants each client only the topic pair its client id names (``<name>-<conn>``:
`EmbeddedBrokerAuth` and `EmbeddedBrokerAcl`); only the server, logged in with a password drawn
at start-up, may read every up topic and write every down topic. A broker delivers to whoever
subscribes, so without that any local program could read every bot's private events and the
resume token in its ``welcome``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
import socket
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiomqtt
import structlog
from amqtt.contexts import Action
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
from amqtt.session import Session

from arena.errors import ArenaError
from arena.server.hub import Connection, Hub, Role

log = structlog.get_logger(__name__)

TOPIC_ROOT = "arena/v1/bots"
UP_FILTER = f"{TOPIC_ROOT}/+/+/up"
QOS = 1
DEFAULT_PORT = 1883
NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
"""The MQTT library leaves Nagle's algorithm on: each small message would then wait for the
ACK of the one before (tens of milliseconds with delayed ACKs)."""
_LEVEL = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}-[A-Za-z0-9_.-]{1,64}$")


#: in-flight publishes of the server's one MQTT client that are normal under load
PENDING_PUBLISHES_NORMAL = 4096
FLUSH_TIMEOUT_S = 10.0
"""How long a stopping server waits for the broker to acknowledge its last messages (the byes)."""
MAX_WAITING_FRAMES = 64
"""Messages from one bot connection that may wait while its previous one is handled; beyond
that they are dropped. An honest bot sends one action per request and a ping now and then."""


class MqttConfigError(ArenaError, ValueError):
    """An MQTT URL or broker set-up the server cannot use."""


def up_topic(name: str, conn: str) -> str:
    return f"{TOPIC_ROOT}/{name}/{conn}/up"


def down_topic(name: str, conn: str) -> str:
    return f"{TOPIC_ROOT}/{name}/{conn}/down"


def parse_up_topic(topic: str) -> tuple[str, str] | None:
    """``(name, conn)`` of an up topic, or None for anything else."""
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:3]) != TOPIC_ROOT or parts[5] != "up":
        return None
    name, conn = parts[3], parts[4]
    if not (_LEVEL.match(name) and _LEVEL.match(conn)):
        return None
    return name, conn


def peer_label(name: str, conn: str) -> str:
    """How logs name a bot connection: ``mqtt:<name>/<hash>``. Never ``<conn>`` itself: on the
    embedded broker the client id ``<name>-<conn>`` is what grants its topics, so whoever reads
    the logs could take over the connection; a short hash still tells connections apart."""
    digest = hashlib.sha256(conn.encode("utf-8")).hexdigest()[:8]
    return f"mqtt:{name}/{digest}"


def bot_client_id(name: str, conn: str) -> str:
    """The MQTT client id of a bot connection: the embedded broker grants a client only the
    topic pair its id names."""
    return f"{name}-{conn}"


def owns_topic(client_id: str | None, topic: str, direction: str) -> bool:
    """True when ``topic`` is the ``direction`` (``up`` or ``down``) topic of the bot connection
    whose `bot_client_id` is ``client_id``. A filter with wildcards is never one: ``+`` and
    ``#`` are not allowed in names."""
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:3]) != TOPIC_ROOT or parts[5] != direction:
        return False
    name, conn = parts[3], parts[4]
    return bool(_LEVEL.match(name) and _LEVEL.match(conn)) and client_id == bot_client_id(
        name, conn
    )


def parse_mqtt_url(url: str) -> tuple[str, int]:
    """``mqtt://host[:port]`` → (host, port)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        # urlsplit's own words ("Port out of range 0-65535", "Invalid IPv6 URL") name no URL.
        raise MqttConfigError(f"{url!r}: {exc}; expected mqtt://HOST[:PORT]") from None
    if parts.scheme != "mqtt" or not parts.hostname:
        raise MqttConfigError(f"{url!r}: expected mqtt://HOST[:PORT]")
    return parts.hostname, port or DEFAULT_PORT


async def broker_reachable(host: str, port: int, timeout_s: float = 2.0) -> bool:
    try:
        async with asyncio.timeout(timeout_s):
            _reader, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    await writer.wait_closed()
    return True


@dataclass(frozen=True)
class BrokerLogin:
    """The MQTT credentials the server's client presents (to the embedded broker only)."""

    username: str
    password: str = ""


SERVER_USER = "arena-server"


def _is_server(session: Session, password: str) -> bool:
    """The session logged in as the server with this broker's password (never with none)."""
    given = session.password
    if session.username != SERVER_USER or not password or given is None:
        return False
    if isinstance(given, str):
        given = given.encode()
    return hmac.compare_digest(bytes(given), password.encode())


class EmbeddedBrokerAuth(BaseAuthPlugin):
    """Lets in the server (its password) and any client whose id can name a bot connection
    (``<name>-<conn>``) and whose will, if any, goes to its own up topic: a will is published
    by the broker itself, past the topic ACL, so it is checked here."""

    @dataclass
    class Config:
        server_password: str = ""

    async def authenticate(self, *, session: Session) -> bool:
        if session.username == SERVER_USER:
            if _is_server(session, self.config.server_password):
                return True
            log.warning("mqtt_server_login_refused", client=session.client_id)
            return False
        client = session.client_id or ""
        if not _CLIENT_ID.match(client):
            log.warning(
                "mqtt_client_refused",
                client=client,
                reason="the client id must be <name>-<conn> of the topics it uses",
            )
            return False
        if session.will_flag and not owns_topic(client, session.will_topic or "", "up"):
            log.warning("mqtt_client_refused", client=client, will_topic=session.will_topic)
            return False
        # As amqtt's anonymous login does: no messages are queued for such a client while it is
        # disconnected, so a dead bot costs the broker no memory.
        session.is_anonymous = True
        return True


class EmbeddedBrokerAcl(BaseTopicPlugin):
    """The embedded broker's topic ACL: the server may do anything; any other client may
    publish only on its own up topic and subscribe to (and receive) only its own down topic,
    both named by its client id (`owns_topic`). A wildcard filter is always refused to it."""

    @dataclass
    class Config:
        server_password: str = ""

    async def topic_filtering(
        self,
        *,
        session: Session | None = None,
        topic: str | None = None,
        action: Action | None = None,
    ) -> bool:
        if session is None or topic is None:
            return False
        if _is_server(session, self.config.server_password):
            return True
        allowed = owns_topic(session.client_id, topic, "up" if action is Action.PUBLISH else "down")
        if not allowed and action is Action.SUBSCRIBE:
            # amqtt only answers the SUBACK with a failure: say why on our side.
            log.warning("mqtt_subscription_refused", client=session.client_id, topic=topic)
        return allowed


async def start_embedded_broker(host: str, port: int) -> tuple[Any, BrokerLogin]:
    """An amqtt broker on ``host:port`` (no $SYS topics) with our topic ACL, and the login the
    server's client must use on it; call ``shutdown()`` on the broker."""
    from amqtt.broker import Broker

    # amqtt (and the state-machine library under it) log every step at INFO; the server's own
    # logs say what matters.
    for noisy in ("amqtt", "transitions"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    login = BrokerLogin(SERVER_USER, secrets.token_urlsafe(32))
    secret = {"server_password": login.password}
    # amqtt splits "host:port" at the last colon: an IPv6 address goes without brackets (it
    # would keep them and fail to resolve "[::1]").
    bind = f"{host}:{port}"
    broker = Broker(
        {
            "listeners": {"default": {"type": "tcp", "bind": bind}},
            "plugins": {
                f"{__name__}.EmbeddedBrokerAuth": secret,
                f"{__name__}.EmbeddedBrokerAcl": secret,
            },
        }
    )
    await broker.start()
    return broker, login


def _refused(granted: tuple[int, ...] | list[Any]) -> bool:
    """A SUBACK's failure: 0x80 (MQTT 3.1.1) or a reason code of 0x80 or more (MQTT 5)."""
    return any(int(getattr(code, "value", code)) >= 0x80 for code in granted)


class MqttLink:
    """A `Link` to one bot connection: publishes on its down topic."""

    transport = "mqtt"

    def __init__(self, bridge: MqttBridge, name: str, conn: str) -> None:
        self.bridge = bridge
        self.key = (name, conn)
        self.topic = down_topic(name, conn)
        self.peer = peer_label(name, conn)
        self.open = True

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        # Every MQTT message is its own publish: there is nothing to gain by holding events back.
        if not self.open:
            return False
        return self.bridge.publish(self.topic, text)

    async def close(self, reason: str) -> None:
        if not self.open:
            return
        self.open = False
        conn = self.bridge.forget(self.key)
        if conn is not None:
            # No socket will report this link's end (as a websocket's handler does): say so here.
            await conn.lost()

    def abort(self) -> None:
        # Publishing never waits for the bot, so there is nothing to cut short: only stop.
        self.open = False


class MqttBridge:
    """The server's MQTT client (see the module docstring)."""

    def __init__(self, hub: Hub, host: str, port: int, login: BrokerLogin | None = None) -> None:
        self.hub = hub
        self.host = host
        self.port = port
        self.login = login
        """Credentials for the broker: the embedded one's server login, else none."""
        self.client: aiomqtt.Client | None = None
        self.connections: dict[tuple[str, str], Connection] = {}
        self.ready = asyncio.Event()
        self._publishing: set[asyncio.Task[None]] = set()
        self._heard: dict[tuple[str, str], float] = {}
        """When each bot connection last sent anything (event loop time), for `_watch`."""
        self._inboxes: dict[tuple[str, str], deque[bytes]] = {}
        """Messages of each bot connection waiting to be handled; a key is here exactly while
        its worker (in `_workers`) runs."""
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}

    def publish(self, topic: str, text: str) -> bool:
        client = self.client
        if client is None:
            return False
        # One task per message, created in order: each task's first step hands the message to
        # the MQTT library, and tasks start in creation order, so a bot sees messages in the
        # order they were sent without the sender waiting for each PUBACK.
        task = asyncio.ensure_future(client.publish(topic, text, qos=QOS))
        self._publishing.add(task)
        task.add_done_callback(self._published)
        return True

    def _published(self, task: asyncio.Task[None]) -> None:
        self._publishing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("mqtt_publish_failed", error=repr(task.exception()))

    def forget(self, key: tuple[str, str]) -> Connection | None:
        self._heard.pop(key, None)
        return self.connections.pop(key, None)

    async def flush(self, timeout_s: float = FLUSH_TIMEOUT_S) -> bool:
        """Wait until the broker has acknowledged every message published so far; False if some
        were still unacknowledged after ``timeout_s``. A stopping server calls this before it
        disconnects: a publish still queued in the MQTT library when the client closes is lost,
        and with it the ``bye`` that tells a bot to stop."""
        pending = set(self._publishing)
        if not pending:
            return True
        _done, unsent = await asyncio.wait(pending, timeout=timeout_s)
        if unsent:
            log.warning("mqtt_flush_incomplete", unacknowledged=len(unsent))
        return not unsent

    async def _watch(self) -> None:
        """Drop bot connections silent for longer than the hub's ``mqtt_silence_s``.

        A broker reports a dead client only through its will; a client that set none (or a
        broker that lost it) would otherwise keep its session, its name and its seat for ever.
        """
        limit = self.hub.limits.mqtt_silence_s
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(min(limit / 4, 5.0))
            now = loop.time()
            for key, conn in list(self.connections.items()):
                silent = now - self._heard.get(key, now)
                if silent > limit:
                    conn.log.warning("mqtt_bot_silent", silent_s=round(silent, 1))
                    await conn.shut(f"no message for {limit:g} s: the session is dropped")

    async def run(self) -> None:
        """Serve until cancelled, reconnecting to the broker with backoff after a loss."""
        delay = 0.1
        while True:
            try:
                async with aiomqtt.Client(
                    self.host,
                    self.port,
                    # Unguessable: a broker hands a client id's session to whoever connects
                    # with it next.
                    identifier=f"arena-server-{secrets.token_hex(8)}",
                    username=self.login.username if self.login else None,
                    password=self.login.password if self.login else None,
                    keepalive=30,
                    socket_options=NO_DELAY,
                ) as client:
                    # One server client carries every table's traffic, so dozens of QoS 1
                    # publishes in flight are ordinary load; aiomqtt warns past 10 by default.
                    client.pending_calls_threshold = PENDING_PUBLISHES_NORMAL
                    self.client = client
                    granted = await client.subscribe(UP_FILTER, qos=QOS)
                    if _refused(granted):
                        # Retrying cannot help: the broker's ACL keeps us out (another arena
                        # server's embedded broker, say, which only its own server may read).
                        refused = MqttConfigError(
                            f"the MQTT broker at {self.host}:{self.port} refused the server's "
                            f"subscription to {UP_FILTER}: its ACL must let the server read "
                            "every up topic and write every down topic (docs/NETWORK.md)"
                        )
                        log.error("mqtt_subscription_refused", error=str(refused))
                        raise refused
                    self.ready.set()
                    log.info("mqtt_connected", broker=f"{self.host}:{self.port}")
                    delay = 0.1
                    watcher = asyncio.create_task(self._watch())
                    try:
                        async for message in client.messages:
                            self._dispatch(str(message.topic), message.payload)
                    finally:
                        watcher.cancel()
            except aiomqtt.MqttError as exc:
                log.warning("mqtt_broker_lost", error=str(exc), retry_in_s=delay)
            finally:
                self.client = None
                self.ready.clear()
                await self._stop_workers()
                await self._drop_all()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _drop_all(self) -> None:
        for key in list(self.connections):
            conn = self.forget(key)
            if conn is not None:
                await conn.lost()

    def _dispatch(self, topic: str, payload: Any) -> None:
        """Hand one message to its bot connection's worker. Each bot connection's messages are
        handled in order, but apart from every other's: handling one may wait on a write (an
        action relayed to a referee's seat connection), which must not hold up the other bots,
        as one loop over every message would."""
        key = parse_up_topic(topic)
        if key is None or not isinstance(payload, bytes | bytearray):
            return
        self._heard[key] = asyncio.get_running_loop().time()
        inbox = self._inboxes.get(key)
        if inbox is None:
            inbox = self._inboxes[key] = deque()
            self._workers[key] = asyncio.create_task(self._work(key, inbox))
        elif len(inbox) >= MAX_WAITING_FRAMES:
            log.warning("mqtt_frame_dropped", peer=peer_label(*key), waiting=len(inbox))
            return
        inbox.append(bytes(payload))

    async def _work(self, key: tuple[str, str], inbox: deque[bytes]) -> None:
        """Handle ``key``'s messages until none is waiting (a new one starts a new worker)."""
        try:
            while inbox:
                await self._handle(key, inbox.popleft())
        except Exception as exc:  # the hub guards every frame; this is a bug of the bridge's
            log.exception("mqtt_worker_failed", peer=peer_label(*key), error=repr(exc))
        finally:
            # No await between the loop's last check and here: a message that came meanwhile
            # found this worker running and is in ``inbox``, handled above.
            self._inboxes.pop(key, None)
            self._workers.pop(key, None)

    async def _stop_workers(self) -> None:
        workers = list(self._workers.values())
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        self._inboxes.clear()
        self._workers.clear()

    async def _handle(self, key: tuple[str, str], payload: bytes) -> None:
        conn = self.connections.get(key)
        if conn is None:
            link = MqttLink(self, *key)
            # The topic names the bot: its hello may not claim another name (the broker's ACL
            # grants a client its topics by name).
            conn = self.hub.connection(link, admin=False, timed=False, name=key[0])
            self.connections[key] = conn
            await conn.feed(payload)
            # Only a hello opens a connection; anything else got its error and is forgotten,
            # so stray messages on made-up topics cost the server no memory.
            if conn.role is Role.NEW:
                self.forget(key)
                await conn.lost()
            elif conn.role is Role.CLOSED:
                self.forget(key)
            return
        await conn.feed(payload)
        if conn.role is Role.CLOSED:
            self.forget(key)
