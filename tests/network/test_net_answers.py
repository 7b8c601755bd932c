"""Malformed answers: an action for the pending request that names another seat, or has a field
of the wrong JSON type, is a bad answer like an illegal one — one ``error`` and the request asked
again at once (docs/PROTOCOL.md), never a silent wait for the deadline. An action naming another
match or game is an answer to another request: ``stale_seq``, and the request stays pending."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import RawPeer, duel, good_answer, play_along, raw_dice_pair

from arena.referee import PlayedGame

Breaker = Callable[[dict[str, Any], dict[str, Any]], None]


def other_seat(action: dict[str, Any], request: dict[str, Any]) -> None:
    action["seat"] = 1 - request["seat"]


def other_match(action: dict[str, Any], _request: dict[str, Any]) -> None:
    action["match"] = "zzz"


def other_game(action: dict[str, Any], _request: dict[str, Any]) -> None:
    action["game"] = "g99"


def seq_as_string(action: dict[str, Any], _request: dict[str, Any]) -> None:
    action["seq"] = str(action["seq"])


def seq_as_float(action: dict[str, Any], _request: dict[str, Any]) -> None:
    action["seq"] = float(action["seq"])


def v_as_string(action: dict[str, Any], _request: dict[str, Any]) -> None:
    action["v"] = "1"


#: each bad answer, and what its error must name
CASES: list[tuple[Breaker, str]] = [
    (other_seat, "action.seat is 1; the pending request's seat is 0"),
    (seq_as_string, "seq: Input should be a valid integer"),
    (seq_as_float, "seq: Input should be a valid integer"),
    (v_as_string, 'v: the protocol version is the JSON integer 1, not "1"'),
]


@asynccontextmanager
async def table(referee: str) -> AsyncIterator[tuple[RawPeer, asyncio.Task[PlayedGame]]]:
    """Alice (driven by the test) and Bob (playing along) at a liar's dice duel."""
    async with raw_dice_pair(referee) as (alice, bob, seats):
        helper = asyncio.create_task(play_along(bob))
        game = asyncio.create_task(duel(seats))
        try:
            yield alice, game
        finally:
            for task in (game, helper):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_each_malformed_answer_gets_one_error_and_a_re_ask(referee: str) -> None:
    async with table(referee) as (alice, game):
        for breaker, named in CASES:
            request = await alice.recv_until("request")
            bad = good_answer(request)
            breaker(bad, request)
            await alice.send(bad)
            error = await alice.recv()
            assert error["type"] == "error", (breaker.__name__, error)
            assert error["code"] == "bad_message", (breaker.__name__, error)
            assert error["seq"] == request["seq"]
            assert named in error["text"], (breaker.__name__, error["text"])
            # The same decision asked again, with a new seq, long before any deadline.
            again = await alice.recv()
            assert again["type"] == "request", (breaker.__name__, again)
            assert again["seq"] != request["seq"]
            assert again["observation"] == request["observation"]
            await alice.send(good_answer(again))
        await play_along(alice)
        played = await game
    # Every bad answer was followed by a good one: no fallback was played.
    assert played.penalties == (0, 0)


async def test_a_second_bad_answer_plays_the_fallback_without_waiting() -> None:
    async with table("remote") as (alice, game):
        request = await alice.recv_until("request")
        for attempt in (request, None):
            current = attempt or await alice.recv_until("request")
            bad = good_answer(current)
            other_seat(bad, current)
            await alice.send(bad)
            assert (await alice.recv_until("error"))["code"] == "bad_message"
        await play_along(alice)
        played = await game
    assert played.penalties == (1, 0)


async def test_a_stale_seq_is_refused_and_the_request_stays_pending() -> None:
    async with table("remote") as (alice, game):
        request = await alice.recv_until("request")
        stale = good_answer(request)
        stale["seq"] = request["seq"] + 7
        await alice.send(stale)
        error = await alice.recv()
        assert (error["code"], error["seq"]) == ("stale_seq", request["seq"] + 7)
        # No re-ask: the pending request takes its answer.
        await alice.send(good_answer(request))
        await play_along(alice)
        played = await game
    assert played.penalties == (0, 0)


@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_an_action_naming_another_match_or_game_is_stale_and_the_request_stays_pending(
    referee: str,
) -> None:
    async with table(referee) as (alice, game):
        for breaker, named in (
            (other_match, 'action.match is "zzz"; the pending request\'s match is "ld-test"'),
            (other_game, 'action.game is "g99"; the pending request\'s game is "g0"'),
        ):
            request = await alice.recv_until("request")
            stale = good_answer(request)
            breaker(stale, request)
            await alice.send(stale)
            error = await alice.recv()
            assert (error["type"], error["code"]) == ("error", "stale_seq"), (breaker, error)
            assert error["seq"] == request["seq"]
            assert named in error["text"], (breaker.__name__, error["text"])
            # No re-ask: the pending request takes its answer.
            await alice.send(good_answer(request))
        await play_along(alice)
        played = await game
    assert played.penalties == (0, 0)
