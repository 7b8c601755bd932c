"""A bot connection closed for flood stays closed over MQTT (docs/NETWORK.md, "Robustness"):
further messages on its topic pair are dropped unanswered, and the bridge remembers a bounded
number of such pairs."""

from __future__ import annotations

import json
import logging

import aiomqtt
import pytest
from net_helpers import LOOPBACK, free_port, next_json, running_server, scaled

from arena.server.hub import Limits
from arena.transports import mqtt

UP = "arena/v1/bots/g1/c1/up"
DOWN = "arena/v1/bots/g1/c1/down"
HELLO = json.dumps({"v": 1, "type": "hello", "name": "g1", "games": ["liars_dice"]})


async def test_a_topic_pair_closed_for_flood_gets_no_more_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_port()
    limits = Limits(hello_timeout_s=scaled(10), flood_burst=5, flood_per_second=0.1)
    async with (
        running_server(mqtt=f"mqtt://{LOOPBACK}:{port}", limits=limits) as server,
        aiomqtt.Client(LOOPBACK, port, identifier="g1-c1") as bot,
    ):
        assert server.bridge is not None
        await bot.subscribe(DOWN, qos=1)
        await bot.publish(UP, HELLO, qos=1)
        assert (await next_json(bot, 10) or {}).get("type") == "welcome"
        with caplog.at_level(logging.INFO):
            for _ in range(6):
                await bot.publish(UP, b"not json", qos=1)
            seen: list[str] = []
            while not seen or seen[-1] != "bye":
                message = await next_json(bot, 10)
                assert message is not None, f"no flood error and bye, only {seen}"
                seen.append(message.get("code", message["type"]))
            assert "flood" in seen
            assert [r for r in caplog.records if "bad_frame" in r.getMessage()]
            caplog.clear()
            # Each of these used to open a new connection: an error reply and a log line each.
            for _ in range(30):
                await bot.publish(UP, b"not json", qos=1)
            await bot.publish(UP, HELLO, qos=1)
            assert await next_json(bot, 2) is None
        assert not [r for r in caplog.records if "bad_frame" in r.getMessage()]
        assert ("g1", "c1") not in server.bridge.connections
        assert "g1" not in server.hub.lobby.sessions


def test_the_bridge_remembers_a_bounded_number_of_flooded_pairs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mqtt, "MAX_FLOODED", 3)
    bridge = mqtt.MqttBridge(None, mqtt.BrokerUrl(LOOPBACK, 1883))  # type: ignore[arg-type]
    for conn in range(10):
        bridge.shun(("g1", f"c{conn}"))
    assert list(bridge._shunned) == [("g1", "c7"), ("g1", "c8"), ("g1", "c9")]
