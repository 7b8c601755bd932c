"""The `Bot` interface: the same object plays in-process and over the network, unchanged.

A bot sees only its own seat: the events the referee lets it see, and the request (with its
seat's observation) when a decision is due. It never receives a game state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from protocol.messages import Error, Event, Request


class Bot(ABC):
    """Base of every bot. Subclasses implement `act`; `on_event` is there to track history."""

    #: games this bot can play (wire names)
    games: Sequence[str] = ()

    def __init__(self, name: str) -> None:
        self.name = name

    async def on_event(self, event: Event) -> None:
        """An event this seat may see. Default: ignore (the request carries the observation)."""
        return None

    @abstractmethod
    async def act(self, request: Request) -> str:
        """Answer a request with the text of an action (one of ``request.legal`` when listed)."""

    async def on_error(self, error: Error) -> None:
        """The referee rejected our last answer or reports a problem. Default: ignore."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
