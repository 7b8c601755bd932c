"""Two arena servers on one broker (docs/NETWORK.md, "MQTT", "Two servers on one broker").

Both would answer every bot: two welcomes, and the second server's ``no_session`` for every
message of a bot seated by the first. A server that starts on a broker (not its embedded one)
now reads the retained presence marker on ``arena/v1/server/presence`` and refuses to start when
it is another server's; it leaves its own, which its connection's will clears when it dies and
its clean stop clears too. ``--mqtt-takeover`` (`ServerConfig.mqtt_takeover`) replaces a marker
left behind.

Against Mosquitto. Nothing waits for something not to happen: `marker` reads what the broker
retains by publishing a probe to itself after subscribing (retained messages come first).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from net_helpers import (
    LOOPBACK,
    free_port,
    mosquitto,
    running_server,
    scaled,
    server_process,
    wait_until,
)

from arena.server.app import ArenaServer, ServerConfig
from arena.server.hub import Limits
from arena.transports.mqtt import MqttConfigError

PRESENCE = "arena/v1/server/presence"


async def marker(port: int) -> dict[str, Any] | None:
    """The presence marker the broker retains, if any."""
    probe = f"arena/v1/server/probe/test-{os.urandom(4).hex()}"
    found: dict[str, Any] | None = None
    async with aiomqtt.Client(LOOPBACK, port) as client:
        await client.subscribe("arena/v1/server/#", qos=1)
        await client.publish(probe, b"probe", qos=1)
        async with asyncio.timeout(scaled(10)):
            async for message in client.messages:
                if str(message.topic) == probe:
                    return found
                if str(message.topic) == PRESENCE and message.retain:
                    assert isinstance(message.payload, bytes)
                    found = json.loads(message.payload)
    raise AssertionError("the broker connection ended")


def config(port: int, *, takeover: bool = False) -> ServerConfig:
    return ServerConfig(
        host=LOOPBACK,
        port=0,
        mqtt=f"mqtt://{LOOPBACK}:{port}",
        limits=Limits(hello_timeout_s=scaled(10)),
        mqtt_takeover=takeover,
    )


async def test_a_second_server_on_the_broker_refuses_to_start(tmp_path: Path) -> None:
    with mosquitto(tmp_path) as port:
        async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as first:
            assert first.bridge is not None
            held = await marker(port)
            assert held is not None and held["instance"] == first.bridge.instance
            assert held["pid"] == os.getpid()
            second = ArenaServer(config(port))
            with pytest.raises(MqttConfigError) as refused:
                await second.start()
            text = str(refused.value)
            assert "another arena server" in text and f"pid {os.getpid()}" in text, text
            assert "--mqtt-takeover" in text, text
            assert await marker(port) == held, "the refused server leaves the marker alone"
        # A clean stop clears the marker: the next server starts.
        assert await marker(port) is None
        async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as third:
            assert third.bridge is not None and third.bridge.ready.is_set()


async def test_a_marker_left_behind_stops_a_start_unless_it_is_taken_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    stale = {"type": "arena_server", "instance": "dead", "pid": 1, "host": "h", "started": "t"}
    with mosquitto(tmp_path) as port:
        async with aiomqtt.Client(LOOPBACK, port) as client:
            await client.publish(PRESENCE, json.dumps(stale), qos=1, retain=True)
        with pytest.raises(MqttConfigError, match="pid 1 on host 'h'"):
            await ArenaServer(config(port)).start()
        with caplog.at_level(logging.INFO):
            server = ArenaServer(config(port, takeover=True))
            await server.start()
            try:
                assert server.bridge is not None
                held = await marker(port)
                assert held is not None and held["instance"] == server.bridge.instance
            finally:
                await server.stop()
        assert any("mqtt_server_takeover" in r.getMessage() for r in caplog.records)


async def test_a_server_that_took_over_is_noticed_by_the_one_running(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with mosquitto(tmp_path) as port, caplog.at_level(logging.INFO):
        first = ArenaServer(config(port))
        await first.start()
        try:
            async with running_server(
                mqtt=f"mqtt://{LOOPBACK}:{port}", mqtt_takeover=True
            ) as second:
                assert second.bridge is not None

                def noticed() -> bool:
                    return any("mqtt_another_server" in r.getMessage() for r in caplog.records)

                await wait_until(noticed, "the first server to notice the second")
                await first.stop()
                held = await marker(port)
                assert held is not None and held["instance"] == second.bridge.instance, (
                    "the first server's stop leaves the second's marker in place"
                )
        finally:
            await first.stop()
        assert await marker(port) is None


async def test_a_killed_servers_will_clears_its_marker(tmp_path: Path) -> None:
    with mosquitto(tmp_path) as port:
        async with server_process(free_port(), "--mqtt", f"mqtt://{LOOPBACK}:{port}") as process:

            async def held() -> bool:
                found = await marker(port)
                return found is not None and found["pid"] == process.pid

            await wait_until(held, "the server's marker")
            process.kill()
            await process.wait()

            async def cleared() -> bool:
                return await marker(port) is None

            await wait_until(cleared, "the broker to publish the server's will")
