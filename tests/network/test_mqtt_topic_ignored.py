"""A message on an up topic whose ``<name>`` (or ``<conn>``) breaks the bot-name rule
(docs/NETWORK.md, "MQTT", "Names").

No reply is possible (the server answers only on a bot's down topic, and such a topic names no
bot), so the message is dropped; it used to be dropped without a word, where a bot author
expected the ``bad_message`` a malformed hello gets. The server now logs ``mqtt_topic_ignored``,
with the name and the rule, never the ``<conn>``, at most once a minute. On the embedded broker
such a client cannot even connect: its client id names no topic pair.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import aiomqtt
import pytest
from net_helpers import LOOPBACK, free_port, mosquitto, next_json, running_server

from arena.server.auth import TokenStore
from arena.server.hub import Hub
from arena.transports import mqtt

CONN = "secretconn7"
BAD_NAMES = ("a" * 65, "bad name", "Ünï")


def hello(name: str) -> str:
    return json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]})


async def test_a_topic_naming_no_bot_is_logged_once_without_its_conn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with mosquitto(tmp_path) as port, caplog.at_level(logging.INFO):
        async with (
            running_server(mqtt=f"mqtt://{LOOPBACK}:{port}"),
            aiomqtt.Client(LOOPBACK, port, identifier="g1-c1") as client,
        ):
            await client.subscribe("arena/v1/bots/g1/c1/down", qos=1)
            for name in BAD_NAMES:
                await client.publish(f"arena/v1/bots/{name}/{CONN}/up", hello(name), qos=1)
            await client.publish(f"arena/v1/bots/g1/{'x' * 65}/up", hello("g1"), qos=1)
            # Published after them by the same client: handled after them.
            await client.publish("arena/v1/bots/g1/c1/up", hello("g1"), qos=1)
            welcome = await next_json(client)
    assert welcome is not None and welcome["type"] == "welcome", welcome
    lines = [r.getMessage() for r in caplog.records]
    ignored = [line for line in lines if "mqtt_topic_ignored" in line]
    assert len(ignored) == 1, lines
    assert "a" * 64 + "…" in ignored[0] and "1 to 64" in ignored[0], ignored
    assert not [line for line in lines if CONN in line], lines


async def test_the_line_comes_at_most_once_a_minute_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bridge = mqtt.MqttBridge(Hub(TokenStore.open_store()), mqtt.BrokerUrl(LOOPBACK, 1883))
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            bridge._dispatch(f"arena/v1/bots/bad name/{CONN}/up", b"{}")
        assert bridge._ignored_logged_at is not None
        bridge._ignored_logged_at -= mqtt.IGNORED_TOPIC_LOG_S  # a minute later
        bridge._dispatch("arena/v1/bots/g1/bad conn/up", b"{}")
    ignored = [r.getMessage() for r in caplog.records if "mqtt_topic_ignored" in r.getMessage()]
    assert len(ignored) == 2, ignored
    assert "'messages': 1" in ignored[0] and "'messages': 3" in ignored[1], ignored
    assert "<conn> breaks the bot-name rule" in ignored[1]


@pytest.mark.parametrize("name", BAD_NAMES)
async def test_the_embedded_broker_refuses_such_a_client_at_connect(name: str) -> None:
    port = free_port()
    async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as server:
        assert server.broker is not None
        with pytest.raises(aiomqtt.MqttCodeError) as refused:
            async with aiomqtt.Client(LOOPBACK, port, identifier=f"{name}-{CONN}"):
                pass
    assert "authorized" in str(refused.value).lower()
