"""A table closed by the server (its shutdown, an admin's close) tells its bots why, in its
own words: the seat connections it cuts on the way must not get in first with "its referee's
connection for this seat closed", which blamed the referee for the server's own shutdown
(operator walkthrough)."""

from __future__ import annotations

import asyncio
import contextlib

from net_helpers import RawPeer, dice_match, raw_peer, running_server, ws_url

from arena.errors import ServerLost
from arena.server.remote import remote_seats

NAMES = ["alice", "bob"]
SHUTDOWN = "the server is shutting down now"


async def welcomed(peer: RawPeer, name: str) -> None:
    await peer.send(
        {"type": "hello", "name": name, "games": ["liars_dice"], "features": ["match_aborted"]}
    )
    assert (await peer.recv())["type"] == "welcome"


async def raise_for_ever(peer: RawPeer) -> None:
    while True:
        message = await peer.recv(60)
        if message["type"] == "request":
            legal = message["legal"]
            action = next((a for a in legal if a != "challenge"), legal[0])
            await peer.send({"type": "action", "seq": message["seq"], "action": action})


async def test_a_server_shutdown_tells_the_bots_it_is_the_server() -> None:
    async with (
        running_server() as server,
        raw_peer(ws_url(server)) as alice,
        raw_peer(ws_url(server)) as bob,
    ):
        await welcomed(alice, "alice")
        await welcomed(bob, "bob")
        bob_plays = asyncio.create_task(raise_for_ever(bob))
        async with remote_seats(ws_url(server), NAMES, game="liars_dice") as seats:
            match = asyncio.create_task(dice_match(list(seats), NAMES, "close reason", 50))
            await alice.recv_until("request", 30)
            await server.hub.close_all(SHUTDOWN)
            told = await alice.recv_until("error", 30)
            with contextlib.suppress(ServerLost, asyncio.CancelledError):
                match.cancel()
                await match
        bob_plays.cancel()
        with contextlib.suppress(BaseException):
            await bob_plays
    assert told["code"] == "match_aborted", told
    assert f"({SHUTDOWN})" in told["text"], told
