"""The 1A2B rules engine: solve mode (one seat against the referee's secret) and duel mode.

Duel (docs/RULES.md "## 1A2B"): seat 0 starts; turns alternate guess → the other seat's answer.
An answer is the answerer's own decision, so an adaptive answerer (the seed's 保護範圍法) is
legal: the legal answers are the feedback values that leave at least one code consistent with
every answer that seat gave. If seat 0 solves, seat 1 still gets its equal number of guesses;
both solving in the same number is a draw. At the end both seats reveal a code, which must
match every answer they gave; a breach forfeits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.dealing import MatchSeed, draw_code
from arena.games.base import Game, GameEvent, GameResult
from arena.games.bulls_cows.codes import (
    DEFAULT_ALPHABET,
    DEFAULT_DIGITS,
    CodeSpace,
    check_space,
    code_space,
)
from arena.games.errors import (
    GameError,
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RulesetError,
)
from protocol.games.bulls_cows import (
    AnswerGiven,
    BullsCowsObservation,
    CodeRevealed,
    Exchange,
    GuessMade,
)
from protocol.games.bulls_cows import Phase as WirePhase

GAME_NAME = "bulls_cows"
DEFAULT_MAX_GUESSES = 20
MODES = ("solve", "duel")
ACTION_FORMS = "'guess <code>', 'answer <xAyB>' or 'reveal <code>'"


class Phase(StrEnum):
    GUESS = "guess"
    ANSWER = "answer"
    REVEAL = "reveal"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Guess:
    code: str

    def __str__(self) -> str:
        return f"guess {self.code}"


@dataclass(frozen=True, slots=True)
class Answer:
    feedback: str

    def __str__(self) -> str:
        return f"answer {self.feedback}"


@dataclass(frozen=True, slots=True)
class Reveal:
    code: str

    def __str__(self) -> str:
        return f"reveal {self.code}"


BullsCowsAction = Guess | Answer | Reveal

_WIRE_PHASE: dict[Phase, WirePhase] = {
    Phase.GUESS: "guess",
    Phase.ANSWER: "answer",
    Phase.REVEAL: "reveal",
    Phase.OVER: "over",
}


@dataclass(frozen=True, slots=True)
class BullsCowsRules:
    mode: str = "solve"
    digits: int = DEFAULT_DIGITS
    alphabet: str = DEFAULT_ALPHABET
    max_guesses: int = DEFAULT_MAX_GUESSES

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any]) -> BullsCowsRules:
        known = {"mode", "digits", "alphabet", "max_guesses"}
        for key in rules:
            if key not in known:
                raise RulesetError(f"{key}: unknown 1A2B rule; known: {', '.join(sorted(known))}")
        made = cls(**dict(rules))
        if made.mode not in MODES:
            raise RulesetError(f"mode: must be one of {', '.join(MODES)}, got {made.mode!r}")
        max_guesses = made.max_guesses
        if isinstance(max_guesses, bool) or not isinstance(max_guesses, int) or max_guesses < 1:
            raise RulesetError(f"max_guesses: must be an integer >= 1, got {max_guesses!r}")
        check_space(made.digits, made.alphabet)
        return made

    @property
    def seats(self) -> int:
        return 1 if self.mode == "solve" else 2


@lru_cache(maxsize=4)
def _all_guesses(space: CodeSpace) -> tuple[Guess, ...]:
    return tuple(Guess(code) for code in space.codes)


@lru_cache(maxsize=4)
def _all_reveals(space: CodeSpace) -> tuple[Reveal, ...]:
    return tuple(Reveal(code) for code in space.codes)


def deal_labels(deal: Mapping[str, Any]) -> tuple[str | int, ...]:
    """The stream labels a deal names, in a fixed order so a record rebuilds the same secret."""
    labels: list[str | int] = []
    for key in sorted(deal):
        value = deal[key]
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise GameError(f"deal {key!r}: must be a string or an integer, got {value!r}")
        labels += [key, value]
    return tuple(labels)


class BullsCowsGame(Game[BullsCowsAction]):
    """One 1A2B game. ``consistent[x]`` is the set of codes consistent with the answers seat x
    received, i.e. with every answer its answerer gave: one mask serves both sides."""

    name = GAME_NAME

    def __init__(self, rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]) -> None:
        self.rules = BullsCowsRules.from_mapping(rules)
        self.space = code_space(self.rules.digits, self.rules.alphabet)
        self.num_seats = self.rules.seats
        self._secret = self._deal_secret(seed, deal)
        self._phase = Phase.GUESS
        self._guesser = 0
        self._pending: int | None = None
        self._history: list[list[tuple[int, int]]] = [[] for _ in range(self.num_seats)]
        self._consistent = [np.ones(self.space.size, dtype=bool) for _ in range(self.num_seats)]
        self._solved_at: list[int | None] = [None] * self.num_seats
        self._revealed: list[int | None] = [None] * self.num_seats
        self._events: list[GameEvent] = []
        self._result: GameResult | None = None

    def _deal_secret(self, seed: MatchSeed, deal: Mapping[str, Any]) -> int | None:
        """The secret a solve game deals (None in a duel: each player picks its own).

        In solve mode every key of a deal is a stream label (`deal_labels`), so it changes the
        secret and a record's replay checks it. A key the engine would ignore is refused, so
        that no part of a record's deal goes unchecked: a duel's deal holds only its
        ``game_index`` (which game of its match), and ``secret_index`` comes alone."""
        if self.rules.mode != "solve":
            for key, value in deal.items():
                if key != "game_index":
                    raise GameError(f"deal {key!r}: a 1A2B duel's deal holds only 'game_index'")
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise GameError(f"deal 'game_index': must be a whole number, got {value!r}")
            return None
        if "secret_index" in deal:
            index = deal["secret_index"]
            if isinstance(index, bool) or not isinstance(index, int):
                raise GameError(f"deal 'secret_index': must be an integer, got {index!r}")
            if not 0 <= index < self.space.size:
                raise GameError(f"deal 'secret_index': {index} is not in 0..{self.space.size - 1}")
            if len(deal) > 1:
                others = ", ".join(repr(key) for key in deal if key != "secret_index")
                raise GameError(f"deal {others}: 'secret_index' names the secret alone")
            return index
        stream = seed.stream(GAME_NAME, *deal_labels(deal), "secret")
        return self.space.index[draw_code(stream, self.space.alphabet, self.space.digits)]

    # -- the interface ------------------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        if self._phase is Phase.GUESS:
            return (self._guesser,)
        if self._phase is Phase.ANSWER:
            return (1 - self._guesser,)
        if self._phase is Phase.REVEAL:
            return tuple(s for s in range(self.num_seats) if self._revealed[s] is None)
        return ()

    def legal_actions(self, seat: int) -> Sequence[BullsCowsAction]:
        if seat not in self.to_act():
            return ()
        if self._phase is Phase.GUESS:
            return _all_guesses(self.space)
        if self._phase is Phase.ANSWER:
            return [Answer(self.space.feedback_text(f)) for f in self._answer_classes()]
        return _all_reveals(self.space)

    def is_legal(self, seat: int, action: BullsCowsAction) -> bool:
        try:
            self._check(seat, action)
        except GameError:
            return False
        return True

    def describe_legal(self, seat: int) -> tuple[list[str] | None, str | None]:
        if seat not in self.to_act():
            return [], None
        symbols = f"<{self.space.digits} distinct symbols of {self.space.alphabet}>"
        if self._phase is Phase.GUESS:
            return None, f"guess {symbols}"
        if self._phase is Phase.REVEAL:
            return None, f"reveal {symbols}, matching every answer you gave"
        return [str(action) for action in self.legal_actions(seat)], None

    def parse_action(self, text: str) -> BullsCowsAction:
        if not isinstance(text, str):
            # A bot's message is untrusted: anything but text is its mistake, not a crash.
            raise InvalidActionError(
                f"an action is text ({ACTION_FORMS}), not {type(text).__name__}"
            )
        parts = text.split()
        if len(parts) != 2:
            raise InvalidActionError(f"{text[:40]!r} is not an action; expected {ACTION_FORMS}")
        verb, argument = parts[0].lower(), parts[1]
        if verb == "guess":
            return Guess(self.space.codes[self.space.parse_code(argument)])
        if verb == "reveal":
            return Reveal(self.space.codes[self.space.parse_code(argument)])
        if verb == "answer":
            return Answer(self.space.feedback_text(self.space.parse_feedback(argument)))
        raise InvalidActionError(f"unknown verb {parts[0][:20]!r}; expected {ACTION_FORMS}")

    def apply(self, seat: int, action: BullsCowsAction) -> None:
        value = self._check(seat, action)
        if isinstance(action, Guess):
            self._apply_guess(seat, value)
        elif isinstance(action, Answer):
            self._apply_answer(1 - seat, value)
        else:
            self._apply_reveal(seat, value)

    def observation(self, seat: int) -> BullsCowsObservation:
        if not 0 <= seat < self.num_seats:
            raise GameError(f"no seat {seat} in a {self.num_seats}-seat game")
        other = 1 - seat
        duel = self.num_seats == 2
        answered = self._history[other] if duel else []
        pending = None
        if self._phase is Phase.ANSWER and self._guesser == other and self._pending is not None:
            pending = self.space.codes[self._pending]
        return BullsCowsObservation(
            mode="duel" if duel else "solve",
            digits=self.space.digits,
            alphabet=self.space.alphabet,
            seat=seat,
            max_guesses=self.rules.max_guesses,
            phase=_WIRE_PHASE[self._phase],
            to_act=list(self.to_act()),
            guesses=self._exchanges(self._history[seat]),
            answers=self._exchanges(answered),
            pending_guess=pending,
            opponent_guesses=len(self._history[other]) + (pending is not None) if duel else 0,
        )

    def fallback_action(self, seat: int) -> BullsCowsAction:
        """What a seat that failed to act plays (docs/RULES.md "### Fallbacks"). Failing to act
        must never pay: after the first, its guesses can never solve, and its answers concede as
        much as the rules let them.

        Guess: the smallest code the answers this seat received already rule out (it cannot be
        the code, so no legal answer solves it); on a first guess, when none is ruled out, the
        smallest code. Answer: the solving answer when the guess still matches every answer
        given, else the class keeping the fewest codes (ties: the smallest encoding); both are
        legal. Reveal: the smallest code matching every answer given, never a breach."""
        if seat not in self.to_act():
            raise NotYourTurnError(f"seat {seat} has no decision due")
        if self._phase is Phase.GUESS:
            ruled_out = ~self._consistent[seat]
            return Guess(self.space.codes[self._first(ruled_out)])
        if self._phase is Phase.ANSWER:
            assert self._pending is not None
            if self._consistent[self._guesser][self._pending]:
                return Answer(self.space.feedback_text(self.space.solved))
            counts = self._answer_counts()
            # argmin over the classes that occur (the legal ones): the first, so the smallest.
            narrowest = np.where(counts > 0, counts, np.iinfo(np.int64).max)
            return Answer(self.space.feedback_text(int(np.argmin(narrowest))))
        return Reveal(self.space.codes[self._first(self._consistent[1 - seat])])

    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def result(self) -> GameResult:
        if self._result is None:
            raise GameError("the game is not over")
        return self._result

    def drain_events(self) -> list[GameEvent]:
        events, self._events = self._events, []
        return events

    def copy(self) -> BullsCowsGame:
        twin = object.__new__(BullsCowsGame)
        twin.__dict__.update(self.__dict__)
        twin._history = [list(h) for h in self._history]
        twin._consistent = [mask.copy() for mask in self._consistent]
        twin._solved_at = list(self._solved_at)
        twin._revealed = list(self._revealed)
        twin._events = list(self._events)
        return twin

    # -- internals ----------------------------------------------------------------------------

    def _check(self, seat: int, action: BullsCowsAction) -> int:
        """The index (code or feedback) the action carries, if it is legal now; else raise."""
        if self._phase is Phase.OVER:
            raise NotYourTurnError("the game is over")
        if seat not in self.to_act():
            raise NotYourTurnError(f"seat {seat} is not to act; waiting for {self.to_act()}")
        expected = {Phase.GUESS: Guess, Phase.ANSWER: Answer, Phase.REVEAL: Reveal}[self._phase]
        if not isinstance(action, expected):
            raise IllegalActionError(f"seat {seat} must {self._phase.value} now, not {action}")
        written = action.feedback if isinstance(action, Answer) else action.code
        if not isinstance(written, str):
            raise InvalidActionError(
                f"{action!r} carries {type(written).__name__}, not the text of a "
                f"{'feedback' if isinstance(action, Answer) else 'code'}"
            )
        try:
            if isinstance(action, Answer):
                value = self.space.parse_feedback(action.feedback)
            else:
                value = self.space.parse_code(action.code)
        except InvalidActionError as exc:
            raise IllegalActionError(str(exc)) from exc
        # Only the forms legal_actions lists: parse_action canonicalises a bot's text, so a
        # value object in another spelling ("01a02b", " 123") is a caller's mistake.
        if isinstance(action, Answer):
            canonical = self.space.feedback_text(value)
        else:
            canonical = self.space.codes[value]
        if written != canonical:
            raise IllegalActionError(
                f"{written[:40]!r} is not written as the engine lists it: {canonical!r}"
            )
        if isinstance(action, Answer) and value not in self._answer_classes():
            raise IllegalActionError(
                f"answer {action.feedback} to {self.space.codes[self._pending or 0]} contradicts "
                "your earlier answers: no code would match them all"
            )
        return value

    def _answer_counts(self) -> npt.NDArray[np.int64]:
        assert self._pending is not None
        mask = self._consistent[self._guesser]
        return np.bincount(self.space.table[self._pending][mask], minlength=self.space.classes)

    def _answer_classes(self) -> list[int]:
        return [int(f) for f in np.flatnonzero(self._answer_counts())]

    @staticmethod
    def _first(mask: npt.NDArray[np.bool_]) -> int:
        hits = np.flatnonzero(mask)
        return int(hits[0]) if hits.size else 0

    def _exchanges(self, history: list[tuple[int, int]]) -> list[Exchange]:
        return [
            Exchange(guess=self.space.codes[g], feedback=self.space.feedback_text(f))
            for g, f in history
        ]

    def _apply_guess(self, seat: int, guess: int) -> None:
        number = len(self._history[seat]) + 1
        self._events.append(
            GameEvent(GuessMade(seat=seat, guess=self.space.codes[guess], number=number))
        )
        if self._secret is not None:
            self._pending = guess
            self._record_answer(None, int(self.space.table[guess, self._secret]))
            return
        self._pending = guess
        self._phase = Phase.ANSWER

    def _apply_answer(self, guesser: int, feedback: int) -> None:
        self._record_answer(1 - guesser, feedback)

    def _record_answer(self, answerer: int | None, feedback: int) -> None:
        guesser, guess = self._guesser, self._pending
        assert guess is not None
        self._pending = None
        self._history[guesser].append((guess, feedback))
        self._consistent[guesser] &= self.space.table[guess] == feedback
        if feedback == self.space.solved:
            self._solved_at[guesser] = len(self._history[guesser])
        self._events.append(
            GameEvent(
                AnswerGiven(
                    seat=answerer,
                    guesser=guesser,
                    guess=self.space.codes[guess],
                    feedback=self.space.feedback_text(feedback),
                )
            )
        )
        if self.num_seats == 1:
            if feedback == self.space.solved or len(self._history[0]) >= self.rules.max_guesses:
                self._finish_solve()
            return
        self._phase = Phase.GUESS
        if guesser == 0:
            # The second seat always gets as many guesses as the starter had.
            self._guesser = 1
            return
        done = len(self._history[1]) >= self.rules.max_guesses
        if done or any(s is not None for s in self._solved_at):
            self._phase = Phase.REVEAL
        else:
            self._guesser = 0

    def _apply_reveal(self, seat: int, code: int) -> None:
        self._revealed[seat] = code
        if any(r is None for r in self._revealed):
            return
        # Reveals are shown together so neither seat's reveal can depend on the other's.
        for s in range(self.num_seats):
            revealed = self._revealed[s]
            assert revealed is not None
            self._events.append(
                GameEvent(
                    CodeRevealed(
                        seat=s,
                        code=self.space.codes[revealed],
                        consistent=bool(self._consistent[1 - s][revealed]),
                    )
                )
            )
        self._finish_duel()

    def _finish_solve(self) -> None:
        assert self._secret is not None
        solved = self._solved_at[0] is not None
        self._events.append(
            GameEvent(CodeRevealed(seat=None, code=self.space.codes[self._secret], consistent=True))
        )
        self._phase = Phase.OVER
        self._result = GameResult(
            scores=(1.0 if solved else 0.0,),
            winners=(0,) if solved else (),
            reason="solved" if solved else "max_guesses",
            detail={
                "guesses": [len(self._history[0])],
                "solved": [solved],
                "secret": self.space.codes[self._secret],
            },
        )

    def _breach(self, seat: int) -> dict[str, Any] | None:
        """The first answer of ``seat`` its revealed code contradicts, if any."""
        revealed = self._revealed[seat]
        assert revealed is not None
        for number, (guess, given) in enumerate(self._history[1 - seat], start=1):
            true = int(self.space.table[guess, revealed])
            if true != given:
                return {
                    "seat": seat,
                    "revealed": self.space.codes[revealed],
                    "guess_number": number,
                    "guess": self.space.codes[guess],
                    "answered": self.space.feedback_text(given),
                    "true_feedback": self.space.feedback_text(true),
                }
        return None

    def _finish_duel(self) -> None:
        breaches = [b for b in (self._breach(0), self._breach(1)) if b is not None]
        solved = [s is not None for s in self._solved_at]
        detail: dict[str, Any] = {
            "guesses": [len(h) for h in self._history],
            "solved": solved,
            "revealed": [self.space.codes[r] if r is not None else None for r in self._revealed],
            "breaches": breaches,
        }
        scores: tuple[float, ...]
        winners: tuple[int, ...]
        if len(breaches) == 2:
            scores, winners, reason = (0.5, 0.5), (), "both_breached"
        elif breaches:
            winner = 1 - int(breaches[0]["seat"])
            scores = (1.0, 0.0) if winner == 0 else (0.0, 1.0)
            winners, reason = (winner,), "breach"
        elif all(solved):
            scores, winners, reason = (0.5, 0.5), (), "both_solved"
        elif any(solved):
            winner = solved.index(True)
            scores = (1.0, 0.0) if winner == 0 else (0.0, 1.0)
            winners, reason = (winner,), "solved"
        else:
            scores, winners, reason = (0.5, 0.5), (), "max_guesses"
        self._phase = Phase.OVER
        self._result = GameResult(scores=scores, winners=winners, reason=reason, detail=detail)
