"""Mutation audit of the engine conformance suite itself (tests/conformance.py): each check the
audit found unexercised gets a planted-bug engine it must catch. The seed shown in capitals or at
any offset (the last 16 hex digits included); another seat's secret in a private event sent to
the wrong seat; a copy sharing the state only another seat's observation shows; a result with a
score too many; a request listing the legal actions in another order; a mahjong draw shown to
every seat; and an engine whose legal actions follow set order, caught even when the tests
themselves run with ``PYTHONHASHSEED=0``."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conformance import check_engine

from arena.dealing import MatchSeed
from arena.games.base import Game, GameEvent, GameResult
from arena.games.errors import GameError, IllegalActionError, InvalidActionError
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset
from protocol.games.common import GameStart

HERE = Path(__file__).resolve().parent
WAIT_S = 120.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))


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
    arena's ``game_start`` payload (the wire union knows no test game). ``bug`` plants one."""

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
        if self.bug == "upper":
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
        return GameResult(scores=scores, winners=(last,), reason="last_take")

    def drain_events(self) -> list[GameEvent]:
        events, self._events = self._events, []
        return events

    def copy(self) -> Pile:
        twin = object.__new__(Pile)
        twin.__dict__.update(self.__dict__)
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


def test_the_stand_in_passes_without_a_bug() -> None:
    check_engine(pile(), range(3), secrets=each_seats_secret)


@pytest.mark.parametrize("bug", ["upper", "tail", "offset"])
def test_the_seed_is_caught_in_capitals_and_at_any_offset(bug: str) -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 holds the match seed"):
        check_engine(pile(bug), range(2), secrets=no_secrets)


def test_a_private_event_to_the_wrong_seat_is_caught() -> None:
    with pytest.raises(AssertionError, match="event for seat 0 shows another seat's private"):
        check_engine(pile("private"), range(2), secrets=each_seats_secret)


def test_a_copy_sharing_the_observed_state_is_caught() -> None:
    with pytest.raises(AssertionError, match="copy\\(\\) shares mutable state"):
        check_engine(pile("shared_state"), range(2), secrets=no_secrets)


def test_a_result_with_a_score_per_seat_too_many_is_caught() -> None:
    with pytest.raises(AssertionError, match="result has 3 scores for 2 seats"):
        check_engine(pile("extra_score"), range(2), secrets=no_secrets)


def test_a_request_listing_the_legal_actions_in_another_order_is_caught() -> None:
    with pytest.raises(AssertionError, match="describe_legal lists"):
        check_engine(pile("describe"), range(2), secrets=no_secrets)


def test_set_ordered_legal_actions_are_caught_under_pythonhashseed_0() -> None:
    """The other process must take another hash seed than this one's, also when this one's is
    fixed (CI often runs with ``PYTHONHASHSEED=0``)."""
    script = (
        "import pytest\n"
        "from conformance import check_engine\n"
        "from test_engine_conformance_contrib_findings import hash_ordered_liars_dice\n"
        "with pytest.raises(AssertionError, match='differs in a process with PYTHONHASHSEED=1'):\n"
        "    check_engine(hash_ordered_liars_dice, range(1))\n"
        "print('caught')\n"
    )
    path = os.pathsep.join([str(HERE), str(HERE.parent), *(p for p in sys.path if p)])
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": path},
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "caught", done.stderr[-3000:]


class LoudDrawsMahjong(MahjongGame):
    """Broadcasts each seat's private ``draw`` event (the tile drawn) to every seat."""

    def drain_events(self) -> list[GameEvent]:
        return [
            GameEvent(event.payload) if getattr(event.payload, "kind", None) == "draw" else event
            for event in super().drain_events()
        ]


def loud_draws_mahjong(seed: MatchSeed) -> MahjongGame:
    game = new_game(load_ruleset("competition").to_mapping(), seed, {})
    game.__class__ = LoudDrawsMahjong
    return game


def test_a_mahjong_draw_broadcast_to_every_seat_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"the 'draw' event for seat \d shows another seat's"):
        check_engine(loud_draws_mahjong, range(1))
