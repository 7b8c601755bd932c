"""`bots run --resume-file` stopped by SIGINT or SIGTERM keeps its seat (docs/NETWORK.md, "Drops,
reconnects and resume"). A bot's own ``bye`` over a websocket now gives its seat up at once, so a
client that keeps a resume file, and so means to come back, closes without one: its seat waits
the server's grace and a restarted process with that file takes it back. Without a resume file
the stop says ``bye`` and the seat is given up, as before."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from net_helpers import FAR_DEADLINE_S, duel, raw_peer, running_server, wait_until, ws_url

from arena.server.app import ArenaServer
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState
from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot


def alice_client(url: str, resume_file: Path | None) -> BotClient:
    return BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", name="alice")},
        name="alice",
        adapter_factory=functools.partial(adapter_for, url, "alice"),
        backoff=Backoff(first_s=0.05, most_s=0.5),
        resume_file=resume_file,
    )


@asynccontextmanager
async def alice_seated(resume_file: Path | None) -> AsyncIterator[tuple[ArenaServer, str]]:
    """Alice (a `BotClient`) seated against Bob (a raw peer who never answers, so the game
    waits on him with a deadline no test reaches); the grace outlasts every wait too."""
    async with (
        running_server(reconnect_grace_s=FAR_DEADLINE_S) as server,
        raw_peer(ws_url(server)) as bob,
        contextlib.AsyncExitStack() as stack,
    ):
        url = ws_url(server)
        await bob.send({"type": "hello", "name": "bob", "games": ["liars_dice"]})
        assert (await bob.recv())["type"] == "welcome"
        alice = alice_client(url, resume_file)
        running = asyncio.create_task(alice.run())
        stack.callback(running.cancel)
        await wait_until(alice.welcomed.is_set, "alice's welcome")
        seats = await stack.enter_async_context(
            remote_seats(url, ["alice", "bob"], game="liars_dice")
        )
        game = asyncio.create_task(duel(seats))
        stack.callback(game.cancel)
        sessions = server.hub.lobby.sessions
        await wait_until(
            lambda: (
                sessions["alice"].state is SessionState.SEATED
                and sessions["bob"].state is SessionState.SEATED
            ),
            "both seated",
        )
        await alice.stop("stopped by its owner")
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await running
        yield server, url


async def test_a_client_with_a_resume_file_stops_without_bye_and_gets_its_seat_back(
    tmp_path: Path,
) -> None:
    resume_file = tmp_path / "alice.resume"
    async with alice_seated(resume_file) as (server, url):
        sessions = server.hub.lobby.sessions
        await wait_until(
            lambda: sessions["alice"].state is SessionState.ABSENT, "alice's drop to be seen"
        )
        back = alice_client(url, resume_file)
        running = asyncio.create_task(back.run())
        try:
            await wait_until(back.welcomed.is_set, "the restarted alice's welcome")
            assert back.resumes == 1
            assert sessions["alice"].state is SessionState.SEATED
        finally:
            await back.stop()
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await running


async def test_a_client_without_a_resume_file_says_bye_and_gives_its_seat_up() -> None:
    async with alice_seated(None) as (server, _url):
        sessions = server.hub.lobby.sessions
        await wait_until(
            lambda: "alice" not in sessions or sessions["alice"].state is SessionState.CLOSED,
            "alice's session to end",
        )
