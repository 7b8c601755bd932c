"""A server on its embedded MQTT broker says ``bye`` to every bot before the broker goes
(docs/NETWORK.md, "Shutdown"). The broker acknowledging the server's byes only says that it holds
them: shut down while it was still delivering them, it dropped one ("1 messages not
broadcasted"), and that bot reconnected for ever."""

from __future__ import annotations

import asyncio
import signal

from net_helpers import (
    LOOPBACK,
    byes_when_signalled,
    dice_bot_clients,
    free_port,
    running_server,
    scaled,
    wait_until,
)

BYE = "the server is shutting down"


async def test_sigint_says_bye_to_every_bot_of_the_embedded_broker() -> None:
    # Nothing answers on a fresh port: the server starts its embedded broker there.
    url = f"mqtt://{LOOPBACK}:{free_port()}"
    clients = dice_bot_clients(url, "e", 6)
    # Idle a while first, as the audit's bots were.
    reasons = await byes_when_signalled(url, clients, signal.SIGINT, idle_s=2, within_s=30)
    assert reasons == [BYE] * len(clients)
    assert all(client.welcomes == 1 for client in clients), "no bot reconnected"


async def test_an_in_process_server_stops_after_every_bot_has_its_bye() -> None:
    """`ArenaServer.stop` itself: it returns once every bot has its bye, several times over."""
    for _round in range(3):
        url = f"mqtt://{LOOPBACK}:{free_port()}"
        clients = dice_bot_clients(url, "p", 6)
        async with running_server(mqtt=url) as server:
            assert server.broker is not None, "no broker should answer on a fresh port"
            runners = [asyncio.create_task(client.run()) for client in clients]
            for client in clients:
                await wait_until(client.welcomed.is_set, f"the welcome of {client.name}")
        # running_server's exit stopped the server, its broker with it.
        try:
            async with asyncio.timeout(scaled(20)):
                reasons = await asyncio.gather(*runners)
        finally:
            for runner in runners:
                runner.cancel()
        assert reasons == [BYE] * len(clients)
