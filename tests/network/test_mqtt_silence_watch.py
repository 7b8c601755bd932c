"""The MQTT bridge's silence watch (docs/NETWORK.md, "MQTT"): one bot connection that fails to
close does not end the watch for every other silent bot, and a watch that dies anyway is logged
when the bridge stops, not left as an unretrieved task exception."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest
import structlog
from net_helpers import LOOPBACK, free_port, running_server

from arena.transports import mqtt


class SilentConnection:
    """A bot connection the watch finds silent; its close may fail."""

    def __init__(self, fails: bool) -> None:
        self.fails = fails
        self.log = structlog.get_logger("test").bind(conn="silent")
        self.shut_reasons: list[str] = []
        self.shut_once = asyncio.Event()

    async def shut(self, reason: str) -> None:
        self.shut_reasons.append(reason)
        self.shut_once.set()
        if self.fails:
            raise RuntimeError("the link broke while closing")


async def test_a_failing_close_does_not_stop_the_watch(caplog: pytest.LogCaptureFixture) -> None:
    hub = SimpleNamespace(limits=SimpleNamespace(mqtt_silence_s=0.04))
    bridge = mqtt.MqttBridge(hub, mqtt.BrokerUrl(LOOPBACK, 1883))  # type: ignore[arg-type]
    broken, healthy = SilentConnection(fails=True), SilentConnection(fails=False)
    # The broken one first: the watch meets its failure before it reaches the healthy one.
    bridge.connections = {("b1", "c1"): broken, ("b2", "c2"): healthy}  # type: ignore[dict-item]
    long_ago = asyncio.get_running_loop().time() - 3600
    bridge._heard = {key: long_ago for key in bridge.connections}
    watcher = asyncio.create_task(bridge._watch())
    reached = asyncio.create_task(healthy.shut_once.wait())
    try:
        await asyncio.wait([watcher, reached], return_when=asyncio.FIRST_COMPLETED)
        assert not watcher.done(), "the watch died of one connection's failure"
        assert healthy.shut_reasons and broken.shut_reasons
        failures = [r for r in caplog.records if "mqtt_silent_drop_failed" in r.getMessage()]
        assert failures and "b1" in failures[0].getMessage()
    finally:
        for task in (watcher, reached):
            task.cancel()
        await asyncio.wait([watcher, reached])


async def test_a_watch_that_died_is_logged_when_the_bridge_stops(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = asyncio.Event()

    async def broken_watch(self: mqtt.MqttBridge) -> None:
        started.set()
        raise RuntimeError("the watch broke")

    monkeypatch.setattr(mqtt.MqttBridge, "_watch", broken_watch)
    with caplog.at_level(logging.ERROR):
        # No broker answers on a fresh port: the server starts its own.
        async with running_server(mqtt=f"mqtt://{LOOPBACK}:{free_port()}") as server:
            assert server.broker is not None
            await started.wait()
    logged = [r for r in caplog.records if "mqtt_watch_failed" in r.getMessage()]
    assert len(logged) == 1
    assert "the watch broke" in logged[0].getMessage()
