"""Time controls in the referee: the per-decision deadline, the per-match bank, the fallback.

The bank is tested on a scripted clock: each bot "thinks" by moving the clock forward and
answers at once, so the referee's timing decisions are exact and nothing waits in real time.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import PlayedGame, TimeBank, TimeControl, play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Request

SOLVE = {"mode": "solve", "digits": 3, "alphabet": "123456789", "max_guesses": 20}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowBot(Bot):
    """Guesses 456, 789, … taking ``thinks_ms[i]`` scripted milliseconds for its i-th answer."""

    games = ("bulls_cows",)

    def __init__(self, clock: Clock, thinks_ms: Sequence[float]) -> None:
        super().__init__("slow")
        self.clock = clock
        self.thinks_ms = list(thinks_ms)
        self.asked = 0
        self.lines: list[dict[str, object]] = []

    async def act(self, request: Request) -> str:
        think = self.thinks_ms[self.asked] if self.asked < len(self.thinks_ms) else 0.0
        self.asked += 1
        self.clock.now += think / 1000
        return "guess 456" if self.asked % 2 else "guess 789"


async def play(bot: SlowBot, bank: TimeBank, deadline_ms: int = 100) -> PlayedGame:
    recorder = MemoryRecorder()
    played = await play_game(
        "bulls_cows",
        [InProcessSeat(bot)],
        rules={**SOLVE, "max_guesses": 4},
        seed=MatchSeed.from_text("bank"),
        deal={"secret_index": 503},  # secret 987: neither our guesses nor the fallbacks solve it
        players=[bot.name],
        deadline_ms=deadline_ms,
        recorder=recorder,
        time_bank=bank,
    )
    bot.lines = recorder.lines
    return played


async def test_an_overrun_within_the_bank_is_accepted_and_spent() -> None:
    clock = Clock()
    bank = TimeBank({"slow": 500.0}, clock=clock)
    bot = SlowBot(clock, [300, 200, 50, 50])
    played = await play(bot, bank)
    assert played.penalties == (0,)
    assert bank.left("slow") == pytest.approx(500 - 200 - 100)


async def test_an_overrun_past_the_bank_empties_it_and_falls_back_at_once() -> None:
    clock = Clock()
    bank = TimeBank({"slow": 150.0}, clock=clock)
    bot = SlowBot(clock, [400, 50, 50, 50])
    played = await play(bot, bank)
    failures = [line for line in bot.lines if line["type"] == "failure"]
    assert [f["code"] for f in failures] == ["late"]
    assert played.penalties == (1,)
    assert bot.asked == 4, "no re-ask after a late answer when a bank is in force"
    assert bank.left("slow") == 0


async def test_an_empty_bank_means_the_fallback_for_every_late_answer() -> None:
    clock = Clock()
    bank = TimeBank({"slow": 0.0}, clock=clock)
    bot = SlowBot(clock, [150, 150, 50, 50])
    played = await play(bot, bank)
    assert played.penalties == (2,)


def test_the_bank_is_per_player_and_per_match() -> None:
    control = TimeControl.from_mapping({"deadline_ms": 200, "bank_ms": 5000})
    bank = control.new_bank(["a", "b"])
    assert bank is not None
    bank.spend("a", 1200)
    assert (bank.left("a"), bank.left("b")) == (3800, 5000)
    bank.spend("a", 9000)
    assert bank.left("a") == 0
    assert TimeControl().new_bank(["a"]) is None


@pytest.mark.parametrize(
    "data",
    [{"deadline_ms": 0}, {"bank_ms": -1}, {"deadline_ms": 1.5}, {"speed": 1}, {"bank_ms": True}],
)
def test_time_controls_are_checked(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TimeControl.from_mapping(data)
