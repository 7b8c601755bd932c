"""The messages of the arena protocol (version 1).

Every message is one JSON object (a websocket text frame or an MQTT message) with ``v`` and
``type``; ``match``, ``game``, ``seat`` and ``seq`` are set where they apply. The referee sends
`Event` (what this seat may see) and `Request` (a decision is due); the bot answers with `Action`,
echoing the request's ``seq``. Problems are `Error` messages, never a dropped connection.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from protocol.base import WireModel
from protocol.payloads import Payload

PROTOCOL_VERSION = 1

GameName = Literal["bulls_cows", "liars_dice", "mahjong"]


class ErrorCode(StrEnum):
    """Stable error codes; the text beside them is for people and may change."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNSUPPORTED_VERSION = "unsupported_version"
    TOO_LARGE = "too_large"
    AUTH_FAILED = "auth_failed"
    NOT_EXPECTED = "not_expected"
    STALE_SEQ = "stale_seq"
    LATE = "late"
    INVALID_ACTION = "invalid_action"
    ILLEGAL_ACTION = "illegal_action"
    BOT_FAILURE = "bot_failure"
    FLOOD = "flood"
    INTERNAL = "internal"


#: what each code means, for docs/PROTOCOL.md and for people reading logs
ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.BAD_JSON: "the frame is not a JSON object",
    ErrorCode.BAD_MESSAGE: "valid JSON, not a valid message (unknown type, missing or extra field)",
    ErrorCode.UNSUPPORTED_VERSION: "the message's `v` is not a protocol version the server speaks",
    ErrorCode.TOO_LARGE: "the frame is larger than the server accepts",
    ErrorCode.AUTH_FAILED: "unknown or missing token; the connection is closed",
    ErrorCode.NOT_EXPECTED: "a valid message that is not expected now (an action with no request)",
    ErrorCode.STALE_SEQ: "an action whose `seq` is not the pending request's",
    ErrorCode.LATE: "no answer before the deadline (and no time bank left)",
    ErrorCode.INVALID_ACTION: "the action text does not name an action of this game",
    ErrorCode.ILLEGAL_ACTION: "a well-formed action the rules forbid now",
    ErrorCode.BOT_FAILURE: "an in-process bot raised an exception",
    ErrorCode.FLOOD: "too many bad messages; the connection is closed",
    ErrorCode.INTERNAL: "a server fault; the game goes on with the fallback action",
}


class Envelope(WireModel):
    """Fields every message carries."""

    v: Literal[1] = Field(default=1, description="protocol version")
    match: str | None = Field(default=None, description="match id, where the message is in one")
    game: str | None = Field(default=None, description="game id within the match")
    seat: int | None = Field(default=None, description="the receiving/acting seat (0-based)")
    seq: int | None = Field(default=None, description="request number, echoed by the action")


class Hello(Envelope):
    """First message of a bot: who it is and what it plays."""

    type: Literal["hello"] = "hello"
    name: str = Field(min_length=1, max_length=64, description="the bot's name, unique per server")
    token: str | None = Field(default=None, description="secret token, if the server wants one")
    games: list[GameName] = Field(min_length=1, description="games this bot can play")
    resume: str | None = Field(default=None, description="resume token from an earlier welcome")
    events: bool = Field(
        default=True,
        description="false: send this bot no `event` messages (it decides from each request's "
        "observation alone, which holds everything its seat may know)",
    )


class Welcome(Envelope):
    """The server accepted the bot."""

    type: Literal["welcome"] = "welcome"
    name: str = Field(description="the name the bot is known by")
    session: str = Field(description="session id, for logs")
    resume_token: str = Field(
        description="send in hello.resume to take back your seat after a drop"
    )


class Event(Envelope):
    """Something this seat may see happened."""

    type: Literal["event"] = "event"
    payload: Payload = Field(description="the game-specific event")


class Request(Envelope):
    """A decision is due from this seat before ``deadline_ms``."""

    type: Literal["request"] = "request"
    seq: int = Field(description="echo this in the action")
    deadline_ms: int = Field(ge=0, description="milliseconds allowed for the answer")
    legal: list[str] | None = Field(
        default=None, description="every legal action as text, unless the set is too large"
    )
    hint: str | None = Field(default=None, description="how to form an action when not listed")
    observation: Payload = Field(description="everything this seat may know now")


class Action(Envelope):
    """A bot's answer to a request."""

    type: Literal["action"] = "action"
    seq: int = Field(description="the request's seq")
    action: str = Field(min_length=1, max_length=256, description="the action's text form")


class Error(Envelope):
    """Something went wrong; ``code`` is stable, ``text`` is for people."""

    type: Literal["error"] = "error"
    code: ErrorCode = Field(description="stable error code")
    text: str = Field(description="what went wrong, for a person")


class Bye(Envelope):
    """Either side ends the session."""

    type: Literal["bye"] = "bye"
    reason: str = Field(default="", description="why")


Message = Annotated[
    Hello | Welcome | Event | Request | Action | Error | Bye, Field(discriminator="type")
]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
MESSAGE_TYPES = (Hello, Welcome, Event, Request, Action, Error, Bye)
