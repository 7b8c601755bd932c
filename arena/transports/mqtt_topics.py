"""MQTT names: the topic tree, the client ids that grant topics, and the broker URL.

Shared by the server's client (`arena.transports.mqtt`) and the embedded broker
(`arena.transports.mqtt_broker`); bots spell the same names in `bots.adapters` (a test checks
that both agree).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import SplitResult, unquote, urlsplit

from arena.errors import ArenaError

TOPIC_ROOT = "arena/v1/bots"
UP_FILTER = f"{TOPIC_ROOT}/+/+/up"
GONE_FILTER = f"{TOPIC_ROOT}/+/+/gone"
"""The embedded broker's notices to the server that a bot connection has ended (`gone_topic`);
no bot may publish there."""
DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883
SERVER_USER = "arena-server"
SERVER_CLIENT_PREFIX = "arena-server:"
"""The server's MQTT client ids start so: ``:`` is no character of a name, so no bot's client id
(``<name>-<conn>``) is ever one, and the embedded broker lets only the server use them."""
_LEVEL = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}-[A-Za-z0-9_.-]{1,64}$")
URL_FORM = "expected mqtt[s]://[USER:PASSWORD@]HOST[:PORT]"
_ENCODE = ": @ / ? # % as %3A %40 %2F %3F %23 %25"


class MqttConfigError(ArenaError, ValueError):
    """An MQTT URL or broker set-up the server cannot use."""


def up_topic(name: str, conn: str) -> str:
    return f"{TOPIC_ROOT}/{name}/{conn}/up"


def down_topic(name: str, conn: str) -> str:
    return f"{TOPIC_ROOT}/{name}/{conn}/down"


def gone_topic(name: str, conn: str) -> str:
    """Where the embedded broker tells the server that the client of ``name``/``conn`` has
    disconnected, however it left (a clean disconnect discards its will)."""
    return f"{TOPIC_ROOT}/{name}/{conn}/gone"


def parse_up_topic(topic: str) -> tuple[str, str] | None:
    """``(name, conn)`` of an up topic, or None for anything else."""
    return parse_bot_topic(topic, "up")


def parse_bot_topic(topic: str, direction: str) -> tuple[str, str] | None:
    """``(name, conn)`` of a bot connection's ``direction`` topic (``up``, ``down``, ``gone``),
    or None for anything else."""
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:3]) != TOPIC_ROOT or parts[5] != direction:
        return None
    name, conn = parts[3], parts[4]
    if not (_LEVEL.match(name) and _LEVEL.match(conn)):
        return None
    return name, conn


def topic_pairs(client_id: str) -> list[tuple[str, str]]:
    """Every ``(name, conn)`` whose `bot_client_id` is ``client_id``: both may hold ``-``, so
    ``a-b-c`` names ``(a, b-c)`` and ``(a-b, c)`` alike (and the embedded broker grants it the
    topics of both)."""
    pairs = []
    for at, char in enumerate(client_id):
        if char == "-":
            name, conn = client_id[:at], client_id[at + 1 :]
            if _LEVEL.match(name) and _LEVEL.match(conn):
                pairs.append((name, conn))
    return pairs


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


def is_bot_client_id(client_id: str) -> bool:
    """True for an id that can name a bot connection's topic pair (``<name>-<conn>``)."""
    return bool(_CLIENT_ID.match(client_id))


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


def redact_url(url: str) -> str:
    """``url`` with the password of its user info (if any) as ``***``: for every message and
    log line that shows a broker URL."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, address = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{address}"


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


def split_url(url: str, expected: str) -> tuple[SplitResult, int | None]:
    """``url`` split, and its port; `ValueError` naming the URL (its password hidden) and
    ``expected`` when it cannot be read. urlsplit's own message is shown only for a URL without a
    login: it quotes what it took for the port, which in a URL whose password holds an
    unencoded ``/ ? #`` is part of the password. An ``mqtt(s)://`` URL has no path, query or
    fragment, so one that seems to is such a password too, refused rather than misread."""
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        if "@" in url:
            why = "a bad port, or a character of the user or password not percent-encoded"
            raise ValueError(f"{shown!r}: {why} ({_ENCODE}); {expected}") from None
        # urlsplit's own words ("Port out of range 0-65535", "Invalid IPv6 URL") name no URL.
        raise ValueError(f"{shown!r}: {exc}; {expected}") from None
    if parts.scheme in ("ws", "wss") and ("#" in url or parts.fragment):
        # websockets refuses a fragment, quoting the whole URL, password and all.
        why = "a ws:// URL has no fragment"
        if "@" in url:
            why += f"; percent-encode the user and password ({_ENCODE})"
        raise ValueError(f"{shown!r}: {why}; {expected}")
    if parts.scheme in ("mqtt", "mqtts") and (
        parts.path not in ("", "/") or parts.query or parts.fragment or "?" in url or "#" in url
    ):
        why = "an MQTT URL has no path, query or fragment"
        if "@" in url:
            why += f"; percent-encode the user and password ({_ENCODE})"
        raise ValueError(f"{shown!r}: {why}; {expected}")
    return parts, port


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
