"""JSON in, messages out: one adapter built once; every failure is a typed `ProtocolError`."""

from __future__ import annotations

import functools
import json
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.messages import MESSAGE_ADAPTER, NAME_REGEX, PROTOCOL_VERSION, ErrorCode, Message
from protocol.messages import Error as ErrorMessage

MAX_MESSAGE_BYTES = 1 << 20

MAX_DEPTH = 64
"""How deeply a frame may nest objects and lists. Messages nest a few levels (an observation's
lists); a deeper frame is ``bad_json`` on every Python. The parser's own limit is its recursion,
which moved: near 1,000 levels on 3.11 and 3.12, past 5,000 on 3.13, where 10 KiB of "[[[…"
parsed and came out as another error."""

T = TypeVar("T")


class ProtocolError(ValueError):
    """An incoming frame could not be read as a message; carries the code to answer with."""

    def __init__(self, code: ErrorCode, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text

    def to_message(self, **envelope: Any) -> ErrorMessage:
        return ErrorMessage(code=self.code, text=self.text, **envelope)


def read_frame(raw: str | bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """The JSON object in one frame, or a `ProtocolError` (too large, not JSON, not an object)."""
    size = len(raw)
    if isinstance(raw, str) and size * 4 > max_bytes:
        # The limit is in bytes of UTF-8 (a character takes 1 to 4): only a text that could be
        # over it is encoded to count them.
        size = len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"message of {size} bytes > {max_bytes}")
    return load_object(raw)


def load_object(raw: str | bytes) -> dict[str, Any]:
    """The JSON object in ``raw``, whatever its size, or a `ProtocolError` (not JSON, not an
    object)."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(ErrorCode.BAD_JSON, f"not JSON: {exc}") from None
    except RecursionError:
        # A few KiB of "[[[[…" nest deeper than the parser's recursion: valid JSON in theory,
        # but no message nests like that, and it is the sender's fault, not the server's.
        raise ProtocolError(ErrorCode.BAD_JSON, "not JSON: nested too deeply") from None
    if _nests_deeper_than(data, MAX_DEPTH):
        raise ProtocolError(ErrorCode.BAD_JSON, "not JSON: nested too deeply")
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "a message is a JSON object")
    return data


def _nests_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects and lists more than ``limit`` deep: level by level,
    without recursion, and no further than ``limit``."""
    level = [value]
    for _ in range(limit):
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return False
    return any(isinstance(item, dict | list) for item in level)


_MESSAGE_TYPES_TOLD = (
    "a bot sends 'hello', 'action', 'bye' or 'ping'; the server sends 'welcome', 'event', "
    "'request', 'error' or 'bye'"
)
"""Which types there are, as a bot author needs it told: who sends which."""


def validate(adapter: TypeAdapter[T], data: dict[str, Any], types_told: str | None = None) -> T:
    """Validate a frame's object with ``adapter``; a failure is a `ProtocolError` naming the
    first few problems by their path in the message. ``types_told``: what to say of the
    message types when ``type`` names none (else the adapter's types are listed).

    Strictly: a field takes only its own JSON type (``"seq": "2"`` or ``2.0`` is not an
    integer, ``0`` is not a boolean). A bot in another language must not come to rely on a
    coercion that another server, or a later version of this one, would refuse."""
    try:
        return adapter.validate_python(data, strict=True)
    except ValidationError as exc:
        problems = "; ".join(_problem(err, types_told) for err in exc.errors()[:5])
        raise ProtocolError(ErrorCode.BAD_MESSAGE, problems) from None


def _problem(err: Any, types_told: str | None) -> str:
    """One problem, ``path: what``, in pydantic's words except where those are its own terms
    (a discriminator, a tag) or a regular expression a bot author would have to read."""
    where = ".".join(str(part) for part in err["loc"]) or "<message>"
    kind, context = err["type"], err.get("ctx", {})
    if kind == "union_tag_not_found":
        return "type: missing; every message names its type"
    if kind == "union_tag_invalid":
        told = types_told or "the types: " + str(context.get("expected_tags", ""))
        sent = err["input"].get("type") if isinstance(err["input"], dict) else context.get("tag")
        return f"type: no message has type {json.dumps(sent)[:40]} ({told})"
    if kind == "extra_forbidden":
        return f"{where}: no such field in this message (unknown fields are errors)"
    if kind == "missing":
        return f"{where}: required, missing"
    if kind == "string_pattern_mismatch" and context.get("pattern") == NAME_REGEX:
        return f"{where}: {name_problem(err['input'])}"
    return f"{where}: {err['msg']}"


def name_problem(name: str) -> str:
    """What is wrong with a bad bot name, in words, the name shown escaped and cut short."""
    shown = repr(name) if len(name) <= 70 else repr(name[:67] + "...")
    return f"a bot name is 1 to 64 of the characters A-Z a-z 0-9 _ . - (got {shown})"


def parse_message(raw: str | bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Message:
    """Parse one frame. Never raises anything but `ProtocolError`."""
    return decode(read_frame(raw, max_bytes))


def read_message(raw: str | bytes) -> Message:
    """``decode`` of the JSON in ``raw``, whatever its size: the same strictness and version
    rule, in one pass for a valid frame (pydantic reads the JSON itself, with no `json.loads`
    first). A frame that pass refuses is read again the long way, for the `ProtocolError` that
    says why, so the two ways accept exactly the same frames. For a client reading its server's
    frames; a server's frames from bots go through `parse_message` and its size limit."""
    try:
        return MESSAGE_ADAPTER.validate_json(raw, strict=True)
    except ValidationError:
        return decode(load_object(raw))


def decode(data: Any) -> Message:
    """Validate an already-parsed JSON value as a message."""
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "a message is a JSON object")
    check_version(data)
    return validate(MESSAGE_ADAPTER, data, _MESSAGE_TYPES_TOLD)


def check_version(data: dict[str, Any]) -> None:
    """A `ProtocolError` unless the message's ``v`` is absent or the JSON integer 1."""
    version = data.get("v", PROTOCOL_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        # "1", 1.0 and true would compare equal to 1 in one language or another: say what is
        # wrong rather than call a version that names the right number unsupported.
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"v: the protocol version is the JSON integer {PROTOCOL_VERSION}, "
            f"not {json.dumps(version)[:40]}",
        )
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.UNSUPPORTED_VERSION,
            f"protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}",
        )


@functools.cache
def _nullable_fields(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(name for name, info in model.model_fields.items() if _allows_none(info.annotation))


def _allows_none(annotation: Any) -> bool:
    return annotation is None or type(None) in typing.get_args(annotation)


def _unset_envelope(message: BaseModel) -> set[str]:
    # Only the message's own optional fields (match, game, seat, seq, token, ...) are left out
    # when None; inside a payload a null can be meaningful and required (a mahjong observation's
    # `drawn`), so payloads are always sent whole. The field list is read once per class: this
    # runs for every frame the server sends.
    return {name for name in _nullable_fields(type(message)) if getattr(message, name) is None}


def encode(message: BaseModel) -> str:
    """One compact JSON text; top-level ``None`` fields are left out, payloads are whole.

    ``parse_message(encode(m)) == m`` for every message.
    """
    return message.model_dump_json(exclude=_unset_envelope(message))


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every message (``arena protocol schema``)."""
    return MESSAGE_ADAPTER.json_schema()
