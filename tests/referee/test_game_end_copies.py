"""The ``game_end`` an in-process bot receives is the object itself, and its lists and dicts are
not frozen: whatever the bot does to them must change neither the record nor the engine's
result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.dealing import MatchSeed
from arena.games.mahjong.rules import load_ruleset
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.registry import make_bot
from protocol.games.common import GameEnd
from protocol.messages import Event, Request

# The golden hand r1_added_kong_ron: seat 1 wins on seat 0's 2s, for 1500 points.
EXPECTED_SCORES = [-1500.0, 1500.0, 0.0, 0.0]
EXPECTED_PAYMENTS = [-1500, 1500, 0, 0]


class Vandal(Bot):
    """Plays as the greedy bot, and scribbles over every game end it is sent."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.inner = make_bot("mahjong", "greedy", {}, name=name)
        self.ends = 0

    async def act(self, request: Request) -> str:
        return await self.inner.act(request)

    async def on_event(self, event: Event) -> None:
        await self.inner.on_event(event)
        payload = event.payload
        if isinstance(payload, GameEnd):
            self.ends += 1
            payload.scores[:] = [9.0] * len(payload.scores)
            payload.winners.append(3)
            payload.detail["deltas"][0] = 7
            payload.detail["wins"][0]["payments"][0] = 12345
            payload.detail["forged"] = True


async def test_a_bot_that_mutates_the_game_end_changes_nothing_else() -> None:
    bots = [Vandal(f"vandal-{seat}") for seat in range(4)]
    recorder = MemoryRecorder()
    played = await play_game(
        "mahjong",
        [InProcessSeat(bot) for bot in bots],
        rules=load_ruleset("competition").to_mapping(),
        seed=MatchSeed.from_text("golden"),
        deal={"round": 1, "hand": 1},
        players=[bot.name for bot in bots],
        recorder=recorder,
    )
    assert [bot.ends for bot in bots] == [1, 1, 1, 1]
    (result,) = [line for line in recorder.lines if line["type"] == "result"]
    assert result["scores"] == EXPECTED_SCORES
    assert result["winners"] == [1]
    assert "forged" not in result["detail"]
    assert result["detail"]["deltas"] == EXPECTED_PAYMENTS
    assert result["detail"]["wins"][0]["payments"] == EXPECTED_PAYMENTS
    detail: Mapping[str, Any] = played.result.detail
    assert list(played.result.scores) == EXPECTED_SCORES
    assert "forged" not in detail
    assert detail["deltas"] == EXPECTED_PAYMENTS
    assert detail["wins"][0]["payments"] == EXPECTED_PAYMENTS
