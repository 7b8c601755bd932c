"""What the websocket listener logs of a connection that never becomes a websocket, and the close
reasons it sends (a bot author's walkthrough).

A plain HTTP request (``curl``, a health check, a port scanner) cost an ``[error] opening
handshake failed`` and a traceback of some 50 lines: now it is one line at info, with the peer
and the reason, while a fault of the server's own in the handshake stays an error. A close
reason longer than a close frame carries (123 bytes of UTF-8) was cut mid-word ("…makes one
wi"): now it ends at a word, with "…", and never inside a character.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    handshake_failures,
    raw_exchange,
    raw_peer,
    running_server,
    scaled,
    wait_until,
    ws_url,
)
from websockets.asyncio.client import connect
from websockets.server import ServerProtocol

from arena.transports.websocket import CLOSE_REASON_BYTES, clip_close_reason

Logs = Callable[[], list[dict[str, Any]]]


def assert_no_error_records(caplog: pytest.LogCaptureFixture) -> None:
    loud = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert loud == [], [record.getMessage() for record in loud]
    # The library's own debug lines may carry one; nothing a server shows (info and up) does.
    shown = [record for record in caplog.records if record.levelno >= logging.INFO]
    assert [record.getMessage() for record in shown if record.exc_info] == []


async def test_a_plain_http_request_is_one_line_at_info(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server() as server:
        request = f"GET /health HTTP/1.1\r\nHost: {LOOPBACK}\r\nUser-Agent: probe\r\n\r\n"
        answer = await raw_exchange(server.port, request.encode())
        # The library still answers it with its own status (and a word on what went wrong).
        assert answer.startswith(b"HTTP/1.1 426 "), answer[:100]
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
    (entry,) = handshake_failures(structured_logs)
    assert entry["level"] == "info", entry
    assert entry["peer"].startswith(f"{LOOPBACK}:"), entry
    assert entry["path"] == "/health", entry
    assert "not a websocket upgrade" in entry["reason"], entry
    assert "Connection header" in entry["reason"], entry
    assert_no_error_records(caplog)


async def test_a_connection_closed_before_its_request_is_one_line_at_info(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture
) -> None:
    """A TCP health check or a port scanner: connect, then close without a word."""
    async with running_server() as server:
        _reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        writer.close()
        await writer.wait_closed()
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
        # A garbled request (a TLS hello on the plain port), too.
        await raw_exchange(server.port, b"\x16\x03\x01 not HTTP at all\r\n\r\n")
        await wait_until(lambda: len(handshake_failures(structured_logs)) == 2, "the second")
    closed, garbled = handshake_failures(structured_logs)
    assert "did not receive a valid HTTP request" in closed["reason"], closed
    assert closed["path"] is None, closed
    assert "did not receive a valid HTTP request" in garbled["reason"], garbled
    assert_no_error_records(caplog)


async def test_a_server_fault_in_the_handshake_stays_an_error(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: ServerProtocol, request: Any) -> Any:
        raise RuntimeError("a bug of the server's")

    async with running_server() as server:
        monkeypatch.setattr(ServerProtocol, "accept", broken)
        with pytest.raises(Exception):  # noqa: B017 - however the client sees the cut
            async with connect(ws_url(server), open_timeout=scaled(10)):
                pass

        def logged() -> bool:
            return any(record.levelno >= logging.ERROR for record in caplog.records)

        await wait_until(logged, "the error")
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert errors[0].exc_info is not None
    assert "a bug of the server's" in str(errors[0].exc_info[1])
    assert handshake_failures(structured_logs) == []


# -- close reasons ----------------------------------------------------------------------------

LONG = (
    "unknown token for bot tk1: the hello gave none, and this server admits only bots with a "
    "token (its operator makes one with `arena tokens add tk1`)"
)


def test_a_short_reason_is_kept_whole() -> None:
    assert clip_close_reason("the server is shutting down") == "the server is shutting down"
    exact = "x" * CLOSE_REASON_BYTES
    assert clip_close_reason(exact) == exact


def test_a_long_reason_is_cut_at_a_word_with_an_ellipsis() -> None:
    clipped = clip_close_reason(LONG)
    assert len(clipped.encode("utf-8")) <= CLOSE_REASON_BYTES
    assert clipped == (
        "unknown token for bot tk1: the hello gave none, and this server admits only bots with "
        "a token (its operator makes one…"
    )


@pytest.mark.parametrize("character", ["好", "é", "🀄"])
def test_a_long_reason_never_splits_a_character(character: str) -> None:
    for text in (character * 100, f"a {character * 3} " * 30):
        clipped = clip_close_reason(text)
        assert len(clipped.encode("utf-8")) <= CLOSE_REASON_BYTES
        assert clipped.endswith("…")
        assert text.startswith(clipped[:-1]), clipped
        clipped.encode("utf-8")  # whole characters only


def test_one_long_word_is_cut_within_it() -> None:
    clipped = clip_close_reason("y" * 500)
    assert clipped == "y" * (CLOSE_REASON_BYTES - 3) + "…"


async def test_a_bots_long_bye_closes_with_a_clipped_reason() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as bot:
        await bot.send({"type": "hello", "name": "wordy", "games": ["liars_dice"]})
        assert (await bot.recv())["type"] == "welcome"
        reason = "going home now, " + "和牌 " * 30 + "the end"
        await bot.send({"type": "bye", "reason": reason})
        assert await bot.closed()
        said = bot.connection.close_reason
    assert said is not None and said.endswith("…"), said
    assert len(said.encode("utf-8")) <= CLOSE_REASON_BYTES
    assert f"bye from the bot: {reason}".startswith(said[:-1]), said
    assert said[:-1].endswith("和牌"), said


async def test_a_websocket_client_logs_no_failure(structured_logs: Logs) -> None:
    """The control: a real websocket connection, on any path, is no failed handshake."""
    async with (
        running_server() as server,
        connect(ws_url(server) + "/any/path", open_timeout=scaled(10)),
    ):
        pass
    assert handshake_failures(structured_logs) == []
