"""Mutation audit of the referee's decision cap and of `GameResult`'s check of its winners: a cap
of 0 stops the game before any decision, the cap is logged as a structured error, and a result
is refused when a negative seat wins, when any winner (not only the best) scores below a seat
that did not win, or when the last seat outscores the winner."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

import arena.referee as referee
from arena.dealing import MatchSeed
from arena.games.base import GameResult, GameSpec
from arena.games.errors import DecisionCapError, GameError
from arena.games.registry import get_spec
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Request


class Guesser(Bot):
    def __init__(self) -> None:
        super().__init__("guesser")
        self.asked = 0

    async def act(self, request: Request) -> str:
        self.asked += 1
        return "guess 123"


def capped_spec(cap: int) -> GameSpec:
    real = get_spec("bulls_cows")
    fields = {f.name: getattr(real, f.name) for f in dataclasses.fields(real)}
    fields.update(max_decisions=cap)
    return GameSpec(**fields)


async def test_a_cap_of_zero_allows_no_decision_and_is_logged(
    monkeypatch: pytest.MonkeyPatch, structured_logs: Callable[[], list[dict[str, Any]]]
) -> None:
    monkeypatch.setattr(referee, "get_spec", lambda _name: capped_spec(0))
    bot = Guesser()
    with pytest.raises(DecisionCapError, match="after 0 decisions"):
        await play_game(
            "bulls_cows",
            [InProcessSeat(bot)],
            rules={"mode": "solve"},
            seed=MatchSeed.from_text("cap"),
            deal={"secret_index": 0},
            players=[bot.name],
        )
    assert bot.asked == 0
    logged = [e for e in structured_logs() if e.get("event") == "decision_cap"]
    assert logged and logged[0]["decisions"] == 0 and logged[0]["cap"] == 0
    assert logged[0]["level"] == "error"


@pytest.mark.parametrize(
    ("scores", "winners", "problem"),
    [
        ((0.0, 1.0), (-1,), "distinct seats"),  # -1 would read the last seat's score
        ((1.0, 0.0, 0.5), (0, 1), "contradict the scores"),  # one winner below a loser
        ((1.0, 0.0, 2.0), (0,), "contradict the scores"),  # the last seat outscores the winner
    ],
)
def test_results_contradicting_their_scores_are_refused(
    scores: tuple[float, ...], winners: tuple[int, ...], problem: str
) -> None:
    with pytest.raises(GameError, match=problem):
        GameResult(scores=scores, winners=winners, reason="test")
