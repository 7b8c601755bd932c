"""`bots run`'s client when the server has lost its session (a restarted server, a silent MQTT
bot dropped): the `no_session` error makes it say hello again, with its resume token. And how it
takes each refusal of its hello, a match the server stopped, and being stopped itself."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from net_helpers import ScriptedAdapter

from bots.adapters import AdapterRefused, ClientMessage, ServerAdapter, ServerMessage
from bots.base import Bot
from bots.client import Backoff, BotClient, ClientRefused
from bots.registry import make_bot
from protocol.messages import FEATURES, Bye, Error, ErrorCode, Hello, Request, Welcome


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


def welcomed_then_lost(sent: list[ClientMessage]) -> ScriptedAdapter:
    """A connection that welcomes the bot, then says the server lost its session."""
    return ScriptedAdapter(
        [
            Welcome(name="b", session="s1", resume_token="r1"),
            Error(code=ErrorCode.NO_SESSION, text="no session on this connection"),
        ],
        sent,
    )


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
            welcomed_then_lost(sent),
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


# -- the server's refusals of a hello, and a match it stopped (docs/PROTOCOL.md) --------------


def dice_client(
    adapter_factory: Callable[[], ServerAdapter], name: str = "b", **options: Any
) -> BotClient:
    return BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", {}, "b")},
        name=name,
        adapter_factory=adapter_factory,
        backoff=Backoff(first_s=0.001, most_s=0.001),
        **options,
    )


def test_resume_unknown_makes_the_client_say_hello_afresh(tmp_path: Path) -> None:
    resume = tmp_path / "resume"
    resume.write_text("stale", encoding="utf-8")
    sent: list[ClientMessage] = []
    links = iter(
        [
            ScriptedAdapter(
                [Error(code=ErrorCode.RESUME_UNKNOWN, text="no session of b to resume")], sent
            ),
            ScriptedAdapter(
                [Welcome(name="b", session="s1", resume_token="r1"), Bye(reason="done")], sent
            ),
        ]
    )
    client = dice_client(lambda: next(links), resume_file=resume)
    assert asyncio.run(client.run()) == "done"
    hellos = [message for message in sent if isinstance(message, Hello)]
    assert [hello.resume for hello in hellos] == ["stale", None]
    assert resume.read_text(encoding="utf-8") == "r1"


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (ErrorCode.NAME_IN_USE, "bot b already has a session (lobby)"),
        (ErrorCode.AUTH_FAILED, "unknown token for bot b"),
    ],
)
def test_a_refusal_of_the_first_hello_stops_the_client_with_its_code(
    code: ErrorCode, text: str
) -> None:
    """name_in_use at the first hello, and auth_failed as ever."""
    client = dice_client(lambda: ScriptedAdapter([Error(code=code, text=text)], []))
    with pytest.raises(ClientRefused) as refused:
        asyncio.run(client.run())
    assert refused.value.code is code
    if code is ErrorCode.NAME_IN_USE:
        assert str(refused.value).startswith("name_in_use: ")


def test_name_in_use_after_a_welcome_is_retried() -> None:
    """Welcomed once, the client may meet its own earlier connection, not yet known gone."""
    sent: list[ClientMessage] = []
    links = iter(
        [
            welcomed_then_lost(sent),
            ScriptedAdapter(
                [Error(code=ErrorCode.RESUME_UNKNOWN, text="no session of b to resume")], sent
            ),
            ScriptedAdapter(
                [Error(code=ErrorCode.NAME_IN_USE, text="bot b already has a session")], sent
            ),
            ScriptedAdapter(
                [Welcome(name="b", session="s2", resume_token="r2"), Bye(reason="done")], sent
            ),
        ]
    )
    client = dice_client(lambda: next(links))
    assert asyncio.run(client.run()) == "done"
    hellos = [message for message in sent if isinstance(message, Hello)]
    assert [hello.resume for hello in hellos] == [None, "r1", None, None]
    assert client.welcomes == 2


class ListeningBot(Bot):
    games = ("liars_dice",)

    def __init__(self) -> None:
        super().__init__("listener")
        self.errors: list[Error] = []

    async def act(self, request: Request) -> str:
        raise AssertionError("never asked")

    async def on_error(self, error: Error) -> None:
        self.errors.append(error)


def test_match_aborted_reaches_the_bot_and_the_client_waits_for_its_next_table() -> None:
    aborted = Error(
        code=ErrorCode.MATCH_ABORTED, match="m1", text="match m1 was stopped before its end"
    )
    bot = ListeningBot()
    client = BotClient(
        {"liars_dice": bot},
        name="b",
        adapter_factory=lambda: ScriptedAdapter(
            [
                Welcome(name="b", session="s1", resume_token="r1"),
                aborted,
                Bye(reason="done"),
            ],
            [],
        ),
    )
    assert asyncio.run(client.run()) == "done"
    assert bot.errors == [aborted]
    assert client.matches_aborted == 1
    assert client.welcomes == 1, "the same session: nothing to reconnect for"


class SlowConnect(ScriptedAdapter):
    """A connection that opens only when the test says so."""

    def __init__(self, script: list[ServerMessage], sent: list[ClientMessage]) -> None:
        super().__init__(script, sent)
        self.connecting = asyncio.Event()
        self.open = asyncio.Event()

    async def connect(self) -> None:
        self.connecting.set()
        await self.open.wait()


async def test_a_client_stopped_while_connecting_says_no_hello() -> None:
    """`bots run` stopped by SIGINT while its connection opens: it must stop, not go on to say
    hello and play (over MQTT without ever sending its bye)."""
    sent: list[ClientMessage] = []
    link = SlowConnect([Welcome(name="b", session="s1", resume_token="r1")], sent)
    client = dice_client(lambda: link)
    runner = asyncio.create_task(client.run())
    await asyncio.wait_for(link.connecting.wait(), 10)
    await client.stop()
    link.open.set()
    assert await asyncio.wait_for(runner, 10) == "stopped"
    assert not [message for message in sent if isinstance(message, Hello)]


class CountedRefusal(RefusingAdapter):
    refused = asyncio.Event()

    async def connect(self) -> None:
        CountedRefusal.refused.set()
        await super().connect()


async def test_a_client_stopped_between_reconnects_stops_at_once() -> None:
    CountedRefusal.refused = asyncio.Event()
    client = BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", {}, "b")},
        name="b",
        adapter_factory=lambda: CountedRefusal([], []),
        backoff=Backoff(first_s=3600, most_s=3600),
    )
    client.welcomes = 1  # welcomed before: a refused link is retried after the backoff
    runner = asyncio.create_task(client.run())
    await asyncio.wait_for(CountedRefusal.refused.wait(), 10)
    await asyncio.sleep(0.05)  # into the hour's wait before the next try
    await client.stop()
    assert await asyncio.wait_for(runner, 10) == "stopped"


def test_a_bad_name_is_refused_before_anything_connects() -> None:
    for name in ("bad name!", "x" * 65, ""):
        with pytest.raises(ValueError, match="bad bot name"):
            dice_client(lambda: ScriptedAdapter([], []), name=name)


def test_the_client_asks_for_the_additions_and_says_hello_again_to_a_server_without_them() -> None:
    """A server from before `hello.features` refuses the field (`bad_message`) and keeps the
    connection: the client says hello again on it without, and plays (review of the additions:
    they come only to a bot that asks, so that a bot written before them still plays)."""
    sent: list[ClientMessage] = []
    old_server = ScriptedAdapter(
        [
            Error(
                code=ErrorCode.BAD_MESSAGE, text="hello.features: Extra inputs are not permitted"
            ),
            Welcome(name="b", session="s1", resume_token="r1"),
            Bye(reason="done"),
        ],
        sent,
    )
    client = dice_client(lambda: old_server)
    assert asyncio.run(client.run()) == "done"
    hellos = [message for message in sent if isinstance(message, Hello)]
    assert [hello.features for hello in hellos] == [list(FEATURES), None]
    assert client.welcomes == 1
