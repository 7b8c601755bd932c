"""A stand-in engine for the conformance suite's own tests (tests/conformance.py): a game of
perfect information but for one private fact per seat, with one planted bug at a time."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.dealing import MatchSeed
from arena.games.base import Game, GameEvent, GameResult
from arena.games.errors import GameError, IllegalActionError, InvalidActionError
from protocol.games.common import GameStart


def no_secrets(game: Any, seat: int) -> list[str]:
    return []


def each_seats_secret(game: Any, seat: int) -> list[str]:
    """Seat ``s`` holds the private fact ``"secret-s"``; the other seat must never see it."""
    return [f'"secret-{other}"' for other in range(game.num_seats) if other != seat]


@dataclass(frozen=True)
class Take:
    count: int

    def __str__(self) -> str:
        return f"take {self.count}"


class Pile(Game[Take]):
    """Take 1 to 3 from a pile of 9; who takes the last wins. Observations and events borrow the
    arena's ``game_start`` payload (the wire union knows no test game). ``bug`` plants one:
    ``seed``, ``upper``, ``tail``, ``offset`` (the match seed shown, as is, in capitals, its last
    16 digits, at an offset), ``private`` (seat 1's secret sent to seat 0), ``describe`` (the
    request's list in another order), ``loser_wins``, ``extra_score``, ``shared_events`` and
    ``shared_state`` (a copy sharing the pending events, or seat 1's view)."""

    name: ClassVar[str] = "pile_stand_in"

    def __init__(self, seed: MatchSeed, bug: str = "") -> None:
        self.num_seats = 2
        self.bug = bug
        self._seed_hex = seed.hex()
        self.pile = 9
        self.moves: list[int] = []
        self.told_seat_1: list[int] = []  # seat 0's takes, shown to seat 1 only
        self._events: list[GameEvent] = []

    def to_act(self) -> tuple[int, ...]:
        return () if self.pile == 0 else (len(self.moves) % 2,)

    def legal_actions(self, seat: int) -> Sequence[Take]:
        if seat not in self.to_act():
            return []
        return [Take(n) for n in (1, 2, 3) if n <= self.pile]

    def describe_legal(self, seat: int) -> tuple[list[str] | None, str | None]:
        listed = [str(a) for a in self.legal_actions(seat)]
        return (listed[::-1] if self.bug == "describe" else listed), None

    def parse_action(self, text: str) -> Take:
        parts = text.split()
        if len(parts) != 2 or parts[0] != "take" or parts[1] not in ("1", "2", "3"):
            raise InvalidActionError(f"{text[:20]!r}: expected 'take 1', 'take 2' or 'take 3'")
        return Take(int(parts[1]))

    def apply(self, seat: int, action: Take) -> None:
        if action not in self.legal_actions(seat):
            raise IllegalActionError(f"seat {seat} may not {action}")
        self.pile -= action.count
        self.moves.append(action.count)
        if seat == 0:
            self.told_seat_1.append(action.count)
        self._events.append(GameEvent(self._payload(seat, {"took": action.count})))
        if self.bug == "private":
            # Seat 1's secret, sent privately to seat 0.
            self._events.append(GameEvent(self._payload(0, {"note": "secret-1"}), frozenset({0})))

    def observation(self, seat: int) -> GameStart:
        if not 0 <= seat < self.num_seats:
            raise GameError(f"no seat {seat}")
        shown: list[Any] = list(self.moves)
        if self.bug == "seed":
            shown.append(self._seed_hex)
        elif self.bug == "upper":
            shown.append(self._seed_hex.upper())
        elif self.bug == "tail":
            shown.append("x" + self._seed_hex[-16:])
        elif self.bug == "offset":
            shown.append("x" + self._seed_hex[3:19])
        if seat == 1:
            return self._payload(
                seat, {"pile": self.pile, "moves": shown, "told": list(self.told_seat_1)}
            )
        return self._payload(seat, {"pile": self.pile, "moves": shown})

    def fallback_action(self, seat: int) -> Take:
        return Take(1)

    def is_over(self) -> bool:
        return self.pile == 0

    def result(self) -> GameResult:
        last = (len(self.moves) - 1) % 2
        scores: tuple[float, ...] = (1.0, 0.0) if last == 0 else (0.0, 1.0)
        if self.bug == "extra_score":
            scores = (*scores, 0.0)
        winner = 1 - last if self.bug == "loser_wins" else last
        return GameResult(scores=scores, winners=(winner,), reason="last_take")

    def drain_events(self) -> list[GameEvent]:
        events, self._events = self._events, []
        return events

    def copy(self) -> Pile:
        twin = object.__new__(Pile)
        twin.__dict__.update(self.__dict__)
        if self.bug != "shared_events":
            twin._events = list(self._events)
        twin.moves = list(self.moves)
        if self.bug != "shared_state":  # seat 1's view, shared: only another seat's view moves
            twin.told_seat_1 = list(self.told_seat_1)
        return twin

    @staticmethod
    def _payload(seat: int, rules: dict[str, Any]) -> GameStart:
        return GameStart(game_kind="bulls_cows", seat=seat, players=[], rules=rules)


def pile(bug: str = "") -> functools.partial[Pile]:
    return functools.partial(Pile, bug=bug)
