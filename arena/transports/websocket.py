"""Websockets, both ends of the referee's side: the server's listener and the remote seat.

`serve_websockets` puts every incoming connection in front of the server's `Hub` (which decides
whether it is a bot, an admin or a seat). `WebSocketSeat` is the `Seat` a referee uses for a bot
seated on a server: it sends the referee's messages down the seat connection and turns the
answer or an ``error`` from the server into what the `Seat` protocol promises. A lost seat
connection is not a bot's failure (the server answers ``late`` for a bot that is gone, and keeps
the connection): it means the server is gone, and `ask` raises `ServerLost`.
Built on the websockets library's asyncio API (`websockets.asyncio`), versions 15 to 17:
`write_frames` and `GuardedConnection` use internals of it that those versions share, and
`GuardedConnection.handshake` copes with what they do differently.
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidUpgrade
from websockets.protocol import State

from arena.errors import ServerLost
from arena.server.hub import Hub
from arena.transports.base import SeatFailure
from protocol.codec import ProtocolError, encode, parse_message
from protocol.games.common import GameEnd, MatchEnd, MatchStart
from protocol.messages import Action, Error, Event, Request

log = structlog.get_logger(__name__)

EVENT_LINGER_S = 0.05
"""How long an event may wait for company in a write (see `FrameBatcher`). Between two of its
requests a mahjong bot is sent about six events; held back, they ride with the next request in
one write. Measured: 0.05 s cut the time per decision by a quarter against no wait."""
CLOSE_TIMEOUT_S = 2.0
"""How long a closing handshake may take before the socket is dropped."""
SEND_TIMEOUT_S = 5.0
"""How long a write to a peer may wait for the peer to read (for the server's send buffer to
drain) before the peer is taken for gone and its connection aborted. The server handles a
connection's frames one at a time, so without a limit a bot that stops reading would hold up
whatever writes to it for ever: its table's seat connection (and with it the referee's
keep-alive and the whole match), or the server's shutdown. An honest bot reads within
milliseconds; a few seconds also cover a loaded machine."""
MAX_BACKLOG_BYTES = 4 * 1024 * 1024
"""The most the server lets pile up unsent for one peer before it aborts the connection. The
websocket library answers each ping with a pong outside any flow control, so a peer that sends
pings and never reads would otherwise grow the server's memory as fast as it can send. The
server's own writes stop at the library's write limit (32 KiB) plus one batch of frames, far
below this."""

CLOSE_REASON_BYTES = 123
"""The most UTF-8 bytes a websocket close frame's reason may have (RFC 6455, 5.5)."""


def clip_close_reason(reason: str, limit: int = CLOSE_REASON_BYTES) -> str:
    """``reason`` as a close frame can carry it: whole if it fits in ``limit`` bytes of UTF-8,
    else cut at the end of a word (within one if a single word is that long), never inside a
    character, with "…" to say that something is missing. The full text goes in the ``bye``
    or ``error`` before the close; this is only what the peer's websocket library shows."""
    data = reason.encode("utf-8", "replace")  # a lone surrogate (JSON allows one) as "?"
    reason = data.decode("utf-8")
    if len(data) <= limit:
        return reason
    ellipsis = "…"
    kept = data[: limit - len(ellipsis.encode("utf-8"))].decode("utf-8", "ignore")
    if not reason[len(kept)].isspace():
        word_start = max(kept.rfind(" "), kept.rfind("\n"))
        if word_start > 0:
            kept = kept[:word_start]
    return kept.rstrip(" \t\n,;:") + ellipsis


async def write_frames(connection: ServerConnection | ClientConnection, texts: list[str]) -> None:
    """Send ``texts`` as text frames with one socket write. Raises ConnectionClosed.

    One write per frame would cost a system call and a wake-up of the peer for each; a mahjong
    turn sends a bot up to a dozen frames. This uses the library's sans-I/O protocol object
    inside its `send_context`, which does the state checks and flow control of `send`.
    """
    async with connection.send_context():
        protocol = connection.protocol
        for text in texts:
            protocol.send_text(text.encode("utf-8"))
        chunks = protocol.data_to_send()
        connection.transport.writelines([chunk for chunk in chunks if chunk])
        if not all(chunks):
            # An end-of-stream marker (only while closing): half-close as the library would.
            if connection.transport.can_write_eof():
                connection.transport.write_eof()
            else:
                connection.transport.close()


class PeerNotReading(ConnectionError):
    """The peer did not read what the server sent it (see `SEND_TIMEOUT_S`)."""


class GuardedConnection(ServerConnection):
    """The server's side of a websocket connection, which gives up on a peer that does not read:
    a write waits at most `SEND_TIMEOUT_S` for the peer, and at most `MAX_BACKLOG_BYTES` may
    wait unsent. Either way the connection is aborted, and whatever was writing to it gets
    `ConnectionClosed`: the hub then treats the peer as gone (a seated bot turns absent and the
    referee plays its fallbacks)."""

    dropped_because: str | None = None
    """Why this connection gave up on its peer, once it has."""

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        """The opening handshake. One that fails through the peer (a plain HTTP request from a
        health check, a browser or a port scanner, a malformed request, a connection closed
        before its request or in the middle of the handshake, a refused client that keeps the
        connection open past `CLOSE_TIMEOUT_S`) is logged here in one line, at info, and the
        connection ends quietly (the library has answered an HTTP request with its error
        status); websockets 15 and 16 would log each at error, with a traceback. Anything else
        is a fault of the server's: an error, with its traceback, and the connection ends."""
        try:
            await super().handshake(*args, **kwargs)
        except InvalidHandshake as exc:
            # websockets 15 and 16 raise a refusal; 17 returns (see below).
            reason = self._refusal(exc)
        except ConnectionClosed as exc:
            # The library turns whatever ends the connection in the middle of the handshake
            # into ConnectionClosed, chained to its cause. A cause outside the peer's doing is
            # a fault of the server's, and stays an error (one raised inside the library's
            # send_context it has logged already, as an "unexpected internal error").
            if self._failed_in_accept() or not self._peer_went_away(exc.__cause__):
                await self._end_on_server_fault(exc)
                return
            reason = self._gone_during_handshake(exc.__cause__)
        except Exception as exc:
            await self._end_on_server_fault(exc)
            return
        else:
            if self.protocol.state is State.OPEN:
                return
            if self._failed_in_accept():
                await self._end_on_server_fault(None)
                return
            # websockets 17 returns from a refusal (left in the protocol's handshake_exc) and
            # when the peer went away before the answer; every version returns when the peer
            # went away while the answer was being written. Either way the connection never
            # became a websocket.
            reason = self._gone_during_handshake(None)
        path = self.request.path if self.request is not None else None
        log.info("handshake_failed", peer=self._peer(), reason=reason, path=path)

    def _failed_in_accept(self) -> bool:
        """Whether the library's checks of the request failed through a fault of the server's
        (not a refusal): the library has logged that already, as "opening handshake failed" at
        error with its traceback, and answered 500."""
        failure = self.protocol.handshake_exc
        return failure is not None and not isinstance(failure, InvalidHandshake)

    async def _end_on_server_fault(self, exc: Exception | None) -> None:
        """End the connection after a fault of the server's in the handshake: ``exc`` is logged,
        as the library's own "opening handshake failed" with its traceback, unless the library
        has logged that fault already. It is not raised: websockets 15 and 16 would log it (a
        second time, if it is the one they logged), 17 would drop the connection without a
        word."""
        if not self._failed_in_accept():
            self.logger.error("opening handshake failed", exc_info=exc)
        self.transport.abort()
        # Returned closed, the connection is dropped by the library as a failed handshake.
        await asyncio.shield(self.connection_lost_waiter)

    @staticmethod
    def _refusal(exc: InvalidHandshake) -> str:
        reason = str(exc)
        if isinstance(exc, InvalidUpgrade):
            reason += " (a plain HTTP request, not a websocket upgrade)"
        elif exc.__cause__ is not None and str(exc.__cause__):
            reason += f" ({exc.__cause__})"
        return reason

    @staticmethod
    def _peer_went_away(cause: BaseException | None) -> bool:
        """Whether a handshake cut by ``cause`` (None: the connection was lost before the
        answer) ended through the peer: gone (OSError, among them `PeerNotReading`), or still
        connected after its refusal when the closing handshake timed out."""
        return cause is None or isinstance(cause, OSError | TimeoutError)

    def _gone_during_handshake(self, cause: BaseException | None) -> str:
        refused = self.protocol.handshake_exc
        if isinstance(refused, InvalidHandshake):
            # Refused already (an HTTP request answered with its status); what came after only
            # cut the closing short.
            reason = self._refusal(refused)
            if isinstance(cause, TimeoutError):
                return f"{reason}; the peer kept the connection open after the refusal"
            return reason
        reason = "the peer closed the connection during the handshake"
        why = cause if cause is not None else self._connection_error()
        if why is not None and str(why):
            reason += f" ({why.strerror if isinstance(why, OSError) and why.strerror else why})"
        return reason

    def _connection_error(self) -> BaseException | None:
        """What cut the connection at the socket, if anything did (a reset, a failed write):
        websockets 15 and 16 keep it as ``recv_exc``, 17 as ``connection_exc``."""
        for name in ("connection_exc", "recv_exc"):
            error: BaseException | None = getattr(self, name, None)
            if error is not None:
                return error
        return None

    def _peer(self) -> str:
        address = self.remote_address
        return f"{address[0]}:{address[1]}" if address else "?"

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Pongs (and close frames) are written here, outside the flow control of `drain`.
        self._backlog_exceeded()

    async def drain(self) -> None:
        # The library calls this after every write, whoever wrote (our frames, its pings, its
        # close frame), so this one limit covers them all.
        if self._backlog_exceeded():
            raise PeerNotReading(self.dropped_because)
        try:
            async with asyncio.timeout(SEND_TIMEOUT_S):
                await super().drain()
        except TimeoutError:
            self._abort(f"the peer read nothing for {SEND_TIMEOUT_S:g} s")
            raise PeerNotReading(self.dropped_because) from None

    def _backlog_exceeded(self) -> bool:
        transport = self.transport
        if transport is None or transport.is_closing():
            return self.dropped_because is not None
        if transport.get_write_buffer_size() > MAX_BACKLOG_BYTES:
            self._abort(f"more than {MAX_BACKLOG_BYTES} bytes unread by the peer")
        return self.dropped_because is not None

    def _abort(self, why: str) -> None:
        if self.dropped_because is None:
            self.dropped_because = why
            log.warning(
                "peer_not_reading",
                peer=self._peer(),
                why=why,
                unsent_bytes=self.transport.get_write_buffer_size(),
            )
        self.transport.abort()


class FrameBatcher:
    """Frames for one connection, written in batches. Urgent frames (requests, errors) go out
    at once, behind everything queued before them; the others (events) wait up to ``linger_s``
    — or until the next urgent frame, or until ``MAX_QUEUED`` are waiting — so a bot between
    two of its requests gets the events of several turns in one write. Order is always kept.

    Why: on loopback each write costs a system call that also wakes the peer, tens of
    microseconds on a virtual machine, several times per decision without batching.
    """

    MAX_QUEUED = 256

    def __init__(
        self, connection: ServerConnection | ClientConnection, linger_s: float = 0.0
    ) -> None:
        self.connection = connection
        self.linger_s = linger_s
        self._queued: list[str] = []
        self._timer: asyncio.Handle | None = None
        self._flushing: set[asyncio.Task[bool]] = set()
        self.closed = False

    async def send(self, text: str, *, urgent: bool) -> bool:
        """Queue (or send) ``text``; False once the connection is known to be closed."""
        if self.closed:
            return False
        self._queued.append(text)
        if urgent or len(self._queued) >= self.MAX_QUEUED:
            return await self.flush()
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = (
                loop.call_later(self.linger_s, self._flush_soon)
                if self.linger_s > 0
                else loop.call_soon(self._flush_soon)
            )
        return True

    def _flush_soon(self) -> None:
        self._timer = None
        if self._queued:
            task = asyncio.ensure_future(self.flush())
            self._flushing.add(task)
            task.add_done_callback(self._flushing.discard)

    async def flush(self) -> bool:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        texts, self._queued = self._queued, []
        if not texts:
            return not self.closed
        try:
            await write_frames(self.connection, texts)
        except ConnectionClosed:
            self.closed = True
            return False
        return True


class WebSocketLink:
    """A `Link` over one websocket connection (either side)."""

    transport = "websocket"

    def __init__(
        self, connection: ServerConnection | ClientConnection, linger_s: float = 0.0
    ) -> None:
        self.connection = connection
        self.batcher = FrameBatcher(connection, linger_s)
        address = connection.remote_address
        self.peer = f"{address[0]}:{address[1]}" if address else "?"

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        return await self.batcher.send(text, urgent=urgent)

    async def close(self, reason: str) -> None:
        await self.batcher.flush()
        await self.connection.close(1000, clip_close_reason(reason))

    def abort(self) -> None:
        self.batcher.closed = True
        self.connection.transport.abort()


async def serve_websockets(
    hub: Hub, host: str, port: int, *, ping_interval_s: float | None = 20.0
) -> Server:
    """Listen on ``host:port``; every connection is fed to ``hub``. Close the returned server to
    stop listening (connections are closed by the hub, so their peers get a ``bye`` first)."""

    async def handler(connection: ServerConnection) -> None:
        link = WebSocketLink(connection, hub.limits.event_linger_s)
        conn = hub.connection(link)
        try:
            async for frame in connection:
                await conn.feed(frame)
        except ConnectionClosed:
            pass
        finally:
            await conn.lost()

    return await serve(
        handler,
        host,
        port,
        # Frames above the hub's own limits are refused with an ``error``; only far larger
        # ones make the library close the connection (code 1009).
        max_size=hub.limits.max_admin_bytes + 4096,
        compression=None,
        ping_interval=ping_interval_s,
        ping_timeout=ping_interval_s,
        close_timeout=CLOSE_TIMEOUT_S,
        open_timeout=hub.limits.hello_timeout_s,
        create_connection=GuardedConnection,
    )


class WebSocketSeat:
    """A referee's `Seat` for a bot reached through a server's seat connection.

    The server answers for an absent bot itself (``error`` ``late``, a `SeatFailure`: the
    referee plays the fallback), so the seat connection closes only when the table or the
    server does. From then on `ask` raises `ServerLost`: the match cannot go on, and playing
    fallbacks for every seat would only make up games."""

    def __init__(
        self,
        connection: ClientConnection,
        *,
        slot: int,
        bot: str,
        linger_s: float = EVENT_LINGER_S,
        events: bool = True,
    ) -> None:
        self.slot = slot
        self.bot = bot
        self.events = events
        """False when the bot declined events (``attached.events``): the server would drop
        them, so they are not sent."""
        self._connection = connection
        self._batcher = FrameBatcher(connection, linger_s)
        self._pending: tuple[int, asyncio.Future[Action]] | None = None
        self._closed: str | None = None
        self.games_ended = 0
        """The ``game_end`` events the referee sent this seat: the games of the match played
        (`ServerLost` tells how many)."""
        self._log = log.bind(slot=slot, bot=bot)
        self._reader = asyncio.create_task(self._read())

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def send(self, message: Event | Error) -> None:
        if isinstance(message, Event) and isinstance(message.payload, GameEnd):
            self.games_ended += 1
        if (
            not self.events
            and isinstance(message, Event)
            and not isinstance(message.payload, MatchStart | MatchEnd)
        ):
            # The server would drop it. A match's start and end still go: the server notes
            # them, to tell the bot when its table closes in between (``match_aborted``).
            return
        if self._closed is None and not await self._batcher.send(
            encode(message), urgent=isinstance(message, Error)
        ):
            self._mark_closed("connection lost")

    async def ask(self, request: Request) -> Action:
        if self._closed is not None:
            raise self._lost(self._closed)
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._pending = (request.seq, future)
        try:
            if not await self._batcher.send(encode(request), urgent=True):
                self._mark_closed("connection lost")
            return await future
        finally:
            self._pending = None

    async def _read(self) -> None:
        try:
            async for frame in self._connection:
                try:
                    message = parse_message(frame)
                except ProtocolError as exc:
                    self._log.warning("bad_frame_from_server", code=exc.code.value, text=exc.text)
                    continue
                pending = self._pending
                if pending is None or pending[1].done():
                    continue
                seq, future = pending
                if isinstance(message, Action) and message.seq == seq:
                    future.set_result(message)
                elif isinstance(message, Error) and message.seq in (None, seq):
                    future.set_exception(SeatFailure(message.code, message.text))
        except ConnectionClosed:
            pass
        finally:
            reason = self._connection.close_reason or (
                "the server closed the seat connection"
                if self._connection.protocol.close_rcvd is not None
                else "the connection to the server dropped"
            )
            self._mark_closed(reason)

    def _mark_closed(self, reason: str) -> None:
        if self._closed is None:
            self._closed = reason
            self._log.warning("seat_connection_closed", reason=reason)
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_exception(self._lost(self._closed))

    def _lost(self, reason: str) -> ServerLost:
        return ServerLost(reason, self.games_ended)

    def retire(self) -> None:
        """The referee is done with this seat: its closing is a normal end, not worth a warning."""
        if self._closed is None:
            self._closed = "closed by the referee"

    async def aclose(self) -> None:
        self.retire()
        await self._batcher.flush()
        await self._connection.close()
        await self._reader
