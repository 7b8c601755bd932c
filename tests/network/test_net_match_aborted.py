"""A table that closes before its match has ended tells every seated bot: ``error``
``match_aborted`` with the match's id and no ``seq`` (the audit's M1: a bot whose referee was
killed saw its pending request vanish, and nothing else). Also for a bot that takes no events,
and never after a match that ended."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import RawPeer, dice_match, raw_peer, running_server, scaled, ws_url

from arena.server.app import ArenaServer
from arena.server.remote import remote_seats
from arena.transports.base import Seat
from arena.transports.websocket import WebSocketSeat

NAMES = ["alice", "bob"]
NOT_SEATED = "you are not seated: your table has closed, or none has seated you yet"
MATCH = "ab-test"


async def hello(peer: RawPeer, name: str, *, events: bool = True, asks: bool = True) -> None:
    """Welcomed; ``asks``: the hello lists ``match_aborted`` in its ``features``."""
    hello: dict[str, Any] = {"type": "hello", "name": name, "games": ["liars_dice"]}
    hello |= {"events": events} | ({"features": ["match_aborted"]} if asks else {})
    await peer.send(hello)
    assert (await peer.recv())["type"] == "welcome"


async def play_along(peer: RawPeer, seen: list[dict[str, Any]] | None = None) -> None:
    """Answer every request with a raise (never a challenge), for ever; every other message
    goes to ``seen``."""
    while True:
        message = await peer.recv(60)
        if message["type"] != "request":
            if seen is not None:
                seen.append(message)
        else:
            legal = message["legal"]
            action = next((a for a in legal if a != "challenge"), legal[0])
            await peer.send({"type": "action", "seq": message["seq"], "action": action})


@asynccontextmanager
async def alice_and_bob(
    *, events: bool = True, asks: bool = True
) -> AsyncIterator[tuple[ArenaServer, RawPeer, RawPeer]]:
    """A server with alice (taking events or not) and bob welcomed in its lobby."""
    async with (
        running_server() as server,
        raw_peer(ws_url(server)) as alice,
        raw_peer(ws_url(server)) as bob,
    ):
        await hello(alice, "alice", events=events, asks=asks)
        await hello(bob, "bob")
        yield server, alice, bob


@asynccontextmanager
async def playing_along(*peers: tuple[RawPeer, list[dict[str, Any]] | None]) -> AsyncIterator[None]:
    """`play_along` for each (peer, seen) while the block runs."""
    tasks = [asyncio.create_task(play_along(peer, seen)) for peer, seen in peers]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def a_match(seats: Sequence[Seat], games: int) -> None:
    """A liar's dice match of ``games`` games between alice and bob (`dice_match`)."""
    await dice_match(seats, NAMES, "aborted", games, MATCH)


@asynccontextmanager
async def seats_of(server: ArenaServer, referee: str) -> AsyncIterator[list[Any]]:
    if referee == "remote":
        async with remote_seats(ws_url(server), NAMES, game="liars_dice") as seats:
            yield list(seats)
    else:
        async with server.hub.local_seats(NAMES, "liars_dice") as local:
            yield list(local)


async def next_non_event(peer: RawPeer) -> dict[str, Any]:
    while True:
        message = await peer.recv(30)
        if message["type"] != "event":
            return message


@pytest.mark.parametrize("events", [True, False], ids=["events", "no events"])
@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_a_referee_that_stops_mid_match_leaves_every_bot_told(
    referee: str, events: bool
) -> None:
    async with alice_and_bob(events=events) as (server, alice, bob):
        async with playing_along((bob, None)):
            async with seats_of(server, referee) as seats:
                match = asyncio.create_task(a_match(seats, games=50))
                request = await alice.recv_until("request", 30)
                # The referee goes away mid-match with a request of alice's pending.
                match.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await match
            told = await next_non_event(alice)
        assert told["type"] == "error" and told["code"] == "match_aborted", told
        assert told["match"] == request["match"] == MATCH
        assert "seq" not in told
        if referee == "in-server":
            assert "(its referee in the server left the table)" in told["text"], told
        # Back in the lobby: an answer to the vanished request is no longer taken.
        await alice.send({"type": "action", "seq": request["seq"], "action": "challenge"})
        refused = await alice.recv()
        assert (refused["code"], refused["text"]) == ("not_expected", NOT_SEATED)
        assert {bot.name: bot.state for bot in server.hub.status().bots}["alice"] == "lobby"


async def test_a_killed_referees_seat_connections_leave_the_bot_told() -> None:
    """Seat connections cut without a close (a referee killed with SIGKILL)."""
    async with alice_and_bob() as (server, alice, bob):
        async with (
            playing_along((bob, None)),
            remote_seats(ws_url(server), NAMES, game="liars_dice") as seats,
        ):
            match = asyncio.create_task(a_match(seats, games=50))
            await alice.recv_until("request", 30)
            for seat in seats:
                assert isinstance(seat, WebSocketSeat)
                seat._connection.transport.abort()
            told = await next_non_event(alice)
            match.cancel()
            with contextlib.suppress(BaseException):
                await match
        assert (told["type"], told["code"], told["match"]) == ("error", "match_aborted", MATCH)
        assert "referee" in told["text"]


@pytest.mark.parametrize("events", [True, False], ids=["events", "no events"])
@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_a_match_that_ended_closes_its_table_without_a_word(
    referee: str, events: bool
) -> None:
    seen: list[dict[str, Any]] = []
    async with alice_and_bob(events=events) as (server, alice, bob):
        async with playing_along((alice, seen), (bob, None)), seats_of(server, referee) as seats:
            await asyncio.wait_for(a_match(seats, games=1), scaled(60))
        # The table has closed (its close was confirmed); whatever it said has been sent.
        assert not server.hub.tables
        await alice.send({"type": "action", "seq": 999, "action": "challenge"})
        while True:
            message = await alice.recv()
            if message["type"] == "error":
                break
        assert message["code"] == "not_expected", message
        assert [m for m in seen if m["type"] != "event"] == []


async def test_a_bot_that_did_not_ask_is_not_told() -> None:
    """A bot written before the notice refuses its unknown code: it gets none (as before it),
    and learns that its match is gone from its next answer."""
    async with (
        alice_and_bob(asks=False) as (server, alice, bob),
        playing_along((bob, None)),
    ):
        async with seats_of(server, "remote") as seats:
            match = asyncio.create_task(a_match(seats, games=50))
            request = await alice.recv_until("request", 30)
            match.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await match
        await alice.send({"type": "action", "seq": request["seq"], "action": "challenge"})
        answer = await next_non_event(alice)
        assert (answer["code"], answer["text"]) == ("not_expected", NOT_SEATED)
