"""1A2B guessers (seed 004 §四(三)): pure strategies over a `CodeSpace` and a history.

A history is the list of (guess index, feedback encoding) pairs received so far; a guesser returns
the index of its next guess. Only `RandomGuesser` draws randomness, from the stream it is given.
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


def consistent(space: CodeSpace, history: History) -> IntArray:
    """Indices of the codes consistent with every answer of ``history``, ascending."""
    return np.flatnonzero(space.consistent_mask(list(history)))


def partition_counts(space: CodeSpace, guesses: IntArray | None, secrets: IntArray) -> IntArray:
    """``counts[i, f]``: how many of ``secrets`` answer guess ``guesses[i]`` with feedback ``f``.

    ``guesses=None`` means every code. One bincount over offset feedback values does all rows.
    """
    rows = space.table[:, secrets] if guesses is None else space.table[np.ix_(guesses, secrets)]
    count = rows.shape[0]
    width = space.classes
    offsets = (np.arange(count, dtype=np.int64) * width)[:, None]
    flat = np.bincount((rows + offsets).ravel(), minlength=count * width)
    return flat.reshape(count, width)


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


class FrequencyGuesser(Guesser):
    """次數分析法: the consistent code of least rank weight (ties: the smallest code)."""

    name = "frequency"

    def choose(self, space: CodeSpace, history: History) -> int:
        remaining = consistent(space, history)
        if remaining.size == 0:
            return 0
        weights = frequency_weights(space, remaining)
        return int(remaining[int(np.argmin(weights))])


class _CachedFirst(Guesser):
    """Every code-space has one opening for a deterministic guesser: work it out once."""

    def __init__(self) -> None:
        self._first: dict[tuple[int, str], int] = {}

    def choose(self, space: CodeSpace, history: History) -> int:
        if not history:
            key = (space.digits, space.alphabet)
            if key not in self._first:
                self._first[key] = self.pick(space, np.arange(space.size, dtype=np.int64))
            return self._first[key]
        remaining = consistent(space, history)
        if remaining.size <= 2:
            return int(remaining[0]) if remaining.size else 0
        return self.pick(space, remaining)

    @abstractmethod
    def pick(self, space: CodeSpace, remaining: IntArray) -> int:
        """The guess for this consistent set (``remaining.size >= 2``)."""


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


class SuperComparisonGuesser(_CachedFirst):
    """超級比較法 (see `super_comparison_pick`)."""

    name = "super-comparison"

    def pick(self, space: CodeSpace, remaining: IntArray) -> int:
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


class EntropyGuesser(_CachedFirst):
    """Maximum partition entropy over every code."""

    name = "entropy"

    def pick(self, space: CodeSpace, remaining: IntArray) -> int:
        return entropy_pick(space, remaining)
