"""A peer that goes away in the middle of the websocket handshake is one ``handshake_failed`` line
at info, like one that never sends a request (a soak test's findings).

The library reports such a peer as ``ConnectionClosedError``, which the server let through: each
cost an ``[error] opening handshake failed`` with a traceback of some 58 lines, a log flood any
client could cause. A peer that reset the connection while the answer was being written logged
nothing at all, and a plain HTTP client that kept its connection open after the ``426`` past the
close timeout was an error again. Which of these a real peer hits depends on the scheduling, so
each test here holds the library's handshake at one point until the peer has done its part.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from net_helpers import LOOPBACK, handshake_failures, running_server, scaled, wait_until
from websockets.asyncio.server import ServerConnection

import arena.transports.websocket as websocket_transport

Logs = Callable[[], list[dict[str, Any]]]
Handshake = Callable[..., Awaitable[None]]


def assert_no_error_records(caplog: pytest.LogCaptureFixture) -> None:
    loud = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert loud == [], [record.getMessage() for record in loud]


def upgrade_request(port: int, path: str = "/") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


@pytest.fixture
def library_handshake(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Handshake], None]]:
    """Replace the library's handshake (the one the server's `GuardedConnection` wraps) by a
    wrapper given the original."""
    original: Handshake = ServerConnection.handshake

    def install(wrap: Callable[[ServerConnection, Handshake], Awaitable[None]]) -> None:
        async def wrapper(self: ServerConnection, *args: Any, **kwargs: Any) -> None:
            async def call_original() -> None:
                await original(self, *args, **kwargs)

            await wrap(self, call_original)

        monkeypatch.setattr(ServerConnection, "handshake", wrapper)

    yield install


async def test_a_peer_that_closes_before_the_answer_is_one_line_at_info(
    structured_logs: Logs,
    caplog: pytest.LogCaptureFixture,
    library_handshake: Callable[[Any], None],
) -> None:
    """The soak test's case: a valid upgrade request, then the peer's FIN, both in before the
    server answers."""

    async def after_the_peer_is_gone(connection: ServerConnection, handshake: Handshake) -> None:
        await asyncio.shield(connection.connection_lost_waiter)
        await handshake()

    library_handshake(after_the_peer_is_gone)
    async with running_server() as server:
        _reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        writer.write(upgrade_request(server.port, "/seat"))
        writer.write_eof()
        await writer.drain()
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
        writer.close()
    (entry,) = handshake_failures(structured_logs)
    assert entry["level"] == "info", entry
    assert entry["peer"].startswith(f"{LOOPBACK}:"), entry
    assert entry["path"] == "/seat", entry
    assert entry["reason"] == "the peer closed the connection during the handshake", entry
    assert_no_error_records(caplog)


async def test_a_peer_that_resets_while_answered_is_one_line_at_info(
    structured_logs: Logs,
    caplog: pytest.LogCaptureFixture,
    library_handshake: Callable[[Any], None],
) -> None:
    """The answer is written, then the connection is lost before the library hands it on: the
    library drops it without a word, yet it never reached the server either."""

    async def until_the_peer_is_gone(connection: ServerConnection, handshake: Handshake) -> None:
        await handshake()
        await asyncio.shield(connection.connection_lost_waiter)

    library_handshake(until_the_peer_is_gone)
    async with running_server() as server:
        reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        writer.write(upgrade_request(server.port))
        await writer.drain()
        async with asyncio.timeout(scaled(10)):
            status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 101 "), status
        # Closing with a zero linger time resets the connection.
        peer_socket = writer.get_extra_info("socket")
        peer_socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
    (entry,) = handshake_failures(structured_logs)
    assert entry["level"] == "info", entry
    assert entry["path"] == "/", entry
    assert entry["reason"] == (
        "the peer closed the connection during the handshake (Connection reset by peer)"
    ), entry
    assert_no_error_records(caplog)


async def test_a_refused_client_that_keeps_its_connection_is_one_line_at_info(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain HTTP client that does not close after the ``426``: the library gives up on it at
    the close timeout (shortened here so that the test need not wait the real one out)."""
    monkeypatch.setattr(websocket_transport, "CLOSE_TIMEOUT_S", 0.01)
    async with running_server() as server:
        reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        writer.write(f"GET /health HTTP/1.1\r\nHost: {LOOPBACK}\r\n\r\n".encode())
        await writer.drain()
        async with asyncio.timeout(scaled(10)):
            status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 426 "), status
        # Held open until the server has given up on it.
        await wait_until(lambda: bool(handshake_failures(structured_logs)), "the log line")
        writer.close()
    (entry,) = handshake_failures(structured_logs)
    assert entry["level"] == "info", entry
    assert entry["path"] == "/health", entry
    assert "not a websocket upgrade" in entry["reason"], entry
    assert entry["reason"].endswith("; the peer kept the connection open after the refusal"), entry
    assert_no_error_records(caplog)


async def test_a_server_fault_while_answering_stays_an_error(
    structured_logs: Logs, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: a write that fails through the server's own code (not the peer's going) is
    still an error, with its traceback, and no ``handshake_failed``."""

    async def broken_drain(self: websocket_transport.GuardedConnection) -> None:
        raise RuntimeError("a bug of the server's")

    monkeypatch.setattr(websocket_transport.GuardedConnection, "drain", broken_drain)
    async with running_server() as server:
        _reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        writer.write(upgrade_request(server.port))
        await writer.drain()

        def logged() -> bool:
            return any(record.levelno >= logging.ERROR for record in caplog.records)

        await wait_until(logged, "the error")
        writer.close()
    error = next(record for record in caplog.records if record.levelno >= logging.ERROR)
    assert error.exc_info is not None and error.exc_info[1] is not None
    assert "a bug of the server's" in str(error.exc_info[1].__cause__), error.exc_info
    assert handshake_failures(structured_logs) == []
