"""A resumed bot's journal starts with its match's ``match_start`` (docs/NETWORK.md, "Drops,
reconnects and resume"): a restarted bot needs the seed commitment (to check the seed
``match_end`` reveals), the number of games and the players, and nothing else tells it. The
journal used to start again at every ``game_start``, so a bot that resumed after the first game
had lost it; an overflowing journal keeps it at its head too.

`bots run` does not hand its bot the ``match_start`` of the match it is playing a second time:
the liar's dice bots would begin the match again and forget what it has taught them so far."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from net_helpers import KeptLink, ScriptedAdapter, scaled

from arena.server.auth import TokenStore
from arena.server.connection import Connection
from arena.server.hub import Hub, Limits
from arena.server.local import LocalSeat
from arena.server.sessions import Frame
from bots.adapters import ServerMessage
from bots.base import Bot
from bots.client import Backoff, BotClient
from protocol.games.common import GameEnd, GameStart, MatchEnd, MatchStart
from protocol.messages import Event, Request, Welcome

SEED = "00" * 32
COMMITMENT = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def match_start(match: str = "m1") -> Event:
    return Event(
        match=match,
        seat=0,
        payload=MatchStart(
            game_kind="liars_dice", players=["b1"], games=3, seed_commitment=COMMITMENT
        ),
    )


def game_start(game: str) -> Event:
    return Event(
        match="m1",
        game=game,
        seat=0,
        payload=GameStart(game_kind="liars_dice", seat=0, players=["b1"]),
    )


def game_end(game: str) -> Event:
    return Event(
        match="m1",
        game=game,
        seat=0,
        payload=GameEnd(scores=[1.0], winners=[0], reason="test"),
    )


def request_frame(seq: int, game: str) -> Frame:
    """A request as the session reads it (its text need only be JSON for the test's link)."""
    text = json.dumps({"v": 1, "type": "request", "match": "m1", "game": game, "seq": seq})
    return Frame(text, "request", seq, 0, "m1", game)


@asynccontextmanager
async def seated(journal_cap: int = 1000) -> AsyncIterator[tuple[Hub, Connection, LocalSeat]]:
    """Bot b1 (taking events) at a table of the server's own referee."""
    # A grace no test waits out: the request stays held for the resume.
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600, journal_cap=journal_cap))
    conn = hub.connection(KeptLink(), timed=False)
    await conn.feed(json.dumps({"type": "hello", "name": "b1", "games": ["liars_dice"]}))
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as seats:
        yield hub, conn, seats[0]


async def resumed(hub: Hub, old: Connection, **hello: Any) -> list[dict[str, Any]]:
    """Drop ``old``'s link, resume b1 on a new one; what the new link was sent."""
    session = hub.lobby.sessions["b1"]
    await old.lost()
    link = KeptLink()
    conn = hub.connection(link, timed=False)
    said = {"type": "hello", "name": "b1", "games": ["liars_dice"], **hello}
    await conn.feed(json.dumps({**said, "resume": session.resume_token}))
    return link.frames


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    return [
        frame["payload"]["kind"] if frame["type"] == "event" else frame["type"] for frame in frames
    ]


async def test_a_bot_that_resumes_in_a_later_game_gets_the_match_start_first() -> None:
    async with seated() as (hub, conn, seat):
        await seat.send(match_start())
        await seat.send(game_start("g0"))
        await seat.send(game_end("g0"))
        await seat.send(game_start("g1"))
        await seat.to_bot(request_frame(4, "g1"))
        frames = await resumed(hub, conn)
    assert kinds(frames) == ["welcome", "match_start", "game_start", "request"]
    assert frames[1]["payload"]["seed_commitment"] == COMMITMENT
    assert (frames[2]["game"], frames[3]["seq"]) == ("g1", 4)


async def test_an_overflowing_journal_keeps_the_match_start_at_its_head() -> None:
    async with seated(journal_cap=4) as (hub, conn, seat):
        await seat.send(match_start())
        await seat.send(game_start("g0"))
        await seat.to_bot(request_frame(1, "g0"))
        await conn.lost()  # away: every event from now on is journaled, and overflows
        for index in range(1, 3):
            await seat.send(game_end(f"g{index - 1}"))
            await seat.send(game_start(f"g{index}"))
        link = KeptLink()
        back = hub.connection(link, timed=False)
        token = hub.lobby.sessions["b1"].resume_token
        said = {"type": "hello", "name": "b1", "games": ["liars_dice"], "resume": token}
        await back.feed(json.dumps(said))
    got = kinds(link.frames)
    assert got[:3] == ["welcome", "error", "match_start"], got
    assert link.frames[1]["code"] == "internal" and "dropped" in link.frames[1]["text"]
    assert got[-2:] == ["game_start", "request"]
    assert link.frames[-2]["game"] == "g2"


class Listening(Bot):
    """Keeps the kinds of the events it is handed."""

    def __init__(self) -> None:
        super().__init__("listening")
        self.seen: list[str] = []

    async def on_event(self, event: Event) -> None:
        self.seen.append(event.payload.kind)

    async def act(self, request: Request) -> str:
        raise AssertionError("no request in this test")


def test_the_client_does_not_hand_its_bot_the_match_start_of_its_match_again() -> None:
    welcome = Welcome(name="b1", session="s1", resume_token="r1")
    end = Event(match="m1", seat=0, payload=MatchEnd(seed=SEED, totals=[1.0]))
    scripts: list[list[ServerMessage]] = [
        [welcome, match_start(), game_start("g0"), game_end("g0"), game_start("g1")],
        # Resumed: the journal from the match_start, and the match goes on to its end; then
        # the same seed again (the same id and commitment) is a new match.
        [welcome, match_start(), game_start("g1"), game_end("g1"), end, match_start()],
    ]
    bot = Listening()
    made = iter(scripts)
    client = BotClient(
        {"liars_dice": bot},
        name="b1",
        adapter_factory=lambda: ScriptedAdapter(next(made, []), []),
        backoff=Backoff(first_s=0.001, most_s=0.01),
    )

    async def run() -> None:
        runner = asyncio.create_task(client.run())
        try:
            async with asyncio.timeout(scaled(10)):
                while client.welcomes < 2 or len(bot.seen) < 8:
                    await asyncio.sleep(0.01)
        finally:
            await client.stop()
            runner.cancel()

    asyncio.run(run())
    assert bot.seen == [
        "match_start",
        "game_start",
        "game_end",
        "game_start",
        "game_start",  # the resumed journal, without the match_start the bot has seen
        "game_end",
        "match_end",
        "match_start",  # a new match, though of the same seed
    ]
