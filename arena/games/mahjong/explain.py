"""Seed 001's reasoning on one hand, step by step: which suit and which pile hold the pair
(theorem 2), then theorem 1's pass for each candidate pair, from the lowest tile up.

A winning concealed hand is sets (pungs 333, chows 345) and one pair. Sets leave every suit's
tile count at a multiple of 3 and the pair adds 2 to one suit, so the suit whose count is
``2 mod 3`` holds the pair and every other suit must split into sets alone. In that suit,
theorem 2 splits the tiles into three piles, 1-4-7 (一四七), 2-5-8 (二五八) and 3-6-9 (三六九):
a chow adds one tile to each pile and a pung three to one, so without the pair the three piles
are equal mod 3, and the pair sits in the pile whose remainder differs. Theorem 1 then checks a
candidate pair in one upward pass: the pair removed, the lowest tile left starts a pung if it is
held three times or more, otherwise a chow; the hand wins exactly when the pass empties it.

The seed's example 2 (55666777889) tries every pair held twice before theorem 2 is introduced;
so does `explain`, marking those outside theorem 2's pile as ruled out (their pass never wins:
`is_winning` does not try them). Honours form no chows, so theorem 2 has no piles for them and
every honour held twice is tried.

`parse_hand` reads the hand; ``any_copies`` allows more than four copies of a tile and any size,
for the seed's thought experiment 33333444555566777888899999 ("每張牌可以超過4張的話"). Pure:
values in, dataclasses out; ``arena mahjong explain`` renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from arena.games.mahjong.scoring import HAND_TILES
from arena.games.mahjong.tiles import (
    HONOUR,
    NUM_KINDS,
    SUIT_LETTERS,
    MahjongError,
    NotationError,
    format_tiles,
    parse_tiles,
    tile_from,
    to_counts,
)

__all__ = [
    "PILE_NAMES",
    "SUIT_NAMES",
    "Explanation",
    "PairTry",
    "Piles",
    "Stop",
    "SuitCount",
    "SuitPass",
    "TileSet",
    "explain",
    "parse_hand",
]

MAX_TILES = HAND_TILES + 1
"""A concealed hand just after a draw, with no melds: 17 tiles."""

SUIT_NAMES = ("m (萬)", "p (筒)", "s (條)", "z (字, honours)")
PILE_NAMES = ("1-4-7 (一四七)", "2-5-8 (二五八)", "3-6-9 (三六九)")
_SUIT_SIZE = (9, 9, 9, 7)
_TIMES = {1: "once", 2: "twice"}

SetKind = Literal["pung", "chow"]


def _kind_text(suit: int, index: int) -> str:
    """A tile inside a pass's text: its rank in a numbered suit (the seed's "4"), ``1z`` for an
    honour."""
    return f"{index + 1}z" if suit == HONOUR else str(index + 1)


def _notation(suit: int, counts: Sequence[int]) -> str:
    """One suit's counts in the seed's digit notation with the suit letter; any copies."""
    digits = "".join(str(i + 1) * n for i, n in enumerate(counts))
    return digits + SUIT_LETTERS[suit] if digits else ""


@dataclass(frozen=True)
class TileSet:
    """A set theorem 1 took: a pung of `tile` or a chow starting at it."""

    kind: SetKind
    tile: int
    """Tile index 0..33 (the first tile of a chow)."""

    def __str__(self) -> str:
        tiles = [self.tile] * 3 if self.kind == "pung" else [self.tile + k for k in range(3)]
        return format_tiles(tiles)


@dataclass(frozen=True)
class Stop:
    """Where theorem 1's pass stops: the lowest tile left can start neither a pung nor a chow."""

    tile: int
    """The lowest tile left."""
    held: int
    """Its copies left: 1 or 2 (three or more would be a pung)."""
    missing: tuple[int, ...]
    """The tiles after it a chow would need and the suit lacks; empty when the pass stops for
    another reason (no chow starts at 8, 9 or an honour; held twice, the next two only once)."""
    reason: str
    """The same in plain English, as the seed says it: "4 has no 5 after it"."""


@dataclass(frozen=True)
class SuitPass:
    """Theorem 1 over one suit: the pair (if this suit holds it) removed, then the sets the
    lowest tile left starts, in order, until the suit is empty (it splits) or a tile stops it."""

    suit: int
    """0..3: m, p, s, z."""
    pair: int | None
    """The pair's tile index, removed first; None for a suit that must hold sets only."""
    sets: tuple[TileSet, ...]
    stop: Stop | None
    """None when the pass emptied the suit."""
    left: str
    """The tiles left when the pass stopped, in digit notation with suit ("889m"); empty when
    it did not stop."""

    @property
    def splits(self) -> bool:
        return self.stop is None


@dataclass(frozen=True)
class SuitCount:
    """One suit's tile count: sets leave it at 0 mod 3, the pair at 2."""

    suit: int
    tiles: int

    @property
    def remainder(self) -> int:
        return self.tiles % 3


@dataclass(frozen=True)
class Piles:
    """Theorem 2 in the suit that holds the pair: tiles in the piles 1-4-7, 2-5-8 and 3-6-9."""

    tiles: tuple[int, int, int]

    @property
    def remainders(self) -> tuple[int, int, int]:
        a, b, c = self.tiles
        return a % 3, b % 3, c % 3

    @property
    def pair_pile(self) -> int:
        """0, 1 or 2: the pile whose remainder differs from the other two's (with a suit total
        of 2 mod 3, exactly one does)."""
        r = self.remainders
        return 2 if r[0] == r[1] else 1 if r[0] == r[2] else 0


@dataclass(frozen=True)
class PairTry:
    """One pair held in the pair's suit and theorem 1's pass after it."""

    pair: int
    allowed: bool
    """Whether theorem 2 leaves it (its rank is in the pair's pile; always for honours)."""
    steps: SuitPass


@dataclass(frozen=True)
class Explanation:
    """Seed 001's reasoning on one concealed hand of 3k+2 tiles."""

    hand: str
    """The hand in compact notation, sorted."""
    counts: tuple[int, ...]
    """34 counts (above four only under ``any_copies``)."""
    suits: tuple[SuitCount, ...]
    """The suits holding tiles, m p s z."""
    pair_suit: int | None
    """The suit at 2 mod 3; None when the counts rule out every suit (`suit_problem`)."""
    suit_problem: str | None
    """Why no suit can hold the pair, in plain English; None when one can."""
    piles: Piles | None
    """Theorem 2's piles in the pair's suit; None for honours or no pair suit."""
    pairs: tuple[PairTry, ...]
    """Every tile of the pair's suit held twice or more, lowest first."""
    others: tuple[SuitPass, ...]
    """Theorem 1 on every other suit holding tiles: sets only, no pair."""

    @property
    def tiles(self) -> int:
        return sum(self.counts)

    @property
    def winner(self) -> PairTry | None:
        """The lowest pair theorem 2 allows whose pass splits, if the other suits split too."""
        if not all(p.splits for p in self.others):
            return None
        return next((t for t in self.pairs if t.allowed and t.steps.splits), None)

    @property
    def wins(self) -> bool:
        return self.winner is not None

    @property
    def split(self) -> str | None:
        """The winning split: the pair, then each suit's sets (m p s z) in the order theorem 1
        took them, as the seed lists them: ``88m 333m 345m 345m 456m …``."""
        winner = self.winner
        if winner is None:
            return None
        passes = sorted([winner.steps, *self.others], key=lambda p: p.suit)
        sets = [str(s) for p in passes for s in p.sets]
        return " ".join([format_tiles([winner.pair] * 2), *sets])

    @property
    def verdict(self) -> str:
        """Winning or not, and why, in one sentence."""
        if self.wins:
            return f"winning: {self.split}"
        if self.suit_problem is not None:
            return f"not winning: {self.suit_problem}"
        stopped = [SUIT_LETTERS[p.suit] for p in self.others if not p.splits]
        if stopped:
            return f"not winning: {_joined(stopped)} cannot split into sets"
        allowed = [t for t in self.pairs if t.allowed]
        assert self.pair_suit is not None
        where = SUIT_LETTERS[self.pair_suit]
        if self.piles is not None:
            where = f"the pile {PILE_NAMES[self.piles.pair_pile]} of {where}"
        if not allowed:
            return f"not winning: no tile of {where} is held twice, so there is no pair"
        tried = ", ".join(format_tiles([t.pair] * 2) for t in allowed)
        return f"not winning: theorem 1 stops after every pair of {where} ({tried})"


def _stop(suit: int, counts: list[int], x: int, chows: bool) -> Stop:
    held = counts[x]
    tile = tile_from(suit, x + 1)
    name = _kind_text(suit, x)
    times = _TIMES.get(held, f"{held} times")
    if not chows:
        reason = f"{name} is held {times}, too few for a pung, and honours form no chows"
        return Stop(tile, held, (), reason)
    if x + 2 >= len(counts):
        reason = f"{name} is held {times}, too few for a pung, and no chow starts at {name}"
        return Stop(tile, held, (), reason)
    missing = tuple(k for k in (x + 1, x + 2) if counts[k] == 0)
    if missing:
        gone = " and ".join(_kind_text(suit, k) for k in missing)
        if missing == (x + 2,):
            reason = f"{name} has {_kind_text(suit, x + 1)} but no {gone} after it"
        else:
            reason = f"{name} has no {gone} after it"
        return Stop(tile, held, tuple(tile + k - x for k in missing), reason)
    chow = "".join(_kind_text(suit, k) for k in (x, x + 1, x + 2))
    return Stop(tile, held, (), f"{name} is held {times} but {chow} cannot be taken {times}")


def _theorem_one(suit: int, suit_counts: Sequence[int], pair: int | None) -> SuitPass:
    """Theorem 1's pass over one suit (``pair``, a tile index of the suit, removed first)."""
    counts = list(suit_counts)
    base = tile_from(suit, 1)
    if pair is not None:
        counts[pair - base] -= 2
    chows = suit != HONOUR
    sets: list[TileSet] = []
    x = 0
    while True:
        while x < len(counts) and counts[x] == 0:
            x += 1
        if x == len(counts):
            return SuitPass(suit, pair, tuple(sets), None, "")
        held = counts[x]
        if held >= 3:
            counts[x] -= 3
            sets.append(TileSet("pung", base + x))
            continue
        if chows and x + 2 < len(counts) and min(counts[x + 1], counts[x + 2]) >= held:
            # Every copy left of the lowest tile must start a chow: take them all.
            for _ in range(held):
                sets.append(TileSet("chow", base + x))
            for k in (x, x + 1, x + 2):
                counts[k] -= held
            continue
        stop = _stop(suit, counts, x, chows)
        return SuitPass(suit, pair, tuple(sets), stop, _notation(suit, counts))


def _joined(names: Sequence[str]) -> str:
    """``m``, ``m and p``, ``m, p and s``."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _suit_problem(suits: Sequence[SuitCount]) -> str | None:
    ones = [SUIT_LETTERS[s.suit] for s in suits if s.remainder == 1]
    twos = [SUIT_LETTERS[s.suit] for s in suits if s.remainder == 2]
    if ones:
        return (
            f"{_joined(ones)} {'holds' if len(ones) == 1 else 'hold'} 1 tile more than a "
            "multiple of 3, and sets and one pair leave every suit at 0 or 2 mod 3"
        )
    if len(twos) != 1:
        both = "both" if len(twos) == 2 else "all"
        return f"{_joined(twos)} {both} hold 2 more than a multiple of 3, but a hand has one pair"
    return None


def explain(counts: Sequence[int]) -> Explanation:
    """Seed 001's reasoning on a concealed hand of 3k+2 tiles, as 34 counts (any copies)."""
    c = [int(n) for n in counts]
    if len(c) != NUM_KINDS:
        raise MahjongError(f"expected {NUM_KINDS} counts, got {len(c)}")
    if min(c) < 0:
        raise MahjongError(f"counts cannot be negative, got {c}")
    total = sum(c)
    if total % 3 != 2:
        raise MahjongError(f"a winning hand holds 3k+2 tiles (sets and a pair), got {total}")
    per_suit = [c[9 * s : 9 * s + _SUIT_SIZE[s]] for s in range(4)]
    suits = tuple(SuitCount(s, sum(part)) for s, part in enumerate(per_suit) if sum(part))
    problem = _suit_problem(suits)
    pair_suit = next(s.suit for s in suits if s.remainder == 2) if problem is None else None
    piles: Piles | None = None
    pairs: list[PairTry] = []
    others: tuple[SuitPass, ...] = ()
    if pair_suit is not None:
        part = per_suit[pair_suit]
        if pair_suit != HONOUR:
            a, b, d = (sum(part[g::3]) for g in range(3))
            piles = Piles((a, b, d))
        for i, held in enumerate(part):
            if held >= 2:
                tile = tile_from(pair_suit, i + 1)
                allowed = piles is None or i % 3 == piles.pair_pile
                pairs.append(PairTry(tile, allowed, _theorem_one(pair_suit, part, tile)))
        others = tuple(
            _theorem_one(s.suit, per_suit[s.suit], None) for s in suits if s.suit != pair_suit
        )
    return Explanation(
        hand=_hand_text(c),
        counts=tuple(c),
        suits=suits,
        pair_suit=pair_suit,
        suit_problem=problem,
        piles=piles,
        pairs=tuple(pairs),
        others=others,
    )


def _hand_text(counts: Sequence[int]) -> str:
    return "".join(_notation(s, counts[9 * s : 9 * s + _SUIT_SIZE[s]]) for s in range(4))


def _parse_any_copies(text: str) -> list[int]:
    """Compact notation as `parse_tiles` reads it, any number of copies (no flowers)."""
    counts = [0] * NUM_KINDS
    pending: list[tuple[int, int]] = []
    letters = SUIT_LETTERS[: HONOUR + 1]
    for pos, ch in enumerate(text):
        if ch.isascii() and ch.isdigit():
            if ch == "0":
                raise NotationError(text, pos, "ranks run from 1 to 9 (red fives are not used)")
            pending.append((pos, int(ch)))
        elif ch in letters:
            if not pending:
                raise NotationError(text, pos, "suit letter without digits before it")
            suit = letters.index(ch)
            for digit_pos, rank in pending:
                if suit == HONOUR and rank > 7:
                    raise NotationError(text, digit_pos, "honours are 1z to 7z")
                counts[tile_from(suit, rank)] += 1
            pending.clear()
        elif ch.isspace():
            if pending:
                raise NotationError(text, pos, "space inside a group; digits need their suit")
        else:
            raise NotationError(text, pos, "expected a digit 1-9, a suit letter m p s z or a space")
    if pending:
        raise NotationError(text, pending[0][0], "digits without a suit letter after them")
    return counts


def parse_hand(text: str, any_copies: bool = False) -> list[int]:
    """The 34 counts of a concealed hand of 3k+2 tiles, 2 to 17; with ``any_copies`` any number
    of copies of a tile and any size 3k+2 (the seed's thought experiment). Raises
    `MahjongError` (`NotationError`, `TileCountError`) naming the mistake."""
    counts = _parse_any_copies(text) if any_copies else to_counts(parse_tiles(text))
    n = sum(counts)
    if any_copies and n % 3 != 2:
        raise MahjongError(f"explain needs a concealed hand of 3k+2 tiles; got {n}")
    if not any_copies and (n % 3 != 2 or n > MAX_TILES):
        raise MahjongError(
            f"explain needs a concealed hand of 3k+2 tiles, 2 to {MAX_TILES}; got {n}"
        )
    return counts
