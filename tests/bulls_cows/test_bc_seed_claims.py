"""Seed 004 §五(三): "最少也得猜六次以上".

Against the range-protecting answerer (保護範圍法) a player guessing as sharply as possible
needs at least six guesses. Our evader follows the rule and breaks ties at random, but never
to the solving answer while another class is as large (docs/STRATEGIES.md, 1A2B). Then the
claim holds for every guesser, however the ties fall: no strategy at all finishes in five (an
exact search over every code as a guess at every step), and the shipped guessers need six or
seven on every tie path.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest

from arena.bench.bulls_cows import evaluate_evader
from arena.dealing import MatchSeed, RandomStream
from arena.games.bulls_cows import CodeSpace, code_space
from bots.bulls_cows import GUESSERS, EvaderAnswerer, Guesser
from bots.bulls_cows.guessers import History, IntArray, partition_counts

BEST = ("optimal", "super-comparison", "entropy")


class TieChoice(RandomStream):
    """A stream that always draws ``choice``: the evader's tie-break, chosen by the test."""

    def __init__(self, choice: int) -> None:
        super().__init__(MatchSeed(bytes(32)), "tie")
        self.pick = choice
        self.ties = 1

    def randbelow(self, n: int) -> int:
        self.ties = n
        return self.pick


def every_tie_path(guesser: Guesser) -> Counter[int]:
    """Guesses to solve, over every way the evader's ties can fall, in the 3-of-1–9 game."""
    space = code_space()
    lengths: Counter[int] = Counter()

    def walk(history: History) -> None:
        guess = guesser.choose(space, history)
        probe = TieChoice(0)
        EvaderAnswerer(probe).answer(space, history, guess)
        for choice in range(probe.ties):
            feedback = EvaderAnswerer(TieChoice(choice)).answer(space, history, guess)
            after = [*history, (guess, feedback)]
            if feedback == space.solved:
                lengths[len(after)] += 1
            else:
                walk(after)

    walk([])
    return lengths


def can_finish_within(space: CodeSpace, guesses: int, first: int) -> bool:
    """Whether some guessing strategy opening with ``first`` solves within ``guesses`` guesses
    on some tie path of the evader (the ties falling its way): an exact search over every code
    as a guess at every step.

    The evader keeps the largest class that is not the solving answer, so a range of more than
    one code never ends the game: a range is finished by the next guess only when it is one
    code. The kept class holds at least 1/k of the codes the guess does not solve (k: the other
    feedback values), so a range finished within d guesses has at most ``most[d]`` codes, and
    a guess whose kept class is larger on every tie is skipped."""
    others = len(space.feasible) - 1
    most = [0, 1]
    while len(most) <= guesses:
        most.append(others * most[-1] + 1)
    not_solved = np.arange(space.classes) != space.solved

    def kept(remaining: IntArray, counts: IntArray, guess: int) -> tuple[bytes, ...]:
        """The ranges the evader may keep (one per tied answer), as keys."""
        row = np.where(not_solved, counts, 0)
        answers = np.flatnonzero(row == row.max()).tolist()
        feedback = space.table[guess, remaining]
        return tuple(sorted(remaining[feedback == f].tobytes() for f in answers))

    @cache
    def within(key: bytes, left: int) -> bool:
        remaining = np.frombuffer(key, dtype=np.int64)
        if remaining.size == 1:
            return left >= 1
        if left <= 1 or remaining.size > most[left]:
            return False
        counts = partition_counts(space, None, remaining)
        widest = np.where(not_solved, counts, 0).max(axis=1)
        tried: set[tuple[bytes, ...]] = set()
        for guess in np.argsort(widest, kind="stable").tolist():
            if widest[guess] > most[left - 1]:
                break  # sorted: every later guess keeps too many codes too
            ranges = kept(remaining, counts[guess], guess)
            if ranges in tried:
                continue  # the same split as a guess already tried
            tried.add(ranges)
            if any(within(after, left - 1) for after in ranges):
                return True
        return False

    everything = np.arange(space.size, dtype=np.int64)
    opening = np.bincount(space.table[first], minlength=space.classes)
    return any(within(after, guesses - 1) for after in kept(everything, opening, first))


def test_no_guesser_can_beat_the_evader_in_five() -> None:
    # Renaming symbols maps any code to any other and keeps every feedback, so every opening
    # is as good as 123: the search over the rest of the game covers every strategy.
    space = code_space()
    first = space.index["123"]
    assert not can_finish_within(space, 5, first)
    assert can_finish_within(space, 6, first)


@pytest.mark.parametrize(
    ("name", "paths"),
    [
        ("frequency", {7: 1}),
        ("super-comparison", {6: 17}),
        ("entropy", {6: 3}),
        ("optimal", {6: 6}),
    ],
)
def test_every_tie_path_takes_six_or_seven(name: str, paths: dict[int, int]) -> None:
    # Over every way the evader's ties can fall, the shipped guessers (an opening drawn from
    # seed "0" for those that draw it) need six, seven for 次數分析法, never fewer.
    assert every_tie_path(GUESSERS[name](MatchSeed.from_text("0"))) == Counter(paths)


def test_the_tie_rule_is_what_makes_six_the_least() -> None:
    # An evader that may take the solving answer on a tie concedes five-guess wins: the
    # optimal tree then finishes in five on some tie path.
    space = code_space()
    guesser = GUESSERS["optimal"](MatchSeed.from_text("0"))

    def conceding(history: History) -> int:
        guess = guesser.choose(space, history)
        remaining = np.flatnonzero(space.consistent_mask(list(history)))
        counts = np.bincount(space.table[guess, remaining], minlength=space.classes)
        if counts[space.solved] == counts.max():
            return len(history) + 1
        widest = np.flatnonzero(counts == counts.max()).tolist()
        return min(conceding([*history, (guess, f)]) for f in widest)

    assert conceding([]) == 5


def test_the_benchs_evader_games_quoted_in_strategies() -> None:
    # `arena bench bulls-cows`: 100 games per guesser against the evader, seed "0".
    histograms = {
        name: evaluate_evader(name, code_space(), runs=100, seed="0").histogram for name in BEST
    }
    assert histograms == {
        "optimal": {6: 100},
        "super-comparison": {6: 100},
        "entropy": {6: 100},
    }
