"""The v1 additions come only to a bot that asks for them in ``hello.features`` (review of the
additions: the project's own client before them, like any bot built to "unknown fields are
errors", dropped every request carrying ``bank_ms`` and played its whole match on fallbacks,
and took the new refusal codes for garbage)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from net_helpers import raw_dice_pair

from arena.dealing import MatchSeed
from arena.referee import TimeBank, play_game


async def first_request(referee: str, features: list[str] | None) -> dict[str, Any]:
    async with raw_dice_pair(referee, alice_features=features) as (alice, _bob, seats):
        bank = TimeBank.for_players(["alice", "bob"], 1500)
        game = asyncio.create_task(
            play_game(
                "liars_dice",
                list(seats),
                rules={},
                seed=MatchSeed.from_text("bank"),
                deal={"game_index": 0, "first": 0},
                players=["alice", "bob"],
                game_id="g0",
                deadline_ms=60_000,
                time_bank=bank,
            )
        )
        try:
            return await alice.recv_until("request", 30)
        finally:
            game.cancel()
            with contextlib.suppress(BaseException):
                await game


@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_bank_ms_comes_only_to_a_bot_that_asked(referee: str) -> None:
    asked = await first_request(referee, ["bank_ms"])
    assert asked["bank_ms"] == 1500 and asked["deadline_ms"] == 60_000
    for features in (None, [], ["match_aborted", "some-later-addition"]):
        plain = await first_request(referee, features)
        assert "bank_ms" not in plain, features
        assert plain["deadline_ms"] == 60_000 and plain["legal"] == asked["legal"]
