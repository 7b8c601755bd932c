"""Every way a table closes mid-match tells each seated bot that asked for it ``match_aborted``
before any ``bye`` (PROTOCOL.md, NETWORK.md "Shutdown"), and a notice sent because the server
is stopping says so instead of "you are back in the lobby".

The bot author's walkthrough found a forced shutdown (a second SIGTERM during the drain) sending
only ``bye``: the forced close detached the referee's seat connections, the referee's close of
the table (and the seat connections' ends) found the table already closing and took it for
closed, the drain saw no table left and said ``bye`` to every bot while the first close had not
yet told them. Nothing here asserts on time: every wait is bounded only so that a broken build
fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from net_helpers import (
    RawPeer,
    dice_match,
    free_port,
    raw_peer,
    running_server,
    scaled,
    server_process,
    signal_twice,
    wait_until,
    ws_url,
)
from websockets.exceptions import ConnectionClosed

from arena.errors import ServerLost
from arena.server.hub import Limits
from arena.server.remote import RemoteTableError, remote_seats

NAMES = ["alice", "bob"]
MATCH = "forced-test"
BACK_IN_LOBBY = "you are back in the lobby"


async def welcomed(peer: RawPeer, name: str) -> None:
    await peer.send(
        {"type": "hello", "name": name, "games": ["liars_dice"], "features": ["match_aborted"]}
    )
    assert (await peer.recv())["type"] == "welcome"


async def play_until_closed(peer: RawPeer, seen: list[dict[str, Any]]) -> None:
    """Answer every request with a raise (never a challenge) until the server closes the
    connection; every other message but events goes to ``seen``, in order."""
    with contextlib.suppress(Exception):
        while True:
            message = await peer.recv(120)
            if message["type"] == "request":
                legal = message["legal"]
                action = next((a for a in legal if a != "challenge"), legal[0])
                # An answer that meets the server's close fails; what the server sent before
                # its close is still there to read.
                with contextlib.suppress(ConnectionClosed):
                    await peer.send({"type": "action", "seq": message["seq"], "action": action})
            elif message["type"] != "event":
                seen.append(message)


@asynccontextmanager
async def bots_playing(url: str) -> AsyncIterator[dict[str, list[dict[str, Any]]]]:
    """Alice and Bob, welcomed (asking for ``match_aborted``) and playing whatever they are
    asked until their connection closes; yields what each saw. The block's exit waits for
    both connections to close."""
    seen: dict[str, list[dict[str, Any]]] = {name: [] for name in NAMES}
    async with raw_peer(url) as alice, raw_peer(url) as bob:
        peers = {"alice": alice, "bob": bob}
        for name, peer in peers.items():
            await welcomed(peer, name)
        players = [
            asyncio.create_task(play_until_closed(peer, seen[name])) for name, peer in peers.items()
        ]
        try:
            yield seen
            async with asyncio.timeout(scaled(60)):
                await asyncio.gather(*players)
        finally:
            for player in players:
                player.cancel()


@asynccontextmanager
async def a_match_under_way(url: str) -> AsyncIterator[asyncio.Task[None]]:
    """A long liar's dice match between alice and bob refereed here through the server at
    ``url``, once its first request has been answered; yields the match's task (which ends with
    `ServerLost` once the server closes the table)."""
    async with remote_seats(url, NAMES, game="liars_dice") as seats:
        match = asyncio.create_task(dice_match(list(seats), NAMES, "forced", 500, MATCH))
        try:
            await wait_until(lambda: any(seat.games_ended for seat in seats), "a finished game")
            yield match
        finally:
            match.cancel()
            with contextlib.suppress(ServerLost, asyncio.CancelledError, RemoteTableError):
                await match


def assert_told_before_bye(seen: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    """``seen`` holds a ``match_aborted`` for MATCH, and after it a ``bye`` (the last frame);
    returns the notice."""
    kinds = [message.get("code", message["type"]) for message in seen]
    assert "match_aborted" in kinds, f"{name} was never told: {seen}"
    assert kinds[-1] == "bye", f"{name}: {seen}"
    assert kinds.index("match_aborted") < kinds.index("bye"), f"{name}: {seen}"
    told = seen[kinds.index("match_aborted")]
    assert told["match"] == MATCH, told
    return told


async def test_a_second_signal_tells_every_seated_bot_before_its_bye() -> None:
    port = free_port()
    async with server_process(port) as process:
        url = f"ws://127.0.0.1:{port}"
        async with bots_playing(url) as seen, a_match_under_way(url) as match:
            await signal_twice(process, url, signal.SIGTERM)
            async with asyncio.timeout(scaled(60)):
                with contextlib.suppress(ServerLost, RemoteTableError):
                    await match
        assert await asyncio.wait_for(process.wait(), scaled(30)) == 0
    for name in NAMES:
        told = assert_told_before_bye(seen[name], name)
        assert "(the server is shutting down now)" in told["text"], told
        assert BACK_IN_LOBBY not in told["text"], told


async def test_a_forced_close_during_the_drain_tells_every_seated_bot_before_its_bye() -> None:
    """What `run_until_signalled` does on a second signal, in this process: a drain, then a
    forced `close_all` while it waits."""
    async with (
        running_server() as server,
        bots_playing(ws_url(server)) as seen,
        a_match_under_way(ws_url(server)),
    ):
        drain = asyncio.create_task(server.stop(scaled(600)))
        await wait_until(lambda: server.hub.draining, "the drain")
        await server.hub.close_all("the server is shutting down now", limit_s=scaled(10))
        await asyncio.wait_for(drain, scaled(30))
    for name in NAMES:
        assert_told_before_bye(seen[name], name)


async def test_the_grace_running_out_says_the_server_is_stopping() -> None:
    async with (
        running_server() as server,
        bots_playing(ws_url(server)) as seen,
        a_match_under_way(ws_url(server)),
    ):
        await server.stop(0.05)
    for name in NAMES:
        told = assert_told_before_bye(seen[name], name)
        assert "(the server is shutting down)" in told["text"], told
        assert BACK_IN_LOBBY not in told["text"], told
        assert "bye" in told["text"], told


@asynccontextmanager
async def admin_table(
    url: str,
) -> AsyncIterator[tuple[RawPeer, dict[str, Any], list[RawPeer]]]:
    """A raw admin that opened a table for alice and bob, and a raw seat connection per slot
    that told its bot a match has started (and then says nothing: the table's close has to cut
    it); yields the admin, its ``table_opened`` and the seat connections."""
    async with contextlib.AsyncExitStack() as stack:
        admin = await stack.enter_async_context(raw_peer(url))
        await admin.send({"v": 1, "type": "admin_hello", "name": "admin"})
        assert (await admin.recv())["type"] == "admin_welcome"
        await admin.send({"v": 1, "type": "open_table", "game": "liars_dice", "bots": NAMES})
        opened = await admin.recv()
        assert opened["type"] == "table_opened", opened
        seats = []
        for ticket in opened["seats"]:
            seat = await stack.enter_async_context(raw_peer(url))
            await seat.send(
                {"v": 1, "type": "attach", "table": opened["table"]}
                | {"slot": ticket["slot"], "key": ticket["key"]}
            )
            assert (await seat.recv())["type"] == "attached"
            start = {"kind": "match_start", "games": 3, "players": NAMES}
            await seat.send(
                {"v": 1, "type": "event", "match": MATCH, "seat": ticket["slot"]}
                | {"payload": start}
            )
            seats.append(seat)
        yield admin, opened, seats


async def test_an_admin_close_during_a_drain_tells_before_bye() -> None:
    """An admin closes its table during a drain, and its seat connections are cut once the
    close's grace is out: their ends must not count as the table's close, or the drain ends and
    says bye before the bots and the admin are told."""
    limits = Limits(hello_timeout_s=scaled(10), detach_grace_s=0.1)
    async with running_server(limits=limits) as server:
        url = ws_url(server)
        admin_seen: list[dict[str, Any]] = []
        async with bots_playing(url) as seen, admin_table(url) as (admin, opened, _seats):

            def started() -> bool:
                return all(session.match == MATCH for session in server.hub.lobby.sessions.values())

            await wait_until(started, "the match to start for both bots")
            drain = asyncio.create_task(server.stop(scaled(600)))
            await wait_until(lambda: server.hub.draining, "the drain")
            await admin.send({"v": 1, "type": "close_table", "table": opened["table"]})
            with contextlib.suppress(Exception):
                while True:
                    admin_seen.append(await admin.recv(30))
            await asyncio.wait_for(drain, scaled(30))
    for name in NAMES:
        told = assert_told_before_bye(seen[name], name)
        assert "(closed by its admin)" in told["text"], told
        # The server is draining: no new table will seat the bot before it says bye.
        assert "shutting down" in told["text"], told
    kinds = [message["type"] for message in admin_seen]
    assert kinds[-2:] == ["table_closed", "bye"], admin_seen
