"""The embedded broker keeps every client id to its first connection (docs/NETWORK.md, "Who may
read what"): a newcomer with a live bot's id, or with the server's, is refused and the older
connection goes on; and subscription churn during play no longer kills amqtt's broadcasts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt
import pytest
from net_helpers import LOOPBACK, embedded_server, next_json, wait_until

from arena.transports.mqtt import SERVER_CLIENT_PREFIX, bot_client_id
from arena.transports.mqtt_topics import is_bot_client_id
from bots.adapters import MqttAdapter


def topic(name: str, conn: str, direction: str) -> str:
    return f"arena/v1/bots/{name}/{conn}/{direction}"


def hello(name: str) -> str:
    return json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]})


STRAY_ACTION = json.dumps({"v": 1, "type": "action", "seq": 1, "action": "x"})
"""An action with no request pending: the server answers it ``error`` ``not_expected``."""
PING = json.dumps({"v": 1, "type": "ping"})


@asynccontextmanager
async def client(port: int, identifier: str, **options: Any) -> AsyncIterator[aiomqtt.Client]:
    async with aiomqtt.Client(LOOPBACK, port, identifier=identifier, **options) as connected:
        yield connected


@asynccontextmanager
async def welcomed_bot(port: int, name: str, conn: str) -> AsyncIterator[aiomqtt.Client]:
    async with client(port, bot_client_id(name, conn)) as bot:
        await bot.subscribe(topic(name, conn, "down"), qos=1)
        await bot.publish(topic(name, conn, "up"), hello(name), qos=1)
        welcome = await next_json(bot)
        assert welcome is not None and welcome["type"] == "welcome"
        yield bot


async def still_served(bot: aiomqtt.Client, name: str, conn: str) -> None:
    """The bot's connection still reaches the server, and the server's answer reaches it."""
    await bot.publish(topic(name, conn, "up"), STRAY_ACTION, qos=1)
    answer = await next_json(bot)
    assert answer is not None and (answer["type"], answer["code"]) == ("error", "not_expected")


@pytest.mark.parametrize("clean", [True, False], ids=["clean session", "persistent session"])
async def test_a_live_bots_client_id_is_refused_to_a_newcomer(clean: bool) -> None:
    async with embedded_server() as (server, port), welcomed_bot(port, "g1", "c1") as bot:
        # amqtt used to give the newcomer the session (clean: the bot's subscription went to
        # it; persistent: the bot was cut off) and leave the bot's socket open.
        with pytest.raises(aiomqtt.MqttError, match="identifier"):
            async with client(port, "g1-c1", clean_session=clean) as intruder:
                await intruder.subscribe(topic("g1", "c1", "down"), qos=1)
        await still_served(bot, "g1", "c1")
        assert "g1" in server.hub.lobby.sessions
    async with embedded_server() as (server, port):
        # First connection wins only while it lasts: the id is free once it has gone.
        async with welcomed_bot(port, "g1", "c1"):
            pass
        await wait_until(lambda: not server.broker.client_connected("g1-c1"), "the disconnect")
        async with client(port, "g1-c1") as again:
            await again.subscribe(topic("g1", "c1", "down"), qos=1)
            # ... but the session it held is gone with it (the broker told the server of the
            # disconnect): the newcomer does not speak for the bot, and must say hello.
            await again.publish(topic("g1", "c1", "up"), STRAY_ACTION, qos=1)
            answer = await next_json(again)
            assert answer is not None
            assert (answer["type"], answer["code"]) == ("error", "no_session")
            assert "g1" not in server.hub.lobby.sessions


async def test_a_client_refused_at_login_leaves_its_id_free() -> None:
    """amqtt keeps a client it refused registered as connected: the id must not stay taken."""
    async with embedded_server() as (_server, port):
        wrong_will = aiomqtt.Will(topic("g2", "c1", "up"), b'{"v":1,"type":"bye"}')
        with pytest.raises(aiomqtt.MqttError):
            async with client(port, "g1-c1", will=wrong_will):
                pass
        async with welcomed_bot(port, "g1", "c1") as bot:
            await still_served(bot, "g1", "c1")


async def test_the_servers_client_id_fits_no_bot_and_is_refused_to_others() -> None:
    async with embedded_server() as (server, port):
        assert server.bridge is not None and server.bridge.client is not None
        server_id = server.bridge.client.identifier
        assert server_id.startswith(SERVER_CLIENT_PREFIX)
        assert not is_bot_client_id(server_id)
        # Taking the server's id used to take over its session: the server went deaf.
        for stolen in (server_id, f"{SERVER_CLIENT_PREFIX}0123456789abcdef"):
            with pytest.raises(aiomqtt.MqttError):
                async with client(port, stolen):
                    pass
        async with welcomed_bot(port, "g1", "c1") as bot:
            await still_served(bot, "g1", "c1")


async def test_our_client_takes_a_fresh_conn_for_every_connection() -> None:
    async with embedded_server() as (_server, port):
        adapter = MqttAdapter(LOOPBACK, port, "g1")
        conns = []
        for _ in range(3):
            await adapter.connect()
            conns.append(adapter.conn)
            await adapter.close()
        assert len(set(conns)) == 3


class Problems(logging.Handler):
    """Log records at ERROR or above, and what reaches the event loop's exception handler."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage() + repr(record.exc_info))

    def loop_handler(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        self.seen.append(f"{context.get('message')} {context.get('exception')!r}")


async def test_subscription_churn_during_traffic_breaks_no_broadcast() -> None:
    """Clients that subscribe and disconnect while messages flow used to kill amqtt's broadcast
    task ("dictionary changed size during iteration"), and its message with it."""
    problems = Problems()
    root = logging.getLogger()
    root.addHandler(problems)
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(problems.loop_handler)
    stop = asyncio.Event()

    async def churn(worker: int) -> int:
        rounds = 0
        while not stop.is_set():
            conn = f"w{worker}r{rounds}"
            with contextlib.suppress(aiomqtt.MqttError):
                async with client(port, f"churn-{conn}") as churner:
                    await churner.subscribe(topic("churn", conn, "down"), qos=1)
            rounds += 1
        return rounds

    try:
        async with embedded_server() as (_server, port), welcomed_bot(port, "g1", "c1") as bot:
            workers = [asyncio.create_task(churn(i)) for i in range(6)]
            try:
                # Each ping is a broadcast to the server's subscription while clients come
                # and go.
                for _ in range(1500):
                    await bot.publish(topic("g1", "c1", "up"), PING, qos=1)
            finally:
                stop.set()
                rounds = await asyncio.gather(*workers)
            assert sum(rounds) > 0
            await still_served(bot, "g1", "c1")
    finally:
        loop.set_exception_handler(previous)
        root.removeHandler(problems)
    assert not [p for p in problems.seen if "changed size" in p], problems.seen[:3]


async def admitted(stack: contextlib.AsyncExitStack, port: int, conn: str) -> bool:
    """Whether a client ``g1-<conn>`` connects and gets its down topic (kept open by ``stack``)."""
    try:
        bot = await stack.enter_async_context(client(port, f"g1-{conn}"))
        await bot.subscribe(topic("g1", conn, "down"), qos=1)
    except aiomqtt.MqttError:
        return False
    return True


async def test_two_connects_of_one_client_id_at_once_let_in_one() -> None:
    """amqtt marks a session connected only after the login plugin's await: two CONNECTs of an
    id sent together both passed a check of the sessions alone."""
    async with embedded_server() as (_server, port):
        for attempt in range(10):
            conn = f"race{attempt}"
            async with contextlib.AsyncExitStack() as stack:
                both = await asyncio.gather(
                    admitted(stack, port, conn), admitted(stack, port, conn)
                )
            assert sorted(both) == [False, True], (attempt, both)
