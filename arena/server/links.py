"""What a bot's session is joined to, as the rest of the server provides it: the `Link` each
transport makes of a peer's connection (`MQTT_TRANSPORT` names one through a broker), the
`FloodGuard` that counts the bad frames a peer sends on it, and the `SeatSink`, the referee's side
of a bot's slot. Transports, the hub, the lobby and the tables implement or use these; they stand
apart from `arena.server.sessions` because none of them is part of a session's state machine.
"""

from __future__ import annotations

import time
from typing import Protocol

from protocol.messages import Action, ErrorCode

MQTT_TRANSPORT = "mqtt"
"""The `Link.transport` of a bot that came through an MQTT broker."""


class Link(Protocol):
    """One live connection to a peer, whatever carries it."""

    transport: str
    peer: str

    async def send(self, text: str, *, urgent: bool = True) -> bool:
        """Deliver one frame; False when the link is gone (never raises). A frame that is not
        ``urgent`` may wait, in order, for the next urgent one (or a short while), so several
        frames cost one write."""
        ...

    async def close(self, reason: str) -> None:
        """Close the link; idempotent. Waits a few seconds at most, even for a peer that does
        not read."""
        ...

    def abort(self) -> None:
        """Drop the link at once, whatever is still unsent (a forced shutdown); `close` may
        still be called and returns promptly."""
        ...


class SeatSink(Protocol):
    """The referee's side of a bot's slot: a seat connection (``attach``), or a `LocalSeat`
    when the referee runs inside the server."""

    async def answer(self, action: Action) -> None:
        """Hand the bot's checked action to the referee."""
        ...

    async def fail(self, seq: int, text: str, code: ErrorCode = ErrorCode.LATE) -> None:
        """The pending request ``seq`` will get no usable answer: tell the referee now. ``late``
        when none will come (the bot is gone), else the code of the bot's bad answer; the
        referee then errors and re-asks as for any bad answer."""
        ...

    async def detach(self, reason: str) -> None:
        """The table is closing."""
        ...


class FloodGuard:
    """A token bucket of bad frames: ``burst`` at once, then ``per_second`` refill."""

    def __init__(self, burst: int = 20, per_second: float = 2.0) -> None:
        self.burst = burst
        self.per_second = per_second
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def strike(self) -> bool:
        """Count one bad frame; True when the peer has gone over the limit."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.per_second)
        self._stamp = now
        self._tokens -= 1
        return self._tokens < 0
