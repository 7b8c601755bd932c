"""A bot's exception is logged with its traceback, in-process and behind `bots run`'s client:
its author needs to see where it failed, not only its repr."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from arena.dealing import MatchSeed
from arena.games.bulls_cows.engine import BullsCowsGame
from arena.transports.base import SeatFailure
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.client import BotClient
from bots.liars_dice.opponent_model import TablesSaveError
from protocol.games.common import GameStart
from protocol.messages import Event, Request


class Buggy(Bot):
    def __init__(self) -> None:
        super().__init__("buggy")

    async def on_event(self, event: Event) -> None:
        raise KeyError("lost track of the event")

    async def act(self, request: Request) -> str:
        raise ZeroDivisionError("thought too hard")


def request() -> Request:
    game = BullsCowsGame({"mode": "solve"}, MatchSeed.from_text("traceback"), {})
    legal, hint = game.describe_legal(0)
    return Request(
        seq=1, seat=0, deadline_ms=1000, legal=legal, hint=hint, observation=game.observation(0)
    )


def start() -> Event:
    return Event(seat=0, payload=GameStart(game_kind="bulls_cows", seat=0, players=["buggy"]))


def logged_exception(caplog: pytest.LogCaptureFixture, event: str) -> BaseException:
    """The exception logged with ``event`` (structlog hands the stdlib its event dict)."""
    found: list[Any] = [
        r.msg.get("exc_info")
        for r in caplog.records
        if isinstance(r.msg, dict) and r.msg.get("event") == event
    ]
    assert len(found) == 1, f"{event}: {found}"
    assert isinstance(found[0], BaseException), f"{event} logged without its exception"
    assert found[0].__traceback__ is not None
    return found[0]


async def test_an_in_process_bot_failure_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seat = InProcessSeat(Buggy())
    with caplog.at_level(logging.WARNING):
        await seat.send(start())
        with pytest.raises(SeatFailure):
            await seat.ask(request())
    assert isinstance(logged_exception(caplog, "bot_event_handler_failed"), KeyError)
    assert isinstance(logged_exception(caplog, "bot_failed"), ZeroDivisionError)


async def test_a_client_bot_failure_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = BotClient({"bulls_cows": Buggy()}, name="buggy", adapter_factory=lambda: None)  # type: ignore[arg-type,return-value]
    with caplog.at_level(logging.WARNING):
        await client._event(start())
        await client._answer(None, request())  # type: ignore[arg-type]
    assert isinstance(logged_exception(caplog, "bot_handler_failed"), KeyError)
    assert isinstance(logged_exception(caplog, "bot_failed"), ZeroDivisionError)


class Reporting(Buggy):
    """Fails in its own words: a line says it all."""

    async def on_event(self, event: Event) -> None:
        raise TablesSaveError("bayes cannot save its tables of 'type1': No space left on device")


async def test_a_failure_the_bot_reports_in_its_own_words_has_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seat = InProcessSeat(Reporting())
    with caplog.at_level(logging.WARNING):
        await seat.send(start())
    (logged,) = [r.msg for r in caplog.records if isinstance(r.msg, dict)]
    assert logged["event"] == "bot_event_handler_failed"
    assert logged.get("exc_info") is None
    assert "No space left on device" in logged["error"]
