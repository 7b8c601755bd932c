"""What a broker's refusals mean to the server's client (`arena.transports.mqtt`): a refused
login, a refused subscription and a TLS handshake that failed. None of them is worth a retry.

The tables and messages are the wire's (`protocol.mqtt`), which bots read too; only the test
that an error is aiomqtt's coded one is made here, where aiomqtt is at hand.
"""

from __future__ import annotations

import aiomqtt

from arena.server.auth import is_loopback
from protocol.mqtt import (
    connack_refusal,
    login_refused_message,
    subscription_refused,
    tls_failure,
    tls_failure_message,
)

__all__ = [
    "login_refused",
    "login_refused_message",
    "server_login_refused_message",
    "subscription_refused",
    "tls_failure",
    "tls_failure_message",
]


def login_refused(exc: aiomqtt.MqttError) -> str | None:
    """The broker's reason when ``exc`` is a CONNACK refusing the login, else None."""
    if not isinstance(exc, aiomqtt.MqttCodeError):
        return None
    return connack_refusal(exc.rc)


def server_login_refused_message(host: str, port: int, reason: str, *, with_login: bool) -> str:
    """`login_refused_message` for the server's own login. A URL without a user, on a loopback
    address, most likely names another ``arena serve``'s embedded broker: it lets in no server
    but its own (`arena.transports.mqtt_broker.EmbeddedBrokerAuth`), so "check the user and
    password" would send the operator after a login that no URL could give."""
    if with_login or not is_loopback(host):
        return login_refused_message(host, port, reason, with_login=with_login)
    return (
        f"the MQTT broker at {host}:{port} refused the login ({reason}), and the URL gives no "
        "user or password: if another `arena serve --mqtt` runs on that address, this is its "
        "embedded broker, which only that server may use (no second server can share it: give "
        "this one another --mqtt address; docs/NETWORK.md, Two servers on one broker); a broker "
        "that wants a login takes mqtt://USER:PASSWORD@HOST:PORT"
    )
