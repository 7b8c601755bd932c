"""`bots run`'s client when the server has lost its session (a restarted server, a silent MQTT
bot dropped): the `no_session` error makes it say hello again, with its resume token."""

from __future__ import annotations

import asyncio

import pytest

from bots.adapters import AdapterRefused, ClientMessage, ServerAdapter, ServerMessage
from bots.client import Backoff, BotClient
from bots.registry import make_bot
from protocol.messages import Bye, Error, ErrorCode, Hello, Welcome


class ScriptedAdapter(ServerAdapter):
    """Plays one connection's server side from a script; records what the client sends."""

    def __init__(self, script: list[ServerMessage], sent: list[ClientMessage]) -> None:
        self.script = list(script)
        self.sent = sent

    async def connect(self) -> None:
        return None

    async def send(self, message: ClientMessage) -> None:
        self.sent.append(message)

    async def receive(self) -> ServerMessage:
        await asyncio.sleep(0)
        return self.script.pop(0)

    async def close(self) -> None:
        return None


def test_no_session_makes_the_client_say_hello_again_with_its_resume_token() -> None:
    sent: list[ClientMessage] = []
    scripts: list[list[ServerMessage]] = [
        [
            Welcome(name="b", session="s1", resume_token="r1"),
            Error(code=ErrorCode.NO_SESSION, text="no session on this connection"),
        ],
        [Welcome(name="b", session="s2", resume_token="r2"), Bye(reason="done")],
    ]
    connections = iter(scripts)
    client = BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=lambda: ScriptedAdapter(next(connections), sent),
        backoff=Backoff(first_s=0.001, most_s=0.001),
    )
    assert asyncio.run(client.run()) == "done"
    hellos = [message for message in sent if isinstance(message, Hello)]
    assert [hello.resume for hello in hellos] == [None, "r1"]
    assert client.welcomes == 2


class RefusingAdapter(ScriptedAdapter):
    """A link the broker refuses (`AdapterRefused`), as an untrusted certificate is."""

    async def connect(self) -> None:
        raise AdapterRefused("cannot speak TLS with the MQTT broker (certificate not trusted)")


def test_a_refused_link_ends_the_client_at_first_but_is_retried_once_welcomed() -> None:
    refused_first = BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=lambda: RefusingAdapter([], []),
        backoff=Backoff(first_s=0.001, most_s=0.001),
    )
    with pytest.raises(AdapterRefused):
        asyncio.run(refused_first.run())
    # Welcomed once, then refused (a certificate swapped while the broker restarted), then
    # served again: the bot must still be there for its seat.
    sent: list[ClientMessage] = []
    links = iter(
        [
            ScriptedAdapter(
                [
                    Welcome(name="b", session="s1", resume_token="r1"),
                    Error(code=ErrorCode.NO_SESSION, text="no session on this connection"),
                ],
                sent,
            ),
            RefusingAdapter([], sent),
            ScriptedAdapter(
                [Welcome(name="b", session="s2", resume_token="r2"), Bye(reason="done")], sent
            ),
        ]
    )
    client = BotClient(
        {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
        name="b",
        adapter_factory=lambda: next(links),
        backoff=Backoff(first_s=0.001, most_s=0.001),
    )
    assert asyncio.run(client.run()) == "done"
    assert client.welcomes == 2
