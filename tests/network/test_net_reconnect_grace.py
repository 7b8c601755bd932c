"""The reconnect grace (docs/NETWORK.md, "Drops, reconnects and resume"): a seated bot whose
connection drops has `Limits.reconnect_grace_s` to resume, and its requests wait for it until
then, so a blip of the network costs no decision; a bot that does not come back is answered for
at once after the grace."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import (
    RawPeer,
    duel,
    good_answer,
    play_along,
    raw_peer,
    running_server,
    scaled,
    wait_until,
    ws_url,
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee import PlayedGame
from arena.server.app import ArenaServer
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState


async def welcomed(url: str, stack: contextlib.AsyncExitStack, **hello: Any) -> RawPeer:
    peer = await stack.enter_async_context(raw_peer(url))
    await peer.send({"type": "hello", "games": ["liars_dice"], **hello})
    welcome = await peer.recv()
    assert welcome["type"] == "welcome", welcome
    return peer


@asynccontextmanager
async def dice_table(
    grace_s: float,
) -> AsyncIterator[tuple[ArenaServer, str, RawPeer, str, asyncio.Task[PlayedGame]]]:
    """Alice (driven by the test: her peer and resume token) and Bob (playing along) at a liar's
    dice duel on a server with the given reconnect grace."""
    async with (
        running_server(reconnect_grace_s=grace_s) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        url = ws_url(server)
        alice = await stack.enter_async_context(raw_peer(url))
        await alice.send({"type": "hello", "name": "alice", "games": ["liars_dice"]})
        token = (await alice.recv())["resume_token"]
        bob = await welcomed(url, stack, name="bob")
        seats = await stack.enter_async_context(
            remote_seats(url, ["alice", "bob"], game="liars_dice")
        )
        helper = asyncio.create_task(play_along(bob))
        game = asyncio.create_task(duel(seats))
        try:
            yield server, url, alice, token, game
        finally:
            for task in (game, helper):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


def absent_with_a_request(server: ArenaServer) -> bool:
    session = server.hub.lobby.sessions["alice"]
    return session.state is SessionState.ABSENT and session.pending_seq is not None


async def test_a_request_pending_at_the_drop_is_asked_again_on_resume() -> None:
    async with dice_table(grace_s=scaled(60)) as (server, url, alice, token, game):
        request = await alice.recv_until("request")
        await alice.connection.close()  # gone with the request unanswered
        await wait_until(lambda: absent_with_a_request(server), "alice absent, her request held")
        async with contextlib.AsyncExitStack() as stack:
            back = await welcomed(url, stack, name="alice", resume=token)
            again = await back.recv_until("request")
            # The same request, not a re-ask after a failure: nothing was played for her.
            assert (again["seq"], again["observation"]) == (request["seq"], request["observation"])
            await back.send(good_answer(again))
            await play_along(back)
            played = await game
    assert played.penalties == (0, 0)  # no fallback was played for her


async def test_a_request_that_comes_while_the_bot_is_away_waits_for_it() -> None:
    async with dice_table(grace_s=scaled(60)) as (server, url, alice, token, game):
        await alice.send(good_answer(await alice.recv_until("request")))
        await alice.connection.close()  # gone before her next turn
        await wait_until(lambda: absent_with_a_request(server), "alice's next request, held")
        async with contextlib.AsyncExitStack() as stack:
            back = await welcomed(url, stack, name="alice", resume=token)
            await back.send(good_answer(await back.recv_until("request")))
            await play_along(back)
            played = await game
    assert played.penalties == (0, 0)  # no fallback was played for her


async def test_a_bot_that_does_not_come_back_is_answered_for_after_the_grace() -> None:
    # The duel's deadline is ten minutes: only the grace's end can finish this game in time.
    async with dice_table(grace_s=scaled(1)) as (_server, _url, alice, _token, game):
        await alice.recv_until("request")
        await alice.connection.close()
        async with asyncio.timeout(scaled(60)):
            played = await game
    assert played.penalties[0] >= 1 and played.penalties[1] == 0


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_serve_refuses_a_grace_that_is_no_time(value: str) -> None:
    result = CliRunner().invoke(app, ["serve", "--reconnect-grace", value, "--port", "0"])
    assert result.exit_code == 2
    assert "--reconnect-grace must be a number of seconds, 0 or more" in result.output
