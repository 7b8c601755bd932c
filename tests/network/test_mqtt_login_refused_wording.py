"""A refused MQTT login says what fits the URL: a second `arena serve` pointed at another server's
embedded broker was told to "check the user and password in the URL" of a URL that gave none,
and logged `listening` before it stopped. It is now told that this is most likely another
server's embedded broker, which no second server can share; a URL without a login meeting a
broker that wants one (a bot's too) is told so; a URL with a login keeps "check the user and
password" (tests/network/test_mqtt_broker_login.py).

Nothing here asserts on time: the waits are bounded only so that a broken build fails."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from net_helpers import LOOPBACK, embedded_server, mosquitto_process, scaled

from arena.errors import ArenaError
from arena.server.app import ArenaServer, ServerConfig, websocket_url
from arena.transports.mqtt_refusals import server_login_refused_message
from bots.adapters import AdapterRefused, adapter_for
from protocol.mqtt import login_refused_message

CHECK_LOGIN = "check the user and password in the URL"


async def test_a_second_server_on_an_embedded_broker_is_told_whose_broker_it_is(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    async with embedded_server() as (_first, port):
        second = ArenaServer(ServerConfig(host=LOOPBACK, port=0, mqtt=f"mqtt://{LOOPBACK}:{port}"))
        with pytest.raises(ArenaError) as refused:
            await second.start()
    assert str(refused.value) == (
        f"the MQTT broker at {LOOPBACK}:{port} refused the login (not authorized), and the URL "
        "gives no user or password: if another `arena serve --mqtt` runs on that address, this "
        "is its embedded broker, which only that server may use (no second server can share "
        "it: give this one another --mqtt address; docs/NETWORK.md, Two servers on one "
        "broker); a broker that wants a login takes mqtt://USER:PASSWORD@HOST:PORT"
    )
    listening = [entry["url"] for entry in structured_logs() if entry["event"] == "listening"]
    # The first server announced itself (the logs are seen); the second, refused, did not.
    assert len(listening) == 1
    assert websocket_url(LOOPBACK, second.port) not in listening


def test_a_url_without_a_login_is_told_the_broker_wants_one() -> None:
    assert login_refused_message("broker.example", 1883, "not authorized", with_login=False) == (
        "the MQTT broker at broker.example:1883 refused the login (not authorized): it wants a "
        "user and password, and the URL gives none (mqtt://USER:PASSWORD@HOST:PORT)"
    )
    # Away from loopback no embedded broker runs (it is started on a loopback address only):
    # the server is told what a bot is.
    assert server_login_refused_message(
        "broker.example", 1883, "not authorized", with_login=False
    ) == login_refused_message("broker.example", 1883, "not authorized", with_login=False)


@pytest.mark.parametrize("host", [LOOPBACK, "broker.example"])
def test_a_url_with_a_login_is_told_to_check_it(host: str) -> None:
    for message in (login_refused_message, server_login_refused_message):
        text = message(host, 1883, "bad user name or password", with_login=True)
        assert text == (
            f"the MQTT broker at {host}:1883 refused the login (bad user name or password): "
            f"{CHECK_LOGIN}"
        )


async def test_a_bot_without_a_login_on_a_broker_that_wants_one(tmp_path: Path) -> None:
    with mosquitto_process(tmp_path, "allow_anonymous false\n") as (port, _process):
        adapter = adapter_for(f"mqtt://{LOOPBACK}:{port}", "g1")
        async with asyncio.timeout(scaled(30)):
            with pytest.raises(AdapterRefused) as refused:
                await adapter.connect()
    assert str(refused.value) == (
        f"the MQTT broker at {LOOPBACK}:{port} refused the login (not authorized): it wants a "
        "user and password, and the URL gives none (mqtt://USER:PASSWORD@HOST:PORT)"
    )
