"""What the server reads of a frame from a referee for a bot: the server relays the referee's
text unchanged and reads only what routing it needs (its type, seq, seat, match and game, and
which event it is)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from protocol.codec import encode
from protocol.games.common import GameStart, MatchStart
from protocol.messages import Error, Event, Request


@dataclass(frozen=True, slots=True)
class Frame:
    """One message from the referee for a bot: its text, and what the server reads of it."""

    text: str
    kind: str
    seq: int | None = None
    seat: int | None = None
    match: str | None = None
    game: str | None = None
    game_start: bool = False
    payload_kind: str | None = None
    """An event's ``payload.kind`` (``match_start``, ``match_end``, …)."""
    match_games: int | None = None
    """A ``match_start``'s number of games."""

    @classmethod
    def of(cls, message: Event | Error | Request) -> Frame:
        return cls(
            encode(message),
            message.type,
            message.seq,
            message.seat,
            message.match,
            message.game,
            isinstance(message, Event) and isinstance(message.payload, GameStart),
            message.payload.kind if isinstance(message, Event) else None,
            message.payload.games
            if isinstance(message, Event) and isinstance(message.payload, MatchStart)
            else None,
        )

    @classmethod
    def read(cls, text: str) -> Frame | None:
        """A frame from a seat connection; None when it is not a JSON object."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        payload = data.get("payload")

        def typed(key: str, kind: type) -> Any:
            value = data.get(key)
            return value if isinstance(value, kind) and not isinstance(value, bool) else None

        kind = payload.get("kind") if isinstance(payload, dict) else None
        games = payload.get("games") if isinstance(payload, dict) else None
        return cls(
            text,
            str(data.get("type")),
            typed("seq", int),
            typed("seat", int),
            typed("match", str),
            typed("game", str),
            kind == "game_start",
            kind if isinstance(kind, str) else None,
            games if kind == "match_start" and type(games) is int else None,
        )
