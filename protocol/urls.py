"""Server URLs as both sides read them: split, and shown without their password. No I/O.

Shared by the server (`arena.transports.mqtt_topics`, for its ``--mqtt`` broker URL) and the
bots' client (`bots.adapters`, for ``ws://`` and ``mqtt[s]://`` URLs): bots may not import the
referee's transports, and the two must refuse and redact a URL alike.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

_ENCODE = ": @ / ? # % as %3A %40 %2F %3F %23 %25"


def redact_url(url: str) -> str:
    """``url`` with the password of its user info (if any) as ``***``: for every message and
    log line that shows a broker URL."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, address = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{address}"


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
