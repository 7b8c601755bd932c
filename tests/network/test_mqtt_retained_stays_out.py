"""Retained MQTT messages reach no one they should not (docs/NETWORK.md, "MQTT").

amqtt 0.12.1 replayed, to every client that connected, the retained messages of every
subscription filter in the broker (the server's ``arena/v1/bots/+/+/up`` among them), past the
topic ACL: a bot's retained ``hello`` gave its token to every later client, and a planted retained
``bye`` stopped every ``bots run`` that connected after it. The embedded broker now keeps no
retained message of a bot, and replays a retained message only to a client its ACL lets read it;
our client skips a message that is retained or not on its own down topic; and the server's log
line for a retained message it ignores names the connection by its peer label, never its
``<conn>``.

No test waits for something not to happen: a client that says hello after connecting reads,
before its welcome, anything the broker replayed to it when it connected or subscribed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiomqtt
import pytest
from net_helpers import (
    LOOPBACK,
    clients,
    embedded_server,
    mosquitto,
    running_server,
    scaled,
    wait_until,
)

from arena.transports.mqtt import peer_label
from bots import adapters
from bots.registry import make_bot

SECRET = "MY-SECRET-TOKEN"


def topic(name: str, conn: str, direction: str) -> str:
    return f"arena/v1/bots/{name}/{conn}/{direction}"


def hello(name: str, **fields: Any) -> str:
    return json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"], **fields})


async def until_welcome(client: aiomqtt.Client) -> list[tuple[str, bool, bytes]]:
    """Every message ``client`` receives up to and including its welcome: (topic, retain,
    payload)."""
    seen: list[tuple[str, bool, bytes]] = []
    async with asyncio.timeout(scaled(10)):
        async for message in client.messages:
            payload = message.payload
            assert isinstance(payload, bytes)
            seen.append((str(message.topic), message.retain, payload))
            if not message.retain and json.loads(payload).get("type") == "welcome":
                return seen
    raise AssertionError(f"no welcome, only {seen}")


async def a_later_client_sees(port: int) -> list[tuple[str, bool, bytes]]:
    """What a bot connecting now receives before its welcome (only its welcome, if all is
    well)."""
    async with aiomqtt.Client(LOOPBACK, port, identifier="victim-c2") as victim:
        await victim.subscribe(topic("victim", "c2", "down"), qos=1)
        await victim.publish(topic("victim", "c2", "up"), hello("victim"), qos=1)
        return await until_welcome(victim)


async def test_the_embedded_broker_keeps_no_retained_message_of_a_bot() -> None:
    async with embedded_server() as (server, port):
        async with aiomqtt.Client(LOOPBACK, port, identifier="evil-c1") as evil:
            await evil.subscribe(topic("evil", "c1", "down"), qos=1)
            await evil.publish(
                topic("evil", "c1", "up"), hello("evil", token=SECRET), qos=1, retain=True
            )
            # Delivered as any message (to the server, subscribed at the time) ...
            assert [t for t, _retain, _p in await until_welcome(evil)] == [
                topic("evil", "c1", "down")
            ]
            # ... and not kept.
            assert server.broker.retained_messages == {}
            await evil.publish(
                topic("evil", "c1", "up"), json.dumps({"v": 1, "type": "bye"}), qos=1, retain=True
            )
            # The server answers the bye with its own: the broker has handled the publish.
            async with asyncio.timeout(scaled(10)):
                async for message in evil.messages:
                    assert isinstance(message.payload, bytes)
                    if json.loads(message.payload)["type"] == "bye":
                        break
        assert server.broker.retained_messages == {}
        seen = await a_later_client_sees(port)
    assert len(seen) == 1, seen
    assert SECRET.encode() not in seen[0][2]


async def test_a_retained_message_is_replayed_only_to_a_client_that_may_read_it() -> None:
    """Whatever the broker holds (here put there by the broker itself), a client connecting
    later gets it only on a topic its ACL lets it read: not on another bot's up topic, which
    the server's subscription filter matches."""
    async with embedded_server() as (server, port):
        await server.broker.retain_message(
            None, topic("evil", "c1", "up"), hello("evil", token=SECRET).encode(), 1
        )
        seen = await a_later_client_sees(port)
    assert [(t, retain) for t, retain, _p in seen] == [(topic("victim", "c2", "down"), False)]


async def test_a_planted_retained_bye_does_not_stop_bots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On a broker that replays retained messages (Mosquitto, no ACL), a retained ``bye`` on a
    bot's down topic reaches it at its subscription, before the server's welcome: our client
    skips it (logged once) and plays on."""
    conn = "c0ffee"
    monkeypatch.setattr(adapters, "secrets", SimpleNamespace(token_hex=lambda _n: conn))
    with mosquitto(tmp_path) as port:
        url = f"mqtt://{LOOPBACK}:{port}"
        async with aiomqtt.Client(LOOPBACK, port, identifier="planter") as planter:
            await planter.publish(
                topic("g1", conn, "down"),
                json.dumps({"v": 1, "type": "bye", "reason": "planted"}),
                qos=1,
                retain=True,
            )
        bot = make_bot("liars_dice", "random-guess", {}, "g1")
        with caplog.at_level(logging.WARNING):
            async with running_server(mqtt=url) as server, clients(url, "liars_dice", {"g1": bot}):
                assert "g1" in server.hub.lobby.sessions
    ignored = [r for r in caplog.records if "mqtt_message_ignored" in r.getMessage()]
    assert len(ignored) == 1, [r.getMessage() for r in caplog.records]
    assert "planted" not in ignored[0].getMessage()


async def test_the_servers_line_for_a_retained_message_names_the_peer_not_the_conn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/NETWORK.md, Logs: ``<conn>`` is never logged (on the embedded broker it grants the
    connection's topics); the line gives the peer label instead."""
    conn = "secretconn42"
    with mosquitto(tmp_path) as port:
        async with aiomqtt.Client(LOOPBACK, port, identifier="rt") as gone_bot:
            await gone_bot.publish(topic("rt", conn, "up"), hello("rt"), qos=1, retain=True)
        with caplog.at_level(logging.WARNING):
            async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}"):

                def logged() -> bool:
                    return any(
                        "mqtt_retained_message_ignored" in r.getMessage() for r in caplog.records
                    )

                await wait_until(logged, "the retained hello to be ignored")
    lines = [r.getMessage() for r in caplog.records]
    assert not [line for line in lines if conn in line], lines
    ignored = [line for line in lines if "mqtt_retained_message_ignored" in line]
    assert peer_label("rt", conn) in ignored[0], ignored
