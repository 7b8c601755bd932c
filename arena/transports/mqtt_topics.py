"""MQTT names of the server side: the embedded broker's ``gone`` notices, the server's own
client ids, log labels and its broker URL.

The names both sides share (the topic tree, bot client ids, URL splitting and redaction) are the
wire's, in `protocol.mqtt` and `protocol.urls`, where bots read them too; they are re-exported
here for the server's client (`arena.transports.mqtt`) and the embedded broker
(`arena.transports.mqtt_broker`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from urllib.parse import unquote

from arena.errors import ArenaError
from protocol.mqtt import (
    DEFAULT_PORT,
    DEFAULT_TLS_PORT,
    TOPIC_ROOT,
    UP_FILTER,
    bot_client_id,
    bot_topic,
    down_topic,
    is_bot_client_id,
    is_topic_level,
    parse_bot_topic,
    parse_up_topic,
    up_topic,
)
from protocol.urls import redact_url, split_url

__all__ = [
    "DEFAULT_PORT",
    "DEFAULT_TLS_PORT",
    "GONE_FILTER",
    "PRESENCE_TOPIC",
    "SERVER_CLIENT_PREFIX",
    "SERVER_FILTER",
    "SERVER_ROOT",
    "SERVER_USER",
    "TOPIC_ROOT",
    "UP_FILTER",
    "URL_FORM",
    "BrokerUrl",
    "MqttConfigError",
    "bot_client_id",
    "down_topic",
    "gone_topic",
    "is_bot_client_id",
    "owns_topic",
    "parse_bot_topic",
    "parse_mqtt_url",
    "parse_up_topic",
    "peer_label",
    "redact_url",
    "split_url",
    "topic_pairs",
    "up_topic",
]

SERVER_ROOT = "arena/v1/server"
"""Topics of arena servers only (no bot needs them): `PRESENCE_TOPIC` and the probes of
`arena.transports.mqtt.MqttBridge`'s presence check."""
SERVER_FILTER = f"{SERVER_ROOT}/#"
PRESENCE_TOPIC = f"{SERVER_ROOT}/presence"
"""The retained marker of the arena server that serves bots on this broker: a second server
that finds another's there refuses to start (docs/NETWORK.md, "Two servers on one broker")."""
GONE_FILTER = f"{TOPIC_ROOT}/+/+/gone"
"""The embedded broker's notices to the server that a bot connection has ended (`gone_topic`);
no bot may publish there."""
SERVER_USER = "arena-server"
SERVER_CLIENT_PREFIX = "arena-server:"
"""The server's MQTT client ids start so: ``:`` is no character of a name, so no bot's client id
(``<name>-<conn>``) is ever one, and the embedded broker lets only the server use them."""
URL_FORM = "expected mqtt[s]://[USER:PASSWORD@]HOST[:PORT]"


class MqttConfigError(ArenaError, ValueError):
    """An MQTT URL or broker set-up the server cannot use."""


def gone_topic(name: str, conn: str) -> str:
    """Where the embedded broker tells the server that the client of ``name``/``conn`` has
    disconnected, however it left (a clean disconnect discards its will)."""
    return bot_topic(name, conn, "gone")


def topic_pairs(client_id: str) -> list[tuple[str, str]]:
    """Every ``(name, conn)`` whose `bot_client_id` is ``client_id``: both may hold ``-``, so
    ``a-b-c`` names ``(a, b-c)`` and ``(a-b, c)`` alike (and the embedded broker grants it the
    topics of both)."""
    pairs = []
    for at, char in enumerate(client_id):
        if char == "-":
            name, conn = client_id[:at], client_id[at + 1 :]
            if is_topic_level(name) and is_topic_level(conn):
                pairs.append((name, conn))
    return pairs


def peer_label(name: str, conn: str) -> str:
    """How logs name a bot connection: ``mqtt:<name>/<hash>``. Never ``<conn>`` itself: on the
    embedded broker the client id ``<name>-<conn>`` is what grants its topics, so whoever reads
    the logs could take over the connection; a short hash still tells connections apart."""
    digest = hashlib.sha256(conn.encode("utf-8")).hexdigest()[:8]
    return f"mqtt:{name}/{digest}"


def owns_topic(client_id: str | None, topic: str, direction: str) -> bool:
    """True when ``topic`` is the ``direction`` (``up`` or ``down``) topic of the bot connection
    whose `bot_client_id` is ``client_id``. A filter with wildcards is never one: ``+`` and
    ``#`` are not allowed in names."""
    owner = parse_bot_topic(topic, direction)
    return owner is not None and client_id == bot_client_id(*owner)


@dataclass(frozen=True)
class BrokerUrl:
    """A broker's address and what its URL says of the connection: the login (user and
    password, percent-decoded) and whether to speak TLS. Its text is ``HOST:PORT``, so a log
    line or message that shows it never shows the password."""

    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def plain(self) -> bool:
        """No login and no TLS: the only kind of URL an embedded broker may stand in for."""
        return self.username is None and not self.tls


def parse_mqtt_url(url: str) -> BrokerUrl:
    """``mqtt://[USER[:PASSWORD]@]HOST[:PORT]`` (port 1883) or ``mqtts://…`` (TLS with the
    system's CA store, port 8883)."""
    try:
        parts, port = split_url(url, URL_FORM)
    except ValueError as exc:
        raise MqttConfigError(str(exc)) from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise MqttConfigError(f"{redact_url(url)!r}: {URL_FORM}")
    tls = parts.scheme == "mqtts"
    return BrokerUrl(
        parts.hostname,
        port or (DEFAULT_TLS_PORT if tls else DEFAULT_PORT),
        username=unquote(parts.username) if parts.username is not None else None,
        password=unquote(parts.password) if parts.password is not None else None,
        tls=tls,
    )
