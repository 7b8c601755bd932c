"""The embedded MQTT broker: amqtt, with our login and topic ACL, and fixes to amqtt itself.

`start_broker` runs it for a server started without a broker to talk to (docs/NETWORK.md,
"Which broker"). It takes anyone (no MQTT credentials for bots) but grants each client only the
topic pair its client id names (``<name>-<conn>``: `EmbeddedBrokerAuth` and `EmbeddedBrokerAcl`);
only the server, logged in with a password drawn at start-up, may read every up topic and write
every down topic. A broker delivers to whoever subscribes, so without that any local program
could read every bot's private events and the resume token in its ``welcome``.

Since the client id is what grants the topics, `ArenaBroker` refuses a CONNECT whose client id
belongs to a connection still connected: amqtt would hand the session to the newcomer without
closing the older socket, so a program that learnt a bot's id would read its messages and answer
for it, unnoticed. It also keeps amqtt from crashing when subscriptions change during a
broadcast (`SnapshotSubscriptions`), and tells the server when a bot's client disconnects
(`ArenaBroker._tell_gone`): a clean disconnect discards the client's will, and nothing else would
tell the server that the bot has left.

Retained messages: amqtt replays, to every client that connects, the retained messages of every
subscription filter in the broker (the server's ``arena/v1/bots/+/+/up`` among them), past the
topic ACL, so a retained ``hello`` (with its token) or ``bye`` on one bot's up topic reached every
later client. `ArenaBroker` stores no retained message (nor retained will) of any client but the
server, and replays a retained message only to a client the topic ACL lets receive it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import structlog
from amqtt.adapters import ReaderAdapter, WriterAdapter
from amqtt.broker import Broker, Server
from amqtt.contexts import Action
from amqtt.errors import AMQTTError, MQTTError, NoDataError
from amqtt.mqtt.connack import IDENTIFIER_REJECTED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin
from amqtt.session import Session
from amqtt.utils import gen_client_id

from arena.transports.mqtt_topics import (
    SERVER_CLIENT_PREFIX,
    SERVER_USER,
    gone_topic,
    is_bot_client_id,
    owns_topic,
    topic_pairs,
)

log = structlog.get_logger(__name__)


def _digest(text: str) -> str:
    """A short hash that tells log lines apart without giving away what they hash."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


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
    by the broker itself, past the topic ACL, so it is checked here. The server's own client id
    (`SERVER_CLIENT_PREFIX`) fits no bot's and is refused to anyone not logged in as the
    server."""

    @dataclass
    class Config:
        server_password: str = ""

    async def authenticate(self, *, session: Session) -> bool:
        client = session.client_id or ""
        if session.username == SERVER_USER or client.startswith(SERVER_CLIENT_PREFIX):
            if _is_server(session, self.config.server_password):
                return True
            log.warning("mqtt_server_login_refused")
            return False
        if not is_bot_client_id(client):
            log.warning(
                "mqtt_client_refused",
                client=client,
                reason="the client id must be <name>-<conn> of the topics it uses",
            )
            return False
        if session.will_flag and not owns_topic(client, session.will_topic or "", "up"):
            # The id may be a live bot's (this one is refused): never log it whole.
            log.warning("mqtt_client_refused", will_topic=session.will_topic)
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
            # Neither the client id nor a topic naming a connection is logged whole: the id is
            # what grants a bot's topics (docs/NETWORK.md, Logs).
            log.warning(
                "mqtt_subscription_refused",
                client=_digest(session.client_id or ""),
                topic=_digest(topic),
                wildcard="+" in topic or "#" in topic,
            )
        return allowed


Subscriptions = dict[str, list[tuple[Session, int]]]


class SnapshotSubscriptions(Subscriptions):
    """amqtt 0.12's subscription table, iterated over a copy.

    `Broker._run_broadcast` walks ``_subscriptions.items()`` and awaits the topic plugin inside
    the loop, and a client's connection walks its keys around awaits too; a client that
    subscribes or disconnects meanwhile changes the dict, and the task dies with "dictionary
    changed size during iteration" — the broadcast it was delivering lost for every subscriber
    not reached yet. Walking a snapshot (of each subscriber list too) delivers the message to
    the subscribers of the moment it started; one gone since is skipped by amqtt's own checks.
    """

    def __iter__(self) -> Iterator[str]:
        return iter(list(super().__iter__()))

    def items(self) -> list[tuple[str, list[tuple[Session, int]]]]:  # type: ignore[override]
        return [(key, list(value)) for key, value in super().items()]


class ArenaBroker(Broker):
    """amqtt's broker, first connection wins, no retained messages of bots: see the module
    docstring."""

    def __init__(self, config: dict[str, Any], server_password: str = "") -> None:
        super().__init__(config)
        self.server_password = server_password
        """The server's login (`_is_server`): only its messages may be retained."""
        self._subscriptions = SnapshotSubscriptions()
        self._handled_ids: set[str] = set()
        """Client ids with a connection between its CONNECT and its end. amqtt marks a session
        connected only after the login plugin's await, so two CONNECTs of one id sent together
        would both pass a check of the sessions alone."""
        self._bot_clients: set[str] = set()
        """Client ids of bot connections let in and not yet ended: each one's end is told to
        the server (`_tell_gone`)."""

    async def retain_message(
        self,
        source_session: Session | None,
        topic_name: str | None,
        data: bytes | bytearray | None,
        qos: int | None = None,
    ) -> None:
        """amqtt's, for the server (and the broker itself) only: a bot's retained message, or
        retained will, is delivered to the subscribers of the moment like any other and never
        stored. Kept, it would be replayed to every later subscriber, long after its bot is
        gone (a ``hello`` with its token, or a ``bye`` that stops every bot reading it)."""
        if source_session is not None and not _is_server(source_session, self.server_password):
            return
        await super().retain_message(source_session, topic_name, data, qos)

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Session
    ) -> None:
        """amqtt 0.12.1's, asking the topic ACL first: amqtt calls it, for a client that
        connects, with every subscription filter in the broker, whoever holds it, and sent
        each retained message matching any of them to the client unchecked."""
        topic_filter, qos = subscription
        handler = self._get_handler(session)
        if handler is None:
            return
        sends = []
        for topic, retained in list(self._retained_messages.items()):
            if not self._matches(topic, topic_filter):
                continue
            if not await self._topic_filtering(session, topic=topic, action=Action.RECEIVE):
                continue
            sends.append(
                asyncio.ensure_future(
                    handler.mqtt_publish(
                        retained.topic, retained.data, min(qos, retained.qos or qos), retain=True
                    )
                )
            )
        if sends:
            await asyncio.wait(sends)

    async def _authenticate(self, session: Session, listener: Any) -> bool:
        accepted: bool = await super()._authenticate(session, listener)
        if accepted and session.client_id and is_bot_client_id(session.client_id):
            self._bot_clients.add(session.client_id)
        return accepted

    async def _tell_gone(self, client_id: str) -> None:
        """Tell the server that the bot connection ``client_id`` has ended, on the `gone_topic`
        of each topic pair its id names; only the server may read those topics, and no client
        may publish there.

        A broker tells its clients that another is gone only through that client's will, which
        a clean disconnect discards: a bot that leaves without ``bye`` would keep its session
        (and its name, and its seat) until the server's silence limit. The notice goes through
        the broadcast queue, after everything this client published: the server handles it
        after the bot's last action, as it handles a websocket's close after its last frame."""
        if self.transitions.state != "started":
            return
        for name, conn in topic_pairs(client_id):
            await self._broadcast_message(None, gone_topic(name, conn), b"gone", 1)

    def client_connected(self, client_id: str) -> bool:
        if client_id in self._handled_ids:
            return True
        entry = self._sessions.get(client_id)
        return entry is not None and entry[0].transitions.state == "connected"

    async def _initialize_client_session(
        self,
        reader: ReaderAdapter,
        writer: WriterAdapter,
        remote_address: str,
        remote_port: int,
    ) -> tuple[BrokerProtocolHandler, Session]:
        """`_first_connection_wins`, closing the connection when it fails: amqtt drops such a
        client without closing its socket (a CONNECT that never came, a session that could not
        be set up), and from Python 3.12 on the broker's shutdown (`asyncio.Server.wait_closed`)
        waits for every connection it accepted to close, so one such client held the server's
        exit for ever."""
        try:
            return await self._first_connection_wins(reader, writer, remote_address, remote_port)
        except Exception:
            with contextlib.suppress(Exception):  # the peer may have gone already
                await writer.close()
            raise

    async def _first_connection_wins(
        self,
        reader: ReaderAdapter,
        writer: WriterAdapter,
        remote_address: str,
        remote_port: int,
    ) -> tuple[BrokerProtocolHandler, Session]:
        """amqtt 0.12.1's own, with one check first: a client id that a connected client holds
        is refused (CONNACK "identifier rejected"). amqtt would otherwise delete that client's
        subscriptions (clean session) or take its session over, credentials and all (not
        clean), before any plugin is asked, and leave the older socket open either way."""
        try:
            handler, session = await BrokerProtocolHandler.init_from_connect(
                reader, writer, self.plugins_manager
            )
        except AMQTTError as exc:
            raise AMQTTError(exc) from exc
        except MQTTError as exc:
            await writer.close()
            raise MQTTError(exc) from exc
        except NoDataError as exc:
            raise AMQTTError(exc) from exc

        if session.client_id and self.client_connected(session.client_id):
            # Never log the id: it is what grants a bot's topics.
            log.warning("mqtt_client_id_in_use", peer=f"{remote_address}:{remote_port}")
            await ConnackPacket.build(0, IDENTIFIER_REJECTED).to_stream(writer)
            await writer.close()
            raise MQTTError("refused a client id that a connected client holds")
        if session.client_id:
            # No await since the check: no other CONNECT of this id can pass it now.
            self._handled_ids.add(session.client_id)
        try:
            return await self._adopt_session(session, handler)
        except BaseException:
            if session.client_id:
                self._handled_ids.discard(session.client_id)
            raise

    async def _adopt_session(
        self, session: Session, handler: BrokerProtocolHandler
    ) -> tuple[BrokerProtocolHandler, Session]:
        """The rest of amqtt 0.12.1's `_initialize_client_session`, unchanged."""
        if session.clean_session:
            if session.client_id:
                await self._delete_session(session.client_id)
            else:
                session.client_id = gen_client_id()
            session.parent = 0
        elif session.client_id in self._sessions:
            existing, _ = self._sessions[session.client_id]
            existing.will_flag = session.will_flag
            existing.will_message = session.will_message
            existing.will_topic = session.will_topic
            existing.will_qos = session.will_qos
            existing.keep_alive = session.keep_alive
            existing.username = session.username
            existing.password = session.password
            session = existing
            session.parent = 1
        else:
            session.parent = 0
        delay = self.config.get("timeout-disconnect-delay", 0)
        if session.keep_alive > 0 and isinstance(delay, int):
            session.keep_alive += delay
        return handler, session

    async def _handle_client_session(
        self,
        reader: ReaderAdapter,
        writer: WriterAdapter,
        client_session: Session,
        handler: BrokerProtocolHandler,
        server: Server,
        listener_name: str,
    ) -> None:
        try:
            await super()._handle_client_session(
                reader, writer, client_session, handler, server, listener_name
            )
        finally:
            client_id = client_session.client_id
            if client_id:
                self._handled_ids.discard(client_id)
            if client_id in self._bot_clients:
                self._bot_clients.discard(client_id)
                await self._tell_gone(client_id)
            # amqtt leaves a client it refused at login registered as connected, for ever: its
            # id would then look taken (above), and each such client would cost memory.
            entry = self._sessions.get(client_id) if client_id else None
            if (
                client_id
                and entry is not None
                and entry[0] is client_session
                and client_session.transitions.state == "connected"
            ):
                del self._sessions[client_id]
                client_session.transitions.disconnect()


async def start_broker(host: str, port: int, server_password: str) -> ArenaBroker:
    """An `ArenaBroker` on ``host:port`` (no $SYS topics) with our login and topic ACL, the
    server logging in as `SERVER_USER` with ``server_password``; call ``shutdown()`` on it."""
    # amqtt (and the state-machine library under it) log every step at INFO; the server's own
    # logs say what matters.
    for noisy in ("amqtt", "transitions"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    secret = {"server_password": server_password}
    # amqtt splits "host:port" at the last colon: an IPv6 address goes without brackets (it
    # would keep them and fail to resolve "[::1]").
    broker = ArenaBroker(
        {
            "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}"}},
            "plugins": {
                f"{__name__}.EmbeddedBrokerAuth": secret,
                f"{__name__}.EmbeddedBrokerAcl": secret,
            },
        },
        server_password,
    )
    await broker.start()
    return broker
