"""What a broker's refusals mean to the server's client (`arena.transports.mqtt`): a refused
login, a refused subscription and a TLS handshake that failed. None of them is worth a retry.

The tables and messages are the wire's (`protocol.mqtt`), which bots read too; only the test
that an error is aiomqtt's coded one is made here, where aiomqtt is at hand.
"""

from __future__ import annotations

import aiomqtt

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
    "subscription_refused",
    "tls_failure",
    "tls_failure_message",
]


def login_refused(exc: aiomqtt.MqttError) -> str | None:
    """The broker's reason when ``exc`` is a CONNACK refusing the login, else None."""
    if not isinstance(exc, aiomqtt.MqttCodeError):
        return None
    return connack_refusal(exc.rc)
