"""The broker the arena server serves on, as its MQTT client deals with it apart from the bots'
messages: whether one answers at the ``--mqtt`` address (`broker_reachable`), the embedded one
started when none does (`start_embedded_broker`), the login the server presents (`BrokerLogin`),
and the check that no other arena server serves bots on it (`BrokerPresence`: a presence marker
retained on `PRESENCE_TOPIC`, whose methods `MqttBridge` inherits). It is apart from
`arena.transports.mqtt` because none of it carries a bot's message: it runs at the server's
start, when the bridge connects and at a clean stop; `arena.transports.mqtt` imports this
module, never the other way round (`BrokerPresence` declares what it uses of the bridge).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
import structlog

from arena.transports.mqtt_refusals import subscription_refused
from arena.transports.mqtt_topics import (
    PRESENCE_TOPIC,
    SERVER_FILTER,
    SERVER_ROOT,
    SERVER_USER,
    BrokerUrl,
    MqttConfigError,
)

log = structlog.get_logger(__name__)


QOS = 1
FLUSH_TIMEOUT_S = 10.0
"""How long a stopping server waits for the broker to acknowledge its last messages (the byes)."""
PRESENCE_CHECK_S = 2.0
"""How long the presence check waits for the broker to deliver the server's own probe (and,
before it, any retained marker of another server)."""


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
    """The MQTT credentials the server's client presents: the embedded broker's server login,
    or the user and password of the ``--mqtt`` URL."""

    username: str
    password: str | None = ""


async def start_embedded_broker(broker: BrokerUrl) -> tuple[Any, BrokerLogin]:
    """An embedded broker at ``broker``'s address (`arena.transports.mqtt_broker`) and the
    login the server's client must use on it; call ``shutdown()`` on the broker. Refused for a
    URL with a login or TLS: whoever wrote one expects a broker that checks them."""
    host, port = broker.host, broker.port
    if not broker.plain:
        raise MqttConfigError(
            f"no MQTT broker answers at {broker}; an embedded broker (no TLS, no logins) "
            "is only started for a URL without them (mqtt://HOST:PORT)"
        )
    # amqtt is imported only when a broker is embedded: it is the ``broker`` extra, since it
    # pins websockets to 15.0.1 and a bot's install should not be held to that.
    try:
        from arena.transports.mqtt_broker import start_broker
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "amqtt":
            raise
        raise MqttConfigError(
            "an embedded MQTT broker needs amqtt, which this installation lacks: install it "
            "with `pip install 'table-arena[broker]'` (a checkout's `.[dev]` has it), or run a "
            f"broker such as Mosquitto on {host}:{port}"
        ) from None

    password = secrets.token_urlsafe(32)
    return await start_broker(host, port, password), BrokerLogin(SERVER_USER, password)


class BrokerPresence:
    """The presence check of `MqttBridge` (see `_announce`), which sets these attributes in its
    ``__init__`` and raises with its ``_fatal``."""

    host: str
    port: int
    client: aiomqtt.Client | None
    instance: str
    marker: str
    takeover: bool
    _announced: bool
    _was_ready: bool
    _fatal: Callable[[str, str], MqttConfigError]

    async def _announce(self, client: aiomqtt.Client) -> None:
        """Check that no other arena server serves bots on this broker, then say that this one
        does: its marker, retained on `PRESENCE_TOPIC` (the connection's will clears it, and so
        does `withdraw`). Two servers on one broker would both answer every bot: two welcomes,
        and the second server's ``no_session`` for each of the bot's messages.

        The retained marker comes with the subscription, before the probe this server then
        publishes to itself: once the probe is back, any marker has been seen. A broker whose
        ACL keeps the server from ``arena/v1/server/#`` refuses the subscription or delivers
        nothing (Mosquitto): then nothing is checked, and that is logged."""
        granted = await client.subscribe(SERVER_FILTER, qos=QOS)
        if subscription_refused(granted):
            self._unchecked("the broker refused the subscription")
            return
        probe = f"{SERVER_ROOT}/probe/{self.instance}"
        await client.publish(probe, b"probe", qos=QOS)
        other: str | None = None
        try:
            async with asyncio.timeout(PRESENCE_CHECK_S):
                async for message in client.messages:
                    topic = str(message.topic)
                    if topic == probe:
                        break
                    if topic == PRESENCE_TOPIC:
                        other = self._other_server(message.payload)
        except TimeoutError:
            self._unchecked(f"its own probe did not come back within {PRESENCE_CHECK_S:g} s")
            return
        if other is not None:
            if not self.takeover or self._was_ready:
                raise self._fatal(
                    "mqtt_another_server",
                    f"another arena server ({other}) serves bots on the MQTT broker at "
                    f"{self.host}:{self.port}: two servers on one broker both answer every bot "
                    "(it gets two welcomes, and one server's no_session for every message). "
                    "Stop that server first; if it is gone (killed without the broker noticing, "
                    "its marker left behind), start with --mqtt-takeover",
                )
            log.warning("mqtt_server_takeover", other=other)
        await client.publish(PRESENCE_TOPIC, self.marker, qos=QOS, retain=True)
        self._announced = True

    def _unchecked(self, why: str) -> None:
        log.warning(
            "mqtt_presence_unchecked",
            why=why,
            consequence="a second arena server on this broker would not be noticed",
            fix=f"let the server's broker user read and write {SERVER_FILTER} (docs/NETWORK.md)",
        )

    def _other_server(self, payload: Any) -> str | None:
        """Who the presence marker ``payload`` says serves this broker, when not this server;
        None for this server's own marker and for a cleared one."""
        if not isinstance(payload, bytes | bytearray) or not payload:
            return None
        try:
            marker = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            marker = None
        if not isinstance(marker, dict):
            return "its marker unreadable"
        if marker.get("instance") == self.instance:
            return None
        return (
            f"pid {marker.get('pid')} on host {marker.get('host')!r}, started "
            f"{marker.get('started')}"
        )

    def _server_message(self, topic: str, payload: Any, retain: bool) -> None:
        """A message on the servers' topics while serving: another server's marker published
        now (it started with --mqtt-takeover) is logged, and this server leaves it in place
        when it stops."""
        if topic != PRESENCE_TOPIC or retain:
            return  # probes, and the marker replayed with a subscription (`_announce` read it)
        other = self._other_server(payload)
        if other is not None:
            self._announced = False
            log.error(
                "mqtt_another_server",
                other=other,
                consequence="both servers answer every bot on this broker: stop one",
            )

    async def withdraw(self, timeout_s: float = FLUSH_TIMEOUT_S) -> None:
        """Clear this server's presence marker (a clean stop): the next server may start."""
        client = self.client
        if client is None or not self._announced:
            return
        self._announced = False
        try:
            async with asyncio.timeout(timeout_s):
                await client.publish(PRESENCE_TOPIC, b"", qos=QOS, retain=True)
        except (aiomqtt.MqttError, TimeoutError) as exc:
            log.warning("mqtt_presence_not_cleared", error=repr(exc))
