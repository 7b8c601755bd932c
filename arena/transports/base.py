"""The seam between the referee and a transport.

The referee never knows whether a bot is an asyncio object or a remote program: it sends
messages to a `Seat` and asks it for actions. A transport turns a seat's problems (a crash, a
garbled frame) into `SeatFailure` so the referee can apply its penalty rules.

A seat reached through a server raises `arena.errors.ServerLost` instead once its connection to
the server is gone: that is no bot's fault and no fallback can stand in for it, so the error goes
through the referee and stops the match.
"""

from __future__ import annotations

from typing import Protocol

from protocol.messages import Action, Error, ErrorCode, Event, Request


class SeatFailure(Exception):
    """The seat answered, but not with a usable action; ``code`` says how."""

    def __init__(self, code: ErrorCode, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


class Seat(Protocol):
    """One player's connection, as the referee sees it."""

    async def send(self, message: Event | Error) -> None:
        """Deliver a message; never raises for a misbehaving or absent bot."""

    async def ask(self, request: Request) -> Action:
        """Send the request and wait for the bot's action (the referee applies the deadline).

        Raises `SeatFailure` when the answer is unusable as a message, and `ServerLost` (from
        `arena.errors`) when a seat played through a server can no longer reach the server.
        """
        ...
