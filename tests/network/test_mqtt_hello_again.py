"""A hello on a connection (an MQTT topic pair) that already has a session (docs/NETWORK.md,
"MQTT", "Writing an MQTT client").

Over MQTT a bot that published its hello before subscribing to its down topic lost its welcome,
and one that reconnects under the same ``<conn>`` before the server noticed its earlier
connection gone finds the pair's session still there: both got ``not_expected`` ("a bot sends
action, ping or bye here, not hello") and were stuck. A hello that repeats the pair's first one,
or carries the session's resume token, now gets the welcome again (for a seated bot, as a
resume: the pending request follows); any other gets ``not_expected`` naming the cause and the
remedy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiomqtt
from net_helpers import (
    LOOPBACK,
    free_port,
    mosquitto,
    mqtt_bot,
    next_json,
    running_server,
    wait_until,
)
from test_net_mutation_gaps import GAME, Peer, attached, hello, open_table, request

from arena.server.auth import TokenStore
from arena.server.hub import Hub, Limits
from arena.server.links import MQTT_TRANSPORT
from protocol.messages import ErrorCode

AN_HOUR = 3600.0


def mqtt_peer(hub: Hub, name: str = "b1") -> Peer:
    return Peer(hub, transport=MQTT_TRANSPORT, name=name)


async def test_a_repeated_hello_on_a_topic_pair_gets_the_welcome_again() -> None:
    hub = Hub(TokenStore.open_store())
    bot = mqtt_peer(hub)
    await bot.say(hello("b1"))
    await bot.say(hello("b1"))
    assert bot.link.types() == ["welcome", "welcome"]
    first, again = bot.link.frames
    assert (again["session"], again["resume_token"]) == (first["session"], first["resume_token"])
    assert list(hub.lobby.sessions) == ["b1"]


async def test_a_hello_with_the_sessions_resume_token_takes_its_new_settings() -> None:
    hub = Hub(TokenStore.open_store())
    bot = mqtt_peer(hub)
    await bot.say(hello("b1"))
    token = bot.link.frames[0]["resume_token"]
    await bot.say(hello("b1", resume=token, events=False, features=["resumed"]))
    assert bot.link.types() == ["welcome", "welcome"]
    assert bot.link.frames[1]["resumed"] is False  # in the lobby: nothing to take back
    session = hub.lobby.sessions["b1"]
    assert not session.wants_events and session.features == {"resumed"}


async def test_another_hello_on_the_pair_is_told_why_and_what_to_do() -> None:
    hub = Hub(TokenStore.open_store())
    bot = mqtt_peer(hub)
    await bot.say(hello("b1"))
    await bot.say(hello("b1", games=["liars_dice"]))
    await bot.say(hello("b1", resume="not-the-token"))
    assert bot.link.types() == ["welcome", "error", "error"]
    for refused in bot.link.frames[1:]:
        assert refused["code"] == ErrorCode.NOT_EXPECTED
        assert "this topic pair already has a session (bot b1, lobby)" in refused["text"]
        assert "repeats the first hello" in refused["text"]
        assert "fresh <conn>" in refused["text"]
        assert "subscribe to its down topic" in refused["text"]
    websocket = Peer(hub)
    await websocket.say(hello("w1"))
    await websocket.say(hello("again"))
    assert "this connection already has a session" in websocket.link.frames[1]["text"]
    assert "open a new connection" in websocket.link.frames[1]["text"]


async def test_a_seated_bot_saying_hello_again_gets_its_pending_request_again() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=AN_HOUR))
    bot = mqtt_peer(hub)
    await bot.say(hello("b1", features=["resumed"]))
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    await seat.say(request(1))
    assert bot.link.types() == ["welcome", "request"]
    await bot.say(hello("b1", features=["resumed"]))
    assert bot.link.types() == ["welcome", "request", "welcome", "request"]
    assert bot.link.frames[2]["resumed"] is True
    assert bot.link.frames[3]["seq"] == 1
    # Still the pending request's answer, taken once.
    await bot.say({"type": "action", "seq": 1, "action": "0123"})
    assert seat.link.types() == ["attached", "action"]


async def test_repeated_hellos_count_towards_the_flood_limit() -> None:
    hub = Hub(TokenStore.open_store(), Limits(flood_burst=2, flood_per_second=1e-9))
    bot = mqtt_peer(hub)
    for _ in range(4):
        await bot.say(hello("b1"))
    assert bot.link.types() == ["welcome", "welcome", "welcome", "error", "bye"]
    assert bot.link.frames[3]["code"] == ErrorCode.FLOOD
    assert bot.link.closed


async def test_a_bot_reusing_its_conn_after_a_clean_disconnect_is_welcomed(tmp_path: Path) -> None:
    """Mosquitto does not tell the server of a clean disconnect: the pair's session is still
    there when the bot connects again under the same ``<conn>``."""
    with mosquitto(tmp_path) as port:
        async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as server:
            async with mqtt_bot(port, "g1", "c1") as bot:
                first = await bot.hello()
                assert first["type"] == "welcome", first
            async with mqtt_bot(port, "g1", "c1") as bot:
                again = await bot.hello()
            assert again["type"] == "welcome", again
            assert again["session"] == first["session"]
            assert list(server.hub.lobby.sessions) == ["g1"]


async def test_a_hello_published_before_the_subscription_can_be_said_again() -> None:
    """On the embedded broker: the first welcome goes to a down topic nobody reads yet."""
    port = free_port()
    said: dict[str, Any] = {"v": 1, "type": "hello", "name": "g1", "games": [GAME]}
    async with (
        running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as server,
        aiomqtt.Client(LOOPBACK, port, identifier="g1-c1") as client,
    ):
        await client.publish("arena/v1/bots/g1/c1/up", json.dumps(said), qos=1)
        await wait_until(lambda: "g1" in server.hub.lobby.sessions, "the first hello")
        await client.subscribe("arena/v1/bots/g1/c1/down", qos=1)
        await client.publish("arena/v1/bots/g1/c1/up", json.dumps(said), qos=1)
        welcome = await next_json(client)
    assert welcome is not None and welcome["type"] == "welcome", welcome
