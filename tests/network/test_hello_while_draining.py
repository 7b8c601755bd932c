"""A hello while the server drains gets a code a bot can act on (docs/NETWORK.md, "Shutdown";
docs/PROTOCOL.md, "Error codes").

It got ``not_expected`` ("the server is shutting down"), a code PROTOCOL.md gives another
meaning. It now gets ``shutting_down``, a v1 addition sent only to a bot whose hello lists it in
``features`` (a bot written before it refuses codes it does not know: it gets ``not_expected``
as before, and so does one that asked only for ``refusal_codes``). ``bots run`` stops on it as on
the server's bye, or with ``--stay`` retries with its backoff. An admin's ``open_table`` during
a drain gets it too.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from net_helpers import ScriptedAdapter, wait_until
from test_client_mutation_gaps import CountingBackoff, hellos, links
from test_net_mutation_gaps import GAME, Peer, hello

from arena.server.auth import TokenStore
from arena.server.hub import Hub
from arena.server.links import MQTT_TRANSPORT
from bots.adapters import AdapterRefused, ClientMessage
from bots.client import BotClient
from bots.registry import make_bot
from protocol.messages import FEATURES, Error, ErrorCode


@pytest.mark.parametrize(
    ("features", "code"),
    [
        (["shutting_down"], ErrorCode.SHUTTING_DOWN),
        (list(FEATURES), ErrorCode.SHUTTING_DOWN),
        (["refusal_codes"], ErrorCode.NOT_EXPECTED),
        (None, ErrorCode.NOT_EXPECTED),
    ],
)
@pytest.mark.parametrize("transport", ["websocket", MQTT_TRANSPORT])
async def test_a_hello_during_a_drain_gets_shutting_down_if_it_asked(
    features: list[str] | None, code: ErrorCode, transport: str
) -> None:
    hub = Hub(TokenStore.open_store())
    await hub.begin_drain()
    bot = Peer(hub, transport=transport, name="b1")
    fields: dict[str, Any] = {} if features is None else {"features": features}
    await bot.say(hello("b1", **fields))
    assert bot.link.types() == ["error"]
    refused = bot.link.frames[0]
    assert refused["code"] == code
    assert "the server is shutting down" in refused["text"]
    assert "say hello again later" in refused["text"]
    assert bot.link.closed
    assert "b1" not in hub.lobby.sessions


async def test_an_open_table_during_a_drain_gets_shutting_down() -> None:
    hub = Hub(TokenStore.open_store())
    admin = Peer(hub)
    await admin.say({"type": "admin_hello", "name": "ref"})
    await hub.begin_drain()
    await admin.say({"type": "open_table", "game": GAME, "bots": ["b1"]})
    await wait_until(lambda: "error" in admin.link.types(), "the refusal")
    assert admin.link.last("error")["code"] == ErrorCode.SHUTTING_DOWN


def shutting_down() -> Error:
    return Error(code=ErrorCode.SHUTTING_DOWN, text="the server is shutting down: …")


def client_of(adapters: Any, *, stay: bool) -> BotClient:
    return BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", {}, "b")},
        name="b",
        adapter_factory=adapters,
        backoff=CountingBackoff(),
        stay=stay,
    )


def test_bots_run_asks_for_it_and_stops_on_it_as_on_a_bye() -> None:
    sent: list[ClientMessage] = []
    client = client_of(links(ScriptedAdapter([shutting_down()], sent)), stay=False)
    assert asyncio.run(client.run()) == shutting_down().text
    assert "shutting_down" in (hellos(sent)[0].features or ())


class Gone(ScriptedAdapter):
    """A server that is gone for good: ends the run (no welcome ever came)."""

    def __init__(self) -> None:
        super().__init__([], [])

    async def connect(self) -> None:
        raise AdapterRefused("no server answers")


def test_bots_run_that_stays_tries_again_with_its_backoff() -> None:
    sent: list[ClientMessage] = []
    backoff = CountingBackoff()
    client = client_of(
        links(
            ScriptedAdapter([shutting_down()], sent),
            ScriptedAdapter([shutting_down()], sent),
            Gone(),
        ),
        stay=True,
    )
    client.backoff = backoff
    with pytest.raises(AdapterRefused):
        asyncio.run(client.run())
    assert len(hellos(sent)) == 2
    assert backoff.attempts == [0, 1], "a growing backoff, not a reconnect storm"
    assert client.byes == 0
