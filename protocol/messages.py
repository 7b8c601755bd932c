"""The messages of the arena protocol (version 1).

Every message is one JSON object (a websocket text frame or an MQTT message) with ``v`` and
``type``; ``match``, ``game``, ``seat`` and ``seq`` are set where they apply. The referee sends
`Event` (what this seat may see) and `Request` (a decision is due); the bot answers with `Action`,
echoing the request's ``seq``. Problems are `Error` messages, never a dropped connection.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BeforeValidator, Field, TypeAdapter

from protocol.base import WireModel
from protocol.payloads import Payload

PROTOCOL_VERSION = 1

SILENCE_LIMIT_S = 60.0
"""Over MQTT the server cannot see a bot's connection die quietly (a broker tells it only through
a will, which a client may not have set): a bot that sends nothing for this long is dropped as
if its connection had closed. ``ping`` is the message to send when there is nothing else."""

GameName = Literal["bulls_cows", "liars_dice", "mahjong"]

NAME_CHARACTERS = r"[A-Za-z0-9_.-]{1,64}"
"""The one spelling of the bot-name rule; an MQTT topic level of a bot connection (its name and
its ``<conn>``) follows it too (`protocol.mqtt`)."""

NAME_REGEX = rf"^{NAME_CHARACTERS}$"
"""A bot's name: safe as an MQTT topic level and in a log line. A ``hello`` whose name does not
match is a malformed message (``bad_message``), whatever is wrong with it. (pydantic's regex
engine reads ``$`` as the end of the text; Python's `re` would let a final newline through: use
`NAME_PATTERN` or `is_bot_name`.)"""

NAME_PATTERN = re.compile(rf"{NAME_CHARACTERS}\Z")
"""`NAME_REGEX` for Python's `re`, right with ``match`` and ``fullmatch`` alike: it is anchored
at the very end of the text, where ``$`` would also match before a final newline."""


def is_bot_name(name: str) -> bool:
    """``name`` may name a bot (`NAME_REGEX`)."""
    return NAME_PATTERN.match(name) is not None


class ErrorCode(StrEnum):
    """Stable error codes; the text beside them is for people and may change."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNSUPPORTED_VERSION = "unsupported_version"
    TOO_LARGE = "too_large"
    AUTH_FAILED = "auth_failed"
    NOT_EXPECTED = "not_expected"
    NO_SESSION = "no_session"
    STALE_SEQ = "stale_seq"
    LATE = "late"
    INVALID_ACTION = "invalid_action"
    ILLEGAL_ACTION = "illegal_action"
    BOT_FAILURE = "bot_failure"
    FLOOD = "flood"
    INTERNAL = "internal"
    NAME_IN_USE = "name_in_use"
    RESUME_UNKNOWN = "resume_unknown"
    MATCH_ABORTED = "match_aborted"
    SHUTTING_DOWN = "shutting_down"


#: what each code means, for docs/PROTOCOL.md and for people reading logs
ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.BAD_JSON: "the frame is not a JSON object (or nests more than 64 levels deep)",
    ErrorCode.BAD_MESSAGE: "valid JSON, not a valid message (unknown type, missing or extra "
    "field, wrong JSON type, an action for the pending request naming another seat)",
    ErrorCode.UNSUPPORTED_VERSION: "the message's `v` is not a protocol version the server speaks",
    ErrorCode.TOO_LARGE: "the frame is larger than the server accepts",
    ErrorCode.AUTH_FAILED: "the bot or admin may not log in: an unknown or missing token, or "
    "(over MQTT) a name other than its topic's. The connection is closed; the same `hello` "
    "again would be refused again, so a bot should stop (before the v1 additions below, a "
    "name in use and an unknown resume token also got this code)",
    ErrorCode.NOT_EXPECTED: "a valid message that is not expected now (an action with no request "
    "pending, a second `hello` on a connection with a session that neither repeats the first "
    "nor carries its resume token, or a `close_table` for a table the connection did not open)",
    ErrorCode.NO_SESSION: "an action, ping or bye on a connection with no session (never said "
    "hello, or the server restarted or dropped the session): say hello again, with the resume "
    "token to keep a seat",
    ErrorCode.STALE_SEQ: "an action whose `seq`, `match` or `game` is not the pending "
    "request's (a late answer); the request stays pending; not counted towards `flood` when it "
    "is the first answer to a request the bot was sent. The error carries the action's `seq` "
    "and the pending request's `match` and `game`",
    ErrorCode.LATE: "no answer before the deadline (and no time bank left)",
    ErrorCode.INVALID_ACTION: "the action text does not name an action of this game",
    ErrorCode.ILLEGAL_ACTION: "a well-formed action the rules forbid now",
    ErrorCode.BOT_FAILURE: "an in-process bot raised an exception",
    ErrorCode.FLOOD: "too many bad messages (first late answers aside; frames that caused an "
    "`internal` error included); the connection is closed",
    ErrorCode.INTERNAL: "a server fault; the game goes on with the fallback action. Also the "
    "notice, before the journal a resumed bot is sent, that its journal overflowed (`N oldest "
    "events of your absence were dropped`, no `seq`): nothing failed, but those events are not "
    "replayed (a request's observation still holds everything the seat may know)",
    ErrorCode.NAME_IN_USE: "(v1 addition) the `hello` names a bot that already has a session "
    "(waiting in the lobby, seated, or absent from its seat) and does not prove to be that bot "
    "(no resume token of it); the connection is closed. Either another program plays under "
    "this name, or an earlier connection of this bot is not known to be gone yet (docs/"
    'NETWORK.md, "Drops, reconnects and resume"): say `hello` with the `resume` token of the '
    "earlier `welcome`, retry later, or choose another name",
    ErrorCode.RESUME_UNKNOWN: "(v1 addition) `hello.resume` matches no session the server has: "
    "the session ended (its table closed while the bot was away, the bot said `bye` or left the "
    "lobby, the server lost its MQTT broker or restarted) or the token is another session's. "
    "The text says which when the server remembers the token's session (the match it was in, "
    "and whether its reconnect grace had run out). The connection is closed; say `hello` again "
    "without `resume` to start afresh",
    ErrorCode.MATCH_ABORTED: "(v1 addition) the bot's match was stopped before its end: its "
    "referee disconnected or closed the table, or the server is shutting down or lost its MQTT "
    "broker. Sent with the match's `match` and no `seq`, to every seated bot the server can "
    "still reach; no `match_end` follows, the pending request (if any) is void, and the bot is "
    "back in the lobby, waiting for its next table (when the server is stopping, its `bye` "
    "follows instead)",
    ErrorCode.SHUTTING_DOWN: "(v1 addition) the server is shutting down (draining: running "
    "tables play on, but no new bot and no new table is taken): a `hello` that starts a "
    "session is refused and the connection closed (a resuming one still passes). Nothing is "
    "wrong with the bot: say `hello` again later, once the server is back (`bots run --stay` "
    "does). A bot that did not ask for it (`shutting_down` in `features`) gets `not_expected`, "
    "as before the addition",
}


def _error_code(value: Any) -> Any:
    """A code as it arrives in JSON (a string) to its `ErrorCode`: the codec validates strictly
    (an integer field takes only a JSON integer), and a strict enum field would otherwise take
    only an `ErrorCode` object, which JSON cannot hold."""
    if isinstance(value, str) and not isinstance(value, ErrorCode):
        try:
            return ErrorCode(value)
        except ValueError:
            return value
    return value


def _integer_version(value: Any) -> Any:
    """Only the integer itself: ``Literal[1]`` takes ``true`` and ``1.0`` too, even strictly,
    which `protocol.codec.check_version` refuses in a frame it reads; a frame read in one pass
    (`protocol.codec.read_message`) must be refused the same."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the protocol version is the JSON integer {PROTOCOL_VERSION}")
    return value


class Envelope(WireModel):
    """Fields every message carries."""

    v: Annotated[Literal[1], BeforeValidator(_integer_version)] = Field(
        default=1, description="protocol version"
    )
    match: str | None = Field(default=None, description="match id, where the message is in one")
    game: str | None = Field(default=None, description="game id within the match")
    seat: int | None = Field(default=None, description="the receiving/acting seat (0-based)")
    seq: int | None = Field(
        default=None,
        description="the request's number, echoed by the action: counted per seat connection "
        "from 1 and never repeated within a match (not restarted in each game)",
    )


FEATURES: Final = ("bank_ms", "refusal_codes", "match_aborted", "resumed", "shutting_down")
"""The v1 additions a bot may ask for in ``hello.features``; the server sends each only to a bot
that asked, so a bot written before them (which refuses unknown fields and codes) still plays:
``bank_ms`` on requests, the refusal codes ``name_in_use`` and ``resume_unknown`` (else
``auth_failed``, as before them), the ``match_aborted`` notice, ``welcome.resumed``, and the
refusal ``shutting_down`` (else ``not_expected``, as before it: a code of its own, not a third
code under ``refusal_codes``, since a bot that asked for those two may refuse a code it does not
know)."""


class Hello(Envelope):
    """First message of a bot: who it is and what it plays."""

    type: Literal["hello"] = "hello"
    name: str = Field(
        pattern=NAME_REGEX,
        description="the bot's name, unique per server: 1-64 of `A-Z a-z 0-9 _ . -`",
    )
    token: str | None = Field(default=None, description="secret token, if the server wants one")
    games: list[GameName] = Field(min_length=1, description="games this bot can play")
    resume: str | None = Field(default=None, description="resume token from an earlier welcome")
    events: bool = Field(
        default=True,
        description="false: send this bot no `event` messages (it decides from each request's "
        "observation alone, which holds everything its seat may know); left out: true",
    )
    features: list[Annotated[str, Field(max_length=32)]] | None = Field(
        default=None,
        max_length=16,
        description="(v1 addition) the additions this bot understands, of `bank_ms`, "
        "`refusal_codes`, `match_aborted`, `resumed`, `shutting_down`: the server sends each "
        "only to a bot that lists it (names it does not know are ignored). A server older "
        "than the field "
        "refuses a hello that has it with `bad_message` and keeps the connection: say hello "
        "again without it",
    )


class Welcome(Envelope):
    """The server accepted the bot."""

    type: Literal["welcome"] = "welcome"
    name: str = Field(description="the name the bot is known by")
    session: str = Field(description="session id, for logs")
    resume_token: str = Field(
        description="send in hello.resume to take back your seat after a drop"
    )
    resumed: bool | None = Field(
        default=None,
        description="(v1 addition `resumed`) true when this hello took back the bot's session "
        "(its seat, a pending request): by its resume token, or on a server with tokens by "
        "the bot's token while the session was absent; false for a new session",
    )


class Event(Envelope):
    """Something this seat may see happened."""

    type: Literal["event"] = "event"
    payload: Payload = Field(description="the game-specific event")


class Request(Envelope):
    """A decision is due from this seat before ``deadline_ms``."""

    type: Literal["request"] = "request"
    seq: int = Field(description="echo this in the action")
    deadline_ms: int = Field(
        ge=0,
        description="milliseconds allowed for the answer, timed by the referee from when it "
        "sends the request (the network's time counts)",
    )
    bank_ms: int | None = Field(
        default=None,
        ge=0,
        description="(v1 addition) only when the match gives each player a time bank: the "
        "milliseconds left in this seat's bank, for the rest of the match. An answer after "
        "`deadline_ms` is still taken while the bank covers the overrun, which it spends",
    )
    legal: list[str] | None = Field(
        default=None,
        description="every legal action as text; left out where there are too many to list "
        "(1A2B guesses and reveals), and then `hint` is set",
    )
    hint: str | None = Field(
        default=None,
        description="how to form an action when `legal` is left out, e.g. "
        '"guess <3 distinct symbols of 123456789>"',
    )
    observation: Payload = Field(description="everything this seat may know now")


class Action(Envelope):
    """A bot's answer to a request."""

    type: Literal["action"] = "action"
    seq: int = Field(description="the request's seq")
    action: str = Field(min_length=1, max_length=256, description="the action's text form")


class Error(Envelope):
    """Something went wrong; ``code`` is stable, ``text`` is for people."""

    type: Literal["error"] = "error"
    code: Annotated[ErrorCode, BeforeValidator(_error_code)] = Field(
        description="stable error code"
    )
    text: str = Field(description="what went wrong, for a person")


class Bye(Envelope):
    """Either side ends the session."""

    type: Literal["bye"] = "bye"
    reason: str = Field(default="", description="why")


class Ping(Envelope):
    """A bot's sign of life, which the server does not answer: over MQTT a bot that stays
    silent too long is dropped, so it sends this when it has nothing else to say."""

    type: Literal["ping"] = "ping"


Message = Annotated[
    Hello | Welcome | Event | Request | Action | Error | Bye | Ping, Field(discriminator="type")
]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
MESSAGE_TYPES = (Hello, Welcome, Event, Request, Action, Error, Bye, Ping)
