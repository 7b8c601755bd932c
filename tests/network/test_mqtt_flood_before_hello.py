"""Bad messages before ``hello`` count towards the flood limit over MQTT too (docs/NETWORK.md,
"MQTT", "Floods"; "Robustness").

Each message on a topic pair without a session is handled by a connection of its own, which is
forgotten after its error: its flood count started afresh every time, so 500 junk messages got
500 ``bad_json`` replies and 500 log lines, and the pair could go on for ever. The bridge now
keeps each such pair's count: past the limit the pair gets ``flood`` and is shunned (every later
message, a hello included, is dropped) as a pair with a session is.
"""

from __future__ import annotations

import logging
from pathlib import Path

import aiomqtt
import pytest
from net_helpers import LOOPBACK, mosquitto, next_json, running_server, scaled, wait_until

from arena.server.auth import TokenStore
from arena.server.hub import Hub, Limits
from arena.transports import mqtt

BURST = 5
"""The flood limit's burst here: the 6th bad message in a row goes over it."""


async def test_junk_before_hello_is_closed_for_flood(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = Limits(hello_timeout_s=scaled(10), flood_burst=BURST, flood_per_second=1e-9)
    with mosquitto(tmp_path) as port, caplog.at_level(logging.INFO):
        async with (
            running_server(mqtt=f"mqtt://{LOOPBACK}:{port}", limits=limits) as server,
            aiomqtt.Client(LOOPBACK, port, identifier="spam-c1") as client,
        ):
            bridge = server.bridge
            assert bridge is not None
            await client.subscribe("arena/v1/bots/spam/c1/down", qos=1)
            await client.subscribe("arena/v1/bots/spam/c2/down", qos=1)
            for _ in range(30):
                await client.publish("arena/v1/bots/spam/c1/up", b"junk", qos=1)
            await client.publish(
                "arena/v1/bots/spam/c1/up",
                b'{"v":1,"type":"hello","name":"spam","games":["liars_dice"]}',
                qos=1,
            )
            # Published last by the same client, on another pair: dispatched after the rest.
            await client.publish(
                "arena/v1/bots/spam/c2/up",
                b'{"v":1,"type":"hello","name":"spam","games":["liars_dice"]}',
                qos=1,
            )
            said: list[str] = []
            # The pairs are handled apart: the other pair's welcome may come before the flood.
            while "flood" not in said or "welcome" not in said:
                reply = await next_json(client)
                assert reply is not None, f"no flood and welcome, only {said}"
                said.append(reply.get("code", reply["type"]))
            await wait_until(lambda: not bridge._workers, "the bridge to handle every message")
            assert ("spam", "c1") in bridge._shunned
            said.remove("welcome")
            assert said == ["bad_json"] * (BURST + 1) + ["flood"]
    bad = [r for r in caplog.records if "bad_frame" in r.getMessage()]
    assert len(bad) == BURST + 1


async def test_a_pair_that_says_hello_after_a_few_bad_messages_keeps_playing() -> None:
    """The count is the pair's: a hello after a few mistakes opens the session as ever, and
    the bridge forgets the pair's count (the connection carries it on)."""
    hub = Hub(TokenStore.open_store(), Limits(flood_burst=BURST, flood_per_second=1e-9))
    bridge = mqtt.MqttBridge(hub, mqtt.BrokerUrl(LOOPBACK, 1883))
    key = ("g1", "c1")
    for _ in range(BURST):
        await bridge._handle(key, b"junk")
    assert key in bridge._unwelcomed and key not in bridge.connections
    await bridge._handle(key, b'{"v":1,"type":"hello","name":"g1","games":["liars_dice"]}')
    assert key not in bridge._unwelcomed
    assert key in bridge.connections and "g1" in hub.lobby.sessions
    await bridge._handle(key, b"junk")  # the 6th bad message of the pair: over the limit
    assert key in bridge._shunned and key not in bridge.connections


def test_the_bridge_keeps_a_bounded_number_of_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    monkeypatch.setattr(mqtt, "MAX_UNWELCOMED", 3)
    bridge = mqtt.MqttBridge(Hub(TokenStore.open_store()), mqtt.BrokerUrl(LOOPBACK, 1883))

    async def main() -> None:
        for conn in range(10):
            await bridge._handle(("g1", f"c{conn}"), b"junk")

    asyncio.run(main())
    assert list(bridge._unwelcomed) == [("g1", "c7"), ("g1", "c8"), ("g1", "c9")]
