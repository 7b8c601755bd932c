"""The frame limit counts bytes of UTF-8, whether a frame arrives as text or as bytes."""

from __future__ import annotations

import json

import pytest

from protocol.codec import ProtocolError, parse_message, read_frame
from protocol.messages import ErrorCode

LIMIT = 16 * 1024


def frame_of(text: str) -> str:
    """A frame holding ``text`` as it is (no escapes)."""
    return json.dumps({"v": 1, "type": "ping", "pad": text}, ensure_ascii=False)


def padded(char: str, size: int) -> str:
    """A frame of exactly ``size`` bytes of UTF-8, padded with ``char``."""
    frame = frame_of("")
    room = size - len(frame.encode())
    width = len(char.encode())
    count, rest = divmod(room, width)
    frame = frame_of(char * count + "x" * rest)
    assert len(frame.encode()) == size
    return frame


@pytest.mark.parametrize("char", ["x", "é", "牌", "🀄"])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_frame_at_the_limit_passes_and_one_byte_more_is_too_large(
    char: str, as_bytes: bool
) -> None:
    at_limit, over = padded(char, LIMIT), padded(char, LIMIT + 1)
    if as_bytes:
        assert read_frame(at_limit.encode(), LIMIT)["type"] == "ping"
        raw: str | bytes = over.encode()
    else:
        assert read_frame(at_limit, LIMIT)["type"] == "ping"
        raw = over
    with pytest.raises(ProtocolError) as caught:
        parse_message(raw, LIMIT)
    assert caught.value.code == ErrorCode.TOO_LARGE
    assert caught.value.text == f"message of {LIMIT + 1} bytes > {LIMIT}"


def test_multibyte_text_under_the_limit_in_characters_is_too_large_in_bytes() -> None:
    # The auditor's frame: 18,130 bytes of CJK text, about 6,000 characters.
    frame = json.dumps(
        {"v": 1, "type": "action", "seq": 1, "action": "牌" * 6_000}, ensure_ascii=False
    )
    assert len(frame) < LIMIT < len(frame.encode())
    with pytest.raises(ProtocolError) as caught:
        read_frame(frame, LIMIT)
    assert caught.value.code == ErrorCode.TOO_LARGE
    assert caught.value.text == f"message of {len(frame.encode())} bytes > {LIMIT}"


def test_a_lone_surrogate_is_counted_not_an_encoding_error() -> None:
    # A str from elsewhere than a websocket may hold one: json.loads reads it, the count must
    # not crash on it.
    frame = frame_of("\ud800" * (LIMIT // 3))
    with pytest.raises(ProtocolError) as caught:
        read_frame(frame, LIMIT)
    assert caught.value.code == ErrorCode.TOO_LARGE
