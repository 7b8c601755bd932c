"""Seed 001's wait census: one-suit concealed hands counted by how many tiles complete them.

Seed 001 reports, from a computer search, that among 13-tile hands only 九連寶燈
(1112345678999) waits on nine tiles, 16 hands on eight and 79 on seven; and for the 16-tile game
11, 94 and 532 hands. These counts are of one-suit hands, and they come out exactly under this
convention (`CONVENTION`): a hand is a multiset of one suit's nine ranks, at most four of a kind,
counted once (not its arrangements, not its shifts or mirror images apart from being distinct
multisets); its waits are the distinct ranks that complete it (sets and one pair), and a rank the
hand already holds four times is no wait, since there is no fifth copy. Counting such a rank as a
wait gives other figures (`FIFTH_COPY_FIGURES`), which is why the convention is stated.

Every one-suit pattern is a base-5 number, rank 1 the least significant digit, as in
`arena.games.mahjong.tables`; a rank's wait is one look-up in the per-suit win-flag table at the
pattern plus ``5**rank``. A rank held four times would need a fifth digit value, outside the
table: those few hands are checked by theorem 1 directly, on arrays.

Pure: numpy in, numbers out; the ``arena mahjong census`` command prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from arena.games.mahjong.tables import PAIR_FLAG, get_tables
from arena.games.mahjong.tiles import COPIES, MahjongError

__all__ = [
    "CONVENTION",
    "FIFTH_COPY_CONVENTION",
    "FIFTH_COPY_FIGURES",
    "SEED_FIGURES",
    "SEED_LISTED",
    "Census",
    "census",
    "one_suit_waits",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

RANKS = 9

SEED_FIGURES: dict[int, dict[int, int]] = {13: {7: 79, 8: 16, 9: 1}, 16: {7: 532, 8: 94, 9: 11}}
"""Seed 001's counts, by hand size: waits → hands, for seven, eight and nine waits."""

SEED_LISTED: dict[int, tuple[str, ...]] = {
    13: ("1112345678999m",),
    16: (
        "1122233345678999m",
        "1112345667788999m",
        "1112345666777888m",
        "1112345566778999m",
        "1112344556678999m",
    ),
}
"""The nine-wait hands seed 001 writes out (九連寶燈; for 16 tiles five, "or their shifts and
mirror images": 上述平移、對稱的牌型), in digit notation with suit ``m``."""

FIFTH_COPY_FIGURES: dict[int, dict[int, int]] = {
    13: {7: 155, 8: 44, 9: 8},
    16: {7: 1186, 8: 371, 9: 108},
}
"""What the same enumeration gives when a rank held four times counts as a wait."""

CONVENTION = (
    "a hand is a multiset of one suit's nine ranks (at most four of a kind), counted once; its "
    "waits are the distinct ranks that complete it, and a rank it already holds four times is "
    "no wait (there is no fifth copy)"
)
FIFTH_COPY_CONVENTION = (
    "the same, but a rank the hand holds four times counts as a wait when a fifth copy would "
    "complete it"
)


def _sets_only(digits: npt.NDArray[np.int64]) -> BoolArray:
    """Theorem 1 without a pair on rows of nine counts of any size (five and more included):
    scanning upwards, the copies left at a rank after the chows running through it take pungs
    first and open ``left % 3`` chows; ranks 8 and 9 open none."""
    ok = np.ones(digits.shape[0], dtype=bool)
    older = np.zeros(digits.shape[0], dtype=np.int64)
    newer = np.zeros(digits.shape[0], dtype=np.int64)
    for rank in range(RANKS):
        left = digits[:, rank] - older - newer
        ok &= left >= 0
        opened = np.where(left >= 0, left % 3, 0)
        if rank >= RANKS - 2:
            ok &= opened == 0
        older, newer = newer, opened
    return ok


def _sets_and_pair(digits: npt.NDArray[np.int64]) -> BoolArray:
    """Rows of nine counts (any size) that split into sets and one pair: every pair tried."""
    wins = np.zeros(digits.shape[0], dtype=bool)
    for rank in range(RANKS):
        has = digits[:, rank] >= 2
        if not has.any():
            continue
        without = digits[has].copy()
        without[:, rank] -= 2
        wins[np.flatnonzero(has)] |= _sets_only(without)
    return wins & (digits.sum(axis=1) % 3 == 2)


@cache
def _pattern_sizes() -> npt.NDArray[np.int8]:
    """Tiles in each of the 5**9 one-suit patterns, by pattern index: built digit by digit, the
    higher rank the more significant, without spelling out every pattern's nine digits."""
    sizes = np.arange(5, dtype=np.int8)
    for _ in range(RANKS - 1):
        sizes = (np.arange(5, dtype=np.int8)[:, None] + sizes[None, :]).ravel()
    return sizes


@cache
def one_suit_waits(size: int, fifth_copy: bool = False) -> tuple[IntArray, IntArray]:
    """Every one-suit hand of ``size`` tiles (its nine counts, rank 1 first, one row each, in
    pattern order) and its number of waits.

    With ``fifth_copy`` a rank the hand holds four times counts as a wait when a fifth copy
    would complete the hand; by default it does not (the seed's convention). The arrays are
    shared between calls: do not modify them.
    """
    if size < 1 or size % 3 != 1:
        raise MahjongError(f"a hand that waits holds 3k+1 tiles, got {size}")
    flags = get_tables().suit_win == PAIR_FLAG
    codes = np.flatnonzero(_pattern_sizes() == size)
    hands = (codes[:, None] // 5 ** np.arange(RANKS)) % 5
    n_waits = np.zeros(len(codes), dtype=np.int64)
    for rank in range(RANKS):
        can_take = hands[:, rank] < COPIES
        n_waits += can_take & flags[np.where(can_take, codes + 5**rank, 0)]
        if fifth_copy and not can_take.all():
            four = np.flatnonzero(~can_take)
            with_fifth = hands[four].copy()
            with_fifth[:, rank] += 1
            n_waits[four] += _sets_and_pair(with_fifth)
    hands.setflags(write=False)
    n_waits.setflags(write=False)
    return hands, n_waits


def _notation(counts: list[int], suit: str = "m") -> str:
    return "".join(str(rank + 1) * n for rank, n in enumerate(counts)) + suit


def _tally(n_waits: IntArray) -> dict[int, int]:
    values, hands = np.unique(n_waits, return_counts=True)
    return dict(zip(values.tolist(), hands.tolist(), strict=True))


@dataclass(frozen=True)
class Census:
    """Every one-suit hand of `tiles` tiles counted by its number of waits, beside seed 001."""

    tiles: int
    """Hand size: 13 or 16."""
    hands: int
    """One-suit hands enumerated (multisets of the nine ranks, at most four of a kind)."""
    by_waits: dict[int, int]
    """Waits → hands, under `CONVENTION`, for every number of waits that occurs (0 included)."""
    by_waits_fifth_copy: dict[int, int]
    """The same when a rank held four times counts as a wait (`FIFTH_COPY_CONVENTION`)."""
    seed: dict[int, int]
    """Seed 001's figures for 7, 8 and 9 waits."""
    most_waits: tuple[str, ...]
    """The hands with the most waits, in the seed's digit notation with suit ``m``, sorted."""
    seed_listed: tuple[str, ...]
    """Those of them the seed writes out (`SEED_LISTED`)."""

    @property
    def agrees(self) -> bool:
        """Whether our counts of 7, 8 and 9 waits are the seed's."""
        return all(self.by_waits.get(k, 0) == n for k, n in self.seed.items())

    @property
    def max_waits(self) -> int:
        return max(self.by_waits)


def census(tiles: int) -> Census:
    """Seed 001's census of one-suit hands of 13 or 16 tiles (the two sizes it reports)."""
    if tiles not in SEED_FIGURES:
        sizes = " or ".join(str(n) for n in SEED_FIGURES)
        raise MahjongError(f"seed 001 counts hands of {sizes} tiles, got {tiles}")
    hands, n_waits = one_suit_waits(tiles)
    _, n_fifth = one_suit_waits(tiles, fifth_copy=True)
    most = int(n_waits.max())
    return Census(
        tiles=tiles,
        hands=len(hands),
        by_waits=_tally(n_waits),
        by_waits_fifth_copy=_tally(n_fifth),
        seed=dict(SEED_FIGURES[tiles]),
        most_waits=tuple(sorted(_notation(c) for c in hands[n_waits == most].tolist())),
        seed_listed=SEED_LISTED[tiles],
    )
