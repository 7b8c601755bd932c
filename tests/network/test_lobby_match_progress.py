"""`arena lobby` shows how far each table's match has got (operator walkthrough: it showed the
bots at a table but not which game of the match they were on), for a referee in the server and
for one connected from outside, and for a bot that declined events (its requests name their
game)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from net_helpers import RawPeer, dice_match, raw_peer, running_server, scaled, wait_until, ws_url

from arena.cli.serve import _match_progress
from arena.server.app import ArenaServer
from arena.server.remote import remote_seats, server_status
from arena.server.wire import TableStatus

NAMES = ["alice", "bob"]
GAMES = 3


async def welcomed(peer: RawPeer, name: str, *, events: bool) -> None:
    await peer.send({"type": "hello", "name": name, "games": ["liars_dice"], "events": events})
    assert (await peer.recv())["type"] == "welcome"


async def answer(peer: RawPeer, held: asyncio.Event) -> None:
    """Challenge when it may, else raise; in game 2 (index 1) wait for ``held`` first."""
    while True:
        message = await peer.recv(60)
        if message["type"] == "request":
            if message["game"] == "g1":
                await held.wait()
            legal = message["legal"]
            action = "challenge" if "challenge" in legal else legal[0]
            await peer.send({"type": "action", "seq": message["seq"], "action": action})


async def tables_of(server: ArenaServer) -> list[TableStatus]:
    return (await server_status(ws_url(server))).tables


@pytest.mark.parametrize("events", [True, False], ids=["events", "no events"])
@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_the_lobby_shows_the_game_a_table_is_on(referee: str, events: bool) -> None:
    held = asyncio.Event()
    async with (
        running_server() as server,
        raw_peer(ws_url(server)) as alice,
        raw_peer(ws_url(server)) as bob,
    ):
        await welcomed(alice, "alice", events=events)
        await welcomed(bob, "bob", events=events)
        answering = [asyncio.create_task(answer(peer, held)) for peer in (alice, bob)]
        seats_cm = (
            remote_seats(ws_url(server), NAMES, game="liars_dice")
            if referee == "remote"
            else server.hub.local_seats(NAMES, "liars_dice")
        )
        try:
            async with seats_cm as seats:
                (before,) = await tables_of(server)
                assert (before.match_games, before.games_begun) == (None, 0)
                assert _match_progress(before) == ", match not started"
                playing = asyncio.create_task(dice_match(list(seats), NAMES, "progress", GAMES))

                async def on_game_two() -> bool:
                    (table,) = await tables_of(server)
                    return table.games_begun == 2

                await wait_until(on_game_two, "the table on its second game")
                (table,) = await tables_of(server)
                assert (table.match_games, table.games_begun) == (GAMES, 2)
                assert _match_progress(table) == f", game 2 of {GAMES}"
                held.set()
                await asyncio.wait_for(playing, scaled(60))
        finally:
            for task in answering:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
