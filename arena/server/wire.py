"""The admin channel: how a referee process opens a table on a server and reaches its bots.

Bots speak only the messages of `protocol.messages`. A referee (``arena match … --server URL``)
connects to the same URL and speaks these: ``admin_hello`` to authenticate, ``open_table`` to
seat named bots (the server waits up to the start timeout for them), then one more connection per
bot — per *slot*, the bot's index in ``open_table.bots`` — that sends ``attach`` with the slot's
key and from then on carries that bot's protocol messages verbatim (the referee's events and
requests in, the bot's actions out). A slot is not a game seat: the referee may put a bot in a
different game seat in each game (mahjong rotates them); the server checks every action against
the request it answers. Errors and
goodbyes reuse the protocol's ``error`` and ``bye``. docs/NETWORK.md shows a whole exchange.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from protocol.base import WireModel
from protocol.codec import check_version, encode, read_frame, validate
from protocol.messages import Bye, Error, GameName


class AdminMessage(WireModel):
    v: Literal[1] = Field(default=1, description="protocol version")


class AdminHello(AdminMessage):
    """First message of a control connection."""

    type: Literal["admin_hello"] = "admin_hello"
    name: str = Field(min_length=1, max_length=64, description="admin name in the tokens file")
    token: str | None = Field(default=None, description="the admin token, if the server asks")


class AdminWelcome(AdminMessage):
    type: Literal["admin_welcome"] = "admin_welcome"
    name: str = Field(description="the admin's name")
    session: str = Field(description="session id, for logs")


class OpenTable(AdminMessage):
    """Seat these bots, in this order, for a match of ``game``."""

    type: Literal["open_table"] = "open_table"
    game: GameName = Field(description="the game the table plays")
    bots: list[str] = Field(min_length=1, max_length=16, description="bot names, by slot")
    start_timeout_ms: int = Field(
        default=30_000, ge=0, le=3_600_000, description="how long to wait for absent bots"
    )
    label: str = Field(default="", max_length=200, description="free text for logs and status")


class SeatTicket(WireModel):
    slot: int = Field(description="index in open_table.bots")
    bot: str = Field(description="the bot in that slot")
    key: str = Field(description="secret for the slot's attach")


class TableOpened(AdminMessage):
    type: Literal["table_opened"] = "table_opened"
    table: str = Field(description="table id")
    seats: list[SeatTicket] = Field(description="one ticket per bot, by slot")


class Attach(AdminMessage):
    """First message of a seat connection: from now on this connection speaks to that bot."""

    type: Literal["attach"] = "attach"
    table: str = Field(description="table id from table_opened")
    slot: int = Field(ge=0, description="the bot's slot")
    key: str = Field(description="the slot's key from table_opened")


class Attached(AdminMessage):
    type: Literal["attached"] = "attached"
    table: str = Field(description="table id")
    slot: int = Field(description="the bot's slot")
    bot: str = Field(description="the bot this connection now speaks to")
    events: bool = Field(
        default=True,
        description="the bot takes events (its hello.events); when false the server drops "
        "them, so a referee need not send them",
    )


class CloseTable(AdminMessage):
    """The match is over: give the bots back to the lobby."""

    type: Literal["close_table"] = "close_table"
    table: str = Field(description="table id")


class TableClosed(AdminMessage):
    type: Literal["table_closed"] = "table_closed"
    table: str = Field(description="table id")
    reason: str = Field(description="why")


class StatusQuery(AdminMessage):
    type: Literal["status"] = "status"


class BotStatus(WireModel):
    name: str = Field(description="bot name")
    games: list[str] = Field(description="games it plays")
    state: str = Field(description="lobby, seated or absent")
    transport: str = Field(description="websocket or mqtt (of its latest link)")
    table: str | None = Field(default=None, description="its table, when seated")


class TableStatus(WireModel):
    table: str = Field(description="table id")
    game: str = Field(description="the game")
    bots: list[str] = Field(description="bot names, by slot")
    label: str = Field(description="the label given at open_table")
    match_games: int | None = Field(
        default=None, description="games in the table's match, once its match_start is sent"
    )
    games_begun: int = Field(
        default=0, description="games of that match begun so far, the one in play included"
    )


class StatusReport(AdminMessage):
    type: Literal["status_report"] = "status_report"
    draining: bool = Field(description="the server is shutting down: no new tables")
    bots: list[BotStatus] = Field(description="every known bot session")
    tables: list[TableStatus] = Field(description="every open table")


AdminAny = Annotated[
    AdminHello
    | AdminWelcome
    | OpenTable
    | TableOpened
    | Attach
    | Attached
    | CloseTable
    | TableClosed
    | StatusQuery
    | StatusReport
    | Error
    | Bye,
    Field(discriminator="type"),
]

ADMIN_ADAPTER: TypeAdapter[AdminAny] = TypeAdapter(AdminAny)
ADMIN_TYPES = frozenset({"admin_hello", "open_table", "attach", "close_table", "status"})
"""Types that open or drive an admin connection (a first frame of one of these is an admin)."""


def parse_admin(raw: str | bytes, max_bytes: int) -> AdminAny:
    """Read one admin-channel frame; raises only `ProtocolError`, like `parse_message`."""
    data = read_frame(raw, max_bytes)
    check_version(data)
    return validate(ADMIN_ADAPTER, data)


encode_admin = encode
"""`protocol.codec.encode`, the one encoder of the wire, under the name the admin side once used;
kept for code written against it (the arena itself calls `encode`)."""
