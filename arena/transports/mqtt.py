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
The embedded broker says more: it tells the server of every bot client's disconnect, clean or not
(``arena/v1/bots/<name>/<conn>/gone``, which only the server reads), and the bridge closes that
topic pair's link as a websocket's close closes its link, after the client's last message.

`MqttBridge` is the server's single MQTT client: it feeds every up topic to the `Hub` like a
websocket connection, logging in with the user and password of the ``--mqtt`` URL (over TLS for
``mqtts://``). A topic pair's bad messages count towards the flood limit before its ``hello``
too (each such message gets a connection of its own; the count is the pair's); a message on an
up topic that names no bot is dropped, with a throttled log line (no reply is possible). On a
broker not its own, the server first checks that no other arena server serves there (a
retained presence marker, `PRESENCE_TOPIC`), then leaves its own: two servers would both answer
every bot. `start_embedded_broker` runs an amqtt broker in-process for a server started without
a broker to talk to (`arena.transports.mqtt_broker`: it grants each client only the topic pair
its client id names). Those two, and the login the bridge presents, are in
`arena.transports.mqtt_server_broker` (`MqttBridge` inherits the presence check from there).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import ssl
import time
from collections import OrderedDict, deque
from typing import Any

import aiomqtt
import structlog

from arena.server.connection import Connection, Role
from arena.server.hub import Hub
from arena.server.links import MQTT_TRANSPORT, FloodGuard
from arena.transports.mqtt_refusals import (
    login_refused,
    server_login_refused_message,
    subscription_refused,
    tls_failure,
    tls_failure_message,
)
from arena.transports.mqtt_server_broker import FLUSH_TIMEOUT_S, QOS, BrokerLogin, BrokerPresence
from arena.transports.mqtt_topics import (
    DEFAULT_PORT,
    DEFAULT_TLS_PORT,
    GONE_FILTER,
    PRESENCE_TOPIC,
    SERVER_CLIENT_PREFIX,
    SERVER_ROOT,
    SERVER_USER,
    TOPIC_ROOT,
    UP_FILTER,
    BrokerUrl,
    MqttConfigError,
    bot_client_id,
    down_topic,
    owns_topic,
    parse_bot_topic,
    parse_mqtt_url,
    parse_up_topic,
    peer_label,
    redact_url,
    up_topic,
)
from protocol.mqtt import is_topic_level

__all__ = [
    "DEFAULT_PORT",
    "DEFAULT_TLS_PORT",
    "SERVER_CLIENT_PREFIX",
    "SERVER_USER",
    "TOPIC_ROOT",
    "UP_FILTER",
    "BrokerUrl",
    "MqttBridge",
    "MqttConfigError",
    "MqttLink",
    "bot_client_id",
    "down_topic",
    "login_refused",
    "owns_topic",
    "parse_mqtt_url",
    "parse_up_topic",
    "peer_label",
    "redact_url",
    "up_topic",
]

log = structlog.get_logger(__name__)

NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
"""The MQTT library leaves Nagle's algorithm on: each small message would then wait for the
ACK of the one before (tens of milliseconds with delayed ACKs)."""


#: in-flight publishes of the server's one MQTT client that are normal under load
PENDING_PUBLISHES_NORMAL = 4096
MAX_WAITING_FRAMES = 64
"""Messages from one bot connection that may wait while its previous one is handled; beyond
that they are dropped. An honest bot sends one action per request and a ping now and then."""
MAX_FLOODED = 4096
"""Topic pairs closed for flood that the bridge keeps dropping (the oldest forgotten first)."""
GONE = None
"""In a bot connection's inbox: the embedded broker says its client has disconnected."""
MAX_UNWELCOMED = 4096
"""Topic pairs without a session whose bad messages the bridge counts towards the flood limit
(the oldest forgotten first): each message there is handled by a connection of its own."""
IGNORED_TOPIC_LOG_S = 60.0
"""At most one ``mqtt_topic_ignored`` line this often (the first at once): anyone may publish
on topics no bot can have, as often as they like."""
BROKER_LOST = "the server lost its MQTT broker"
NAME_RULE = "1 to 64 of A-Z a-z 0-9 _ . -"


def _topic_label(topic: str) -> str:
    """How a log line names the topic of a message: a bot connection's `peer_label` (never its
    ``<conn>``, which on the embedded broker grants its topics), else that it names none."""
    for direction in ("up", "down", "gone"):
        key = parse_bot_topic(topic, direction)
        if key is not None:
            return f"{peer_label(*key)} ({direction})"
    return "a topic that names no bot connection"


async def _stop_watcher(watcher: asyncio.Task[None]) -> None:
    """Cancel the bridge's silence watch and wait until it has stopped; an error it died of is
    logged, not left unretrieved. (`asyncio.wait`, not awaiting the task: a cancellation of the
    caller itself still goes through.)"""
    watcher.cancel()
    await asyncio.wait([watcher])
    if not watcher.cancelled() and watcher.exception() is not None:
        log.error("mqtt_watch_failed", exc_info=watcher.exception())


class MqttLink:
    """A `Link` to one bot connection: publishes on its down topic."""

    transport = MQTT_TRANSPORT

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
        if reason == "flood":
            self.bridge.shun(self.key)
        conn = self.bridge.forget(self.key)
        if conn is not None:
            # No socket will report this link's end (as a websocket's handler does): say so here.
            await conn.lost()

    def abort(self) -> None:
        # Publishing never waits for the bot, so there is nothing to cut short: only stop.
        self.open = False


class MqttBridge(BrokerPresence):
    """The server's MQTT client (see the module docstring)."""

    def __init__(
        self,
        hub: Hub,
        broker: BrokerUrl,
        login: BrokerLogin | None = None,
        *,
        embedded: bool = False,
        announce: bool = False,
        takeover: bool = False,
    ) -> None:
        self.hub = hub
        self.announce = announce and not embedded
        """Check that no other arena server serves this broker, and mark it as this one's
        (`_announce`; `ArenaServer` asks for it). The embedded broker is the server's own:
        another server cannot log in to it (its password is drawn at start-up)."""
        self.takeover = takeover
        """Start even if another server's presence marker is on the broker (`_announce`): a
        server that crashed without the broker noticing (its will clears the marker)."""
        self.embedded = embedded
        """The broker is this server's own (`start_embedded_broker`): it tells the bridge when
        a bot's client disconnects (`GONE_FILTER`), which no other broker does."""
        self.host = broker.host
        self.port = broker.port
        self.tls = broker.tls
        if login is None and broker.username is not None:
            login = BrokerLogin(broker.username, broker.password)
        self.login = login
        """Credentials for the broker: the embedded one's server login, or the URL's."""
        self.client: aiomqtt.Client | None = None
        self.connections: dict[tuple[str, str], Connection] = {}
        self.ready = asyncio.Event()
        self._publishing: set[asyncio.Task[None]] = set()
        self._heard: dict[tuple[str, str], float] = {}
        """When each bot connection last sent anything (event loop time), for `_watch`."""
        self._inboxes: dict[tuple[str, str], deque[bytes | None]] = {}
        """Messages of each bot connection waiting to be handled; a key is here exactly while
        its worker (in `_workers`) runs."""
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._shunned: OrderedDict[tuple[str, str], None] = OrderedDict()
        """Topic pairs closed for flood: their messages are dropped unanswered (`shun`)."""
        self._unwelcomed: OrderedDict[tuple[str, str], FloodGuard] = OrderedDict()
        """The flood count of each topic pair with no session (`_handle`): every message there
        gets a connection of its own, whose count alone would never reach the limit."""
        self._ignored_topics = 0
        self._ignored_logged_at: float | None = None
        self.instance = secrets.token_hex(8)
        """This server's id in its presence marker (`_announce`)."""
        self.marker = json.dumps(
            {
                "type": "arena_server",
                "instance": self.instance,
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
        )
        self._announced = False
        """This server's presence marker is retained on the broker, as far as it knows."""
        self._was_ready = False
        self.last_error: str | None = None
        """Why the last connection to the broker failed or ended, for the server's start."""

    def shun(self, key: tuple[str, str]) -> None:
        """Drop every further message on ``key``'s topic pair, unanswered, for the bridge's
        life: a topic pair closed for flood would otherwise open a new connection with each
        message (a fresh flood counter, an error reply, a log line), without end. An honest
        bot reconnects under a fresh ``<conn>``, never needing the pair again. At most
        `MAX_FLOODED` pairs are kept, the oldest forgotten first."""
        self._shunned[key] = None
        self._shunned.move_to_end(key)
        while len(self._shunned) > MAX_FLOODED:
            self._shunned.popitem(last=False)
        log.warning("mqtt_flood_closed", peer=peer_label(*key), dropping="every later message")

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
                if silent <= limit:
                    continue
                # One connection that fails to close must not end the watch: every silent bot
                # after it, now and later, would then keep its session for ever, unlogged.
                try:
                    conn.log.warning("mqtt_bot_silent", silent_s=round(silent, 1))
                    await conn.shut(f"no message for {limit:g} s: the session is dropped")
                except Exception as exc:
                    log.error("mqtt_silent_drop_failed", peer=peer_label(*key), exc_info=exc)

    async def run(self) -> None:
        """Serve until cancelled, reconnecting to the broker with backoff after a loss."""
        delay = 0.1
        while True:
            lost: str | None = None
            try:
                async with contextlib.AsyncExitStack() as stack:
                    client = await self._connect(stack)
                    # One server client carries every table's traffic, so dozens of QoS 1
                    # publishes in flight are ordinary load; aiomqtt warns past 10 by default.
                    client.pending_calls_threshold = PENDING_PUBLISHES_NORMAL
                    self.client = client
                    if self.announce:
                        await self._announce(client)
                    granted = await client.subscribe(UP_FILTER, qos=QOS)
                    if self.embedded and not subscription_refused(granted):
                        granted = await client.subscribe(GONE_FILTER, qos=QOS)
                    if subscription_refused(granted):
                        # Retrying cannot help: the broker's ACL keeps us out (another arena
                        # server's embedded broker, say, which only its own server may read).
                        raise self._fatal(
                            "mqtt_subscription_refused",
                            f"the MQTT broker at {self.host}:{self.port} refused the server's "
                            f"subscription to {UP_FILTER}: its ACL must let the server read "
                            "every up topic and write every down topic (docs/NETWORK.md)",
                        )
                    self.ready.set()
                    self._was_ready = True
                    log.info("mqtt_connected", broker=f"{self.host}:{self.port}")
                    delay = 0.1
                    watcher = asyncio.create_task(self._watch())
                    try:
                        async for message in client.messages:
                            topic = str(message.topic)
                            if topic.startswith(f"{SERVER_ROOT}/"):
                                self._server_message(topic, message.payload, message.retain)
                                continue
                            if message.retain:
                                # A broker replays a retained message to every new
                                # subscriber, long after its bot is gone: a hello kept so
                                # would seat a ghost at every start of the server. (One
                                # published while the server is subscribed comes to it
                                # without the flag, and is handled as any message.)
                                log.warning(
                                    "mqtt_retained_message_ignored", peer=_topic_label(topic)
                                )
                                continue
                            self._dispatch(topic, message.payload)
                    finally:
                        await _stop_watcher(watcher)
            except MqttConfigError:
                # Before the bridge was ever ready, the server's start reports this and stops;
                # after, the broker worked with these settings and may again (a certificate
                # swapped while it restarted): logged by `_fatal`, retried with the backoff.
                if not self._was_ready:
                    raise
            except aiomqtt.MqttError as exc:
                self.last_error = str(exc)
                lost = BROKER_LOST
                log.warning("mqtt_broker_lost", error=str(exc), retry_in_s=delay)
                # Nothing can reach a bot behind the broker now: a send to one fails at once
                # (its session then ends) rather than fail later in the MQTT library.
                self.client = None
                self.ready.clear()
                # Every MQTT bot is cut off at once, through no fault of its own: stop their
                # matches (their referees get ServerLost) rather than let them play fallbacks
                # for as long as the outage lasts and report that as a result.
                await self.hub.close_tables_with_transport(MqttLink.transport, BROKER_LOST)
            finally:
                self.client = None
                self.ready.clear()
                await self._stop_workers()
                # Said to a bot that comes back with its resume token (`resume_unknown`).
                await self._drop_all(lost)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _connect(self, stack: contextlib.AsyncExitStack) -> aiomqtt.Client:
        """The server's client, connected (closed with ``stack``). A broker that refuses the
        login is `MqttConfigError`, not a lost broker: no retry could change its mind."""
        login = self.login
        try:
            return await stack.enter_async_context(
                aiomqtt.Client(
                    self.host,
                    self.port,
                    # No bot's client id can be this one (`SERVER_CLIENT_PREFIX`), and it is
                    # unguessable: some brokers hand a client id's session to whoever connects
                    # with it next.
                    identifier=f"{SERVER_CLIENT_PREFIX}{secrets.token_hex(8)}",
                    username=login.username if login else None,
                    password=login.password if login else None,
                    tls_context=ssl.create_default_context() if self.tls else None,
                    keepalive=30,
                    socket_options=NO_DELAY,
                    # Should this connection die, the broker clears our presence marker.
                    will=aiomqtt.Will(PRESENCE_TOPIC, None, qos=QOS, retain=True)
                    if self.announce
                    else None,
                )
            )
        except aiomqtt.MqttError as exc:
            reason = login_refused(exc)
            if reason is not None:
                raise self._fatal(
                    "mqtt_login_refused",
                    server_login_refused_message(
                        self.host, self.port, reason, with_login=login is not None
                    ),
                ) from None
            tls = tls_failure(exc) if self.tls else None
            if tls is not None:
                raise self._fatal(
                    "mqtt_tls_failed", tls_failure_message(self.host, self.port, tls)
                ) from None
            raise

    def _fatal(self, event: str, message: str) -> MqttConfigError:
        """A refusal no retry could mend, at first: it ends `run` and the server's start
        reports it (`arena serve` exits with it). Once the bridge has served, it is logged
        here and `run` retries."""
        if self._was_ready:
            log.error(event, error=message)
        return MqttConfigError(message)

    async def _drop_all(self, why: str | None = None) -> None:
        for key in list(self.connections):
            conn = self.forget(key)
            if conn is not None:
                await conn.lost(why)

    def _dispatch(self, topic: str, payload: Any) -> None:
        """Hand one message to its bot connection's worker. Each bot connection's messages are
        handled in order, but apart from every other's: handling one may wait on a write (an
        action relayed to a referee's seat connection), which must not hold up the other bots,
        as one loop over every message would."""
        key = parse_up_topic(topic)
        if key is None:
            gone = parse_bot_topic(topic, "gone") if self.embedded else None
            if gone is not None:
                if gone in self.connections or gone in self._inboxes:
                    # After every message the client sent (the broker's order): its link closes.
                    self._queue(gone, GONE)
            else:
                self._ignored_topic(topic)
            return
        if key in self._shunned or not isinstance(payload, bytes | bytearray):
            return
        self._heard[key] = asyncio.get_running_loop().time()
        inbox = self._inboxes.get(key)
        if inbox is not None and len(inbox) >= MAX_WAITING_FRAMES:
            log.warning("mqtt_frame_dropped", peer=peer_label(*key), waiting=len(inbox))
            return
        self._queue(key, bytes(payload))

    def _ignored_topic(self, topic: str) -> None:
        """A message on an up topic whose ``<name>`` or ``<conn>`` breaks the bot-name rule:
        no reply is possible (the server answers only on a bot's down topic, and this pair is no
        bot's), so it is dropped, and logged at most once every `IGNORED_TOPIC_LOG_S`, with the
        number of such messages since the last line (never the ``<conn>``)."""
        self._ignored_topics += 1
        now = asyncio.get_running_loop().time()
        last = self._ignored_logged_at
        if last is not None and now - last < IGNORED_TOPIC_LOG_S:
            return
        parts = topic.split("/")
        name = parts[3] if len(parts) == 6 else ""
        if len(parts) != 6:
            problem = "not a bot's up topic"
        elif not is_topic_level(name):
            problem = f"<name> breaks the bot-name rule ({NAME_RULE})"
        else:
            problem = f"<conn> breaks the bot-name rule ({NAME_RULE})"
        log.warning(
            "mqtt_topic_ignored",
            name=name[:64] + ("…" if len(name) > 64 else ""),
            problem=problem,
            messages=self._ignored_topics,
            reply="none: the server answers on a bot's down topic, and this topic names no bot",
        )
        self._ignored_topics = 0
        self._ignored_logged_at = now

    def _queue(self, key: tuple[str, str], item: bytes | None) -> None:
        inbox = self._inboxes.get(key)
        if inbox is None:
            inbox = self._inboxes[key] = deque()
            self._workers[key] = asyncio.create_task(self._work(key, inbox))
        inbox.append(item)

    async def _work(self, key: tuple[str, str], inbox: deque[bytes | None]) -> None:
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

    async def _handle(self, key: tuple[str, str], payload: bytes | None) -> None:
        if key in self._shunned:
            # Came in before the flood closed the pair, and waited behind the last straw.
            return
        conn = self.connections.get(key)
        if payload is None:  # GONE
            if conn is not None:
                # As a websocket's close: a seated bot turns absent (the referee plays its
                # fallbacks at once), a waiting one leaves the lobby and frees its name.
                conn.log.info("mqtt_client_disconnected")
                conn.link.abort()
                self.forget(key)
                await conn.lost()
            return
        if conn is None:
            link = MqttLink(self, *key)
            # The topic names the bot: its hello may not claim another name (the broker's ACL
            # grants a client its topics by name).
            conn = self.hub.connection(link, admin=False, timed=False, name=key[0])
            guard = self._unwelcomed.pop(key, None)
            if guard is not None:
                # The pair's bad messages so far count: a flood before hello is closed (and the
                # pair shunned) as one after it is.
                conn.guard = guard
            self.connections[key] = conn
            await conn.feed(payload)
            # Only a hello opens a connection; anything else got its error and is forgotten,
            # so stray messages on made-up topics cost the server no memory beyond a bounded
            # flood count per pair.
            if conn.role is Role.NEW:
                self.forget(key)
                await conn.lost()
                self._unwelcomed[key] = conn.guard
                while len(self._unwelcomed) > MAX_UNWELCOMED:
                    self._unwelcomed.popitem(last=False)
            elif conn.role is Role.CLOSED:
                self.forget(key)
            return
        await conn.feed(payload)
        if conn.role is Role.CLOSED:
            self.forget(key)
