"""The transport-independent heart of the server: its lobby, its tables and its connections.

A transport (websocket, MQTT) turns each peer into a `Link` and asks the `Hub` for a
`Connection` for it (`arena.server.connection`: the peer's role and frames). The hub opens and
closes tables, for admins and for referees in the server (`local_seats`), and drains and stops
the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import structlog

from arena.errors import ArenaError
from arena.games.registry import canonical_name
from arena.server.auth import TokenStore
from arena.server.connection import Connection
from arena.server.links import Link
from arena.server.lobby import SHUTTING_DOWN, Lobby
from arena.server.local import LocalSeat
from arena.server.sessions import DEFAULT_JOURNAL_CAP, DEFAULT_RECONNECT_GRACE_S, SessionState
from arena.server.tables import Table
from arena.server.wire import BotStatus, OpenTable, StatusReport, TableOpened
from protocol.codec import MAX_MESSAGE_BYTES
from protocol.messages import SILENCE_LIMIT_S, Error, ErrorCode

STOPPING = "a bye follows, and the connection closes"
"""What a bot whose match a stopping server cuts short is told comes next (``match_aborted``)."""

log = structlog.get_logger(__name__)


class TableUnavailable(ArenaError):
    """The named bots could not be seated (absent past the start timeout, wrong game, …)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What the server tolerates from a peer (docs/NETWORK.md, "Robustness")."""

    max_bot_bytes: int = 16 * 1024
    """A larger frame from a bot gets ``too_large``; bots only ever send short messages."""
    max_admin_bytes: int = MAX_MESSAGE_BYTES
    hello_timeout_s: float = 10.0
    """A connection that has not said hello (or admin_hello/attach) by then is closed."""
    flood_burst: int = 20
    flood_per_second: float = 2.0
    journal_cap: int = DEFAULT_JOURNAL_CAP
    reconnect_grace_s: float = DEFAULT_RECONNECT_GRACE_S
    """How long a seated bot that dropped has to resume before its requests are answered for it
    at once; its requests wait for it until then (docs/NETWORK.md, "Drops, reconnects and
    resume"). 0: answered for at once."""
    event_linger_s: float = 0.05
    """How long an event for a bot may wait to share a write with later frames (a request or
    error to that bot sends everything queued at once): see `FrameBatcher`."""
    detach_grace_s: float = 5.0
    """How long closing a table waits for its seat connections to finish relaying."""
    mqtt_silence_s: float = SILENCE_LIMIT_S
    """An MQTT bot that sends nothing for this long is dropped as if its connection had closed:
    without a will, nothing else would ever tell the server it is gone (docs/NETWORK.md)."""


class Hub:
    """Lobby, tables and connections of one server."""

    def __init__(self, tokens: TokenStore, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.tokens = tokens
        self.lobby = Lobby(tokens, self.limits.journal_cap, self.limits.reconnect_grace_s)
        self.tables: dict[str, Table] = {}
        self.connections: set[Connection] = set()
        self.internal_errors = 0
        """Exceptions caught at the last guard of a connection (a server bug; tests want 0)."""
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing_all: asyncio.Future[None] | None = None

    @property
    def draining(self) -> bool:
        return self.lobby.draining

    def connection(
        self, link: Link, *, admin: bool = True, timed: bool = True, name: str | None = None
    ) -> Connection:
        """A new peer. ``admin`` False: only bot messages (MQTT); ``timed``: hello deadline;
        ``name``: the only bot name its hello may give (an MQTT topic's ``<name>``)."""
        conn = Connection(self, link, admin=admin, name=name)
        self.connections.add(conn)
        if timed:
            conn.start_hello_timer()
        return conn

    def status(self) -> StatusReport:
        bots = [
            BotStatus(
                name=session.name,
                games=list(session.games),
                state=session.state.value,
                transport=session.transport,
                table=session.binding.table if session.binding else None,
            )
            for session in self.lobby.sessions.values()
            if session.state is not SessionState.CLOSED
        ]
        return StatusReport(
            draining=self.draining,
            bots=bots,
            tables=[table.status() for table in self.tables.values()],
        )

    async def _new_table(
        self, game: str, bots: Sequence[str], timeout_s: float, label: str, owner: str
    ) -> Table | Error:
        if self.draining:
            return Error(code=ErrorCode.SHUTTING_DOWN, text=SHUTTING_DOWN)
        reserved = await self.lobby.reserve(bots, game, timeout_s)
        if isinstance(reserved, Error):
            return reserved
        table = Table(game, reserved, label, owner)
        self.tables[table.id] = table
        self._idle.clear()
        table.log.info("table_opened", bots=list(bots), label=label, owner=owner)
        return table

    async def open_table(self, request: OpenTable, owner: Connection) -> TableOpened | Error:
        table = await self._new_table(
            request.game, request.bots, request.start_timeout_ms / 1000, request.label, owner.id
        )
        if isinstance(table, Error):
            return table
        owner.tables.add(table.id)
        return TableOpened(table=table.id, seats=table.tickets())

    @asynccontextmanager
    async def local_seats(
        self, bots: Sequence[str], game: str, *, start_timeout_s: float = 30.0, label: str = ""
    ) -> AsyncIterator[list[LocalSeat]]:
        """Seat ``bots`` for a referee in this process (see `LocalSeat`); the table closes when
        the block exits. Raises `TableUnavailable` with the reason when it cannot open."""
        table = await self._new_table(canonical_name(game), bots, start_timeout_s, label, "local")
        if isinstance(table, Error):
            raise TableUnavailable(table.text)
        seats = [LocalSeat(session, table.progress) for session in table.sessions]
        for slot, seat in enumerate(seats):
            table.bind(slot, seat)
        try:
            yield seats
        finally:
            # Said only to bots whose match did not end (`Table.close`): the referee left
            # while they were still seated, whether the match failed or was stopped.
            await self.close_table(table.id, "its referee in the server left the table")

    async def close_table(
        self, table_id: str, reason: str, grace_s: float = 0.0, *, outlook: str | None = None
    ) -> None:
        """Close the table (`Table.close`); a close already under way is waited for, so that
        the table counts as gone (`wait_idle`) only once its bots have been told."""
        table = self.tables.get(table_id)
        if table is None:
            return
        await table.close(self.lobby, reason, grace_s, outlook=outlook)
        self.tables.pop(table_id, None)
        if not self.tables:
            self._idle.set()

    async def close_tables_with_transport(self, transport: str, reason: str) -> list[str]:
        """Close, at once, every table where a bot that reached the server over ``transport``
        holds a seat (connected or absent); return their ids.

        For a failure of the server's own side of a transport (the MQTT bridge losing its
        broker): every bot behind it is cut off at once, through no fault of its own. Left
        alone, their sessions turn absent and the referees play their fallbacks for as long as
        the outage lasts, then report that as the match's result. Closed, the tables' referees
        stop with `ServerLost` and ``reason``, as when the server stops: no result, and a
        league plays the match again on its next run."""
        doomed = [
            table.id
            for table in self.tables.values()
            if any(
                session.transport == transport
                and session.binding is not None
                and session.binding.table == table.id
                for session in table.sessions
            )
        ]
        if doomed:
            log.warning("tables_closed", transport=transport, reason=reason, tables=doomed)
            await asyncio.gather(*(self.close_table(table_id, reason) for table_id in doomed))
        return doomed

    async def begin_drain(self) -> None:
        """No new tables or bots from now on; running tables go on, bots may still resume."""
        self.lobby.draining = True
        await self.lobby.notify()
        log.info("draining", tables=len(self.tables))

    async def wait_idle(self, timeout_s: float | None) -> bool:
        """Wait until every table has closed; False if ``timeout_s`` passed first."""
        try:
            async with asyncio.timeout(timeout_s):
                await self._idle.wait()
        except TimeoutError:
            return False
        return True

    async def close_all(self, reason: str, *, limit_s: float | None = None) -> None:
        """Close every table, then every connection (with a ``bye`` where one is due). Each
        step goes to every table or connection at once: a peer that does not read delays only
        itself, and a write to it is given up after a few seconds anyway. ``limit_s``: links
        still closing after that long are aborted (a forced shutdown).

        A bot whose match a table's close cuts short is told so (and that a ``bye`` follows)
        before any ``bye``. While one `close_all` runs, another (a drain ending during a forced
        shutdown) waits for it, with its own ``limit_s``, instead of saying ``bye`` alongside."""
        closing = self._closing_all
        if closing is None or closing.done():
            closing = self._closing_all = asyncio.ensure_future(self._close_everything(reason))
        done, _pending = await asyncio.wait({closing}, timeout=limit_s)
        if not done:
            log.warning("connections_aborted", count=len(self.connections), after_s=limit_s)
            for conn in list(self.connections):
                conn.link.abort()
        await asyncio.shield(closing)

    async def _close_everything(self, reason: str) -> None:
        await asyncio.gather(
            *(
                self.close_table(table_id, reason, outlook=STOPPING)
                for table_id in list(self.tables)
            )
        )
        await asyncio.gather(*(conn.shut(reason) for conn in list(self.connections)))
