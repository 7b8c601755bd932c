"""1A2B duels through the referee with in-process seats: series, cheats, faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.dealing import MatchSeed
from arena.games.bulls_cows import BullsCowsAction, BullsCowsGame, code_space
from arena.matches.bulls_cows import play_series
from arena.records import JsonlRecorder
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.bulls_cows import BullsCowsBot, build_bot
from protocol.games.bulls_cows import BullsCowsObservation
from protocol.messages import Request

RULES = {"mode": "duel", "digits": 3, "alphabet": "123456789", "max_guesses": 20}
SEED = MatchSeed.from_text("bc-referee")


class LyingBot(Bot):
    """Guesses with the entropy bot, answers truthfully for 123 but reveals 456 at the end."""

    def __init__(self) -> None:
        super().__init__("liar")
        self.inner = build_bot("entropy", "inner", {})
        self.space = code_space()

    async def act(self, request: Request) -> str:
        observation = request.observation
        assert isinstance(observation, BullsCowsObservation)
        if observation.phase == "answer":
            assert observation.pending_guess is not None
            guess = self.space.index[observation.pending_guess]
            truth = int(self.space.table[guess, self.space.index["123"]])
            return f"answer {self.space.feedback_text(truth)}"
        if observation.phase == "reveal":
            return "reveal 456"
        return await self.inner.act(request)


class GarbleBot(Bot):
    """Guesses well but answers with feedback that cannot exist."""

    def __init__(self) -> None:
        super().__init__("garble")
        self.inner = build_bot("optimal", "inner", {"answerer": "evader"})

    async def act(self, request: Request) -> str:
        assert isinstance(request.observation, BullsCowsObservation)
        if request.observation.phase == "answer":
            return "answer 2A1B"
        return await self.inner.act(request)


async def test_series_through_the_referee_writes_records(tmp_path: Path) -> None:
    record = tmp_path / "series.jsonl"
    recorder = JsonlRecorder(record)
    report = await play_series("optimal", "random", 4, "bc-series", recorder=recorder)
    recorder.close()
    assert sum(report.wins) + report.draws == 4
    assert report.penalties == [0, 0]
    assert report.reasons.keys() <= {"solved", "both_solved", "max_guesses"}
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    headers = [line for line in lines if line["type"] == "header"]
    assert [h["deal"] for h in headers] == [{"game_index": k} for k in range(4)]
    assert [h["players"][0] for h in headers] == ["optimal", "random", "optimal", "random"]
    reveals = [
        line for line in lines if line["type"] == "event" and line["payload"]["kind"] == "reveal"
    ]
    assert len(reveals) == 8 and all(r["payload"]["consistent"] for r in reveals)


async def test_same_seed_same_series() -> None:
    one = await play_series("entropy", "random", 6, "again", b_config={"answerer": "evader"})
    two = await play_series("entropy", "random", 6, "again", b_config={"answerer": "evader"})
    assert one.diffs == two.diffs and one.reasons == two.reasons


async def test_a_lying_answerer_forfeits() -> None:
    honest = build_bot("entropy", "honest", {"seed": 1})
    played = await play_game(
        "bulls_cows",
        [InProcessSeat(honest), InProcessSeat(LyingBot())],
        rules=RULES,
        seed=SEED,
        deal={"game_index": 0},
        players=["honest", "liar"],
    )
    assert played.result.reason == "breach"
    assert played.result.winners == (0,)
    (breach,) = played.result.detail["breaches"]
    assert breach["seat"] == 1 and breach["revealed"] == "456"


async def test_impossible_answers_get_the_fallback_and_a_penalty() -> None:
    honest = build_bot("super-comparison", "honest", {"seed": 2})
    played = await play_game(
        "bulls_cows",
        [InProcessSeat(GarbleBot()), InProcessSeat(honest)],
        rules=RULES,
        seed=SEED,
        deal={"game_index": 1},
        players=["garble", "honest"],
        deadline_ms=5000,
    )
    assert played.penalties[0] >= 1 and played.penalties[1] == 0
    # The fallback answer is always legal, so the game still ends without a breach.
    assert played.result.reason in {"solved", "both_solved"}


async def test_fixed_answerer_draws_a_new_secret_each_game() -> None:
    bot = build_bot("optimal", "fixed", {"seed": "s"})
    opponent = build_bot("optimal", "other", {"seed": "t"})
    assert isinstance(bot, BullsCowsBot)
    revealed = []
    for k in range(3):
        played = await play_game(
            "bulls_cows",
            [InProcessSeat(bot), InProcessSeat(opponent)],
            rules=RULES,
            seed=SEED,
            deal={"game_index": k},
            players=["fixed", "other"],
        )
        assert not played.result.detail["breaches"]
        revealed.append(played.result.detail["revealed"][0])
    assert len(set(revealed)) == 3


class UnicodeDigitBot(Bot):
    """Guesses well but answers with a superscript digit, which str.isdigit() accepts."""

    def __init__(self) -> None:
        super().__init__("unicode")
        self.inner = build_bot("optimal", "inner", {"answerer": "evader"})

    async def act(self, request: Request) -> str:
        assert isinstance(request.observation, BullsCowsObservation)
        if request.observation.phase == "answer":
            return "answer ²A0B"
        return await self.inner.act(request)


async def test_an_unreadable_answer_is_an_invalid_action_not_a_crash() -> None:
    honest = build_bot("super-comparison", "honest", {"seed": 2})
    played = await play_game(
        "bulls_cows",
        [InProcessSeat(UnicodeDigitBot()), InProcessSeat(honest)],
        rules=RULES,
        seed=SEED,
        deal={"game_index": 1},
        players=["unicode", "honest"],
        deadline_ms=5000,
    )
    assert played.penalties[0] >= 1 and played.penalties[1] == 0
    assert played.result.reason in {"solved", "both_solved"}


async def test_a_parser_that_raises_something_else_still_cannot_stop_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defence in depth: an engine's parser slip is the bot's bad answer, not a referee crash."""
    real_parse = BullsCowsGame.parse_action

    def slipping_parse(self: BullsCowsGame, text: str) -> BullsCowsAction:
        if text.startswith("answer"):
            raise ValueError("a parser slip")
        return real_parse(self, text)

    monkeypatch.setattr(BullsCowsGame, "parse_action", slipping_parse)
    played = await play_game(
        "bulls_cows",
        [InProcessSeat(build_bot("optimal", name, {})) for name in ("a", "b")],
        rules=RULES,
        seed=SEED,
        deal={"game_index": 2},
        players=["a", "b"],
        deadline_ms=5000,
    )
    # every answer fell back to the engine's, so the reveals may breach them: the game still ends
    assert played.penalties[0] >= 1 and played.penalties[1] >= 1
    assert played.result.reason in {"solved", "both_solved", "breach", "both_breached"}
