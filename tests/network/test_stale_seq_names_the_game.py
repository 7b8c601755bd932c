"""A ``stale_seq`` error names the match and game of the request still pending, as the other
errors about a bot's answers name theirs (docs/PROTOCOL.md, "Error codes"); its ``seq`` is the
stale action's. It used to carry the ``seq`` alone. And our client echoes a request's ``match``
and ``game`` in its action, as PROTOCOL.md asks of every bot."""

from __future__ import annotations

import asyncio
import json

from net_helpers import KeptLink, ScriptedAdapter, scaled
from wire_samples import solve_observation

from arena.server.auth import TokenStore
from arena.server.hub import Hub
from arena.server.sessions import Frame
from bots.adapters import ClientMessage, ServerMessage
from bots.client import BotClient
from bots.registry import make_bot
from protocol.messages import Action, Bye, Request, Welcome


async def test_a_stale_answer_is_told_the_match_and_game_still_waiting_for_it() -> None:
    hub = Hub(TokenStore.open_store())
    link = KeptLink()
    bot = hub.connection(link, timed=False)
    await bot.feed(json.dumps({"type": "hello", "name": "b1", "games": ["liars_dice"]}))
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        text = json.dumps({"v": 1, "type": "request", "match": "m1", "game": "g1", "seq": 2})
        await seat.to_bot(Frame(text, "request", 2, 0, "m1", "g1"))
        await bot.feed(json.dumps({"type": "action", "seq": 1, "action": "challenge"}))
        await bot.feed(
            json.dumps({"type": "action", "seq": 2, "game": "g0", "action": "challenge"})
        )
    stale = [frame for frame in link.frames if frame["type"] == "error"]
    assert [(e["code"], e["seq"], e.get("match"), e.get("game")) for e in stale] == [
        ("stale_seq", 1, "m1", "g1"),
        ("stale_seq", 2, "m1", "g1"),
    ], stale


def test_the_client_echoes_match_game_and_seat_in_every_action() -> None:
    """What PROTOCOL.md asks of every bot, since the next table numbers its requests from 1
    again: a late answer that names its match cannot pass for the new table's request."""
    sent: list[ClientMessage] = []
    request = Request(
        match="m1", game="g2", seat=1, seq=3, deadline_ms=60_000, observation=solve_observation(1)
    )
    script: list[ServerMessage] = [
        Welcome(name="b", session="s", resume_token="r"),
        request,
        Bye(reason="done"),
    ]
    client = BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=lambda: ScriptedAdapter(script, sent),
    )
    assert asyncio.run(client.run()) == "done"
    (action,) = [message for message in sent if isinstance(message, Action)]
    assert (action.match, action.game, action.seat, action.seq) == ("m1", "g2", 1, 3)
