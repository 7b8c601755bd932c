"""Mutation gaps of `arena/transports/websocket.py`: what its links, its listener and the
referee's `WebSocketSeat` promise, checked against a bare websocket peer.

The promises are docs/NETWORK.md's ("Performance": a request goes out at once with every event
queued before it; "Robustness" and "A referee that loses the server": keep-alive, handshake
timeout, `ServerLost`) and those of `arena.server.links.Link` and `arena.transports.base.Seat`.
Where a mutant would hold a frame back (for ever, or for an hour of linger), the test waits for
it under a generous bound, which only a broken transport ever reaches: nothing here is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import LOOPBACK, running_server, scaled, wait_until
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from wire_samples import solve_observation

from arena.errors import ServerLost
from arena.server.hub import Limits
from arena.transports.base import SeatFailure
from arena.transports.websocket import (
    MAX_BACKLOG_BYTES,
    FrameBatcher,
    WebSocketLink,
    WebSocketSeat,
    write_frames,
)
from protocol.codec import encode, parse_message
from protocol.games.bulls_cows import GuessMade
from protocol.messages import Action, Error, ErrorCode, Event, Request

AN_HOUR = 3600.0
"""A linger no test waits out: a frame still queued behind it was not sent."""


def bound(seconds: float = 10.0) -> asyncio.Timeout:
    """A generous limit for something that happens at once unless the transport is broken."""
    return asyncio.timeout(scaled(seconds))


def port_of(server: Any) -> int:
    port: int = next(iter(server.sockets)).getsockname()[1]
    return port


# --- WebSocketLink and its FrameBatcher ----------------------------------------------------


@asynccontextmanager
async def link_and_peer(linger_s: float) -> AsyncIterator[tuple[WebSocketLink, ClientConnection]]:
    """A `WebSocketLink` on the server's side of a connection, and the client at its other end."""
    accepted: asyncio.Queue[ServerConnection] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await accepted.put(connection)
        await connection.wait_closed()

    async with (
        serve(handler, LOOPBACK, 0, compression=None) as server,
        connect(f"ws://{LOOPBACK}:{port_of(server)}", compression=None) as client,
    ):
        async with bound():
            connection = await accepted.get()
        yield WebSocketLink(connection, linger_s), client


async def frames_of(client: ClientConnection, count: int) -> list[str]:
    async with bound():
        return [str(await client.recv()) for _ in range(count)]


async def test_an_urgent_frame_goes_out_at_once_behind_the_events_queued_before_it() -> None:
    async with link_and_peer(AN_HOUR) as (link, client):
        assert await link.send("event 1", urgent=False)
        assert await link.send("event 2", urgent=False)
        assert await link.send("request", urgent=True)
        assert await frames_of(client, 3) == ["event 1", "event 2", "request"]


async def test_a_full_queue_of_events_goes_out_without_waiting_for_the_linger() -> None:
    events = [f"event {n}" for n in range(FrameBatcher.MAX_QUEUED)]
    async with link_and_peer(AN_HOUR) as (link, client):
        for event in events:
            assert await link.send(event, urgent=False)
        assert await frames_of(client, len(events)) == events


async def test_events_alone_go_out_after_the_linger_every_time() -> None:
    async with link_and_peer(0.0) as (link, client):
        assert await link.send("first event", urgent=False)
        assert await frames_of(client, 1) == ["first event"]
        assert await link.send("second event", urgent=False)
        assert await frames_of(client, 1) == ["second event"]


async def test_closing_a_link_sends_what_is_queued_then_closes_with_the_reason() -> None:
    async with link_and_peer(AN_HOUR) as (link, client):
        assert await link.send("last event", urgent=False)
        await link.close("table closed")
        assert await frames_of(client, 1) == ["last event"]
        async with bound():
            await client.wait_closed()
        assert client.close_reason == "table closed"


async def test_a_long_close_reason_is_cut_to_what_a_close_frame_holds_at_a_character() -> None:
    # 1 + 2 × 100 bytes: the cut (123 bytes, less 3 for the "…" that marks it) falls inside a
    # two-byte character.
    reason = "x" + "é" * 100
    async with link_and_peer(0.0) as (link, client):
        await link.close(reason)
        async with bound():
            await client.wait_closed()
    told = client.close_reason
    assert told is not None and told.endswith("…")
    assert reason.startswith(told[:-1])
    assert 100 < len(told.encode("utf-8")) <= 123


async def test_an_aborted_link_reports_every_later_send_as_lost() -> None:
    async with link_and_peer(0.0) as (link, _client):
        link.abort()
        assert await link.send("too late") is False
        assert await link.send("too late", urgent=False) is False


async def test_a_link_names_its_peer_by_address_and_port() -> None:
    async with link_and_peer(0.0) as (link, client):
        host, port = client.local_address[:2]
        assert link.peer == f"{host}:{port}"


# --- the server's listener ---------------------------------------------------------------


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout if never)."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


async def test_a_peer_that_never_finishes_the_handshake_is_closed() -> None:
    """NETWORK.md, Robustness: silence after connecting is not waited on for ever, even before
    the websocket handshake."""
    async with running_server(limits=Limits(hello_timeout_s=0.2)) as server:
        with socket.create_connection((LOOPBACK, server.port)) as sock:
            sock.settimeout(scaled(20))
            await asyncio.to_thread(read_until_closed, sock)


def server_frames(stream: bytes) -> list[tuple[int, bytes]]:
    """The complete (opcode, payload) frames of a server's byte stream (server frames are not
    masked)."""
    frames = []
    while len(stream) >= 2:
        opcode, size, head = stream[0] & 0x0F, stream[1] & 0x7F, 2
        if size == 126:
            if len(stream) < 4:
                break
            size, head = struct.unpack("!H", stream[2:4])[0], 4
        elif size == 127:
            if len(stream) < 10:
                break
            size, head = struct.unpack("!Q", stream[2:10])[0], 10
        if len(stream) < head + size:
            break
        frames.append((opcode, stream[head : head + size]))
        stream = stream[head + size :]
    return frames


CLOSE_OPCODE = 0x8
PING_OPCODE = 0x9


def handshake(sock: socket.socket) -> None:
    """Open a websocket on ``sock`` by hand, reading not one byte past the server's answer."""
    sock.sendall(
        b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "the server closed the connection during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """One client frame (a client must mask; payloads under 126 bytes)."""
    mask = b"\x01\x02\x03\x04"
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


def wait_for_close_frame(sock: socket.socket) -> list[int]:
    """Read (and never answer) until the server sends a close frame; the opcodes seen."""
    received = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            return [opcode for opcode, _ in server_frames(received)]
        received += chunk
        opcodes = [opcode for opcode, _ in server_frames(received)]
        if CLOSE_OPCODE in opcodes:
            return opcodes


async def test_a_peer_that_never_answers_the_pings_is_closed() -> None:
    """NETWORK.md: a dead link is noticed by the keep-alive (a ping, closed when unanswered)."""
    async with running_server(
        ping_interval_s=0.1, limits=Limits(hello_timeout_s=scaled(600))
    ) as server:
        with socket.create_connection((LOOPBACK, server.port)) as sock:
            sock.settimeout(scaled(20))
            await asyncio.to_thread(handshake, sock)
            opcodes = await asyncio.to_thread(wait_for_close_frame, sock)
    assert PING_OPCODE in opcodes
    assert opcodes[-1] == CLOSE_OPCODE


# --- WebSocketSeat -----------------------------------------------------------------------

Script = Callable[[ServerConnection], Awaitable[None]]


@asynccontextmanager
async def seat_served_by(script: Script, **options: Any) -> AsyncIterator[WebSocketSeat]:
    """A `WebSocketSeat` whose seat connection leads to ``script`` instead of a server."""
    async with serve(script, LOOPBACK, 0, compression=None) as server:
        connection = await connect(f"ws://{LOOPBACK}:{port_of(server)}", compression=None)
        seat = WebSocketSeat(connection, slot=0, bot="alice", **options)
        try:
            yield seat
        finally:
            await seat.aclose()


def request(seq: int) -> Request:
    return Request(
        match="m", game="g0", seat=0, seq=seq, deadline_ms=60_000, observation=solve_observation(0)
    )


def action(seq: int) -> Action:
    return Action(match="m", game="g0", seat=0, seq=seq, action="guess 1234")


def event() -> Event:
    return Event(match="m", game="g0", seat=0, payload=GuessMade(seat=1, guess="1234", number=1))


def answering(reply: Callable[[int], list[str]], seen: list[str] | None = None) -> Script:
    """A server that sends ``reply(seq)`` (in one write) for every request, noting every frame."""

    async def script(connection: ServerConnection) -> None:
        async for frame in connection:
            if seen is not None:
                seen.append(str(frame))
            message = parse_message(frame)
            if isinstance(message, Request):
                await write_frames(connection, reply(message.seq))

    return script


async def ask(seat: WebSocketSeat, seq: int) -> Action:
    async with bound():
        return await seat.ask(request(seq))


async def test_an_action_for_another_request_does_not_answer_this_one() -> None:
    async with seat_served_by(
        answering(lambda seq: [encode(action(seq - 1)), encode(action(seq))])
    ) as seat:
        assert (await ask(seat, 5)).seq == 5


async def test_an_error_without_a_seq_fails_the_pending_request() -> None:
    """The server's ``error`` about the seat connection itself (no seq) is that request's failure:
    no answer will come for it."""
    late = Error(code=ErrorCode.LATE, text="bot alice is disconnected")
    async with seat_served_by(answering(lambda seq: [encode(late)])) as seat:
        with pytest.raises(SeatFailure) as failure:
            await ask(seat, 1)
    assert failure.value.code is ErrorCode.LATE


async def test_an_error_about_another_request_does_not_fail_this_one() -> None:
    def reply(seq: int) -> list[str]:
        stale = Error(code=ErrorCode.LATE, text="an older request", seq=seq - 1)
        return [encode(stale), encode(action(seq))]

    async with seat_served_by(answering(reply)) as seat:
        assert (await ask(seat, 2)).seq == 2


async def test_a_second_answer_to_an_answered_request_is_ignored() -> None:
    async with seat_served_by(answering(lambda seq: [encode(action(seq))] * 2)) as seat:
        assert (await ask(seat, 1)).seq == 1
        assert (await ask(seat, 2)).seq == 2
        assert not seat.closed


async def test_a_frame_that_is_no_message_is_skipped_and_the_answer_still_taken() -> None:
    async with seat_served_by(answering(lambda seq: ["not json", encode(action(seq))])) as seat:
        assert (await ask(seat, 1)).seq == 1


def closing(how: Callable[[ServerConnection], Awaitable[None]]) -> Script:
    async def script(connection: ServerConnection) -> None:
        async for _frame in connection:
            await how(connection)
            return

    return script


async def close_plainly(connection: ServerConnection) -> None:
    await connection.close()


async def drop(connection: ServerConnection) -> None:
    connection.transport.abort()


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        (close_plainly, "the server closed the seat connection"),
        (drop, "the connection to the server dropped"),
    ],
)
async def test_a_seat_connection_lost_mid_request_says_whether_the_server_closed_it(
    how: Callable[[ServerConnection], Awaitable[None]],
    reason: str,
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    async with seat_served_by(closing(how)) as seat:
        with pytest.raises(ServerLost) as lost:
            await ask(seat, 1)
    logs = structured_logs()
    assert lost.value.reason == reason
    assert [entry["reason"] for entry in logs if entry["event"] == "seat_connection_closed"] == [
        reason
    ]


async def test_an_error_for_the_bot_goes_out_at_once_whatever_the_linger() -> None:
    received: asyncio.Queue[str] = asyncio.Queue()

    async def script(connection: ServerConnection) -> None:
        async for frame in connection:
            await received.put(str(frame))

    told = Error(code=ErrorCode.INVALID_ACTION, text="not legal", seq=1)
    async with seat_served_by(script, linger_s=AN_HOUR) as seat:
        await seat.send(told)
        async with bound():
            assert parse_message(await received.get()) == told


async def test_a_request_goes_out_at_once_behind_the_events_before_it() -> None:
    seen: list[str] = []
    async with seat_served_by(
        answering(lambda seq: [encode(action(seq))], seen), linger_s=AN_HOUR
    ) as seat:
        await seat.send(event())
        assert (await ask(seat, 1)).seq == 1
    assert [parse_message(frame) for frame in seen] == [event(), request(1)]


async def test_a_seat_closed_by_the_referee_logs_no_warning_and_leaves_no_reader(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    async def quiet(connection: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            await connection.wait_closed()

    async with seat_served_by(quiet) as seat:
        await seat.send(event())
    readers = [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") == "WebSocketSeat._read"
    ]
    logs = structured_logs()
    assert readers == []
    assert [entry for entry in logs if entry["level"] == "warning"] == []


async def test_a_peer_dropped_for_not_reading_is_logged_with_the_reason(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    """The operator's only word on why a bot vanished: the warning `peer_not_reading`."""
    async with running_server(ping_interval_s=None) as server:
        with socket.socket() as sock:
            # A small window (set before connecting, so the server sees it from the start),
            # and nothing read after the handshake: the server's pongs pile up unsent until
            # the backlog cap drops the connection.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(scaled(20))
            sock.connect((LOOPBACK, server.port))
            await asyncio.to_thread(handshake, sock)
            ping = masked_frame(PING_OPCODE, b"p" * 125) * 1000
            with contextlib.suppress(OSError):
                for _ in range(3 * MAX_BACKLOG_BYTES // len(ping) + 1):
                    await asyncio.to_thread(sock.sendall, ping)
            await wait_until(lambda: not server.hub.connections, "the peer to be dropped")
    logs = structured_logs()
    dropped = [entry for entry in logs if entry["event"] == "peer_not_reading"]
    assert len(dropped) == 1
    assert "unread by the peer" in dropped[0]["why"]
