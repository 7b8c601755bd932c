"""Play a match through a server: `remote_seats` opens a table and hands back one `Seat` per bot.

The match code does not change: whatever plays with in-process seats plays with these. The
referee stays in the calling process (and so does the record); the server seats the named bots,
waits up to the start timeout for absent ones, and relays each seat's messages.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from typing import TypeVar
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from arena.errors import ArenaError
from arena.games.registry import canonical_name
from arena.server.wire import (
    AdminAny,
    AdminHello,
    AdminMessage,
    AdminWelcome,
    Attach,
    Attached,
    CloseTable,
    OpenTable,
    StatusQuery,
    StatusReport,
    TableOpened,
    parse_admin,
)
from arena.transports.base import Seat
from arena.transports.websocket import WebSocketSeat
from protocol.codec import MAX_MESSAGE_BYTES, ProtocolError, encode
from protocol.messages import Bye, Error, ErrorCode, is_bot_name

T = TypeVar("T")

ADMIN_NAME_ENV = "ARENA_ADMIN_NAME"
ADMIN_TOKEN_ENV = "ARENA_ADMIN_TOKEN"
CONNECT_TIMEOUT_S = 10.0
REPLY_TIMEOUT_S = 10.0


class RemoteTableError(ArenaError):
    """The server could not be reached, refused us, or could not seat the bots."""


class AdminRefused(RemoteTableError):
    """The server refused the admin name or token: every table would be refused alike."""


def admin_credentials(name: str | None, token: str | None) -> tuple[str, str | None]:
    """Explicit values first, then ``ARENA_ADMIN_NAME`` / ``ARENA_ADMIN_TOKEN`` (set but empty
    counts as not set). A name no server accepts is `RemoteTableError`, with the rule."""
    chosen = name or os.environ.get(ADMIN_NAME_ENV) or "admin"
    if not is_bot_name(chosen):
        source = "" if name else f" (from {ADMIN_NAME_ENV})"
        raise RemoteTableError(
            f"bad admin name {chosen!r}{source}: a name is 1-64 of A-Z a-z 0-9 _ . -"
        )
    return chosen, token if token is not None else os.environ.get(ADMIN_TOKEN_ENV) or None


def check_server_url(url: str) -> None:
    """Refuse, with `RemoteTableError`, a URL no connection could reach: not ws:// or wss://,
    without a host, or with a port out of range (urlsplit's bare `ValueError` otherwise escapes
    the websocket library as a traceback)."""
    expected = "expected ws://HOST:PORT or wss://HOST:PORT"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise RemoteTableError(f"bad server URL {url!r}: {exc}; {expected}") from None
    if parts.scheme not in ("ws", "wss"):
        raise RemoteTableError(f"bad server URL {url!r}: {expected}")
    if not parts.hostname:
        raise RemoteTableError(f"bad server URL {url!r}: no host; {expected}")


async def _connect(url: str) -> ClientConnection:
    check_server_url(url)
    try:
        return await connect(
            url,
            compression=None,
            max_size=MAX_MESSAGE_BYTES + 4096,
            open_timeout=CONNECT_TIMEOUT_S,
            close_timeout=2.0,
        )
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
        raise RemoteTableError(f"cannot reach the server at {url}: {exc}") from None


def _closed(exc: ConnectionClosed) -> RemoteTableError:
    said = exc.rcvd
    if said is None:
        return RemoteTableError("the connection to the server dropped")
    # The server's own reason ("the server is shutting down now") when it gave one; the
    # library's text repeats both close frames, codes and all.
    return RemoteTableError(f"the server closed the connection: {said.reason or said}")


async def _send(connection: ClientConnection, message: AdminMessage) -> None:
    """Send one admin message. A server that closed the connection (stopping, or closing a new
    connection in a hard shutdown) is `RemoteTableError` like any table that cannot open: a
    league reports it among the matches not played, ``arena match`` as one line, where the
    library's own exception would be taken for a bug."""
    try:
        await connection.send(encode(message))
    except ConnectionClosed as exc:
        raise _closed(exc) from None


async def _reply(connection: ClientConnection, timeout_s: float) -> AdminAny:
    try:
        async with asyncio.timeout(timeout_s):
            frame = await connection.recv()
        return parse_admin(frame, MAX_MESSAGE_BYTES)
    except TimeoutError:
        raise RemoteTableError(f"the server did not answer within {timeout_s:.0f} s") from None
    except ConnectionClosed as exc:
        raise _closed(exc) from None
    except ProtocolError as exc:
        raise RemoteTableError(f"unreadable reply from the server: {exc.text}") from None


def _refused(reply: AdminAny, doing: str) -> RemoteTableError:
    if isinstance(reply, Error):
        return RemoteTableError(f"{doing}: {reply.code.value}: {reply.text}")
    if isinstance(reply, Bye):
        return RemoteTableError(f"{doing}: the server said bye ({reply.reason})")
    return RemoteTableError(f"{doing}: unexpected reply {reply.type}")


async def _control(url: str, admin: str | None, token: str | None) -> ClientConnection:
    name, secret = admin_credentials(admin, token)  # a bad name is refused before connecting
    control = await _connect(url)
    try:
        await _send(control, AdminHello(name=name, token=secret))
        reply = await _reply(control, REPLY_TIMEOUT_S)
    except RemoteTableError:
        await control.close()
        raise
    if not isinstance(reply, AdminWelcome):
        await control.close()
        refused = _refused(reply, f"admin {name}")
        if isinstance(reply, Error) and reply.code is ErrorCode.AUTH_FAILED:
            if secret is None:
                # No token was sent at all: "unknown token" would send the user looking for a
                # wrong one.
                raise AdminRefused(
                    f"admin {name}: the server wants an admin token, and {ADMIN_TOKEN_ENV} is "
                    "not set: create one with `arena tokens add NAME --admin --file FILE` (FILE: "
                    f"the server's --tokens), then export {ADMIN_NAME_ENV}=NAME "
                    f"{ADMIN_TOKEN_ENV}=<the printed token>"
                )
            # Most often the token is right and the name is not: say where both come from.
            raise AdminRefused(
                f"{refused} (the admin name comes from {ADMIN_NAME_ENV}, default 'admin', the "
                f"token from {ADMIN_TOKEN_ENV}; both must match an [admins] entry of the "
                "server's tokens file)"
            )
        raise refused
    return control


@asynccontextmanager
async def remote_seats(
    url: str,
    bot_names: Sequence[str],
    *,
    game: str,
    admin: str | None = None,
    token: str | None = None,
    start_timeout_s: float = 30.0,
    label: str = "",
) -> AsyncIterator[list[WebSocketSeat]]:
    """Seat ``bot_names`` at a new table of ``game`` on the server at ``url``: one `Seat` per
    name, in that order (the match decides which game seat each plays in each game).

    Waits up to ``start_timeout_s`` for bots that are not connected yet. The table closes (and
    the bots return to the lobby) when the block exits. Raises `RemoteTableError` with the
    server's reason when the table cannot be opened.
    """
    kind = canonical_name(game)
    async with AsyncExitStack() as stack:
        control = await _control(url, admin, token)
        stack.push_async_callback(control.close)
        await _send(
            control,
            OpenTable(
                game=kind,
                bots=list(bot_names),
                start_timeout_ms=round(start_timeout_s * 1000),
                label=label,
            ),
        )
        opened = await _reply(control, start_timeout_s + REPLY_TIMEOUT_S)
        if not isinstance(opened, TableOpened):
            raise _refused(opened, f"opening a {kind} table for {', '.join(bot_names)}")
        seats: list[WebSocketSeat] = []
        for ticket in opened.seats:
            connection = await _connect(url)
            stack.push_async_callback(connection.close)
            await _send(connection, Attach(table=opened.table, slot=ticket.slot, key=ticket.key))
            attached = await _reply(connection, REPLY_TIMEOUT_S)
            if not isinstance(attached, Attached):
                raise _refused(attached, f"attaching slot {ticket.slot}")
            seat = WebSocketSeat(
                connection, slot=ticket.slot, bot=ticket.bot, events=attached.events
            )
            stack.push_async_callback(seat.aclose)
            seats.append(seat)
        try:
            yield seats
        finally:
            # Seat connections first, each after its last frame: the server relays a seat's
            # frames in order, then frees its bot. The table's close then finds them done, and
            # once it is confirmed the bots are back in the lobby for the next table.
            for seat in seats:
                await seat.aclose()
            with suppress(RemoteTableError):
                await _send(control, CloseTable(table=opened.table))
                await _reply(control, REPLY_TIMEOUT_S)


async def play_on_server(
    url: str,
    bot_names: Sequence[str],
    game: str,
    play: Callable[[list[Seat]], Awaitable[T]],
    *,
    start_timeout_s: float = 30.0,
    label: str = "",
) -> T:
    """``play(seats)`` on a table of the named bots: the match code's one entry to a server."""
    async with remote_seats(
        url, bot_names, game=game, start_timeout_s=start_timeout_s, label=label
    ) as seats:
        return await play(list(seats))


async def server_status(
    url: str, *, admin: str | None = None, token: str | None = None
) -> StatusReport:
    """The server's lobby and tables (``arena serve status``, tests waiting for bots)."""
    control = await _control(url, admin, token)
    try:
        await _send(control, StatusQuery())
        reply = await _reply(control, REPLY_TIMEOUT_S)
        if not isinstance(reply, StatusReport):
            raise _refused(reply, "status")
        return reply
    finally:
        await control.close()
