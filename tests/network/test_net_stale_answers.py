"""Late answers over the real server: a bot that answers every request after the referee gave up
on it, leaving ``game`` (and ``match`` and ``seat``) out of its actions — the protocol allows
that — never has an answer applied to another position. Request numbers go on through the games
of a match, so an answer to an earlier game's request is always ``stale_seq``, and the request
pending meanwhile stays pending: the bot's only failures are its late ones, and every decision
of its is the referee's fallback.

The lateness does not depend on timing: the bot answers each request one game late, the k-th
request of a game when the k-th request of the next game arrives. With numbers restarted in each
game those two requests had the same ``seq``, and the old answer was taken for the new one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from net_helpers import RawPeer, raw_dice_pair, scaled

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import play_game

GAMES = 4
DEADLINE_S = 0.5
"""How long each of the late bot's requests waits: only the game's pace depends on it (the
prompt bot may be late on a loaded machine, which these tests do not look at)."""


def first_legal(request: dict[str, Any]) -> str:
    legal: list[str] = request.get("legal") or ["challenge"]
    return legal[0]


async def answer_late(peer: RawPeer, seen: list[dict[str, Any]]) -> None:
    """Alice: answers each request one game late (see the module docstring)."""
    by_game: dict[str, list[dict[str, Any]]] = {}
    while True:
        message = await peer.recv(scaled(120))
        seen.append(message)
        if message["type"] != "request":
            continue
        asked = by_game.setdefault(message["game"], [])
        asked.append(message)
        games = list(by_game)
        index = games.index(message["game"])
        if index > 0:
            # The game before this one is over: its k-th request was given up on long ago.
            earlier = by_game[games[index - 1]]
            if len(asked) <= len(earlier):
                old = earlier[len(asked) - 1]
                # No match, game or seat: the protocol's own examples leave them out.
                await peer.send(
                    {"v": 1, "type": "action", "seq": old["seq"], "action": first_legal(old)}
                )


async def answer_at_once(peer: RawPeer) -> None:
    """Bob: answers every request at once, in full."""
    while True:
        message = await peer.recv(scaled(120))
        if message["type"] == "request":
            await peer.send(
                {
                    "v": 1,
                    "type": "action",
                    "match": message["match"],
                    "game": message["game"],
                    "seat": message["seat"],
                    "seq": message["seq"],
                    "action": first_legal(message),
                }
            )


@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_late_answers_without_game_never_answer_a_later_games_request(
    referee: str,
) -> None:
    recorder = MemoryRecorder()
    seen: list[dict[str, Any]] = []
    seed = MatchSeed.from_text("stale-answers")
    async with raw_dice_pair(referee) as (alice, bob, seats):
        helpers = [
            asyncio.create_task(answer_late(alice, seen)),
            asyncio.create_task(answer_at_once(bob)),
        ]
        try:
            for index in range(GAMES):
                # One match: the same seats, alice at seat 0, the opener alternating.
                await play_game(
                    "liars_dice",
                    list(seats),
                    rules={},
                    seed=seed,
                    deal={"game_index": index, "first": index % 2},
                    players=["alice", "bob"],
                    match_id="stale",
                    game_id=f"g{index}",
                    deadline_ms=round(scaled(DEADLINE_S) * 1000),
                    recorder=recorder,
                    reveal=False,
                )
        finally:
            for task in helpers:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
    lines = recorder.lines
    requests = [m for m in seen if m["type"] == "request"]
    assert len({m["game"] for m in requests}) == GAMES, "alice was asked in every game"
    seqs = [m["seq"] for m in requests]
    assert len(set(seqs)) == len(seqs), f"a request number came twice: {seqs}"
    # No answer of alice's was ever applied: each of her decisions is the fallback, after
    # failures that are all ``late`` (none ``illegal_action``: an old answer refused as illegal
    # in another position), and her penalties are exactly those decisions.
    mine = [line for line in lines if line["type"] == "decision" and line["seat"] == 0]
    assert mine and all(line.get("fallback") for line in mine), mine
    failures = [line for line in lines if line["type"] == "failure" and line["seat"] == 0]
    assert {line["code"] for line in failures} == {"late"}, failures
    penalties = sum(line["penalties"][0] for line in lines if line["type"] == "result")
    assert penalties == len(mine)
    # Her answers were refused as stale (or, sent between requests, as not expected), and the
    # request then pending was not used up by them.
    codes = {m["code"] for m in seen if m["type"] == "error"}
    assert "stale_seq" in codes
    assert codes <= {"late", "stale_seq", "not_expected"}, codes
