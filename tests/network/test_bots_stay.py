"""`bots run --stay`: a bot that stays through the server's restart. The server's shutdown says
`bye` to every bot; without `--stay` the bot stops there (as ever), with it the bot reconnects
once a server listens again and is welcomed afresh, so an operator's restart does not cost every
participant a manual restart."""

from __future__ import annotations

import asyncio
import functools

from net_helpers import LOOPBACK, free_port, scaled

from arena.server.app import ArenaServer, ServerConfig
from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot


def _client(port: int, *, stay: bool) -> BotClient:
    return BotClient(
        {"liars_dice": make_bot("liars_dice", "probability", name="stayer")},
        name="stayer",
        adapter_factory=functools.partial(adapter_for, f"ws://{LOOPBACK}:{port}", "stayer"),
        backoff=Backoff(first_s=0.05, most_s=0.2),
        stay=stay,
    )


async def _server(port: int) -> ArenaServer:
    server = ArenaServer(ServerConfig(host=LOOPBACK, port=port))
    await server.start()
    return server


async def test_a_bot_told_to_stay_comes_back_after_the_server_restarts() -> None:
    port = free_port()
    first = await _server(port)
    client = _client(port, stay=True)
    playing = asyncio.create_task(client.run())
    async with asyncio.timeout(scaled(20)):
        await client.welcomed.wait()
        await first.stop()
        while client.byes == 0:
            await asyncio.sleep(0.01)
        assert not playing.done()  # it stays, trying to reconnect
        client.welcomed.clear()
        second = await _server(port)
        try:
            await client.welcomed.wait()
            assert client.welcomes == 2
        finally:
            await client.stop()
            await second.stop()
        assert await playing == "stopped"


async def test_without_stay_the_bye_ends_the_run() -> None:
    port = free_port()
    server = await _server(port)
    client = _client(port, stay=False)
    playing = asyncio.create_task(client.run())
    async with asyncio.timeout(scaled(20)):
        await client.welcomed.wait()
        await server.stop()
        assert await playing == "the server is shutting down"
    assert client.byes == 1
