"""MQTT sessions: the topic names the bot, silence drops a session, and a stopping server's
``bye`` reaches every bot before it disconnects from the broker (docs/NETWORK.md, "MQTT")."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    MqttBot,
    byes_when_signalled,
    dice_bot_clients,
    mosquitto,
    mqtt_bot,
    running_server,
    scaled,
    wait_until,
)

from arena.server.hub import Limits
from arena.server.sessions import SessionState
from bots.adapters import adapter_for
from bots.client import BotClient
from bots.registry import make_bot


@pytest.fixture(scope="module")
def broker_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with mosquitto(tmp_path_factory.mktemp("mosquitto")) as port:
        yield port


@asynccontextmanager
async def raw_bot(port: int, name: str, conn: str) -> AsyncIterator[MqttBot]:
    async with mqtt_bot(port, name, conn, client_id=f"raw-{name}-{conn}") as bot:
        yield bot


def hello(name: str) -> dict[str, Any]:
    return {"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]}


def mqtt_server(port: int, **limits: Any) -> Any:
    return running_server(
        mqtt=f"mqtt://{LOOPBACK}:{port}", limits=Limits(hello_timeout_s=scaled(10), **limits)
    )


async def test_a_hello_must_give_the_topics_name(broker_port: int) -> None:
    async with mqtt_server(broker_port) as server, raw_bot(broker_port, "mq1", "c1") as bot:
        await bot.send(hello("other"))
        error = await bot.recv()
        assert (error["type"], error["code"]) == ("error", "auth_failed")
        assert "'other'" in error["text"] and "'mq1'" in error["text"]
        assert server.hub.lobby.sessions == {}
        assert server.bridge is not None and server.bridge.connections == {}
        # The topic's own name is welcome on the same topic pair.
        await bot.send(hello("mq1"))
        welcome = await bot.recv()
        assert (welcome["type"], welcome["name"]) == ("welcome", "mq1")


async def test_a_silent_session_is_dropped_and_its_name_freed(broker_port: int) -> None:
    async with mqtt_server(broker_port, mqtt_silence_s=scaled(0.5)) as server:
        async with raw_bot(broker_port, "mute", "c1") as bot:
            await bot.send(hello("mute"))
            assert (await bot.recv())["type"] == "welcome"
            assert "mute" in server.hub.lobby.sessions
            # It says nothing more: the server says bye and forgets it.
            bye = await bot.recv()
            assert bye["type"] == "bye" and "no message" in bye["reason"]
        await wait_until(lambda: not server.hub.status().bots, "the silent bot to be dropped")
        async with raw_bot(broker_port, "mute", "c2") as again:
            await again.send(hello("mute"))
            assert (await again.recv())["type"] == "welcome"


async def test_a_silent_seated_bot_turns_absent_and_leaves_with_its_table(
    broker_port: int,
) -> None:
    async with (
        mqtt_server(broker_port, mqtt_silence_s=scaled(0.5)) as server,
        raw_bot(broker_port, "seated", "c1") as bot,
    ):
        await bot.send(hello("seated"))
        assert (await bot.recv())["type"] == "welcome"
        async with server.hub.local_seats(["seated"], "liars_dice"):
            session = server.hub.lobby.sessions["seated"]
            assert session.state is SessionState.SEATED
            # The referee's requests would now fall back at once, as for a dropped connection.
            await wait_until(lambda: session.state is SessionState.ABSENT, "the drop")
        assert "seated" not in server.hub.lobby.sessions


async def test_pings_keep_a_quiet_session(broker_port: int) -> None:
    async with (
        mqtt_server(broker_port, mqtt_silence_s=scaled(0.6)) as server,
        raw_bot(broker_port, "pinger", "c1") as bot,
    ):
        await bot.send(hello("pinger"))
        assert (await bot.recv())["type"] == "welcome"
        # Eight pings a third of the silence limit apart: more than twice the limit in all.
        for _ in range(8):
            await asyncio.sleep(scaled(0.2))
            await bot.send({"v": 1, "type": "ping"})
        assert [b.name for b in server.hub.status().bots] == ["pinger"]


async def test_our_client_keeps_its_session_with_pings(broker_port: int) -> None:
    """`bots run`'s client, idle in the lobby far longer than the silence limit."""
    async with mqtt_server(broker_port, mqtt_silence_s=scaled(0.6)) as server:
        url = f"mqtt://{LOOPBACK}:{broker_port}"
        client = BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name="idle",
            adapter_factory=lambda: adapter_for(url, "idle"),
            keepalive_s=scaled(0.2),
        )
        runner = asyncio.create_task(client.run())
        try:
            await wait_until(client.welcomed.is_set, "the welcome")
            await asyncio.sleep(scaled(2.0))
            assert [(b.name, b.state) for b in server.hub.status().bots] == [("idle", "lobby")]
            assert client.welcomes == 1, "never dropped, never reconnected"
        finally:
            await client.stop()
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner


async def test_sigterm_says_bye_to_every_mqtt_bot(broker_port: int) -> None:
    """`arena serve --mqtt` stopped by SIGTERM: every bot gets its bye and stops. (Before the fix
    about half of six bots missed it: the server left the broker with the publishes queued.)"""
    url = f"mqtt://{LOOPBACK}:{broker_port}"
    clients = dice_bot_clients(url, "z", 8)
    # Idle a while first, as the audit's bots were: signalled straight after the welcomes, the
    # byes happened to get out even before the fix.
    reasons = await byes_when_signalled(url, clients, signal.SIGTERM, idle_s=3, within_s=20)
    assert reasons == ["the server is shutting down"] * len(clients)
