"""Time controls from a ruleset's ``[time]`` table reach the referee: the deadline, and a time
bank per player per match that pays for late answers until it runs out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

import pytest

from arena.dealing import MatchSeed
from arena.games.errors import RulesetError
from arena.matches.liars_dice_series import make_ld_bot, run_match
from arena.records import MemoryRecorder
from arena.referee import DEFAULT_DEADLINE_MS, TimeBank, TimeControl, play_game
from arena.transports.base import SeatFailure
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Action, ErrorCode, Request

DICE_RULES = "[rules]\nplayers = 2\n\n[time]\n"


def _ruleset(tmp_path: Path, time_table: str) -> Path:
    path = tmp_path / "timed.toml"
    path.write_text(DICE_RULES + time_table, encoding="utf-8")
    return path


def test_the_time_table_is_read_and_the_option_overrides_its_deadline(tmp_path: Path) -> None:
    path = _ruleset(tmp_path, "deadline_ms = 700\nbank_ms = 3000\nstart_timeout_ms = 5000\n")
    clock = TimeControl.from_ruleset("liars_dice", path, game_key_required=False)
    assert (clock.deadline_ms, clock.bank_ms, clock.start_timeout_ms) == (700, 3000, 5000)
    assert (
        TimeControl.from_ruleset(
            "liars_dice", path, game_key_required=False, deadline_ms=90
        ).deadline_ms
        == 90
    )
    assert TimeControl.from_ruleset("liars_dice", None).deadline_ms == DEFAULT_DEADLINE_MS
    assert TimeControl.from_ruleset("liars_dice", None, default_deadline_ms=5000).bank_ms is None


@pytest.mark.parametrize(
    ("table", "message"),
    [("bank = 1\n", "unknown time control keys: bank"), ("bank_ms = -5\n", "bank_ms must be")],
)
def test_a_bad_time_table_names_the_file(tmp_path: Path, table: str, message: str) -> None:
    path = _ruleset(tmp_path, table)
    with pytest.raises(RulesetError, match=message) as caught:
        TimeControl.from_ruleset("liars_dice", path, game_key_required=False)
    assert str(path) in str(caught.value)


def test_a_bank_made_before_the_players_are_known_covers_each() -> None:
    bank = TimeControl(bank_ms=400).new_bank()
    assert isinstance(bank, TimeBank)
    bank.spend("a", 150)
    assert (bank.left("a"), bank.left("b")) == (250, 400)


class SlowSeat(InProcessSeat):
    """Answers every request 60 ms late: past a 10 ms deadline on any machine."""

    async def ask(self, request: Request) -> Action:
        await asyncio.sleep(0.06)
        return await super().ask(request)


def _failures(bank: TimeBank | None) -> int:
    """The failed answers (late ones here) of a four-game duel with the slow seat."""
    seats = (
        SlowSeat(make_ld_bot("random-guess", {"seed": "slow"})),
        InProcessSeat(make_ld_bot("type5", {"seed": "slow"})),
    )
    recorder = MemoryRecorder()
    asyncio.run(
        run_match(
            "slow", "t5", 4, "time", seats=seats, deadline_ms=10, time_bank=bank, recorder=recorder
        )
    )
    return sum(line["type"] == "failure" for line in recorder.lines)


def test_the_bank_pays_for_late_answers_and_without_one_they_are_penalised() -> None:
    bank = TimeControl(deadline_ms=10, bank_ms=60_000).new_bank()
    assert _failures(bank) == 0
    assert bank is not None and bank.left("slow") < 60_000
    assert _failures(None) > 0


class BankWatchingSeat(SlowSeat):
    """A slow seat that keeps what every request said of its bank."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.banks: list[int | None] = []

    async def ask(self, request: Request) -> Action:
        self.banks.append(request.bank_ms)
        return await super().ask(request)


@pytest.mark.parametrize("bank_ms", [60_000, None])
def test_each_request_tells_the_bot_what_is_left_of_its_bank(bank_ms: int | None) -> None:
    """PROTOCOL.md: a request carries ``bank_ms``, the seat's bank left, when the match has
    one (so a bot can budget its thinking), and leaves it out otherwise."""
    slow = BankWatchingSeat(make_ld_bot("random-guess", {"seed": "slow"}))
    seats = (slow, InProcessSeat(make_ld_bot("type5", {"seed": "slow"})))
    bank = TimeControl(deadline_ms=10, bank_ms=bank_ms).new_bank()
    asyncio.run(run_match("slow", "t5", 4, "time", seats=seats, deadline_ms=10, time_bank=bank))
    assert slow.banks
    if bank_ms is None:
        assert set(slow.banks) == {None}
        return
    assert slow.banks[0] == bank_ms
    assert all(isinstance(left, int) for left in slow.banks)
    banks = cast(list[int], slow.banks)  # no None: checked just above
    assert banks == sorted(banks, reverse=True) and banks[-1] < bank_ms


class ResumedSeat(InProcessSeat):
    """Its first request is answered ``late`` by the seat itself, at once: what a server says
    for a bot that came back on a new connection while the request was pending. It answers
    every request after that."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.reported = 0

    async def ask(self, request: Request) -> Action:
        if not self.reported:
            self.reported += 1
            raise SeatFailure(ErrorCode.LATE, "bot rz reconnected while a request was pending")
        return await super().ask(request)


def test_a_late_the_seat_reports_is_asked_again_even_with_a_bank() -> None:
    """Audit r11: with a bank, the server's ``late`` for a resumed bot was taken for a bank
    failure (no re-ask, a penalty), although no time ran out; NETWORK.md promises it is asked
    again. Only the referee's own clock spends the bank and skips the re-ask."""
    seats = (
        ResumedSeat(make_ld_bot("random-guess", {"seed": "rz"})),
        InProcessSeat(make_ld_bot("type5", {"seed": "rz"})),
    )
    bank = TimeControl(bank_ms=60_000).new_bank()
    recorder = MemoryRecorder()
    played = asyncio.run(
        play_game(
            "liars_dice",
            seats,
            rules={},
            seed=MatchSeed.from_text("resumed"),
            deal={"game_index": 0},
            players=["rz", "t5"],
            recorder=recorder,
            time_bank=bank,
        )
    )
    failures = [line for line in recorder.lines if line["type"] == "failure"]
    assert [line["code"] for line in failures] == ["late"]
    assert played.penalties == (0, 0)
    assert not any(line.get("fallback") for line in recorder.lines if line["type"] == "decision")
    assert bank is not None and bank.left("rz") == 60_000


class HoldThenResumeSeat(InProcessSeat):
    """Holds its first request for ``held_s`` of the scripted clock, then 'resumes' (the server
    answers the request ``late``); answers every request after that at once."""

    def __init__(self, bot: Bot, clock: list[float], held_s: float) -> None:
        super().__init__(bot)
        self.clock = clock
        self.held_s = held_s
        self.reported = False

    async def ask(self, request: Request) -> Action:
        if not self.reported:
            self.reported = True
            self.clock[0] += self.held_s
            raise SeatFailure(ErrorCode.LATE, "bot rz reconnected while a request was pending")
        return await super().ask(request)


@pytest.mark.parametrize(("held_s", "bank_left", "penalties"), [(0.25, 50.0, 0), (0.5, 0.0, 1)])
def test_the_time_a_bot_held_a_request_before_resuming_is_spent(
    held_s: float, bank_left: float, penalties: int
) -> None:
    """Review of stop 21: a resume re-asks the request, but the time the bot held it past the
    deadline is spent from its bank as for an answer (else thinking past the deadline and then
    resuming would give a fresh limit with the bank untouched); past deadline + bank it is a
    timeout: the fallback is played."""
    clock = [0.0]
    seats = (
        HoldThenResumeSeat(make_ld_bot("random-guess", {"seed": "rz"}), clock, held_s),
        InProcessSeat(make_ld_bot("type5", {"seed": "rz"})),
    )
    bank = TimeBank({"rz": 200.0, "t5": 200.0}, clock=lambda: clock[0])
    played = asyncio.run(
        play_game(
            "liars_dice",
            seats,
            rules={},
            seed=MatchSeed.from_text("held"),
            deal={"game_index": 0},
            players=["rz", "t5"],
            deadline_ms=100,
            recorder=MemoryRecorder(),
            time_bank=bank,
        )
    )
    assert bank.left("rz") == bank_left
    assert played.penalties == (penalties, 0)
