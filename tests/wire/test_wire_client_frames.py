"""The bot's client reads the server's frames as strictly as the server reads a bot's.

Before, a client that took events validated frames in pydantic's lax mode and skipped the version
check: ``"seq": "7"`` was read as 7 and ``"v": 2`` was a message, where `parse_message` refuses
both. The one-pass reading it keeps for speed (`protocol.codec.read_message`) must accept exactly
the frames `decode` accepts, which the last test checks field by field on real games' frames.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.protocol_doc import EXAMPLES, transcript_of
from bots.adapters import WebSocketAdapter
from protocol.codec import ProtocolError, decode, encode, read_message
from protocol.messages import Bye, Error, ErrorCode, Hello, Ping, Welcome

ERROR_FRAME = {"v": 1, "type": "error", "code": "late", "text": "no answer", "seq": 7}


def frame(**changes: Any) -> str:
    return json.dumps({**ERROR_FRAME, **changes})


def adapter(wants_events: bool) -> WebSocketAdapter:
    made = WebSocketAdapter("ws://127.0.0.1:1")
    made.wants_events = wants_events
    return made


@pytest.mark.parametrize("wants_events", [True, False])
def test_a_valid_frame_is_read(wants_events: bool) -> None:
    message = adapter(wants_events).decode(frame())
    assert message == Error(code=ErrorCode.LATE, text="no answer", seq=7)


@pytest.mark.parametrize("wants_events", [True, False])
@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"seq": "7"}, ErrorCode.BAD_MESSAGE),
        ({"seq": 7.0}, ErrorCode.BAD_MESSAGE),
        ({"v": 2}, ErrorCode.UNSUPPORTED_VERSION),
        ({"v": True}, ErrorCode.BAD_MESSAGE),
        ({"v": 1.0}, ErrorCode.BAD_MESSAGE),
        ({"v": "1"}, ErrorCode.BAD_MESSAGE),
    ],
)
def test_a_frame_the_server_would_refuse_is_a_bad_frame(
    wants_events: bool,
    changes: dict[str, Any],
    code: ErrorCode,
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    assert adapter(wants_events).decode(frame(**changes)) is None
    assert [(entry["event"], entry["code"]) for entry in structured_logs()] == [
        ("bad_frame_from_server", code.value)
    ]


def test_an_unwanted_event_is_dropped_unread_and_a_wanted_one_is_checked(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    event = '{"v": 1, "type": "event", "seq": "x", "payload": {}}'
    assert adapter(False).decode(event) is None
    assert structured_logs() == []
    assert adapter(True).decode(event) is None
    assert [entry["event"] for entry in structured_logs()] == ["bad_frame_from_server"]


@functools.cache
def sample_frames() -> tuple[str, ...]:
    """The first and last frame of each kind in the example games of docs/PROTOCOL.md, and the
    session's own messages."""
    by_kind: dict[tuple[str, Any, Any], list[str]] = {}
    for example in EXAMPLES:
        for _seat, _direction, text in asyncio.run(transcript_of(example)):
            data = json.loads(text)
            payload = data.get("payload") or data.get("observation") or {}
            by_kind.setdefault((data["type"], payload.get("game"), payload.get("kind")), []).append(
                text
            )
    session = [
        Hello(name="g1", token="t", games=["mahjong"], features=["bank_ms"]),
        Welcome(name="g1", session="s1", resume_token="r"),
        Error(code=ErrorCode.LATE, text="late", seq=3, match="m", game="g", seat=1),
        Bye(reason="done"),
        Ping(),
    ]
    frames = [encode(message) for message in session]
    for texts in by_kind.values():
        frames.extend({texts[0], texts[-1]})
    return tuple(frames)


def variants(value: Any) -> list[Any]:
    """Values of other JSON types, and of the same type in another spelling, for ``value``."""
    if isinstance(value, bool):
        return [int(value), str(value).lower(), None]
    if isinstance(value, int):
        return [float(value), str(value), value in (0, 1) and bool(value), None]
    if isinstance(value, float):
        return [int(value), str(value), True, None]
    if isinstance(value, str):
        return [1, True, None, [value]]
    if value is None:
        return [0, "", False]
    if isinstance(value, list):
        return [{}, "x", None]
    return [[], "x", None]


def mutations(data: Any) -> Iterator[Any]:
    """``data`` with one value replaced by each of its `variants`, for every value in it."""
    if isinstance(data, dict):
        items: list[tuple[Any, Any]] = list(data.items())
    elif isinstance(data, list):
        items = list(enumerate(data))
    else:
        return
    for key, value in items:
        for other in variants(value):
            changed = copy.copy(data)
            changed[key] = other
            yield changed
        for inner in mutations(value):
            changed = copy.copy(data)
            changed[key] = inner
            yield changed


def outcome(read: Any, raw: str) -> tuple[str, Any]:
    try:
        return "ok", read(raw)
    except ProtocolError as exc:
        return "refused", exc.code


def test_one_pass_reading_accepts_exactly_what_decode_accepts() -> None:
    seen = {"ok": 0, "refused": 0}
    for text in sample_frames():
        for changed in mutations(json.loads(text)):
            raw = json.dumps(changed)
            slow = outcome(lambda r: decode(json.loads(r)), raw)
            assert outcome(read_message, raw) == slow, raw[:300]
            seen[slow[0]] += 1
    # Both ways were tried many times: a mutation the schema allows (a nullable field, a free
    # `rules` value) is a valid frame.
    assert seen["ok"] > 100 and seen["refused"] > 2_000, seen
