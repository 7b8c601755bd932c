"""Taking a session over, and coming back too late (docs/NETWORK.md, "Drops, reconnects and
resume").

A ``hello`` with the session's resume token takes it over at once, even while the server still
holds the earlier connection open: that connection is told why with a ``bye`` before it is
closed (it used to be closed without a word, so a client still reading it took it for a drop
and came back to take the seat in turn).

A bot that comes back after its session ended gets ``resume_unknown``; when the server still
remembers the token's session (by its digest, a bounded number of them) the text says why it
ended instead of listing every possible cause."""

from __future__ import annotations

import json
from typing import Any

from net_helpers import KeptLink, scaled

from arena.server.auth import TokenStore
from arena.server.connection import Connection
from arena.server.hub import Hub, Limits
from arena.server.sessions import SessionState
from protocol.games.common import MatchEnd, MatchStart
from protocol.messages import Event


def hello(name: str = "b1", **fields: Any) -> str:
    said = {"type": "hello", "name": name, "games": ["liars_dice"], "features": ["refusal_codes"]}
    return json.dumps({**said, **fields})


async def welcomed(hub: Hub, name: str = "b1") -> tuple[Connection, KeptLink, str]:
    link = KeptLink()
    conn = hub.connection(link, timed=False)
    await conn.feed(hello(name))
    assert link.types() == ["welcome"], link.frames
    return conn, link, str(link.frames[0]["resume_token"])


async def refusal(hub: Hub, token: str, name: str = "b1") -> dict[str, Any]:
    """What a hello resuming ``token`` under ``name`` is answered."""
    link = KeptLink()
    await hub.connection(link, timed=False).feed(hello(name, resume=token))
    assert link.types() == ["error"] and link.closed, link.frames
    assert link.frames[0]["code"] == "resume_unknown"
    return link.frames[0]


START = MatchStart(game_kind="liars_dice", players=["b1"], games=1, seed_commitment="0")


async def test_the_connection_a_resume_takes_over_is_told_so() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600))
    _old, old_link, token = await welcomed(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)):
        new_link = KeptLink()
        new = hub.connection(new_link, timed=False)
        await new.feed(hello(resume=token))  # the old connection is still open
        assert new_link.types() == ["welcome"]
        assert old_link.frames[-1] == {
            "v": 1,
            "type": "bye",
            "reason": "replaced by a resumed connection",
        }
        assert old_link.closed
        assert hub.lobby.sessions["b1"].state is SessionState.SEATED


async def test_a_bot_back_after_its_grace_and_its_table_is_told_which_match_ended() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=0))
    conn, _link, token = await welcomed(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(Event(match="m7", seat=0, payload=START))
        await conn.lost()  # no grace: its fallbacks are played at once
    text = (await refusal(hub, token))["text"]
    assert "match m7" in text and "while the bot was away" in text, text
    assert "reconnect grace had run out" in text, text


async def test_a_bot_back_after_its_match_ended_within_its_grace_is_told_so() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600))
    conn, _link, token = await welcomed(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(Event(match="m7", seat=0, payload=START))
        await conn.lost()
        await seat.send(Event(match="m7", seat=0, payload=MatchEnd(seed="00", totals=[1.0])))
    text = (await refusal(hub, token))["text"]
    assert "match m7 ended while the bot was away" in text, text
    assert "grace" not in text, text


async def test_only_a_bounded_number_of_ended_sessions_is_remembered_and_no_token() -> None:
    hub = Hub(TokenStore.open_store())
    hub.lobby.ended.kept = 2
    tokens = []
    for name in ("b1", "b2", "b3"):
        conn, _link, token = await welcomed(hub, name)
        await conn.lost()  # leaves the lobby: its session ends
        tokens.append(token)
    assert len(hub.lobby.ended) == 2
    told = (await refusal(hub, tokens[2], "b3"))["text"]
    assert "has ended: the bot left the lobby (its connection closed)" in told, told
    forgotten = (await refusal(hub, tokens[0], "b1"))["text"]
    assert forgotten.startswith("no session of b1 to resume"), forgotten
    # Another bot's name with a remembered token learns nothing of that token's session.
    told = (await refusal(hub, tokens[2], "b2"))["text"]
    assert told.startswith("no session of b2 to resume"), told
    assert not any(token in repr(vars(hub.lobby.ended)) for token in tokens)
