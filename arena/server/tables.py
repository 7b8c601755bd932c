"""Tables: a group of seated bots, and the seat connections that carry the referee's messages.

A table belongs to the admin connection that opened it and lives until that connection closes it
(or drops). Each bot (each *slot* of the table) is reached through one ``attach``-ed connection:
frames from the referee are forwarded to the bot as they are (the server reads only their type,
seq and seat), and the bot's checked actions come back the same way. A bot can never see or act
for another: its session is bound to its slot's connection alone, and an action is accepted only
for the request pending on that connection, in the game seat that request named.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Sequence
from enum import StrEnum

import structlog

from arena.server.links import Link, SeatSink
from arena.server.lobby import Lobby
from arena.server.sessions import BotSession, Frame
from arena.server.wire import SeatTicket, TableStatus
from protocol.codec import encode
from protocol.messages import Action, Error, ErrorCode

log = structlog.get_logger(__name__)


class TableState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class MatchProgress:
    """How far a table's match has got (`arena lobby`), read off the frames its referee sends.

    Games are counted by their ids, not by ``game_start`` events: a bot that declined events
    still gets requests, which name their game, and the seats' frames may arrive interleaved."""

    def __init__(self) -> None:
        self.match: str | None = None
        self.games: int | None = None
        self._begun: set[str] = set()

    @property
    def begun(self) -> int:
        return len(self._begun)

    def see(self, frame: Frame) -> None:
        if frame.match is None:
            return
        if frame.match != self.match:
            self.match, self.games = frame.match, None
            self._begun.clear()
        if frame.match_games is not None:
            self.games = frame.match_games
        if frame.game is not None:
            self._begun.add(frame.game)


class SeatPipe:
    """The referee's connection for one seat; the `SeatSink` of that seat's session."""

    def __init__(self, table: Table, slot: int, link: Link) -> None:
        self.table = table
        self.slot = slot
        self.link = link
        self.session = table.sessions[slot]

    async def answer(self, action: Action) -> None:
        await self.link.send(encode(action))

    async def detach(self, reason: str) -> None:
        await self.link.close(reason)

    async def fail(self, seq: int, text: str, code: ErrorCode = ErrorCode.LATE) -> None:
        # ``late`` is the protocol's code for "no action before the deadline": an absent bot's
        # answer will not come at all, so the referee treats it the same way. A bad answer
        # carries its own code, which the referee's seat raises as that seat's failure.
        await self.link.send(encode(Error(code=code, text=text, seq=seq)))

    async def feed(self, raw: str | bytes) -> None:
        """One frame from the referee, for this slot's bot."""
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        frame = Frame.read(text)
        if frame is None:
            await self.link.send(
                encode(Error(code=ErrorCode.BAD_JSON, text="seat frames are JSON objects"))
            )
            return
        self.table.progress.see(frame)
        await self.session.to_bot(frame)


class Table:
    """Seated bots for one match (see the module docstring)."""

    def __init__(self, game: str, sessions: Sequence[BotSession], label: str, owner: str) -> None:
        self.id = secrets.token_hex(4)
        self.game = game
        self.label = label
        self.owner = owner
        self.sessions = list(sessions)
        self.keys = [secrets.token_urlsafe(16) for _ in sessions]
        self.sinks: dict[int, SeatSink] = {}
        self.released: set[int] = set()
        self._unattached = asyncio.Event()
        self._unattached.set()
        self.state = TableState.OPEN
        self._closed = asyncio.Event()
        """Set once `close` has told every bot it cut short: a later close waits for it."""
        self.progress = MatchProgress()
        self.log = log.bind(table=self.id, game_kind=game)
        for slot, session in enumerate(self.sessions):
            session.seat_at(self.id, slot)

    def tickets(self) -> list[SeatTicket]:
        return [
            SeatTicket(slot=slot, bot=session.name, key=self.keys[slot])
            for slot, session in enumerate(self.sessions)
        ]

    def status(self) -> TableStatus:
        return TableStatus(
            table=self.id,
            game=self.game,
            bots=[session.name for session in self.sessions],
            label=self.label,
            match_games=self.progress.games,
            games_begun=self.progress.begun,
        )

    def attach(self, slot: int, key: str, link: Link) -> SeatPipe | Error:
        if self.state is not TableState.OPEN:
            return Error(code=ErrorCode.NOT_EXPECTED, text=f"table {self.id} is closed")
        if not 0 <= slot < len(self.sessions) or not secrets.compare_digest(key, self.keys[slot]):
            return Error(code=ErrorCode.AUTH_FAILED, text="no such slot, or a wrong key")
        if slot in self.sinks:
            return Error(code=ErrorCode.NOT_EXPECTED, text=f"slot {slot} is already attached")
        if slot in self.released:
            # Its bot has left this table, maybe for another: an old key must not take over the
            # bot's answers there.
            return Error(code=ErrorCode.NOT_EXPECTED, text=f"slot {slot} has been released")
        pipe = SeatPipe(self, slot, link)
        self.bind(slot, pipe)
        return pipe

    def bind(self, slot: int, sink: SeatSink) -> None:
        """``sink`` now receives the answers of the bot in ``slot``."""
        self.sinks[slot] = sink
        self._unattached.clear()
        binding = self.sessions[slot].binding
        if binding is not None and (binding.table, binding.slot) == (self.id, slot):
            binding.sink = sink

    @property
    def finished(self) -> bool:
        """Every slot has been released."""
        return len(self.released) == len(self.sessions)

    async def release(self, lobby: Lobby, slot: int) -> None:
        """The referee is done with ``slot`` (its seat connection closed after its last frame
        was relayed): the bot goes back to the lobby, whatever the other slots do."""
        if slot in self.released:
            return
        self.released.add(slot)
        self.sinks.pop(slot, None)
        if not self.sinks:
            self._unattached.set()
        # After a match's end this is the normal way out; before it, the referee is gone.
        await lobby.release(self.sessions[slot], "its referee's connection for this seat closed")
        await lobby.notify()

    async def close(
        self, lobby: Lobby, reason: str, grace_s: float = 0.0, *, outlook: str | None = None
    ) -> None:
        """Close the table. Seat connections still open get ``grace_s`` to finish relaying what
        their referee already sent (their frames are read in order, the close order of
        separate connections is not), then are cut. ``outlook``: what a bot whose match this
        cuts short is told comes next (`BotSession.tell_aborted`).

        A close while another is under way returns only when that one is done: the first one
        cuts the seat connections, and their ends (or the referee's own close, once it sees
        them) come here again. Taking the table for closed then would let a stopping server
        say ``bye`` to its bots before the first close has told them their match is gone."""
        if self.state is TableState.CLOSED:
            await self._closed.wait()
            return
        self.state = TableState.CLOSED
        try:
            await self._close(lobby, reason, grace_s, outlook)
        finally:
            self._closed.set()

    async def _close(self, lobby: Lobby, reason: str, grace_s: float, outlook: str | None) -> None:
        if grace_s > 0 and self.sinks:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace_s):
                    await self._unattached.wait()
        leaving = [slot for slot in range(len(self.sessions)) if slot not in self.released]
        # Released (and counted as cut short) before their seat connections go: a connection's
        # end releases its slot with "its referee's connection … closed", which would reach the
        # bot first and blame its referee for what ``reason`` says (a shutdown, an admin's close).
        self.released.update(leaving)
        # All at once: one seat connection slow to close must not hold up the others'.
        await asyncio.gather(*(sink.detach(reason) for sink in list(self.sinks.values())))
        self.sinks.clear()
        self._unattached.set()
        # A bot whose match this cuts short is told so (`BotSession.tell_aborted`): to each at
        # once, as above.
        await asyncio.gather(
            *(lobby.release(self.sessions[slot], reason, outlook=outlook) for slot in leaving)
        )
        await lobby.notify()
        self.log.info("table_closed", reason=reason, seats_cut_short=len(leaving))
