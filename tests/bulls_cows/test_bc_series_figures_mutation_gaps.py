"""Mutation gaps of `arena/matches/bulls_cows.py`: a 1A2B series' report, checked against the
series' own record and against what it was asked to play.

A and B swap seats every game (RULES.md, duel mode: "a match alternates who sits at seat 0"), so
whatever a game gives a seat — a score, a penalty — belongs to the bot sitting there in that
game; each bot plays with its own config; the series runs on the deadline and time bank it is
given.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from typing import Any

import pytest

import bots.registry
from arena.matches.bulls_cows import play_series
from arena.records import MemoryRecorder
from arena.referee import TimeBank
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot, BotReportedError
from bots.registry import make_bot
from protocol.messages import Request


class NeverAnswers(Bot):
    """Fails every request: the referee plays its fallback, a penalty each time."""

    games = ("bulls_cows",)

    async def act(self, request: Request) -> str:
        raise BotReportedError("this bot never answers")


def test_penalties_and_end_reasons_are_the_records_whichever_seat_the_bot_had() -> None:
    recorder = MemoryRecorder()
    steps: list[int] = []
    seats = (
        InProcessSeat(make_bot("bulls_cows", "optimal", name="solid")),
        InProcessSeat(NeverAnswers("broken")),
    )
    report = asyncio.run(
        play_series(
            "solid", "broken", 4, "bc-gaps", seats=seats, recorder=recorder, progress=steps.append
        )
    )
    headers = [line for line in recorder.lines if line["type"] == "header"]
    results = [line for line in recorder.lines if line["type"] == "result"]
    penalties: Counter[str] = Counter()
    for header, result in zip(headers, results, strict=True):
        for name, count in zip(header["players"], result["penalties"], strict=True):
            penalties[name] += count
    assert penalties["broken"] > 0
    assert report.penalties == [penalties["solid"], penalties["broken"]]
    assert report.to_json()["penalties"] == {
        "solid": penalties["solid"],
        "broken": penalties["broken"],
    }
    reasons = Counter(result["reason"] for result in results)
    assert report.reasons == reasons
    shown = report.to_json()["reasons"]
    assert shown == dict(reasons) and list(shown) == sorted(reasons)
    # One step of progress per game played.
    assert steps == [1, 1, 1, 1]
    assert report.seconds > 0


def test_each_bot_is_built_with_its_own_config(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, dict[str, Any], str | None]] = []

    def recording_make_bot(
        game: str, strategy: str, config: Any = None, name: str | None = None
    ) -> Bot:
        built.append((strategy, dict(config or {}), name))
        return make_bot(game, strategy, config, name)

    monkeypatch.setattr(bots.registry, "make_bot", recording_make_bot)
    asyncio.run(
        play_series(
            "optimal",
            "random",
            1,
            "bc-configs",
            a_config={"answerer": "evader"},
            b_config={"answerer": "fixed"},
        )
    )
    assert [(strategy, config["answerer"], name) for strategy, config, name in built] == [
        ("optimal", "evader", "optimal"),
        ("random", "fixed", "random"),
    ]


def test_every_request_carries_the_series_deadline_and_late_answers_spend_its_bank() -> None:
    deadlines: list[int] = []

    class Timed(Bot):
        games = ("bulls_cows",)

        def __init__(self, name: str) -> None:
            super().__init__(name)
            self.inner = make_bot("bulls_cows", "optimal", name=name)

        async def act(self, request: Request) -> str:
            deadlines.append(request.deadline_ms)
            return await self.inner.act(request)

    ticks = itertools.count()
    # Every reading of the clock is 10 s after the one before: every answer is late, by more
    # than the deadline, and the bank (far larger) takes it.
    bank = TimeBank.for_players(["a", "b"], 10**12)
    bank.clock = lambda: 10.0 * next(ticks)
    report = asyncio.run(
        play_series(
            "a",
            "b",
            2,
            "bc-bank",
            seats=(InProcessSeat(Timed("a")), InProcessSeat(Timed("b"))),
            deadline_ms=1234,
            time_bank=bank,
        )
    )
    assert deadlines and set(deadlines) == {1234}
    assert bank.left("a") < 10**12 and bank.left("b") < 10**12
    assert report.penalties == [0, 0]


def test_the_json_lists_the_end_reasons_in_order_of_their_names() -> None:
    # This seed's series ends first in "solved", later in "both_solved".
    report = asyncio.run(play_series("optimal", "random", 6, "bc-order-3"))
    assert list(report.reasons) == ["solved", "both_solved"]
    assert list(report.to_json()["reasons"]) == ["both_solved", "solved"]
