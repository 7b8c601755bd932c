"""What the listener logs of a failed handshake is the same whichever websockets version the
server runs on (15, 16 and 17: the pin's range).

websockets 17 stopped raising a refused handshake out of `ServerConnection.handshake` (it returns,
the refusal left in the protocol's ``handshake_exc``), stopped logging an exception that does
come out of it (it drops the connection without a word), and answers requests that 15 and 16
could not parse (a POST, HTTP/1.0, an overlong header line) with an HTTP status. The server's
`GuardedConnection` keeps one rule on all of them: a peer's failure is one ``handshake_failed``
line at info, a fault of the server's is one error with its traceback. Each test here runs under
whichever version is installed; the pin's range is tested by running them under each.
"""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Callable
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    handshake_failures,
    raw_exchange,
    running_server,
    wait_until,
)
from websockets.server import ServerProtocol

import arena.transports.websocket as websocket_transport

Logs = Callable[[], list[dict[str, Any]]]


def error_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.ERROR]


def upgrade_headers(port: int) -> str:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"Host: {LOOPBACK}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    )


@pytest.mark.parametrize(
    ("request_line", "extra_header", "named"),
    [
        ("POST /seat HTTP/1.1", "", ("POST",)),
        ("GET /seat HTTP/1.0", "", ("HTTP/1.0",)),
        # The wording is the library's: "line too long" (15, 16) or the limit (17).
        ("GET /seat HTTP/1.1", f"X-Filler: {'x' * 9000}\r\n", ("line too long", "8192")),
    ],
    ids=["post", "http-1.0", "overlong-header"],
)
async def test_a_request_only_some_versions_can_parse_is_one_line_at_info(
    structured_logs: Logs,
    caplog: pytest.LogCaptureFixture,
    request_line: str,
    extra_header: str,
    named: tuple[str, ...],
) -> None:
    """websockets 15 and 16 fail to parse these and close without an answer; 17 parses them and
    answers 405, 505 or 431. Either way: the peer's failure, one line at info naming what was
    wrong, and never a websocket."""
    async with running_server() as server:
        request = f"{request_line}\r\n{upgrade_headers(server.port)}{extra_header}\r\n"
        answer = await raw_exchange(server.port, request.encode())
        assert not answer.startswith(b"HTTP/1.1 101 "), answer[:100]
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
        assert not server.hub.connections
    (entry,) = handshake_failures(structured_logs)
    assert entry["level"] == "info", entry
    assert entry["peer"].startswith(f"{LOOPBACK}:"), entry
    assert any(words in entry["reason"] for words in named), entry
    assert error_records(caplog) == [], [record.getMessage() for record in error_records(caplog)]


async def test_a_fault_in_the_librarys_checks_of_the_request_is_one_error_and_a_500(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library catches a fault of the server's in its own checks of the request, logs it
    with its traceback and answers 500; websockets 15 and 16 then raise it out of the handshake
    as well, where it used to be logged a second time."""

    def broken(self: ServerProtocol, request: Any) -> Any:
        raise RuntimeError("a bug of the server's")

    monkeypatch.setattr(ServerProtocol, "process_request", broken)
    async with running_server() as server:
        request = f"GET / HTTP/1.1\r\n{upgrade_headers(server.port)}\r\n"
        answer = await raw_exchange(server.port, request.encode())
        assert answer.startswith(b"HTTP/1.1 500 "), answer[:100]
        await wait_until(lambda: bool(error_records(caplog)), "the error")
    (error,) = error_records(caplog)
    assert error.exc_info is not None and error.exc_info[1] is not None
    assert "a bug of the server's" in str(error.exc_info[1]), error.exc_info
    assert handshake_failures(structured_logs) == []


async def test_a_fault_while_answering_is_one_error_and_ends_the_connection(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write of the answer that fails through the server's own code: websockets 15 and 16
    would log it if it were raised out of the handshake, 17 would not, so the server logs it
    itself, once on every version, and the connection ends (the client is not left waiting)."""

    async def broken_drain(self: websocket_transport.GuardedConnection) -> None:
        raise RuntimeError("a bug of the server's")

    monkeypatch.setattr(websocket_transport.GuardedConnection, "drain", broken_drain)
    async with running_server() as server:
        request = f"GET / HTTP/1.1\r\n{upgrade_headers(server.port)}\r\n"
        await raw_exchange(server.port, request.encode())
        await wait_until(lambda: bool(error_records(caplog)), "the error")
        assert not server.hub.connections
    (error,) = error_records(caplog)
    assert error.getMessage() == "opening handshake failed"
    assert error.exc_info is not None and error.exc_info[1] is not None
    assert "a bug of the server's" in str(error.exc_info[1].__cause__), error.exc_info
    assert handshake_failures(structured_logs) == []
