"""The wire's strictness where a mutation audit found the suite blind: every message, the admin
channel's too, refuses a field it does not know (``extra="forbid"``, docs/PROTOCOL.md's
``bad_message``); the MQTT topic ACL grants only the arena's own tree; and the bot's side reads
only server messages and echoes each request's ``seq``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from wire_samples import solve_observation

from arena.server.wire import parse_admin
from arena.transports.mqtt_topics import owns_topic
from bots.adapters import ServerAdapter, WebSocketAdapter
from bots.base import Bot
from bots.client import BotClient
from protocol.codec import (
    MAX_MESSAGE_BYTES,
    ProtocolError,
    encode,
    json_schema,
    parse_message,
    read_message,
)
from protocol.games.bulls_cows import GuessMade
from protocol.messages import (
    Action,
    Bye,
    Error,
    ErrorCode,
    Event,
    Hello,
    Ping,
    Request,
    Welcome,
)
from protocol.mqtt import parse_bot_topic

OBSERVATION = solve_observation(seat=1)
REQUEST = Request(match="m1", game="g1", seat=1, seq=7, deadline_ms=60_000, observation=OBSERVATION)
MESSAGES = [
    Hello(name="g1", token="t", games=["bulls_cows"], resume="r", features=["bank_ms"]),
    Welcome(name="g1", session="s1", resume_token="r"),
    Event(match="m1", game="g1", seat=1, payload=GuessMade(seat=0, guess="1234", number=1)),
    REQUEST,
    Action(seq=7, action="0123"),
    Error(code=ErrorCode.LATE, text="late", seq=7),
    Bye(reason="done"),
    Ping(),
]
ADMIN_FRAMES = [
    {"type": "admin_hello", "name": "lead", "token": "t"},
    {"type": "open_table", "game": "bulls_cows", "bots": ["g1"]},
    {"type": "attach", "table": "t1", "slot": 0, "key": "k"},
    {"type": "close_table", "table": "t1"},
    {"type": "status"},
]


def with_unknown_field(text: str) -> str:
    return json.dumps({**json.loads(text), "colour": "blue"})


@pytest.mark.parametrize("message", MESSAGES, ids=lambda message: message.type)
def test_every_message_refuses_a_field_it_does_not_know(message: Any) -> None:
    """Both ways of reading: the server's (`parse_message`) and the bot client's one pass
    (`read_message`), which must refuse what the server refuses."""
    text = encode(message)
    assert parse_message(text) == message
    for read in (parse_message, read_message):
        with pytest.raises(ProtocolError) as refused:
            read(with_unknown_field(text))
        assert refused.value.code is ErrorCode.BAD_MESSAGE
        assert "colour" in refused.value.text


@pytest.mark.parametrize("frame", ADMIN_FRAMES, ids=lambda frame: str(frame["type"]))
def test_every_admin_message_refuses_a_field_it_does_not_know(frame: dict[str, Any]) -> None:
    parse_admin(json.dumps(frame), MAX_MESSAGE_BYTES)
    with pytest.raises(ProtocolError) as refused:
        parse_admin(json.dumps({**frame, "colour": "blue"}), MAX_MESSAGE_BYTES)
    assert refused.value.code is ErrorCode.BAD_MESSAGE


def test_an_action_text_longer_than_the_schema_allows_is_a_bad_message() -> None:
    """`arena protocol schema` bounds an action's text; the parser holds it to that bound."""
    longest = json_schema()["$defs"]["Action"]["properties"]["action"]["maxLength"]
    assert parse_message(encode(Action(seq=1, action="x" * longest))) is not None
    with pytest.raises(ProtocolError) as refused:
        parse_message(json.dumps({"type": "action", "seq": 1, "action": "x" * (longest + 1)}))
    assert refused.value.code is ErrorCode.BAD_MESSAGE


@pytest.mark.parametrize(
    "topic",
    [
        "other/v1/bots/a/b/up",
        "arena/v2/bots/a/b/up",
        "arena/v1/other/a/b/up",
        "a/b/c/a/b/up",
    ],
)
def test_a_bot_owns_no_topic_outside_the_arena_tree(topic: str) -> None:
    """The embedded broker grants a client ``arena/v1/bots/<name>/<conn>/up`` and ``…/down``
    only: the same last levels under another root are no bot topic at all."""
    assert parse_bot_topic(topic, "up") is None
    assert not owns_topic("a-b", topic, "up")
    assert owns_topic("a-b", "arena/v1/bots/a/b/up", "up")


@pytest.mark.parametrize(
    "message", [Hello(name="g1", games=["bulls_cows"]), Action(seq=1, action="x"), Ping()]
)
def test_the_client_takes_no_bot_message_from_its_server(message: Any) -> None:
    """A server sends welcome, event, request, error and bye; a bot's own kinds of message
    arriving from it are not for the bot to act on."""
    adapter = WebSocketAdapter("ws://127.0.0.1:1")
    assert adapter.decode(encode(message)) is None


class ScriptedAdapter(ServerAdapter):
    """A server that says ``script``, in order, and keeps what the client sends."""

    def __init__(self, script: list[Welcome | Request | Bye]) -> None:
        self.inbox: asyncio.Queue[Welcome | Request | Bye] = asyncio.Queue()
        for message in script:
            self.inbox.put_nowait(message)
        self.sent: list[Any] = []

    async def connect(self) -> None:
        return None

    async def send(self, message: Any) -> None:
        self.sent.append(message)

    async def receive(self) -> Any:
        return await self.inbox.get()

    async def close(self) -> None:
        return None


class FixedGuess(Bot):
    async def act(self, request: Request) -> str:
        return "0123"


async def test_the_client_echoes_the_requests_seq_and_place() -> None:
    """docs/PROTOCOL.md: the action echoes the request's ``seq`` (numbered per seat through the
    match, so the first request a bot sees need not be seq 1)."""
    adapter = ScriptedAdapter(
        [Welcome(name="g1", session="s1", resume_token="r"), REQUEST, Bye(reason="done")]
    )
    client = BotClient(
        {"bulls_cows": FixedGuess("fixed")}, name="g1", adapter_factory=lambda: adapter
    )
    assert await asyncio.wait_for(client.run(), 60) == "done"
    actions = [message for message in adapter.sent if isinstance(message, Action)]
    assert actions == [Action(match="m1", game="g1", seat=1, seq=7, action="0123")]
