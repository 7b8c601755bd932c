"""Seats for a referee that runs inside the server process (benchmarks, embedded tournaments).

`LocalSeat` is both the referee's `Seat` and the session's `SeatSink`: messages go from the
referee to the bot's link with one encoding and no seat connection in between, so a match pays
one network hop per message instead of two. Everything else — auth, binding, absent bots,
resume — is the same code a remote referee goes through.
"""

from __future__ import annotations

import asyncio

from arena.server.sessions import BotSession, Frame
from arena.server.tables import MatchProgress
from arena.transports.base import SeatFailure
from protocol.games.common import MatchEnd, MatchStart
from protocol.messages import Action, Error, ErrorCode, Event, Request


class LocalSeat:
    """The `Seat` of one slot of a table, for a referee in the server's own event loop."""

    def __init__(self, session: BotSession, progress: MatchProgress | None = None) -> None:
        self.session = session
        self.progress = progress
        self.bot = session.name
        self._pending: tuple[int, asyncio.Future[Action]] | None = None
        self._closed: str | None = None

    async def send(self, message: Event | Error) -> None:
        # An event for a bot that declined events would only be encoded to be dropped; but the
        # session notes a match's start and end even then (a table closing in between tells the
        # bot its match was stopped).
        if self._closed is None and (
            self.session.wants_events
            or isinstance(message, Error)
            or isinstance(message.payload, MatchStart | MatchEnd)
        ):
            await self.to_bot(Frame.of(message))

    async def ask(self, request: Request) -> Action:
        if self._closed is not None:
            raise SeatFailure(ErrorCode.LATE, f"no answer: {self._closed}")
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._pending = (request.seq, future)
        try:
            await self.to_bot(Frame.of(request))
            return await future
        finally:
            self._pending = None

    async def to_bot(self, frame: Frame) -> None:
        if self.progress is not None:
            self.progress.see(frame)
        await self.session.to_bot(frame)

    def _settle(self, seq: int | None, outcome: Action | SeatFailure) -> None:
        pending = self._pending
        if pending is None or pending[1].done() or seq not in (None, pending[0]):
            return
        if isinstance(outcome, Action):
            pending[1].set_result(outcome)
        else:
            pending[1].set_exception(outcome)

    async def answer(self, action: Action) -> None:
        self._settle(action.seq, action)

    async def fail(self, seq: int, text: str, code: ErrorCode = ErrorCode.LATE) -> None:
        self._settle(seq, SeatFailure(code, text))

    async def detach(self, reason: str) -> None:
        self._closed = reason
        self._settle(None, SeatFailure(ErrorCode.LATE, f"no answer: {reason}"))
