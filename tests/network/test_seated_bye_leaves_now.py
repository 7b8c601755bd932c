"""A bot's own ``bye`` over a websocket means "I leave now" (docs/PROTOCOL.md, "A session";
docs/NETWORK.md, "Drops, reconnects and resume"): its session ends at once, with no reconnect
grace and no resume; its pending request and every later one are answered with the fallback at
once, and its name is free. It used to be taken for a dropped connection: the table waited out
the grace for a bot that had said it was going, and the bot could resume after saying so.

Over MQTT a ``bye`` is also the will the broker publishes for a dead connection, so there it
still counts as a drop. And a ``bye`` without a reason is answered without a dangling colon."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from net_helpers import (
    FAR_DEADLINE_S,
    KeptLink,
    duel,
    play_along,
    raw_peer,
    running_server,
    scaled,
    ws_url,
)

from arena.server.auth import TokenStore
from arena.server.hub import Hub, Limits
from arena.server.links import MQTT_TRANSPORT
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState

FEATURES = ["refusal_codes"]


async def test_a_seated_bot_that_says_bye_is_played_for_at_once_and_cannot_resume(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    # The grace and the deadline both outlast every wait here: only the bye can end the game.
    async with (
        running_server(reconnect_grace_s=FAR_DEADLINE_S) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        url = ws_url(server)
        alice = await stack.enter_async_context(raw_peer(url))
        bob = await stack.enter_async_context(raw_peer(url))
        await alice.send(
            {"type": "hello", "name": "alice", "games": ["liars_dice"], "features": FEATURES}
        )
        token = (await alice.recv())["resume_token"]
        await bob.send({"type": "hello", "name": "bob", "games": ["liars_dice"]})
        assert (await bob.recv())["type"] == "welcome"
        seats = await stack.enter_async_context(
            remote_seats(url, ["alice", "bob"], game="liars_dice")
        )
        helper = asyncio.create_task(play_along(bob))
        game = asyncio.create_task(duel(seats))
        try:
            await alice.recv_until("request")
            await alice.send({"type": "bye", "reason": "lunch"})
            assert await alice.recv() == {
                "v": 1,
                "type": "bye",
                "reason": "bye from the bot: lunch",
            }
            assert await alice.closed()

            async with asyncio.timeout(scaled(60)):
                played = await game
            assert played.penalties[0] >= 1 and played.penalties[1] == 0

            # Gone for good: her resume token names a session that ended, and says why ...
            async with raw_peer(url) as back:
                await back.send(
                    {
                        "type": "hello",
                        "name": "alice",
                        "games": ["liars_dice"],
                        "resume": token,
                        "features": FEATURES,
                    }
                )
                refused = await back.recv()
                assert refused["code"] == "resume_unknown", refused
                assert "the bot said bye (lunch)" in refused["text"]
            # ... and her name is free at once, while her old table is still open.
            async with raw_peer(url) as anew:
                await anew.send({"type": "hello", "name": "alice", "games": ["liars_dice"]})
                assert (await anew.recv())["type"] == "welcome"
                assert server.hub.lobby.sessions["alice"].state is SessionState.LOBBY
        finally:
            for task in (game, helper):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
    left = [entry for entry in structured_logs() if entry.get("event") == "bot_left"]
    assert any(entry.get("seated") is True and entry.get("reason") == "lunch" for entry in left)


async def test_a_bye_without_a_reason_is_answered_without_a_dangling_colon() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as bot:
        await bot.send({"type": "hello", "name": "quiet", "games": ["liars_dice"]})
        assert (await bot.recv())["type"] == "welcome"
        await bot.send({"type": "bye"})
        assert await bot.recv() == {"v": 1, "type": "bye", "reason": "bye from the bot"}


async def test_over_mqtt_a_bye_is_still_a_dropped_connection() -> None:
    """The broker publishes the will, a ``bye``, for a connection that died: the seat must stay
    for the bot to resume, as for any drop."""
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=0))
    link = KeptLink(MQTT_TRANSPORT)
    conn = hub.connection(link, admin=False, timed=False, name="m1")
    await conn.feed('{"type": "hello", "name": "m1", "games": ["liars_dice"]}')
    session = hub.lobby.sessions["m1"]
    session.seat_at("t1", 0)
    await conn.feed('{"type": "bye", "reason": "connection lost"}')
    assert link.types() == ["welcome", "bye"]
    assert session.state is SessionState.ABSENT
    assert hub.lobby.sessions["m1"] is session
    again = hub.connection(KeptLink(MQTT_TRANSPORT), admin=False, timed=False, name="m1")
    resume = session.resume_token
    await again.feed(
        f'{{"type": "hello", "name": "m1", "games": ["liars_dice"], "resume": "{resume}"}}'
    )
    assert again.session is session and session.state is SessionState.SEATED
