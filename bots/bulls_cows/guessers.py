"""1A2B guessers (seed 004 §四(三)): pure strategies over a `CodeSpace` and a history.

A history is the list of (guess index, feedback encoding) pairs received so far; a guesser returns
the index of its next guess. The seed's three methods draw randomness, from the stream each is
given: `RandomGuesser` at every guess, `FrequencyGuesser` and `SuperComparisonGuesser` for the
opening only (§四(三)1(2): "第一次…以隨機方式從原始範圍內取出一個數字組"); from the second
guess on those two are functions of the history. `EntropyGuesser` never draws.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from arena.dealing import RandomStream
from arena.games.bulls_cows import CodeSpace

History = Sequence[tuple[int, int]]
IntArray = npt.NDArray[np.int64]

#: scores closer than this are ties (entropy sums are floats)
_TIE = 1e-9
#: (guess, secret) pairs `partition_counts` handles at once: 8 MB of int64 temporaries
_BLOCK = 1 << 20


def consistent(space: CodeSpace, history: History) -> IntArray:
    """Indices of the codes consistent with every answer of ``history``, ascending."""
    return np.flatnonzero(space.consistent_mask(list(history)))


def partition_counts(
    space: CodeSpace, guesses: IntArray | None, secrets: IntArray, block: int = _BLOCK
) -> IntArray:
    """``counts[i, f]``: how many of ``secrets`` answer guess ``guesses[i]`` with feedback ``f``.

    ``guesses=None`` means every code. One bincount over offset feedback values does a block of
    rows at once; the blocks hold about ``block`` (guess, secret) pairs, because the offset
    values are int64 and all rows at once would be 8 bytes a pair (about 500 MB at 7,920 codes).
    """
    width = space.classes
    count = space.size if guesses is None else int(guesses.size)
    counts = np.empty((count, width), dtype=np.int64)
    step = max(1, min(count, block // max(1, int(secrets.size))))
    offsets = (np.arange(step, dtype=np.int64) * width)[:, None]
    for start in range(0, count, step):
        stop = min(start + step, count)
        if guesses is None:
            rows = space.table[start:stop][:, secrets]
        else:
            rows = space.table[np.ix_(guesses[start:stop], secrets)]
        size = stop - start
        flat = np.bincount((rows + offsets[:size]).ravel(), minlength=size * width)
        counts[start:stop] = flat.reshape(size, width)
    return counts


def _prefer_consistent(candidates: IntArray, in_set: npt.NDArray[np.bool_]) -> int:
    """Among equally scored guesses: one that may be the secret, then the smallest code."""
    hits = candidates[in_set[candidates]]
    return int(hits[0] if hits.size else candidates[0])


@lru_cache(maxsize=4)
def symbol_matrix(space: CodeSpace) -> IntArray:
    """``m[c, p]``: alphabet position of the symbol at position ``p`` of code ``c``."""
    rank = {symbol: i for i, symbol in enumerate(space.alphabet)}
    return np.array([[rank[s] for s in code] for code in space.codes], dtype=np.int64)


class Guesser(ABC):
    """A guessing strategy. Deterministic unless it says otherwise."""

    name: str = ""

    @abstractmethod
    def choose(self, space: CodeSpace, history: History) -> int:
        """The index of the next guess."""


class RandomGuesser(Guesser):
    """隨機取樣法: a uniformly random code consistent with every answer so far."""

    name = "random"

    def __init__(self, stream: RandomStream) -> None:
        self.stream = stream

    def choose(self, space: CodeSpace, history: History) -> int:
        remaining = consistent(space, history)
        if remaining.size == 0:
            return 0
        return int(remaining[self.stream.randbelow(int(remaining.size))])


def frequency_weights(space: CodeSpace, remaining: IntArray) -> IntArray:
    """次數分析法 (圖二–圖四): each position's symbols ranked by how often they occur there
    among ``remaining`` (most often = rank 1; ties by alphabet order, as 圖三 lists them); a
    code's weight is the sum of its symbols' ranks. Returned for every code of ``remaining``."""
    symbols = symbol_matrix(space)[remaining]
    size = len(space.alphabet)
    weights = np.zeros(remaining.size, dtype=np.int64)
    for position in range(space.digits):
        counts = np.bincount(symbols[:, position], minlength=size)
        order = np.lexsort((np.arange(size), -counts))
        rank = np.empty(size, dtype=np.int64)
        rank[order] = np.arange(1, size + 1)
        weights += rank[symbols[:, position]]
    return weights


class _RandomOpening(Guesser):
    """Opens with a uniformly random code of the whole space, as every method of the seed does
    (§四(三)1(2)), then follows `follow` on the consistent codes."""

    def __init__(self, stream: RandomStream) -> None:
        self.stream = stream

    def choose(self, space: CodeSpace, history: History) -> int:
        if not history:
            return self.stream.randbelow(space.size)
        remaining = consistent(space, history)
        if remaining.size == 0:
            return 0
        return self.follow(space, remaining)

    @abstractmethod
    def follow(self, space: CodeSpace, remaining: IntArray) -> int:
        """The guess for this non-empty consistent set."""


class FrequencyGuesser(_RandomOpening):
    """次數分析法: a random opening, then the consistent code of least rank weight (ties: the
    smallest code)."""

    name = "frequency"

    def follow(self, space: CodeSpace, remaining: IntArray) -> int:
        weights = frequency_weights(space, remaining)
        return int(remaining[int(np.argmin(weights))])


def super_comparison_pick(space: CodeSpace, remaining: IntArray) -> int:
    """超級比較法: every code is a candidate; sort each candidate's partition histogram from the
    highest bar down and keep the candidates whose tallest bar is lowest, then second tallest,
    and so on. Ties go to a code that may be the secret, then to the smallest code."""
    counts = partition_counts(space, None, remaining)
    bars = -np.sort(-counts, axis=1)
    candidates = np.arange(space.size, dtype=np.int64)
    for column in range(bars.shape[1]):
        values = bars[candidates, column]
        candidates = candidates[values == values.min()]
        if candidates.size == 1 or values.max() == 0:
            break
    in_set = np.zeros(space.size, dtype=bool)
    in_set[remaining] = True
    return _prefer_consistent(candidates, in_set)


class SuperComparisonGuesser(_RandomOpening):
    """超級比較法 (see `super_comparison_pick`) after a random opening. Drawing the opening also
    spares its costliest decision, every code against every code (seconds on 4 of 0–9)."""

    name = "super-comparison"

    def follow(self, space: CodeSpace, remaining: IntArray) -> int:
        # One or two codes left: guessing the smallest is what the pick would choose anyway
        # (every splitting guess ties, and a consistent code is preferred), without its cost.
        if remaining.size <= 2:
            return int(remaining[0])
        return super_comparison_pick(space, remaining)


def entropy_scores(counts: IntArray) -> npt.NDArray[np.float64]:
    """Σ c·log2 c over a partition: lower means more information (total is fixed)."""
    values = counts.astype(np.float64)
    logs = np.log2(values, out=np.zeros_like(values), where=values > 0)
    scores: npt.NDArray[np.float64] = (values * logs).sum(axis=1)
    return scores


def entropy_pick(space: CodeSpace, remaining: IntArray) -> int:
    """The code whose answer has the most entropy; ties to a consistent code, then smallest."""
    scores = entropy_scores(partition_counts(space, None, remaining))
    candidates = np.flatnonzero(scores <= scores.min() + _TIE).astype(np.int64)
    in_set = np.zeros(space.size, dtype=bool)
    in_set[remaining] = True
    return _prefer_consistent(candidates, in_set)


class EntropyGuesser(Guesser):
    """Maximum partition entropy over every code. Deterministic, opening included: renaming
    symbols maps any code to any other and keeps every feedback, so at the start every code
    has the same answer distribution and the tie rule takes the smallest; nothing to compute."""

    name = "entropy"

    def choose(self, space: CodeSpace, history: History) -> int:
        if not history:
            return 0
        remaining = consistent(space, history)
        if remaining.size <= 2:
            # As for 超級比較法: the pick itself would take the smallest consistent code.
            return int(remaining[0]) if remaining.size else 0
        return entropy_pick(space, remaining)
