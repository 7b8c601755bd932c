"""The one interface every rules engine implements (DESIGN.md §3).

Engines are pure: no asyncio, no I/O, no clock, no logging of hidden state. All chance comes from
`arena.dealing` streams named by the game's ``deal`` parameters, so a (rules, seed, deal) triple
replays a game exactly. The referee only feeds actions in and drains events out.

Simultaneous decisions (mahjong claims on a discard, 1A2B answers) are expressed by `to_act`
returning several seats: the referee asks them all, then applies each answer; the engine resolves
the step once every due seat has answered.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel

from arena.dealing import MatchSeed


class ActionValue(Protocol):
    """Actions are small immutable values whose ``str()`` round-trips through `parse_action`."""

    def __str__(self) -> str: ...


A = TypeVar("A", bound=ActionValue)


@dataclass(frozen=True, slots=True)
class GameEvent:
    """Something that happened, and who may see it.

    ``to`` is ``None`` for a public event, else the seats allowed to see it. Private information
    (a drawn tile, a die roll) is emitted as a private event for its owner plus, where the others
    see that *something* happened, a separate public event without the secret.
    """

    payload: BaseModel
    to: frozenset[int] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.to is None or seat in self.to


@dataclass(frozen=True, slots=True)
class GameResult:
    """Final outcome. ``scores`` is per seat and zero-sum where the game is (mahjong points),
    else 1 / 0 / 0.5 for win / loss / draw. ``detail`` is JSON-able, game specific."""

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)


class Game(ABC, Generic[A]):
    """A game in progress. Mutable; `copy` is cheap and independent."""

    name: ClassVar[str]
    num_seats: int

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats whose decision is due now (empty once the game is over)."""

    @abstractmethod
    def legal_actions(self, seat: int) -> Sequence[A]:
        """Every legal action of ``seat`` now (empty when the seat is not to act)."""

    def is_legal(self, seat: int, action: A) -> bool:
        return action in self.legal_actions(seat)

    def describe_legal(self, seat: int) -> tuple[list[str] | None, str | None]:
        """What a request shows: the legal actions as text, or ``None`` plus a human hint when the
        set is too large to list (a 1A2B guess)."""
        return [str(action) for action in self.legal_actions(seat)], None

    @abstractmethod
    def parse_action(self, text: str) -> A:
        """Read an action's text form; raise `InvalidActionError` naming what is wrong."""

    @abstractmethod
    def apply(self, seat: int, action: A) -> None:
        """Play ``action`` for ``seat``; raise `IllegalActionError` (state unchanged) if illegal."""

    @abstractmethod
    def observation(self, seat: int) -> BaseModel:
        """Everything ``seat`` may know now, and nothing more."""

    @abstractmethod
    def fallback_action(self, seat: int) -> A:
        """The documented action the referee plays for a seat that failed to answer."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> GameResult:
        """The outcome; only valid once `is_over`."""

    @abstractmethod
    def drain_events(self) -> list[GameEvent]:
        """Events since the last drain, oldest first."""

    @abstractmethod
    def copy(self) -> Game[A]: ...


class GameFactory(Protocol):
    def __call__(
        self, rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]
    ) -> Game[Any]: ...


@dataclass(frozen=True, slots=True)
class GameSpec:
    """How the arena finds a game: its wire name, how to build one, how many seats it takes.

    ``deal`` holds the JSON-able parameters that name the game's random streams (e.g. round and
    hand of a mahjong match), so a record's header is enough to rebuild the game.
    """

    name: str
    new_game: GameFactory
    seats: tuple[int, ...]
    default_rules: Mapping[str, Any] = field(default_factory=dict)
    title: str = ""
    #: the action text grammar, for docs/PROTOCOL.md (one line per action form)
    action_grammar: tuple[str, ...] = ()
    #: how ``arena replay`` shows an event payload (JSON dict) to a person; ``None`` = generic
    render_event: Callable[[Mapping[str, Any]], str | None] | None = None
