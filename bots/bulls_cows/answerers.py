"""1A2B answerers (seed 004 §四(二)): what a duel seat says when the opponent guesses.

``answered`` is the list of (opponent's guess index, our feedback encoding) so far; every method
returns an encoding or a code index. Randomness comes only from the stream each is given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from arena.dealing import RandomStream, draw_code
from arena.games.bulls_cows import CodeSpace
from bots.bulls_cows.guessers import History, IntArray, consistent


class Answerer(ABC):
    name: str = ""

    def new_game(self, space: CodeSpace, answered: History | None = None) -> None:
        """A game starts; an answerer with a secret chooses it now. ``answered``: the answers
        this seat already gave in the game, when it joins it late (a bot process restarted
        mid-game): the secret must agree with them."""
        return None

    @abstractmethod
    def answer(self, space: CodeSpace, answered: History, guess: int) -> int:
        """Feedback to ``guess`` (an encoding), leaving some code consistent with all answers."""

    @abstractmethod
    def reveal(self, space: CodeSpace, answered: History) -> int:
        """The code shown at the end; it must match every answer given."""


class FixedAnswerer(Answerer):
    """Commits to a uniformly random secret when a game starts and answers it truthfully."""

    name = "fixed"

    def __init__(self, stream: RandomStream) -> None:
        self.stream = stream
        self.secret: str | None = None

    def new_game(self, space: CodeSpace, answered: History | None = None) -> None:
        if not answered:
            self.secret = draw_code(self.stream, space.alphabet, space.digits)
            return
        # The answers already given are part of the game: a secret drawn afresh would likely
        # contradict one, and the reveal would then be refused. Any code they allow is as
        # likely to have been the secret as any other.
        remaining = consistent(space, answered)
        self.secret = space.codes[int(remaining[self.stream.randbelow(int(remaining.size))])]

    def _secret_index(self, space: CodeSpace) -> int:
        if self.secret is None or self.secret not in space.index:
            self.new_game(space)
        assert self.secret is not None
        return space.index[self.secret]

    def answer(self, space: CodeSpace, answered: History, guess: int) -> int:
        return int(space.table[guess, self._secret_index(space)])

    def reveal(self, space: CodeSpace, answered: History) -> int:
        return self._secret_index(space)


def protect_range(space: CodeSpace, remaining: IntArray, guess: int, stream: RandomStream) -> int:
    """保護範圍法 (圖一): the feedback to ``guess`` shared by the most codes of ``remaining``;
    ties broken uniformly from ``stream``, except that the solving answer is never taken while
    another class is as large. Answering nA0B ends the range's protection at once, whereas the
    other class keeps as many codes alive: conceding on a tie is the one choice the seed's rule
    ("選擇所剩個數最多的") leaves open that no range-protector would make."""
    counts = np.bincount(space.table[guess, remaining], minlength=space.classes)
    widest = np.flatnonzero(counts == counts.max())
    if widest.size > 1:
        widest = widest[widest != space.solved]
    return int(widest[stream.randbelow(int(widest.size))])


class EvaderAnswerer(Answerer):
    """保護範圍法: answer with the feedback that keeps the most codes consistent (圖一), so the
    range the guesser must search shrinks as slowly as possible; ties at random, never to the
    solving answer while another class is as large. At the end it
    reveals a random code of what is left, which matches every answer by construction."""

    name = "evader"

    def __init__(self, stream: RandomStream) -> None:
        self.stream = stream

    def answer(self, space: CodeSpace, answered: History, guess: int) -> int:
        return protect_range(space, consistent(space, answered), guess, self.stream)

    def reveal(self, space: CodeSpace, answered: History) -> int:
        remaining = consistent(space, answered)
        return int(remaining[self.stream.randbelow(int(remaining.size))])


ANSWERERS = ("fixed", "evader")


def make_answerer(name: str, stream: RandomStream) -> Answerer:
    if name == "fixed":
        return FixedAnswerer(stream)
    if name == "evader":
        return EvaderAnswerer(stream)
    raise ValueError(f"unknown answerer {name!r}; known: {', '.join(ANSWERERS)}")
