"""The wire format: strict models, one adapter, typed errors for every bad frame."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import Action, ErrorCode, Hello, ProtocolError, encode, parse_message
from protocol.codec import MAX_DEPTH, json_schema
from protocol.games.common import GameEnd
from protocol.messages import Bye, Error, Event, Ping, Welcome


@pytest.mark.parametrize(
    "message",
    [
        Hello(name="g1", token="t", games=["mahjong"]),
        Welcome(name="g1", session="s1", resume_token="r"),
        Action(seq=3, action="discard 5m", match="m1", game="g2", seat=1),
        Error(code=ErrorCode.LATE, text="no action within 10 ms", seq=3),
        Bye(reason="done"),
        Ping(),
        Event(seat=0, payload=GameEnd(scores=[1.0, 0.0], winners=[0], reason="solved", detail={})),
    ],
)
def test_round_trip(message: object) -> None:
    text = encode(message)  # type: ignore[arg-type]
    assert parse_message(text) == message
    assert json.loads(text)["v"] == 1


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{", ErrorCode.BAD_JSON),
        ("[1, 2]", ErrorCode.BAD_JSON),
        ('{"type": "nope"}', ErrorCode.BAD_MESSAGE),
        ('{"type": "action", "seq": 1}', ErrorCode.BAD_MESSAGE),
        ('{"type": "action", "seq": 1, "action": "x", "extra": 1}', ErrorCode.BAD_MESSAGE),
        ('{"v": 2, "type": "bye"}', ErrorCode.UNSUPPORTED_VERSION),
        (b"\xff\xfe", ErrorCode.BAD_JSON),
    ],
)
def test_bad_frames_are_typed_errors(raw: str | bytes, code: ErrorCode) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message(raw)
    assert caught.value.code == code
    assert caught.value.to_message(seq=1).code == code


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ('{"type": "action", "seq": "2", "action": "x"}', "action.seq"),
        ('{"type": "action", "seq": 2.0, "action": "x"}', "action.seq"),
        ('{"type": "action", "seq": true, "action": "x"}', "action.seq"),
        ('{"type": "action", "seq": 2, "seat": "0", "action": "x"}', "action.seat"),
        ('{"type": "action", "seq": 2, "action": 7}', "action.action"),
        ('{"type": "hello", "name": "n", "games": ["mahjong"], "events": 0}', "hello.events"),
        ('{"v": "1", "type": "bye"}', 'the JSON integer 1, not "1"'),
        ('{"v": 1.0, "type": "bye"}', "the JSON integer 1, not 1.0"),
        ('{"v": true, "type": "bye"}', "the JSON integer 1, not true"),
    ],
)
def test_fields_take_only_their_own_json_type(raw: str, named: str) -> None:
    """No coercion: a bot must not come to rely on "2" meaning 2."""
    with pytest.raises(ProtocolError) as caught:
        parse_message(raw)
    assert caught.value.code == ErrorCode.BAD_MESSAGE
    assert named in caught.value.text


def test_an_error_code_is_read_from_its_json_string() -> None:
    error = parse_message('{"v": 1, "type": "error", "code": "late", "text": "t"}')
    assert isinstance(error, Error) and error.code is ErrorCode.LATE
    with pytest.raises(ProtocolError):
        parse_message('{"v": 1, "type": "error", "code": "no_such_code", "text": "t"}')


def test_too_large_frame() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message("x" * 100, max_bytes=10)
    assert caught.value.code == ErrorCode.TOO_LARGE


@pytest.mark.parametrize("raw", ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000])
def test_json_nested_too_deeply_is_bad_json(raw: str) -> None:
    """10 KiB of brackets (under a bot's 16 KiB limit) nest deeper than the JSON parser's
    recursion: the sender's fault (``bad_json``), not a server fault with a traceback."""
    with pytest.raises(ProtocolError) as caught:
        parse_message(raw)
    assert caught.value.code == ErrorCode.BAD_JSON
    assert "nested too deeply" in caught.value.text


def test_the_nesting_limit_is_the_same_on_every_python() -> None:
    """The parser's recursion gives way at a depth that depends on the Python (3.13 parsed the
    frames above): one level past `MAX_DEPTH` is refused as too deep everywhere, the limit
    itself is not."""
    hint = '"hint": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    deepest = '{"v": 1, "type": "ping", ' + hint + "}"
    with pytest.raises(ProtocolError) as caught:
        parse_message(deepest)
    assert "nested too deeply" not in caught.value.text
    with pytest.raises(ProtocolError) as caught:
        parse_message(deepest.replace("[", "[[", 1).replace("]", "]]", 1))
    assert caught.value.code == ErrorCode.BAD_JSON
    assert "nested too deeply" in caught.value.text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(json_values)
def test_any_json_value_parses_or_is_a_protocol_error(value: object) -> None:
    with contextlib.suppress(ProtocolError):
        parse_message(json.dumps(value))


@given(st.binary(max_size=200))
def test_any_bytes_parse_or_are_a_protocol_error(raw: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        parse_message(raw)


def test_schema_covers_every_message_type() -> None:
    text = json.dumps(json_schema())
    for name in ("Hello", "Welcome", "Event", "Request", "Action", "Error", "Bye", "Ping"):
        assert f'"{name}"' in text
