"""The `Bot` interface: the same object plays in-process and over the network, unchanged.

A bot sees only its own seat: the events the referee lets it see, and the request (with its
seat's observation) when a decision is due. It never receives a game state.

Messages are read-only. In-process, a public event's payload is the one object every seat is
handed (copying each message for each seat would cost the in-process matches their speed), so a
bot that changes a list inside one changes what the other in-process bots read. Observations are
built afresh for each request, so the game itself cannot be changed through them (the engine
conformance suite checks this).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from protocol.messages import Error, Event, Request


class BotReportedError(Exception):
    """A failure a bot reports in its own words, whole in one line (a full disk under its learnt
    tables): logged as that line. Any other exception from a bot is a bug, logged with its
    traceback for the bot's author."""


def traceback_of(exc: BaseException) -> BaseException | None:
    """What to log as ``exc_info`` for an exception a bot raised: the exception itself, unless
    the bot said all there is to say (`BotReportedError`)."""
    return None if isinstance(exc, BotReportedError) else exc


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

    def kept_state(self) -> str | None:
        """What this bot reads and writes outside its config between matches (a directory of
        tables it learns into), or `None`. Its games then depend on what earlier runs left
        there, so a league, which must give the same games for the same config, refuses it."""
        return None

    async def on_error(self, error: Error) -> None:
        """The referee rejected our last answer or reports a problem; ``match_aborted``: the
        server stopped our match before its end (no ``match_end`` will come), so whatever the
        bot keeps for that match may go. Default: ignore."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
