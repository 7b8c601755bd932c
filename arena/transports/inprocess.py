"""Bots as asyncio objects in the referee's process: no serialisation, same messages."""

from __future__ import annotations

import structlog

from arena.transports.base import SeatFailure
from bots.base import Bot, traceback_of
from protocol.messages import Action, Error, ErrorCode, Event, Request

log = structlog.get_logger(__name__)


class InProcessSeat:
    """A `Seat` backed by a `Bot` object. A bot's exception becomes a `SeatFailure`."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    @property
    def wants_events(self) -> bool:
        """False when an event sent here would be dropped unread: the bot keeps `Bot.on_event`
        (which ignores events) and `send` is this class's. The referee then skips building the
        event, which is most of an in-process mahjong match's messages."""
        return (
            type(self).send is not InProcessSeat.send
            or getattr(self.bot.on_event, "__func__", None) is not Bot.on_event
        )

    async def send(self, message: Event | Error) -> None:
        try:
            if isinstance(message, Error):
                await self.bot.on_error(message)
            else:
                await self.bot.on_event(message)
        except Exception as exc:  # a bot's bug must not stop the match
            # With the traceback (`traceback_of`): the bot's author needs to see where it failed.
            log.warning(
                "bot_event_handler_failed",
                bot=self.bot.name,
                error=repr(exc),
                exc_info=traceback_of(exc),
            )

    async def ask(self, request: Request) -> Action:
        try:
            text = await self.bot.act(request)
        except Exception as exc:
            log.warning(
                "bot_failed", bot=self.bot.name, seq=request.seq, exc_info=traceback_of(exc)
            )
            raise SeatFailure(ErrorCode.BOT_FAILURE, f"bot raised {exc!r}") from exc
        if not isinstance(text, str):
            raise SeatFailure(
                ErrorCode.BAD_MESSAGE, f"act() must return a str, got {type(text).__name__}"
            )
        try:
            return Action(seq=request.seq, action=text, seat=request.seat)
        except ValueError as exc:
            raise SeatFailure(ErrorCode.BAD_MESSAGE, str(exc)) from exc
