"""A bot cut off when the server lost its MQTT broker is told so when it comes back with its
resume token (docs/NETWORK.md, "A referee that loses the server": "The server loses its MQTT
broker").

The server stops the tables of its MQTT bots and drops their connections with the broker's; a
bot that resumed after that got ``resume_unknown`` "the bot left the lobby (its connection
closed)", as if it had left of its own accord. The session now keeps why: the broker was lost,
the match it stopped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from net_helpers import KeptLink, scaled, wait_until
from test_mqtt_mutation_gaps import ScriptedClient, a_hub, handled, serving
from test_server_sessions_mutation_gaps import match_start

from arena.server.hub import Hub
from arena.transports.mqtt import up_topic

BROKER_LOST = "the server lost its MQTT broker"


async def refused(hub: Hub, token: str) -> str:
    """The text of the ``resume_unknown`` that b1 resuming with ``token`` is answered (over a
    websocket: the broker is gone)."""
    link = KeptLink("websocket")
    hello = {"type": "hello", "name": "b1", "games": ["liars_dice"], "resume": token}
    await hub.connection(link, timed=False).feed(
        json.dumps({**hello, "features": ["refusal_codes"]})
    )
    assert link.types() == ["error"] and link.frames[0]["code"] == "resume_unknown", link.frames
    return str(link.frames[0]["text"])


@pytest.mark.parametrize("features", [[], ["match_aborted"]])
async def test_a_bot_cut_off_with_the_broker_is_told_so_when_it_resumes(
    features: list[str],
) -> None:
    hub = a_hub()
    client = ScriptedClient()
    async with serving(hub, client) as bridge:
        said: dict[str, Any] = {
            "v": 1,
            "type": "hello",
            "name": "b1",
            "games": ["liars_dice"],
            "features": features,
        }
        client.deliver((up_topic("b1", "c1"), json.dumps(said).encode()))
        await handled(bridge)
        token = str(client.said_to("b1", "c1")[0]["resume_token"])
        async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
            await seat.send(match_start("m7"))
            client.lose()
            await wait_until(lambda: "b1" not in hub.lobby.sessions, "b1's session to end")
    text = await refused(hub, token)
    assert BROKER_LOST in text, text
    assert "match m7" in text, text
    assert "left the lobby" not in text, text
