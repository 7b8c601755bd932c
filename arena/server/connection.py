"""One peer's connection to the server: its role and every frame it sends.

A transport (websocket, MQTT) turns each peer into a `Link`, creates a `Connection` for it, feeds
it every frame and reports its loss. The first frame decides the role: ``hello`` makes a bot,
``admin_hello`` a control connection, ``attach`` a seat connection. A bad frame gets an ``error``
and the connection stays, until a flood of them closes it; nothing a peer sends raises out of here.
It is apart from `arena.server.hub` because the frames are each peer's own business: the `Hub`
holds what its connections share (the lobby, the tables, the limits) and acts for them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import structlog

from arena.server.links import MQTT_TRANSPORT, FloodGuard, Link
from arena.server.sessions import BotSession
from arena.server.tables import SeatPipe
from arena.server.wire import (
    ADMIN_TYPES,
    AdminHello,
    AdminWelcome,
    Attach,
    Attached,
    CloseTable,
    OpenTable,
    StatusQuery,
    TableClosed,
    TableOpened,
    parse_admin,
)
from protocol.base import WireModel
from protocol.codec import ProtocolError, encode, parse_message
from protocol.messages import Action, Bye, Error, ErrorCode, Hello, Ping, is_bot_name

if TYPE_CHECKING:
    # Only for the annotation: the hub imports this module to make its connections.
    from arena.server.hub import Hub

REFUSAL_CODES: dict[ErrorCode, tuple[str, ErrorCode]] = {
    ErrorCode.NAME_IN_USE: ("refusal_codes", ErrorCode.AUTH_FAILED),
    ErrorCode.RESUME_UNKNOWN: ("refusal_codes", ErrorCode.AUTH_FAILED),
    ErrorCode.SHUTTING_DOWN: ("shutting_down", ErrorCode.NOT_EXPECTED),
}
"""The hello refusals that a bot gets only if it asked for them (the `hello.features` name),
and the code a bot that did not ask gets instead: the one the server said before the code."""

log = structlog.get_logger(__name__)


def _json_object(raw: str | bytes) -> dict[str, Any] | None:
    """The JSON object in a frame that failed validation, if it is one (that error path only:
    a valid frame is parsed once)."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


class Role(StrEnum):
    NEW = "new"
    BOT = "bot"
    ADMIN = "admin"
    SEAT = "seat"
    CLOSED = "closed"


class Connection:
    """One peer's frames (see the module docstring)."""

    _counter = 0

    def __init__(self, hub: Hub, link: Link, *, admin: bool, name: str | None = None) -> None:
        Connection._counter += 1
        self.id = f"c{Connection._counter}"
        self.hub = hub
        self.link = link
        self.admin_allowed = admin
        self.bound_name = name
        """Set when the transport already names the bot (MQTT topics): a broker's ACL grants a
        client its own topics by name, so a hello may not claim another."""
        self.role = Role.NEW
        self.guard = FloodGuard(hub.limits.flood_burst, hub.limits.flood_per_second)
        self.session: BotSession | None = None
        self.hello: Hello | None = None
        """The hello that opened this connection's session: one that repeats it gets the
        welcome again (`_hello_again`)."""
        self.pipe: SeatPipe | None = None
        self.tables: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.log = log.bind(conn=self.id, peer=link.peer, transport=link.transport)

    def start_hello_timer(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.hub.limits.hello_timeout_s, self._hello_expired)

    def _hello_expired(self) -> None:
        if self.role is Role.NEW:
            self._spawn(self._expire())

    async def _expire(self) -> None:
        await self._send(Error(code=ErrorCode.NOT_EXPECTED, text="no hello in time"))
        await self.shut("no hello in time")

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, message: WireModel) -> None:
        await self.link.send(encode(message))

    async def _bad(
        self,
        code: ErrorCode,
        text: str,
        seq: int | None = None,
        *,
        answered: bool = False,
        late: bool = False,
        match: str | None = None,
        game: str | None = None,
    ) -> None:
        """Answer a bad frame; close the connection once they come too fast. ``answered``: the
        frame was a bad answer to the pending request, which the referee now answers with its
        own error and re-ask, so nothing is sent here (the bot would get the error twice).
        ``late``: an answer to a request this bot was sent, after it stopped pending; it gets
        its error but is no flood (a slow bot is not a hostile one, and has been penalised)."""
        (self.session.log if self.session is not None else self.log).info(
            "bad_frame", code=code.value, text=text[:200], to_referee=answered, late=late
        )
        if not answered:
            await self._send(Error(code=code, text=text, seq=seq, match=match, game=game))
        if not late:
            await self._strike()

    async def _strike(self) -> None:
        """Count a bad frame against the flood limit; over it, close the connection."""
        if self.guard.strike():
            self.log.warning("flood", role=self.role.value)
            await self._send(Error(code=ErrorCode.FLOOD, text="too many bad messages; goodbye"))
            await self.shut("flood")

    # -- frames -----------------------------------------------------------------------------

    async def feed(self, raw: str | bytes) -> None:
        try:
            if self.role is Role.SEAT and self.pipe is not None:
                await self.pipe.feed(raw)
            elif self.role is Role.BOT:
                await self._bot_frame(raw)
            elif self.role is Role.ADMIN:
                await self._admin_frame(raw)
            elif self.role is Role.NEW:
                await self._first_frame(raw)
        except Exception as exc:  # the last guard: a server bug must not end the server
            self.hub.internal_errors += 1
            self.log.exception("frame_handler_failed", error=repr(exc))
            await self._send(Error(code=ErrorCode.INTERNAL, text="internal server error"))
            # Whatever frame set off the bug may be sent again and again, each costing a
            # traceback in the log: the flood limit holds here too.
            await self._strike()

    async def _first_frame(self, raw: str | bytes) -> None:
        if self.admin_allowed:
            if len(raw) > self.hub.limits.max_admin_bytes:
                await self._bad(ErrorCode.TOO_LARGE, "message too large")
                return
            try:
                data = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError):
                data = None  # not an admin frame: the bot parser gives the error
            if isinstance(data, dict) and data.get("type") in ADMIN_TYPES:
                await self._admin_frame(raw)
                return
        await self._bot_frame(raw)

    async def _bot_frame(self, raw: str | bytes) -> None:
        session = self.session
        try:
            message = parse_message(raw, self.hub.limits.max_bot_bytes)
        except ProtocolError as exc:
            answered = session is not None and await session.malformed_answer(
                _json_object(raw), exc.code, exc.text
            )
            text = exc.text
            if not answered and session is not None and session.pending_seq is not None:
                # Not an answer: say so, or the bot learns it only from the `late` to come.
                text += f" (request {session.pending_seq} is still pending: answer it)"
            await self._bad(exc.code, text, answered=answered)
            return
        if isinstance(message, Action) and session is not None:
            refusal = await session.from_bot(message)
            if refusal is not None:
                error = refusal.error
                await self._bad(
                    error.code,
                    error.text,
                    error.seq,
                    answered=refusal.answered,
                    late=refusal.late,
                    match=error.match,
                    game=error.game,
                )
        elif isinstance(message, Ping) and session is not None:
            pass  # a sign of life: the transport has noted the frame's arrival
        elif isinstance(message, Hello) and self.role is Role.NEW:
            await self._hello(message)
        elif isinstance(message, Hello) and session is not None:
            await self._hello_again(message, session)
        elif isinstance(message, Bye) and session is not None:
            said = f"bye from the bot: {message.reason}" if message.reason else "bye from the bot"
            if self.link.transport != MQTT_TRANSPORT:
                # The bot leaves now: its session ends, no grace, no resume. Over MQTT a bye is
                # also the will the broker publishes for a dead connection, so there it can only
                # mean that the connection is gone (the `lost` below), as it always has.
                await self.hub.lobby.leave(session, self.link, message.reason)
            await self.shut(said)
        elif self.role is Role.NEW:
            # Over MQTT a bot keeps publishing after a server restart: the code tells it to
            # say hello again rather than wait for requests that will never come.
            await self._bad(ErrorCode.NO_SESSION, "no session on this connection: say hello first")
        else:
            await self._bad(
                ErrorCode.NOT_EXPECTED, f"a bot sends action, ping or bye here, not {message.type}"
            )

    async def _hello(self, hello: Hello) -> None:
        if self.bound_name is not None and hello.name != self.bound_name:
            self.log.warning("hello_name_mismatch", name=hello.name, bound=self.bound_name)
            text = (
                f"hello.name {hello.name!r} is not this connection's bot {self.bound_name!r} "
                "(over MQTT the name is the topic's: arena/v1/bots/<name>/<conn>/up)"
            )
            await self._send(Error(code=ErrorCode.AUTH_FAILED, text=text))
            await self.shut(text)
            return
        admitted = await self.hub.lobby.admit(hello, self.link)
        if isinstance(admitted, Error) and admitted.code is ErrorCode.BAD_MESSAGE:
            # A malformed hello, as the parser would have said: the connection stays.
            await self._bad(admitted.code, admitted.text)
            return
        if isinstance(admitted, Error):
            # A refusal (auth_failed, name_in_use, resume_unknown, shutting_down): the
            # connection is closed, and the bot may say hello on a new one.
            feature, before = REFUSAL_CODES.get(admitted.code, ("", admitted.code))
            if feature and feature not in (hello.features or ()):
                # A bot written before this code refuses it: it gets the one it knows.
                admitted = admitted.model_copy(update={"code": before})
            await self._send(admitted)
            await self.shut(admitted.text)
            return
        self.role = Role.BOT
        self.hello = hello
        self.session = admitted.session
        self._cancel_timer()
        self.log = self.log.bind(bot=hello.name, session=admitted.session.session_id)
        await self._send(admitted.welcome())
        if admitted.resumed:
            await admitted.session.resume(self.link)

    async def _hello_again(self, hello: Hello, session: BotSession) -> None:
        """A hello on a connection that already has a session: over MQTT, a bot whose welcome
        was lost (it published hello before subscribing to its down topic) or that reconnected
        under the same ``<conn>`` before the server noticed its earlier connection gone. One
        that repeats the first hello, or carries the session's resume token, is answered with
        the welcome again, and for a seated bot as a resume (the journal, the pending request):
        it comes from whoever may already act for the session on this connection (topic pair),
        and the answer goes where the first welcome went, so it grants nothing new. Any other
        gets ``not_expected``, saying why and what to do. Each answered one counts towards the
        flood limit: it costs a welcome, and a seated bot's journal."""
        again = self.hub.lobby.hello_again(hello, self.hello, session, self.link)
        if isinstance(again, Error):
            await self._bad(again.code, again.text)
            return
        session.log.info("hello_repeated", resumed=again.resumed)
        await self._strike()
        if self.role is not Role.BOT:
            return
        await self._send(again.welcome())
        if again.resumed:
            await session.resume(self.link)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _admin_frame(self, raw: str | bytes) -> None:
        try:
            message = parse_admin(raw, self.hub.limits.max_admin_bytes)
        except ProtocolError as exc:
            await self._bad(exc.code, exc.text)
            return
        if self.role is Role.NEW:
            if isinstance(message, AdminHello):
                await self._admin_hello(message)
            elif isinstance(message, Attach):
                await self._attach(message)
            else:
                await self._bad(ErrorCode.NOT_EXPECTED, "say admin_hello or attach first")
        elif isinstance(message, OpenTable):
            self._spawn(self._open_table(message))
        elif isinstance(message, CloseTable):
            if message.table not in self.tables:
                # Saying table_closed would tell this admin a table it has no say over is gone,
                # while it plays on.
                await self._bad(
                    ErrorCode.NOT_EXPECTED,
                    f"no table {message.table} opened by this connection",
                )
                return
            self.tables.discard(message.table)
            await self.hub.close_table(
                message.table, "closed by its admin", self.hub.limits.detach_grace_s
            )
            await self._send(TableClosed(table=message.table, reason="closed by its admin"))
        elif isinstance(message, StatusQuery):
            await self._send(self.hub.status())
        elif isinstance(message, Bye):
            await self.shut("bye from the admin")
        else:
            await self._bad(ErrorCode.NOT_EXPECTED, f"not expected here: {message.type}")

    async def _admin_hello(self, hello: AdminHello) -> None:
        if not is_bot_name(hello.name) or not self.hub.tokens.check_admin(hello.name, hello.token):
            self.log.warning("admin_auth_failed", admin=hello.name)
            await self._send(
                Error(code=ErrorCode.AUTH_FAILED, text=f"unknown token for admin {hello.name}")
            )
            await self.shut("auth failed")
            return
        self.role = Role.ADMIN
        self._cancel_timer()
        self.log = self.log.bind(admin=hello.name)
        await self._send(AdminWelcome(name=hello.name, session=self.id))

    async def _open_table(self, request: OpenTable) -> None:
        reply = await self.hub.open_table(request, self)
        if self.role is not Role.ADMIN and isinstance(reply, TableOpened):
            await self.hub.close_table(reply.table, "its admin left before it opened")
            return
        await self._send(reply)

    async def _attach(self, attach: Attach) -> None:
        table = self.hub.tables.get(attach.table)
        if table is None:
            await self._send(Error(code=ErrorCode.AUTH_FAILED, text="no such table"))
            await self.shut("attach to an unknown table")
            return
        pipe = table.attach(attach.slot, attach.key, self.link)
        if isinstance(pipe, Error):
            await self._send(pipe)
            await self.shut(pipe.text)
            return
        self.role = Role.SEAT
        self.pipe = pipe
        self._cancel_timer()
        self.log = self.log.bind(table=table.id, slot=attach.slot, bot=pipe.session.name)
        await self._send(
            Attached(
                table=table.id,
                slot=attach.slot,
                bot=pipe.session.name,
                events=pipe.session.wants_events,
            )
        )

    # -- the end ----------------------------------------------------------------------------

    async def lost(self, why: str | None = None) -> None:
        """The transport reports the link gone (after `shut`, or on its own); ``why``, when the
        server's own side dropped it (the MQTT bridge lost its broker), is kept as the reason
        the session ended."""
        role, self.role = self.role, Role.CLOSED
        self._cancel_timer()
        self.hub.connections.discard(self)
        for task in list(self._tasks):
            task.cancel()
        if role is Role.BOT and self.session is not None:
            await self.hub.lobby.link_lost(self.session, self.link, why)
        elif role is Role.ADMIN:
            for table_id in list(self.tables):
                await self.hub.close_table(
                    table_id, "its admin disconnected", self.hub.limits.detach_grace_s
                )
            self.tables.clear()
        elif role is Role.SEAT and self.pipe is not None:
            table = self.pipe.table
            await table.release(self.hub.lobby, self.pipe.slot)
            if table.finished:
                await self.hub.close_table(table.id, "every slot detached")

    async def shut(self, reason: str) -> None:
        """Say bye (where that makes sense) and close the link."""
        if self.role is Role.CLOSED:
            return
        if self.role in (Role.BOT, Role.ADMIN):
            await self.link.send(encode(Bye(reason=reason)))
        await self.link.close(reason)
        await self.lost()
