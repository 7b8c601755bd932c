"""The wall of one hand: dealing, draws from the head, replacement draws from the tail.

The wall of round ``r`` is ``shuffled_wall(seed.stream("mahjong", "round", r, "wall"), tiles)``
(index 0 drawn first): it depends on the match seed and the round only, never on play, so the
four hands of a round replay one wall. ``tiles`` are the 136 tiles sorted by index, or with the
``flowers`` option the 144 tiles: the same 136 followed by the eight flowers 1f-8f. Positions
count from the dealer (0 = dealer, 1 = the next seat in turn order, …): position ``k`` is dealt
``wall[16k : 16k + 16]``.

Shared mode (the default): every seat draws from the head (``wall[64]`` first) and takes kong
(and flower) replacements from the tail; the hand is exhaustively drawn when a draw is due and only
``reserve`` tiles are left.

Per-seat mode (``per_seat_draws``): the tiles after the deal, minus the ``reserve`` at the tail,
are cut into four equal sub-walls, position ``k`` taking the ``k``-th; every draw of that
position, replacements included, is the next tile of its own sub-wall. A call changes who draws
when, but never which tiles a position draws, so duplicate replays of a wall stay comparable
(the Botzone mahjong referee does the same). The hand is exhaustively drawn when the seat due to
draw has emptied its sub-wall; any remainder of an uneven cut joins the reserve.
"""

from __future__ import annotations

from arena.dealing import MatchSeed, shuffled_wall
from arena.games.mahjong.rules import DEALT, HAND_SIZE, SEATS
from arena.games.mahjong.tiles import COPIES, FLOWERS, NUM_KINDS

WALL_TILES: tuple[int, ...] = tuple(t for t in range(NUM_KINDS) for _ in range(COPIES))
FLOWER_WALL_TILES: tuple[int, ...] = WALL_TILES + FLOWERS
"""The 144 tiles of the ``flowers`` option: the 136, then 1f-8f once each."""


def wall_tiles(flowers: bool) -> tuple[int, ...]:
    """The sorted tile set a wall is shuffled from."""
    return FLOWER_WALL_TILES if flowers else WALL_TILES


def round_wall(seed: MatchSeed, round_index: int, flowers: bool = False) -> list[int]:
    """The 136 (or with ``flowers`` 144) tiles of round ``round_index`` in draw order."""
    return shuffled_wall(seed.stream("mahjong", "round", round_index, "wall"), wall_tiles(flowers))


class Wall:
    """Draw positions in one wall order; cheap to copy (the tile list is never mutated)."""

    __slots__ = ("head", "per_seat", "reserve", "sub_end", "sub_next", "tail", "tiles")

    def __init__(self, tiles: list[int], reserve: int, per_seat: bool) -> None:
        self.tiles = tiles
        self.reserve = reserve
        self.per_seat = per_seat
        self.head = DEALT
        self.tail = len(tiles)
        share = (len(tiles) - DEALT - reserve) // SEATS if per_seat else 0
        self.sub_next = [DEALT + k * share for k in range(SEATS)]
        self.sub_end = [DEALT + (k + 1) * share for k in range(SEATS)]

    def dealt(self, position: int) -> list[int]:
        start = position * HAND_SIZE
        return self.tiles[start : start + HAND_SIZE]

    def live(self) -> int:
        """Tiles that may still be drawn before the hand is exhaustively drawn."""
        if self.per_seat:
            return sum(end - nxt for nxt, end in zip(self.sub_next, self.sub_end, strict=True))
        return self.tail - self.head - self.reserve

    def can_draw(self, position: int) -> bool:
        if self.per_seat:
            return self.sub_next[position] < self.sub_end[position]
        return self.tail - self.head > self.reserve

    def draw(self, position: int, replacement: bool) -> tuple[int, bool]:
        """The next tile for ``position`` and whether it was the last it may draw (海底)."""
        if self.per_seat:
            index = self.sub_next[position]
            self.sub_next[position] = index + 1
            return self.tiles[index], index + 1 == self.sub_end[position]
        if replacement:
            self.tail -= 1
            tile = self.tiles[self.tail]
        else:
            tile = self.tiles[self.head]
            self.head += 1
        return tile, self.tail - self.head == self.reserve

    def copy(self) -> Wall:
        twin = object.__new__(Wall)
        twin.tiles = self.tiles
        twin.reserve = self.reserve
        twin.per_seat = self.per_seat
        twin.head = self.head
        twin.tail = self.tail
        twin.sub_next = list(self.sub_next)
        twin.sub_end = self.sub_end
        return twin

    def remaining(self) -> list[int]:
        """Tiles not yet drawn (for the invariant checks of the tests)."""
        if self.per_seat:
            rest = [
                t
                for nxt, end in zip(self.sub_next, self.sub_end, strict=True)
                for t in self.tiles[nxt:end]
            ]
            return rest + self.tiles[self.sub_end[-1] :]
        return self.tiles[self.head : self.tail]
