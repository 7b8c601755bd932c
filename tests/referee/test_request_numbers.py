"""Request numbers (``seq``): each seat connection's requests are numbered 1, 2, 3, … through the
whole match, never again from 1 in the next game, so a late answer to an earlier game's request
can never carry the number of the request now pending (docs/PROTOCOL.md). The numbers are per
seat, without gaps: a seat learns nothing from them about the requests other seats were sent.
"""

from __future__ import annotations

from arena.dealing import MatchSeed
from arena.matches.bulls_cows import play_series
from arena.matches.mahjong import MatchSpec, play_match
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.registry import make_bot
from protocol.messages import Action, Error, Event, Request


class NumberedSeat:
    """An in-process seat that notes the game and ``seq`` of every request it is asked."""

    def __init__(self, bot: Bot) -> None:
        self.inner = InProcessSeat(bot)
        self.asked: list[tuple[str | None, int | None]] = []

    async def send(self, message: Event | Error) -> None:
        await self.inner.send(message)

    async def ask(self, request: Request) -> Action:
        self.asked.append((request.game, request.seq))
        return await self.inner.ask(request)


def assert_numbered_through_the_match(seat: NumberedSeat, games: int) -> None:
    seqs = [seq for _game, seq in seat.asked]
    # 1, 2, 3, …: never restarted, never repeated, and no gaps that would count other seats.
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert len({game for game, _seq in seat.asked}) == games, "asked in every game"


async def test_a_seats_numbers_go_on_through_the_games_of_a_1a2b_series() -> None:
    seats = (
        NumberedSeat(make_bot("bulls_cows", "random", {"seed": 1}, "a")),
        NumberedSeat(make_bot("bulls_cows", "random", {"seed": 2}, "b")),
    )
    report = await play_series("random", "random", 3, "numbers", names=("a", "b"), seats=seats)
    assert report.penalties == [0, 0]
    for seat in seats:
        assert_numbered_through_the_match(seat, 3)


async def test_a_seats_numbers_follow_its_player_through_a_mahjong_match() -> None:
    # Five hands: the players change seats at the second round, and claims are asked privately.
    seats: list[NumberedSeat] = []

    def numbered(bot: Bot) -> NumberedSeat:
        seats.append(NumberedSeat(bot))
        return seats[-1]

    spec = MatchSpec(bots=("greedy",) * 4, seed="numbers", games=5)
    await play_match(spec, seat_factory=numbered)
    assert len(seats) == 4
    for seat in seats:
        assert_numbered_through_the_match(seat, 5)


class SlottedSeat:
    """A seat the referee cannot keep a weak reference to: counted by its table instead."""

    __slots__ = ("asked", "inner")

    def __init__(self, bot: Bot) -> None:
        self.inner = InProcessSeat(bot)
        self.asked: list[int | None] = []

    async def send(self, message: Event | Error) -> None:
        await self.inner.send(message)

    async def ask(self, request: Request) -> Action:
        self.asked.append(request.seq)
        return await self.inner.ask(request)


async def test_a_seat_without_weak_references_is_numbered_per_game() -> None:
    seat = SlottedSeat(make_bot("bulls_cows", "random", {"seed": 3}, "solo"))
    for index in range(2):
        before = len(seat.asked)
        await play_game(
            "bulls_cows",
            [seat],
            rules={"mode": "solve", "digits": 3, "alphabet": "123456789"},
            seed=MatchSeed.from_text("numbers"),
            deal={"secret_index": index},
            players=["solo"],
            game_id=f"g{index}",
        )
        assert seat.asked[before:] == list(range(1, len(seat.asked) - before + 1))
