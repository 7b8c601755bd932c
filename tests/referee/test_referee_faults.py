"""The referee against scripted, misbehaving bots: nothing a bot does stops the game.

The game is 1A2B in solve mode (one seat), the smallest engine; scripted bots play a fixed list
of answers, as python-chess's MockTransport plays a fixed script.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.dealing import MatchSeed
from arena.records import JsonlRecorder, MemoryRecorder, Recorder
from arena.referee import PlayedGame, play_game
from arena.replay import verify_record
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.liars_dice import BOTS as LIARS_DICE_BOTS
from protocol.games.common import Penalty
from protocol.messages import Action, Error, ErrorCode, Event, Request

RULES = {"mode": "solve", "digits": 3, "alphabet": "123456789"}
SEED = MatchSeed.from_text("referee-tests")
# Timeouts scale on slow machines: ARENA_TEST_TIMEOUT_SCALE=4 gives four times as long.
SCALE = float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))


class ScriptedBot(Bot):
    """Plays its script in order, then the first consistent code; records what it is told."""

    def __init__(self, script: Sequence[object]) -> None:
        super().__init__("scripted")
        self.script = list(script)
        self.errors: list[Error] = []
        self.events: list[Event] = []
        self.requests: list[Request] = []

    async def on_event(self, event: Event) -> None:
        self.events.append(event)

    async def on_error(self, error: Error) -> None:
        self.errors.append(error)

    async def act(self, request: Request) -> str:
        self.requests.append(request)
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, BaseException):
                raise step
            if isinstance(step, float):
                await asyncio.sleep(step)
                return "guess 123"
            return str(step)
        return "guess 123"


async def play(bot: Bot, deadline_ms: int = 2000, recorder: Recorder | None = None) -> PlayedGame:
    return await play_game(
        "bulls_cows",
        [InProcessSeat(bot)],
        rules=RULES,
        seed=SEED,
        deal={"secret_index": 0},  # secret 123: "guess 123" solves it
        players=[bot.name],
        deadline_ms=deadline_ms,
        recorder=recorder,
        reveal=True,  # a lone game: its record publishes the seed
    )


async def test_a_good_answer_needs_no_retry() -> None:
    bot = ScriptedBot(["guess 123"])
    played = await play(bot)
    assert played.penalties == (0,)
    assert bot.errors == []
    assert played.result.scores == (1.0,)


@pytest.mark.parametrize(
    ("bad", "code"),
    [
        ("guess 11", ErrorCode.INVALID_ACTION),
        ("dance", ErrorCode.INVALID_ACTION),
        ("answer 1A2B", ErrorCode.ILLEGAL_ACTION),
        (RuntimeError("boom"), ErrorCode.BOT_FAILURE),
    ],
)
async def test_one_bad_answer_gets_an_error_and_a_reask(bad: object, code: ErrorCode) -> None:
    bot = ScriptedBot([bad, "guess 123"])
    played = await play(bot)
    assert [e.code for e in bot.errors] == [code]
    assert bot.errors[0].seq == bot.requests[0].seq
    assert bot.requests[1].seq == bot.requests[0].seq + 1, "a re-ask has a new seq"
    assert played.penalties == (0,)


async def test_two_failures_play_the_fallback_and_count_a_penalty() -> None:
    bot = ScriptedBot(["nonsense", "guess 99"])
    recorder = MemoryRecorder()
    played = await play(bot, recorder=recorder)
    assert played.penalties == (1,)
    failures = [line for line in recorder.lines if line["type"] == "failure"]
    assert [f["code"] for f in failures] == ["invalid_action", "invalid_action"]
    fallbacks = [line for line in recorder.lines if line.get("fallback")]
    assert len(fallbacks) == 1
    penalties = [e.payload for e in bot.events if isinstance(e.payload, Penalty)]
    assert len(penalties) == 1 and penalties[0].seat == 0
    assert recorder.lines[-1]["type"] == "reveal"


async def test_a_late_bot_is_told_and_the_game_goes_on() -> None:
    bot = ScriptedBot([0.5 * SCALE, "guess 123"])
    played = await play(bot, deadline_ms=int(100 * SCALE))
    assert [e.code for e in bot.errors] == [ErrorCode.LATE]
    assert played.result.scores == (1.0,)


async def test_a_bot_that_always_fails_still_finishes_the_game() -> None:
    bot = ScriptedBot([RuntimeError("always")] * 100)
    played = await play(bot)
    # every decision is the engine's fallback, and each one is a penalty
    assert played.penalties[0] == played.decisions >= 1
    assert played.result.reason in {"solved", "max_guesses"}


class WrongSeqSeat:
    """A remote-like seat whose answers echo the wrong seq."""

    async def send(self, message: Event | Error) -> None:
        return None

    async def ask(self, request: Request) -> Action:
        return Action(seq=request.seq + 100, action="guess 123")


async def test_an_answer_to_the_wrong_seq_is_stale() -> None:
    recorder = MemoryRecorder()
    await play_game(
        "bulls_cows",
        [WrongSeqSeat()],
        rules=RULES,
        seed=SEED,
        deal={"secret_index": 0},
        players=["stale"],
        recorder=recorder,
    )
    codes = {line["code"] for line in recorder.lines if line["type"] == "failure"}
    assert codes == {"stale_seq"}


async def test_record_replays_and_tampering_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    with JsonlRecorder(path) as recorder:
        await play_game(
            "bulls_cows",
            [InProcessSeat(ScriptedBot(["guess 456", "bad", "guess 789", "guess 123"]))],
            rules=RULES,
            seed=SEED,
            deal={"round": 3},
            players=["scripted"],
            recorder=recorder,
            reveal=True,
        )
    checks = verify_record(path)
    assert [c.ok for c in checks] == [True], checks[0].problems

    lines = path.read_text().splitlines()
    # An altered seed no longer matches the commitment published in the header.
    reveal = json.loads(lines[-1])
    reveal["seed"] = MatchSeed.from_text("another").hex()
    forged = tmp_path / "forged-seed.jsonl"
    forged.write_text("\n".join([*lines[:-1], json.dumps(reveal)]) + "\n")
    problems = verify_record(forged)[0].problems
    assert problems and "commitment" in problems[0]

    # An altered event (an answer the engine would not give) is named by its line.
    index = next(i for i, t in enumerate(lines) if '"kind":"answer"' in t)
    event = json.loads(lines[index])
    event["payload"]["feedback"] = "2A0B" if event["payload"]["feedback"] != "2A0B" else "0A0B"
    forged_event = tmp_path / "forged-event.jsonl"
    forged_event.write_text(
        "\n".join([*lines[:index], json.dumps(event), *lines[index + 1 :]]) + "\n"
    )
    problems = verify_record(forged_event)[0].problems
    assert problems and f"line {index + 1}" in problems[0]


class Witness(Bot):
    """A liar's dice bot that keeps every event it is sent."""

    def __init__(self) -> None:
        super().__init__("witness")
        self.inner = LIARS_DICE_BOTS["probability"]("inner", {"seed": 1})
        self.events: list[Event] = []

    async def on_event(self, event: Event) -> None:
        self.events.append(event)
        await self.inner.on_event(event)

    async def act(self, request: Request) -> str:
        return await self.inner.act(request)


async def test_only_the_failing_seat_hears_of_its_penalty() -> None:
    """In a mahjong claim only seats that can claim are asked; a penalty told to the others
    would show them that the failing seat holds a pair, a chow's two tiles or a wait."""
    garbler = ScriptedBot(["nonsense"] * 100)
    witness = Witness()
    played = await play_game(
        "liars_dice",
        [InProcessSeat(witness), InProcessSeat(garbler)],
        rules={"players": 2},
        seed=MatchSeed.from_text("penalty-privacy"),
        deal={"game_index": 0, "first": 1},
        players=["witness", "garbler"],
    )
    assert played.penalties == (0, played.penalties[1]) and played.penalties[1] >= 1
    assert any(isinstance(e.payload, Penalty) for e in garbler.events)
    assert not any(isinstance(e.payload, Penalty) for e in witness.events)
