"""A bot that resumes with ``"events": false`` gets no events (docs/PROTOCOL.md, "A session";
docs/NETWORK.md, "Drops, reconnects and resume"): its new ``hello`` replaces the session's
choice, and the journal is not replayed, only the request still pending. The journal used to be
replayed whatever the resuming ``hello`` said."""

from __future__ import annotations

import json
from typing import Any

from net_helpers import KeptLink, scaled

from arena.server.auth import TokenStore
from arena.server.hub import Hub, Limits
from arena.server.sessions import Frame
from protocol.games.common import GameStart, MatchStart
from protocol.messages import Event

HELLO = {"type": "hello", "name": "b1", "games": ["liars_dice"]}


async def resume_after_a_drop(**resuming: Any) -> list[dict[str, Any]]:
    """b1 (taking events) seated by the server's own referee, sent a match's first events and a
    request; its link drops and it resumes with ``resuming`` in its hello: what it is sent."""
    # A grace no test waits out: the request stays held for the resume.
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600))
    first = hub.connection(KeptLink(), timed=False)
    await first.feed(json.dumps(HELLO))
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        start = MatchStart(game_kind="liars_dice", players=["b1"], games=1, seed_commitment="0")
        await seat.send(Event(match="m1", seat=0, payload=start))
        game = GameStart(game_kind="liars_dice", seat=0, players=["b1"])
        await seat.send(Event(match="m1", game="g0", seat=0, payload=game))
        text = json.dumps({"v": 1, "type": "request", "match": "m1", "game": "g0", "seq": 1})
        await seat.to_bot(Frame(text, "request", 1, 0, "m1", "g0"))
        await first.lost()
        link = KeptLink()
        again = hub.connection(link, timed=False)
        token = hub.lobby.sessions["b1"].resume_token
        await again.feed(json.dumps({**HELLO, **resuming, "resume": token}))
        return link.frames


async def test_a_bot_that_resumes_without_events_gets_only_its_pending_request() -> None:
    frames = await resume_after_a_drop(events=False)
    assert [frame["type"] for frame in frames] == ["welcome", "request"]
    assert frames[1]["seq"] == 1


async def test_a_bot_that_resumes_with_events_gets_the_journal_first() -> None:
    frames = await resume_after_a_drop()
    assert [frame["type"] for frame in frames] == ["welcome", "event", "event", "request"]
