"""Seats that decide at once (a 1A2B duel's reveals, mahjong claims): when one seat's ask raises,
the referee stops asking the others at once instead of leaving them to run out their deadlines
and then send errors and penalties to a match that has already stopped."""

from __future__ import annotations

import asyncio

import pytest

from arena.dealing import MatchSeed
from arena.errors import ServerLost
from arena.referee import PlayedGame, play_game
from arena.transports.base import SeatFailure
from protocol.games.common import Penalty
from protocol.messages import Action, Error, ErrorCode, Event, Request

DUEL = {"mode": "duel", "digits": 2, "alphabet": "1234", "max_guesses": 1}
"""One guess each, then both seats reveal their codes at the same time."""


async def duel(lost: DuelSeat, slow: DuelSeat) -> PlayedGame:
    """The duel of a seat that fails (``lost``) and one still deciding (``slow``)."""
    return await play_game(
        "bulls_cows",
        [lost, slow],
        rules=DUEL,
        seed=MatchSeed.from_text("simultaneous"),
        deal={"game_index": 0},
        players=["lost", "slow"],
        deadline_ms=3_600_000,
    )


class DuelSeat:
    """Plays the duel up to the reveal; what it does then is the test's."""

    def __init__(self) -> None:
        self.sent: list[Event | Error] = []
        self.in_reveal = asyncio.Event()

    async def send(self, message: Event | Error) -> None:
        self.sent.append(message)

    async def ask(self, request: Request) -> Action:
        hint = request.hint or ""
        if hint.startswith("reveal"):
            self.in_reveal.set()
            return await self.reveal(request)
        text = "guess 12" if hint.startswith("guess") else (request.legal or ["?"])[0]
        return Action(seq=request.seq, action=text, seat=request.seat)

    async def reveal(self, request: Request) -> Action:
        return Action(seq=request.seq, action="reveal 12", seat=request.seat)


class LostSeat(DuelSeat):
    """Its server connection drops while the other seat is thinking about its reveal."""

    def __init__(self, other: DuelSeat) -> None:
        super().__init__()
        self.other = other

    async def reveal(self, request: Request) -> Action:
        await self.other.in_reveal.wait()
        raise ServerLost("the server closed the table", games=0)


class SlowSeat(DuelSeat):
    """Thinks about its reveal until the test lets it go, then fails (a bad answer): a decide
    task still running would then send it an error, ask again and send it a penalty."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = False
        self.release = asyncio.Event()

    async def reveal(self, request: Request) -> Action:
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise SeatFailure(ErrorCode.BAD_MESSAGE, "garbled")


async def test_a_seat_that_raises_cancels_the_other_seats_decision() -> None:
    slow = SlowSeat()
    lost = LostSeat(slow)
    with pytest.raises(ServerLost):  # the seat's own exception, not an exception group
        await duel(lost, slow)
    # Cancelled before play_game returned: nothing of the match is left running.
    assert slow.cancelled
    slow.release.set()
    for _ in range(20):
        await asyncio.sleep(0)
    assert not [m for m in slow.sent if isinstance(m, Error)]
    assert not [m for m in slow.sent if isinstance(m, Event) and isinstance(m.payload, Penalty)]


async def test_a_simultaneous_decision_still_plays_every_seat() -> None:
    """Without a failure both reveals are taken, in seat order."""
    played = await play_game(
        "bulls_cows",
        [DuelSeat(), DuelSeat()],
        rules=DUEL,
        seed=MatchSeed.from_text("simultaneous"),
        deal={"game_index": 0},
        players=["a", "b"],
    )
    assert played.penalties == (0, 0)
    assert played.result.detail["revealed"] == ["12", "12"]


class LostAsStopped(LostSeat):
    """Its connection drops in the very loop step in which the match is stopped from outside
    (Ctrl-C cancelling the match's task)."""

    def __init__(self, other: DuelSeat) -> None:
        super().__init__(other)
        self.match_task: asyncio.Task[object] | None = None

    async def reveal(self, request: Request) -> Action:
        await self.other.in_reveal.wait()
        assert self.match_task is not None
        self.match_task.cancel()
        raise ServerLost("the server closed the table", games=0)


async def test_a_stop_that_meets_a_seat_failure_still_stops_the_match() -> None:
    """The stop wins: the caller asked for the match to end, and a `ServerLost` raised in the
    same step must not turn that into a server fault (Python 3.11's TaskGroup dropped the
    cancellation when a child failed with it)."""
    slow = SlowSeat()
    lost = LostAsStopped(slow)
    match = asyncio.create_task(duel(lost, slow))
    lost.match_task = match
    with pytest.raises(asyncio.CancelledError):
        await match
    assert match.cancelled()
    assert slow.cancelled


class SlowToStop(SlowSeat):
    """Takes a while to stop its reveal once cancelled (a connection closing politely)."""

    def __init__(self) -> None:
        super().__init__()
        self.stopping = asyncio.Event()
        self.may_stop = asyncio.Event()
        self.stopped = False

    async def reveal(self, request: Request) -> Action:
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.stopping.set()
            await self.may_stop.wait()
            self.stopped = True
            raise
        raise SeatFailure(ErrorCode.BAD_MESSAGE, "garbled")


async def test_a_stop_while_the_other_seats_are_being_cancelled_waits_for_them_then_stops() -> None:
    slow = SlowToStop()
    lost = LostSeat(slow)
    match = asyncio.create_task(duel(lost, slow))
    await slow.stopping.wait()  # lost has failed; slow is being cancelled
    match.cancel()
    for _ in range(5):
        await asyncio.sleep(0)
    assert not match.done()  # still waiting for the slow seat to stop
    slow.may_stop.set()
    with pytest.raises(asyncio.CancelledError):
        await match
    assert slow.stopped
