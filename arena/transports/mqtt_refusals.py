"""What a broker's refusals mean, read the same way by the server's client
(`arena.transports.mqtt`) and by bots (`bots.adapters`): a refused login, a refused subscription
and a TLS handshake that failed. None of them is worth a retry: each is one ``error:`` line."""

from __future__ import annotations

import ssl
from typing import Any

import aiomqtt
from paho.mqtt.reasoncodes import ReasonCode

_LOGIN_REFUSED = {4: "bad user name or password", 5: "not authorized"}
"""CONNACK codes of a refused login, MQTT 3.1.1's; paho reports them as MQTT 5 reason codes
(134, 135), mapped back in `login_refused`."""


def login_refused(exc: aiomqtt.MqttError) -> str | None:
    """The broker's reason when ``exc`` is a CONNACK refusing the login, else None."""
    if not isinstance(exc, aiomqtt.MqttCodeError):
        return None
    rc = exc.rc
    code = rc.value if isinstance(rc, ReasonCode) else rc or 0
    return _LOGIN_REFUSED.get(code - 130 if code in (134, 135) else code)


def login_refused_message(host: str, port: int, reason: str) -> str:
    return (
        f"the MQTT broker at {host}:{port} refused the login ({reason}): check the user and "
        "password in the URL"
    )


def subscription_refused(granted: tuple[int, ...] | list[Any]) -> bool:
    """A SUBACK's failure: 0x80 (MQTT 3.1.1) or a reason code of 0x80 or more (MQTT 5)."""
    return any(int(getattr(code, "value", code)) >= 0x80 for code in granted)


def tls_failure(exc: BaseException) -> str | None:
    """Why the broker's certificate was refused, when that is what ``exc`` (aiomqtt's error,
    raised from the ssl module's) comes down to, else None. A certificate the CA store does not
    trust will not be trusted on the next try either; other TLS errors (a handshake cut short
    by a broker restarting, say) may pass, so they are left to the reconnects."""
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
