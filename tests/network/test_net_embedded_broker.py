"""The embedded MQTT broker's ACL (docs/NETWORK.md, "Who may read what"): any client may connect
without a login, but only to the topic pair its client id ``<name>-<conn>`` names; only the
server, with the password drawn at start-up, reads every up topic and writes every down topic.

Each test connects a third client — a spy, as any local program could — next to a real bot and
checks that it can neither read the bot's messages (its welcome holds the resume token that
takes back its seat) nor speak for it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import pytest
from net_helpers import LOOPBACK, embedded_server, running_server, scaled, wait_until

from arena.errors import ArenaError
from arena.transports.mqtt import SERVER_USER, owns_topic

REFUSED = 0x80
"""A SUBACK's failure code."""


def topic(name: str, conn: str, direction: str) -> str:
    return f"arena/v1/bots/{name}/{conn}/{direction}"


def hello(name: str) -> str:
    return json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]})


def granted(codes: Any) -> list[int]:
    return [int(getattr(code, "value", code)) for code in codes]


@asynccontextmanager
async def client(port: int, identifier: str, **options: Any) -> AsyncIterator[aiomqtt.Client]:
    async with aiomqtt.Client(LOOPBACK, port, identifier=identifier, **options) as connected:
        yield connected


async def next_message(mqtt: aiomqtt.Client, seconds: float) -> aiomqtt.Message | None:
    """The next message delivered to ``mqtt`` within ``seconds`` (scaled), else None."""
    try:
        async with asyncio.timeout(scaled(seconds)):
            async for message in mqtt.messages:
                return message
    except TimeoutError:
        return None
    return None


async def test_a_spy_cannot_subscribe_to_another_bots_topics_nor_read_its_welcome() -> None:
    async with (
        embedded_server() as (server, port),
        client(port, "g1-c1") as bot,
        client(port, "spy-c9") as spy,
    ):
        assert granted(await bot.subscribe(topic("g1", "c1", "down"), qos=1)) == [1]
        for stolen in (
            "#",
            "arena/#",
            "arena/v1/bots/+/+/down",
            "arena/v1/bots/g1/+/down",
            "arena/v1/bots/+/+/up",
            topic("g1", "c1", "down"),
            topic("g1", "c1", "up"),
            # Not even its own topics through a wildcard.
            "arena/v1/bots/spy/+/down",
        ):
            assert granted(await spy.subscribe(stolen, qos=1)) == [REFUSED], stolen
        await bot.publish(topic("g1", "c1", "up"), hello("g1"), qos=1)
        welcome = await next_message(bot, 10)
        assert welcome is not None and isinstance(welcome.payload, bytes)
        assert json.loads(welcome.payload)["resume_token"]
        assert await next_message(spy, 1) is None, "the spy read the bot's welcome"
        assert "g1" in server.hub.lobby.sessions


async def test_a_spy_cannot_speak_for_another_bot_nor_for_the_server() -> None:
    async with (
        embedded_server() as (server, port),
        client(port, "g1-c1") as bot,
        client(port, "spy-c9") as spy,
    ):
        assert granted(await bot.subscribe(topic("g1", "c1", "down"), qos=1)) == [1]
        # A hello on the bot's up topic would be welcomed on its down topic; a fake request on
        # its down topic would reach it directly. The broker drops both.
        await spy.publish(topic("g1", "c1", "up"), hello("g1"), qos=1)
        fake = {"v": 1, "type": "bye", "reason": "from the spy"}
        await spy.publish(topic("g1", "c1", "down"), json.dumps(fake), qos=1)
        assert await next_message(bot, 1) is None
        assert server.hub.lobby.sessions == {}
        # Its own topic pair is open to it, as to any bot.
        assert granted(await spy.subscribe(topic("spy", "c9", "down"), qos=1)) == [1]
        await spy.publish(topic("spy", "c9", "up"), hello("spy"), qos=1)
        welcome = await next_message(spy, 10)
        assert welcome is not None and isinstance(welcome.payload, bytes)
        assert json.loads(welcome.payload)["type"] == "welcome"
        await wait_until(lambda: "spy" in server.hub.lobby.sessions, "the spy's own session")


@pytest.mark.parametrize(
    ("identifier", "options"),
    [
        pytest.param("nodash", {}, id="a client id that names no topic pair"),
        pytest.param("", {}, id="no client id"),
        pytest.param(
            "x-c1", {"username": SERVER_USER, "password": "guess"}, id="the server's name"
        ),
        pytest.param(
            "x-c1",
            {"will": aiomqtt.Will(topic("g1", "c1", "up"), b'{"v":1,"type":"bye"}')},
            id="a will on another bot's topic",
        ),
    ],
)
async def test_the_broker_refuses_a_client_that_could_only_intrude(
    identifier: str, options: dict[str, Any]
) -> None:
    async with embedded_server() as (_server, port):
        with pytest.raises(aiomqtt.MqttError):
            async with client(port, identifier, **options):
                pass
        # A bot is let in with its own will (the broker publishes a will past the topic ACL,
        # so it is checked when the client connects).
        async with client(
            port, "g1-c1", will=aiomqtt.Will(topic("g1", "c1", "up"), b'{"v":1,"type":"bye"}')
        ):
            pass


async def test_another_server_is_refused_the_brokers_up_topics() -> None:
    async with embedded_server() as (_server, port):
        # Its client id is the server kind, which only the broker's own server may use. The
        # error says so, not "check the user and password" of a URL that gives none
        # (tests/network/test_mqtt_login_refused_wording.py).
        with pytest.raises(ArenaError, match=r"refused the login \(not authorized\), and the URL"):
            async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}"):
                pass


async def test_a_client_that_never_sends_its_connect_is_closed_by_the_broker() -> None:
    """amqtt drops such a client without closing its socket, and from Python 3.12 on the
    broker's shutdown waits for every connection it accepted: one left open held the server's
    exit for ever (tests/network/test_mqtt_mutation_gaps.py's failed CONNECT hung so)."""
    async with embedded_server() as (_server, port):
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        writer.write_eof()
        async with asyncio.timeout(scaled(10)):
            assert await reader.read() == b"", "the broker should close, not answer"
        writer.close()
        await writer.wait_closed()


def test_a_client_owns_only_the_topics_its_id_names() -> None:
    assert owns_topic("g1-c1", topic("g1", "c1", "down"), "down")
    assert owns_topic("g-1-c1", topic("g-1", "c1", "up"), "up")
    assert not owns_topic("g1-c1", topic("g1", "c1", "up"), "down")
    assert not owns_topic("g1-c1", topic("g1", "c2", "down"), "down")
    assert not owns_topic("g1-c1", topic("g2", "c1", "down"), "down")
    assert not owns_topic(None, topic("g1", "c1", "down"), "down")
    for wildcard in ("arena/v1/bots/g1/+/down", "arena/v1/bots/+/+/down", "arena/#", "#"):
        assert not owns_topic("g1-+", wildcard, "down")
        assert not owns_topic("+-+", wildcard, "down")
