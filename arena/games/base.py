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
from arena.games.errors import GameError


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
    else 1 / 0 / 0.5 for win / loss / draw. ``detail`` is JSON-able, game specific.

    ``winners`` must agree with ``scores`` (checked here, `GameError` otherwise): distinct seats
    of the game; every winner scores at least as much as every other seat; and with no winner
    every seat scores the same (a draw, or a lone 1A2B solver that did not solve). This holds for
    each game: a 1A2B or liar's dice winner scores 1 and a loser 0, a draw is 0.5 each; a mahjong
    winner gains points that the payers lose (never less than 0: ``base_points`` may be 0, so a
    win worth nothing ties the others), and an exhaustive draw moves no points."""

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seats = len(self.scores)
        if len(set(self.winners)) != len(self.winners) or not all(
            0 <= w < seats for w in self.winners
        ):
            raise GameError(
                f"result winners {self.winners} must be distinct seats of the {seats} scored"
            )
        others = [self.scores[s] for s in range(seats) if s not in self.winners]
        if self.winners and others:
            low = min(self.scores[w] for w in self.winners)
            if low < max(others):
                raise GameError(
                    f"result winners {self.winners} contradict the scores {self.scores}: "
                    "a seat that did not win scores more than a winner"
                )
        elif not self.winners and len(set(self.scores)) > 1:
            raise GameError(
                f"result with no winner but unequal scores {self.scores}: name the winners"
            )


class Game(ABC, Generic[A]):
    """A game in progress. Mutable; `copy` is cheap and independent (its pending events too).
    ``tests/conformance.py`` (`check_engine`) checks every engine against this contract."""

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
        """Read an action's text form; raise `InvalidActionError` naming what is wrong, never
        another exception: the text is a bot's, untrusted. That includes the empty string,
        control characters, non-text, Unicode digits (``"１２３"``, ``"²"``, ``"①"`` pass
        `str.isdigit` but are no action: read digits as ASCII ``0-9`` only) and digit runs too
        long for `int` (``tests/conformance.py`` ``GARBAGE_ACTIONS``)."""

    @abstractmethod
    def apply(self, seat: int, action: A) -> None:
        """Play ``action`` for ``seat``; raise `IllegalActionError` (state unchanged) if illegal."""

    @abstractmethod
    def observation(self, seat: int) -> BaseModel:
        """Everything ``seat`` may know now, and nothing more: a protocol payload (a member of
        `protocol.payloads.Payload`), built afresh on each call (a caller may change it without
        changing the game: no list or dict of the engine's own state in it). A seat outside the
        game (negative, or ``num_seats`` and above) raises `GameError`: a negative index must
        never show another seat's hand."""

    @abstractmethod
    def fallback_action(self, seat: int) -> A:
        """The documented action the referee plays for a seat that failed to answer: always
        one of `legal_actions` of a due seat (the referee applies it as it is: an illegal
        fallback would stop the game with `IllegalActionError`)."""

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
    hand of a mahjong match), so a record's header is enough to rebuild the game. A game's
    package exposes it as ``SPEC``, found through `arena.games.registry` (every file a new game
    touches: docs/ARCHITECTURE.md, "Adding a game").
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
    #: the most decisions the referee lets one game take, or a function of the rules (the
    #: mapping `new_game` gets) giving it; ``None``: no cap. Set it well above the longest legal
    #: game: a game still not over at the cap is an engine that never ends (a bug of the
    #: engine, not of a bot), and the referee stops the match with `DecisionCapError`.
    max_decisions: int | Callable[[Mapping[str, Any]], int] | None = None

    def decision_cap(self, rules: Mapping[str, Any]) -> int | None:
        """`max_decisions` for a game of ``rules``."""
        if callable(self.max_decisions):
            return self.max_decisions(rules)
        return self.max_decisions
