"""The arena protocol over MQTT: the topic tree, the client ids, and what a broker's refusals
mean. No I/O, and no MQTT library: the codes come in as the numbers they are.

Topic tree (docs/NETWORK.md, MQTT)::

    arena/v1/bots/<name>/<conn>/up     bot → server: hello, action, ping, bye  (QoS 1)
    arena/v1/bots/<name>/<conn>/down   server → bot: welcome, event, request, error, bye

``<name>`` is the bot's name and ``<conn>`` an id the bot picks for each connection; both follow
the bot-name rule (`protocol.messages.NAME_PATTERN`), and the bot's MQTT client id is
``<name>-<conn>``. The server (`arena.transports.mqtt`, `arena.transports.mqtt_broker`) and the
bots' client (`bots.adapters`) both read these names from here, so they cannot drift apart.
"""

from __future__ import annotations

import re
import ssl
from collections.abc import Iterable
from typing import Any

from protocol.messages import NAME_CHARACTERS, NAME_PATTERN

TOPIC_ROOT = "arena/v1/bots"
UP_FILTER = f"{TOPIC_ROOT}/+/+/up"
DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883

_CLIENT_ID = re.compile(rf"{NAME_CHARACTERS}-{NAME_CHARACTERS}")


def is_topic_level(level: str) -> bool:
    """``level`` may be the ``<name>`` or ``<conn>`` of a bot connection's topics: the bot-name
    rule, which holds no ``/``, ``+`` or ``#``."""
    return NAME_PATTERN.match(level) is not None


def bot_topic(name: str, conn: str, direction: str) -> str:
    """The ``direction`` topic (``up``, ``down``; ``gone`` on the embedded broker) of the bot
    connection ``name``/``conn``."""
    return f"{TOPIC_ROOT}/{name}/{conn}/{direction}"


def up_topic(name: str, conn: str) -> str:
    return bot_topic(name, conn, "up")


def down_topic(name: str, conn: str) -> str:
    return bot_topic(name, conn, "down")


def bot_filter(name: str, direction: str) -> str:
    """The ``direction`` topics of every connection of bot ``name``: what a broker's ACL must
    let that bot's user read (``down``) or write (``up``)."""
    return f"{TOPIC_ROOT}/{name}/+/{direction}"


def parse_bot_topic(topic: str, direction: str) -> tuple[str, str] | None:
    """``(name, conn)`` of a bot connection's ``direction`` topic (``up``, ``down``, ``gone``),
    or None for anything else (a filter with wildcards among them)."""
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:3]) != TOPIC_ROOT or parts[5] != direction:
        return None
    name, conn = parts[3], parts[4]
    if not (is_topic_level(name) and is_topic_level(conn)):
        return None
    return name, conn


def parse_up_topic(topic: str) -> tuple[str, str] | None:
    """``(name, conn)`` of an up topic, or None for anything else."""
    return parse_bot_topic(topic, "up")


def bot_client_id(name: str, conn: str) -> str:
    """The MQTT client id of a bot connection: the embedded broker grants a client only the
    topic pair its id names."""
    return f"{name}-{conn}"


def is_bot_client_id(client_id: str) -> bool:
    """True for an id that can name a bot connection's topic pair (``<name>-<conn>``)."""
    return _CLIENT_ID.fullmatch(client_id) is not None


_LOGIN_REFUSED = {4: "bad user name or password", 5: "not authorized"}
"""CONNACK codes of a refused login, MQTT 3.1.1's; paho reports them as MQTT 5 reason codes
(134, 135), mapped back in `connack_refusal`."""


def connack_refusal(rc: object) -> str | None:
    """The broker's reason when ``rc`` (the code of a failed connect: an int, or paho's
    ``ReasonCode`` with its ``value``) refuses the login, else None. The caller checks that the
    error is the MQTT library's coded one (aiomqtt's ``MqttCodeError``)."""
    code = getattr(rc, "value", rc) or 0
    if not isinstance(code, int):
        return None
    return _LOGIN_REFUSED.get(code - 130 if code in (134, 135) else code)


def login_refused_message(host: str, port: int, reason: str, *, with_login: bool) -> str:
    """A refused login in one line. ``with_login``: the URL gave a user (and password), which
    are then what to check; a URL without them met a broker that wants them."""
    refused = f"the MQTT broker at {host}:{port} refused the login ({reason})"
    if with_login:
        return f"{refused}: check the user and password in the URL"
    return (
        f"{refused}: it wants a user and password, and the URL gives none "
        "(mqtt://USER:PASSWORD@HOST:PORT)"
    )


def subscription_refused(granted: Iterable[Any]) -> bool:
    """A SUBACK's failure: 0x80 (MQTT 3.1.1) or a reason code of 0x80 or more (MQTT 5)."""
    return any(int(getattr(code, "value", code)) >= 0x80 for code in granted)


def tls_failure(exc: BaseException) -> str | None:
    """Why the broker's certificate was refused, when that is what ``exc`` (the MQTT library's
    error, raised from the ssl module's) comes down to, else None. A certificate the CA store
    does not trust will not be trusted on the next try either; other TLS errors (a handshake cut
    short by a broker restarting, say) may pass, so they are left to the reconnects."""
    seen: BaseException | None = exc
    for _ in range(5):  # aiomqtt wraps once; a bound, not a walk of an endless chain
        if seen is None:
            return None
        if isinstance(seen, ssl.SSLCertVerificationError):
            return f"the broker's certificate is not trusted: {seen.verify_message}"
        seen = seen.__cause__ or seen.__context__
    return None


def tls_failure_message(host: str, port: int, reason: str) -> str:
    return (
        f"cannot speak TLS with the MQTT broker at {host}:{port} ({reason}): is it a TLS port, "
        "and does the system's CA store (or SSL_CERT_FILE) hold its certificate's issuer?"
    )
