"""A server on its embedded MQTT broker says ``bye`` to every bot before the broker goes
(docs/NETWORK.md, "Shutdown"). The broker acknowledging the server's byes only says that it holds
them: shut down while it was still delivering them, it dropped one ("1 messages not
broadcasted"), and that bot reconnected for ever."""

from __future__ import annotations

import asyncio
import signal

from net_helpers import LOOPBACK, free_port, running_server, scaled, server_process, wait_until

from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot

BYE = "the server is shutting down"


async def test_sigint_says_bye_to_every_bot_of_the_embedded_broker() -> None:
    bots = 6
    # Nothing answers on a fresh port: the server starts its embedded broker there.
    url = f"mqtt://{LOOPBACK}:{free_port()}"
    clients = [
        BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name=f"e{i}",
            adapter_factory=lambda i=i: adapter_for(url, f"e{i}"),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        for i in range(bots)
    ]
    async with server_process(free_port(), "--mqtt", url) as process:
        runners = [asyncio.create_task(client.run()) for client in clients]
        try:
            for client in clients:
                await wait_until(client.welcomed.is_set, f"the welcome of {client.name}")
            # Idle a while, as the audit's bots were.
            await asyncio.sleep(scaled(2))
            process.send_signal(signal.SIGINT)
            # Each run() returns its bye's reason; a bot that missed its bye would keep trying
            # to reconnect to a broker that is gone, and never return.
            async with asyncio.timeout(scaled(30)):
                reasons = await asyncio.gather(*runners)
                assert await process.wait() == 0
        finally:
            for runner in runners:
                runner.cancel()
    assert reasons == [BYE] * bots
    assert all(client.welcomes == 1 for client in clients), "no bot reconnected"


async def test_an_in_process_server_stops_after_every_bot_has_its_bye() -> None:
    """`ArenaServer.stop` itself: it returns once every bot has its bye, several times over."""
    for _round in range(3):
        url = f"mqtt://{LOOPBACK}:{free_port()}"
        clients = [
            BotClient(
                {"liars_dice": make_bot("liars_dice", "random-guess")},
                name=f"p{i}",
                adapter_factory=lambda i=i, url=url: adapter_for(url, f"p{i}"),
                backoff=Backoff(first_s=0.05, most_s=0.5),
            )
            for i in range(6)
        ]
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
