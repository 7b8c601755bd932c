"""Win detection, decompositions and waits (seed 001), plus the numpy batch win check.

All functions take the concealed part of a hand as 34 counts (see `tiles.to_counts`); exposed
melds are complete sets and are not passed. A winning concealed part is ``k`` sets (pungs or
chows) and one pair for some ``k``: 5 in the 16-tile game (17 tiles), 4 for 14 tiles.

`is_winning` follows seed 001: theorem 2 (the counts of the 1-4-7, 2-5-8 and 3-6-9 groups
and of each suit, taken mod 3) locates the pair's suit and group, so at most three pairs are
tried; theorem 1 (after the pair, the smallest tile starts a pung if it has three copies,
otherwise a chow) then checks each suit in one upward pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from arena.games.mahjong.deficiency import CountsLike, deficiency, deficiency_batch, useful_tiles
from arena.games.mahjong.speedups import c_is_winning
from arena.games.mahjong.tables import POW5, WIN_SUM, get_tables
from arena.games.mahjong.tiles import (
    COPIES,
    NUM_KINDS,
    MahjongError,
    TileCountError,
    format_tiles,
    is_honour,
)

__all__ = [
    "Decomposition",
    "SetKind",
    "deficiency",
    "deficiency_batch",
    "is_winning",
    "is_winning_batch",
    "pair_candidates",
    "useful_tiles",
    "waits",
    "winning_decompositions",
]

SetKind = Literal["pung", "chow"]


@dataclass(frozen=True)
class Decomposition:
    """One split of a winning concealed hand: the pair and the sets, sorted by first tile.

    Each set is ``("pung", tile)`` or ``("chow", first_tile)``.
    """

    pair: int
    sets: tuple[tuple[SetKind, int], ...]

    @property
    def pungs(self) -> tuple[int, ...]:
        return tuple(t for kind, t in self.sets if kind == "pung")

    @property
    def chows(self) -> tuple[int, ...]:
        return tuple(t for kind, t in self.sets if kind == "chow")

    def __str__(self) -> str:
        parts = [format_tiles([self.pair] * 2)]
        for kind, t in self.sets:
            parts.append(format_tiles([t] * 3 if kind == "pung" else [t, t + 1, t + 2]))
        return " ".join(parts)


def _validated(counts: CountsLike) -> list[int]:
    c = counts.tolist() if isinstance(counts, np.ndarray) else list(counts)
    if len(c) != NUM_KINDS:
        raise MahjongError(f"expected {NUM_KINDS} counts, got {len(c)}")
    if max(c) > COPIES or min(c) < 0:
        raise TileCountError(f"counts must lie in 0..{COPIES}, got {c}")
    return c


_VALID_COUNTS = bytes(range(COPIES + 1))


def _theorem_one_steps() -> list[int]:
    """Theorem 1 without a pair, as a transition table over ranks.

    Scanning a suit upwards, the copies left at a rank after the chows already running through it
    open ``left % 3`` new chows (three copies go to a pung first). The state is the number of
    chows opened at the previous two ranks (0..2 each, so 9 states) plus a dead state once some
    rank lacks copies; entry ``5 * state + count`` is ``5 * next_state``, pre-multiplied so that
    one step is one addition and one index. Ending in state 0 means no chow was opened at rank 8
    or 9, where none can be completed.
    """
    dead = 9
    steps = [5 * dead] * (5 * (dead + 1))
    for state in range(dead):
        prev, prev2 = divmod(state, 3)
        for count in range(5):
            left = count - prev - prev2
            if left >= 0:
                steps[5 * state + count] = 5 * (3 * (left % 3) + prev)
    return steps


_STEPS = _theorem_one_steps()


def _sets_only(c: Sequence[int], t: list[int] = _STEPS) -> bool:
    """Can one suit's nine counts (each 0..4) split into sets only? Theorem 1, nine steps.

    Written as one expression, the table bound as a default argument: this is the inner loop of
    every win and wait check, and it runs at twice the speed of the same rule spelt out in
    branches.
    """
    r1, r2, r3, r4, r5, r6, r7, r8, r9 = c
    return t[t[t[t[t[t[t[t[t[r1] + r2] + r3] + r4] + r5] + r6] + r7] + r8] + r9] == 0


_GROUP_RANKS = ((0, 3, 6), (1, 4, 7), (2, 5, 8))


def _pair_group(c: Sequence[int]) -> tuple[int, int, int]:
    """Theorem 2 in one suit of nine counts: the ranks (0-based) of the group, 147, 258 or 369,
    whose total mod 3 differs from the other two's, the only group that can hold the pair."""
    g0 = (c[0] + c[3] + c[6]) % 3
    g1 = (c[1] + c[4] + c[7]) % 3
    return _GROUP_RANKS[2 if g0 == g1 else 1 if g0 == (c[2] + c[5] + c[8]) % 3 else 0]


def _sets_and_pair(c: list[int]) -> bool:
    """Theorem 2 picks the group that must hold the pair, and theorem 1 checks each candidate
    pair of that group (`pair_candidates`)."""
    for i in _pair_group(c):
        if c[i] >= 2:
            c[i] -= 2
            ok = _sets_only(c)
            c[i] += 2
            if ok:
                return True
    return False


def pair_candidates(counts: CountsLike) -> list[int]:
    """The tiles theorem 2 leaves as the pair of a hand of 34 counts, in tile order: the only
    pairs `is_winning` tries, at most three (seed 001).

    Sets leave a suit's total, and an honour's count, at 0 mod 3, and the pair makes it 2, so
    exactly one suit or honour must be at 2 and none at 1 (else no pair is left). In a suit, the
    1-4-7, 2-5-8 or 3-6-9 group `_pair_group` picks (the one `is_winning` tries) holds it: those
    of its three tiles with two copies or more.
    """
    c = _validated(counts)
    remainders = [sum(c[9 * s : 9 * s + 9]) % 3 for s in range(3)] + [n % 3 for n in c[27:]]
    if 1 in remainders or remainders.count(2) != 1:
        return []
    part = remainders.index(2)
    if part >= 3:
        return [24 + part]
    suit = c[9 * part : 9 * part + 9]
    return [9 * part + i for i in _pair_group(suit) if suit[i] >= 2]


def is_winning(counts: CountsLike, sets_needed: int | None = None) -> bool:
    """Is this concealed hand ``k`` sets and a pair (``k = sets_needed`` when given)?

    True is only answered for a valid hand (counts in 0..4, else `TileCountError`), but invalid
    counts may be answered False unchecked: this is the inner loop of wait and discard searches,
    and checking every count up front would cost more than the usual quick rejection.
    """
    if c_is_winning is not None:
        answer = c_is_winning(counts, sets_needed)
        if answer is not None:
            return answer
    return _is_winning_python(counts, sets_needed)


def _is_winning_python(counts: CountsLike, sets_needed: int | None = None) -> bool:
    """`is_winning` in Python (theorems 1 and 2): the reference for the C version, and its
    fallback for every input the C version leaves to it."""
    if type(counts) is not list or len(counts) != NUM_KINDS:
        counts = _validated(counts)
    h = counts[27:34]
    if 1 in h or 4 in h:
        return False
    pair_in = -1
    if 2 in h:
        if h.count(2) > 1:
            return False
        pair_in = 3
    m = counts[0:9]
    p = counts[9:18]
    s = counts[18:27]
    # Theorem 2 across suits: sets leave a suit's total at 0 mod 3, the pair makes it 2.
    n_m = sum(m)
    r = n_m % 3
    if r:
        if r == 1 or pair_in >= 0:
            return False
        pair_in = 0
    n_p = sum(p)
    r = n_p % 3
    if r:
        if r == 1 or pair_in >= 0:
            return False
        pair_in = 1
    n_s = sum(s)
    r = n_s % 3
    if r:
        if r == 1 or pair_in >= 0:
            return False
        pair_in = 2
    if pair_in < 0:
        return False
    try:
        if pair_in != 0 and n_m and not _sets_only(m):
            return False
        if pair_in != 1 and n_p and not _sets_only(p):
            return False
        if pair_in != 2 and n_s and not _sets_only(s):
            return False
        if pair_in != 3 and not _sets_and_pair((m, p, s)[pair_in]):
            return False
    except IndexError:
        # A count far outside 0..4 stepped off the theorem-1 table.
        _validated(counts)
        raise
    try:
        invalid = bytes(counts).translate(None, _VALID_COUNTS)
    except (TypeError, ValueError):
        invalid = b"?"
    if invalid:
        raise TileCountError(f"counts must lie in 0..{COPIES}, got {counts}")
    return sets_needed is None or n_m + n_p + n_s + sum(h) == 3 * sets_needed + 2


def _set_splits(c: list[int], start: int) -> Iterator[list[tuple[SetKind, int]]]:
    """Every split of the counts into sets, smallest tile first (both branches, unlike
    theorem 1, because the scorer needs all of them: 111222333 is three pungs or three chows).
    """
    t = start
    while t < NUM_KINDS and c[t] == 0:
        t += 1
    if t == NUM_KINDS:
        yield []
        return
    if c[t] >= 3:
        c[t] -= 3
        for rest in _set_splits(c, t):
            yield [("pung", t), *rest]
        c[t] += 3
    if not is_honour(t) and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        for rest in _set_splits(c, t):
            yield [("chow", t), *rest]
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1


def winning_decompositions(counts: CountsLike) -> list[Decomposition]:
    """Every distinct way to split a winning concealed hand into a pair and sets.

    Empty for a hand that does not win. The Tai scorer scores each and keeps the best.
    """
    c = _validated(counts)
    if not is_winning(c):
        return []
    found: dict[Decomposition, None] = {}
    for pair in range(NUM_KINDS):
        if c[pair] < 2:
            continue
        c[pair] -= 2
        for sets in _set_splits(c, 0):
            ordered = tuple(sorted(sets, key=lambda st: (st[1], st[0])))
            found.setdefault(Decomposition(pair, ordered), None)
        c[pair] += 2
    return list(found)


def waits(counts: CountsLike, melds_tiles_counts: CountsLike | None = None) -> list[int]:
    """Tiles that complete a ``3k+1`` concealed hand, in tile order.

    A tile whose four copies are already in the hand or in the player's own exposed melds
    (``melds_tiles_counts``, 34 counts) cannot arrive and is not a wait.
    """
    c = _validated(counts)
    if sum(c) % 3 != 1:
        raise MahjongError(f"waits need a hand of 3k+1 tiles, got {sum(c)}")
    own = [0] * NUM_KINDS if melds_tiles_counts is None else _validated(melds_tiles_counts)
    found: list[int] = []
    for t in range(NUM_KINDS):
        if c[t] + own[t] >= COPIES:
            continue
        # A tile with no copy or neighbour in the hand would stay alone in every split.
        if is_honour(t):
            if not c[t]:
                continue
        else:
            rank = t % 9
            lo, hi = t - min(rank, 2), t + min(8 - rank, 2)
            if not any(c[lo : hi + 1]):
                continue
        c[t] += 1
        if is_winning(c):
            found.append(t)
        c[t] -= 1
    return found


_BATCH_ROWS = 1 << 16
"""Rows per chunk: bounds the temporary arrays (a few MB) while keeping numpy calls large."""


def is_winning_batch(
    counts_array: npt.ArrayLike, sets_needed: int | None = None
) -> npt.NDArray[np.bool_]:
    """Win check for many concealed hands at once: an (N, 34) array of counts in, N bools out.

    Each suit's base-5 pattern index selects a precomputed theorem-1/theorem-2 flag (sets only,
    or sets and a pair); honours likewise; a hand wins when three components are sets only and
    one holds the pair.
    """
    arr = np.asarray(counts_array)
    if arr.ndim != 2 or arr.shape[1] != NUM_KINDS:
        raise MahjongError(f"expected an (N, {NUM_KINDS}) array, got shape {arr.shape}")
    if arr.size and (int(arr.max()) > COPIES or int(arr.min()) < 0):
        raise TileCountError(f"counts must lie in 0..{COPIES}")
    tables = get_tables()
    out = np.empty(arr.shape[0], dtype=bool)
    suit_win, honour_win = tables.suit_win, tables.honour_win
    weights = POW5
    for lo in range(0, arr.shape[0], _BATCH_ROWS):
        chunk = arr[lo : lo + _BATCH_ROWS].astype(np.int32)
        codes = chunk[:, :27].reshape(-1, 3, 9) @ weights
        honour_codes = chunk[:, 27:] @ weights[:7]
        total = suit_win[codes].sum(axis=1, dtype=np.int32) + honour_win[honour_codes]
        won = total == WIN_SUM
        if sets_needed is not None:
            won &= chunk.sum(axis=1) == 3 * sets_needed + 2
        out[lo : lo + _BATCH_ROWS] = won
    return out
