"""The hub sends its own replies (welcome, errors, admin replies, the status report) as
`protocol.codec.encode` writes every other frame: top-level ``None`` fields left out, nested
models whole. It used to dump them with ``exclude_none=True``, which also dropped a lobby bot's
``"table": null`` inside a status report, so one server spoke two spellings of the wire."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from arena.server.auth import TokenStore
from arena.server.hub import Hub
from arena.server.wire import ADMIN_ADAPTER, AdminHello, StatusQuery
from protocol.codec import encode
from protocol.messages import MESSAGE_ADAPTER, ErrorCode, Hello


class RecordingLink:
    """A `Link` that keeps every frame the hub sends."""

    transport = "test"
    peer = "test"

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        self.sent.append(text)
        return True

    async def close(self, reason: str) -> None:
        pass

    def abort(self) -> None:
        pass


def assert_encoded(frames: list[str], adapter: TypeAdapter[Any]) -> list[Any]:
    """Every frame is exactly ``encode`` of the message it holds."""
    messages = [adapter.validate_json(frame) for frame in frames]
    assert [encode(message) for message in messages] == frames
    return messages


async def test_what_the_hub_sends_is_what_encode_writes() -> None:
    hub = Hub(TokenStore.open_store())
    bot_link, admin_link = RecordingLink(), RecordingLink()
    bot = hub.connection(bot_link, timed=False)
    await bot.feed(encode(Hello(name="g1", games=["liars_dice"])))
    await bot.feed('{"v": 1, "type": "action", "seq": "7", "action": "x"}')
    admin = hub.connection(admin_link, timed=False)
    await admin.feed(encode(AdminHello(name="referee")))
    await admin.feed(encode(StatusQuery()))

    welcome, error = assert_encoded(bot_link.sent, MESSAGE_ADAPTER)
    assert welcome.type == "welcome"
    assert error.code is ErrorCode.BAD_MESSAGE
    _admin_welcome, report = assert_encoded(admin_link.sent, ADMIN_ADAPTER)
    assert report == hub.status()
    # The bot waits in the lobby: its entry holds the nested None that encode keeps.
    assert '"table":null' in admin_link.sent[1]
    await hub.close_all("test over", limit_s=5.0)
