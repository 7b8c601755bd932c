"""Tiles, their compact notation, and melds.

A tile is an index 0..33: 0-8 are 1m-9m (萬), 9-17 are 1p-9p (筒), 18-26 are 1s-9s (條) and
27-33 are the honours 1z-7z in the order east, south, west, north, white (白板), green (青發),
red (紅中). Indices rather than objects keep hands as plain count vectors, which is what the
analysis tables and numpy batches need.

The eight flowers of the ``flowers`` ruleset option are 34-41, written ``1f``-``8f``: the seasons
春 夏 秋 冬 (1f-4f) and the plants 梅 蘭 菊 竹 (5f-8f), one copy each. They are never part of a
hand (a seat exposes them at once), so hand counts stay 34 long: `parse_tiles`,
`format_tiles` and the Chinese names know them; `to_counts`, `from_counts` and `Meld` refuse them.

The notation is the usual compact one: digits followed by their suit letter, ``123m456p789s1z``.
Parse errors name the offending character and its 0-based position so that a bot author can
find the mistake in a long message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.games.errors import GameError, InvalidActionError

Tile = int

NUM_KINDS = 34
COPIES = 4
"""Copies of each tile kind in the 136-tile set."""

SUIT_LETTERS = "mpszf"
HONOUR, FLOWER = 3, 4
"""Suit numbers (`suit_of`) past the three suits m p s (0-2), as in `SUIT_LETTERS`."""

FLOWER_BASE = NUM_KINDS
"""Index of 1f (春); the eight flowers are FLOWER_BASE .. FLOWER_BASE + 7."""
NUM_FLOWERS = 8
ALL_KINDS = NUM_KINDS + NUM_FLOWERS
"""Tile indices with the flowers: 0..41."""
SEASONS: tuple[int, ...] = tuple(range(FLOWER_BASE, FLOWER_BASE + 4))
PLANTS: tuple[int, ...] = tuple(range(FLOWER_BASE + 4, FLOWER_BASE + 8))
FLOWERS: tuple[int, ...] = SEASONS + PLANTS

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS: tuple[int, ...] = (EAST, SOUTH, WEST, NORTH)
DRAGONS: tuple[int, ...] = (WHITE, GREEN, RED)
HONOURS: tuple[int, ...] = WINDS + DRAGONS
TERMINALS: tuple[int, ...] = (0, 8, 9, 17, 18, 26)

_WIND_LETTERS = "ESWN"
_DIGITS_ZH = "一二三四五六七八九"
_SUITS_ZH = "萬筒條"
_HONOURS_ZH = ("東", "南", "西", "北", "白板", "青發", "紅中")
_FLOWERS_ZH = ("春", "夏", "秋", "冬", "梅", "蘭", "菊", "竹")


class MahjongError(GameError):
    """Root of the errors raised by the mahjong package."""


class NotationError(MahjongError, InvalidActionError):
    """A tile or meld text cannot be read; names the offending character and its position."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        shown = repr(text[position]) if position < len(text) else "end of text"
        super().__init__(f"{reason}: {shown} at position {position} in {text!r}")


class TileCountError(MahjongError):
    """A hand or tile list holds more than four copies of one tile."""


class MeldError(MahjongError):
    """The tiles do not form the kind of meld that was declared."""


def _check_tile(t: int) -> None:
    if not 0 <= t < NUM_KINDS:
        if FLOWER_BASE <= t < ALL_KINDS:
            raise MahjongError(f"flower {t - FLOWER_BASE + 1}f is never part of a hand or a set")
        raise MahjongError(f"tile index {t} is outside 0..{NUM_KINDS - 1}")


def _check_any(t: int) -> None:
    if not 0 <= t < ALL_KINDS:
        raise MahjongError(f"tile index {t} is outside 0..{ALL_KINDS - 1}")


def suit_of(t: Tile) -> int:
    """0 for 萬 (m), 1 for 筒 (p), 2 for 條 (s), 3 for honours (z), 4 for flowers (f)."""
    return t // 9 if t < FLOWER_BASE else FLOWER


def rank_of(t: Tile) -> int:
    """1..9 for suited tiles, 1..7 for honours (E S W N white green red), 1..8 for flowers."""
    return t % 9 + 1 if t < FLOWER_BASE else t - FLOWER_BASE + 1


def is_honour(t: Tile) -> bool:
    """An honour 1z-7z (for the hand tiles 0..33; flowers are never in a hand)."""
    return t >= EAST


def is_terminal(t: Tile) -> bool:
    return t < EAST and t % 9 in (0, 8)


def is_terminal_or_honour(t: Tile) -> bool:
    return t >= EAST or t % 9 in (0, 8)


def tile_from(suit: int, rank: int) -> Tile:
    """The tile of a suit (0..3) and rank (1..9, honours 1..7)."""
    limit = 7 if suit == HONOUR else 9
    if not (0 <= suit <= HONOUR and 1 <= rank <= limit):
        raise MahjongError(f"no tile of suit {suit} and rank {rank}")
    return suit * 9 + rank - 1


def parse_tiles(text: str) -> list[Tile]:
    """Read compact notation such as ``123m 456p 789s 1234567z``, keeping the input order.

    Spaces may separate groups but not split one. Flowers are ``1f``-``8f``. More than four
    copies of a tile (or two of a flower) raise `TileCountError`; every other mistake raises
    `NotationError`.
    """
    tiles: list[Tile] = []
    pending: list[tuple[int, int]] = []
    counts = [0] * ALL_KINDS
    for pos, ch in enumerate(text):
        if ch.isdigit() and ch.isascii():
            if ch == "0":
                raise NotationError(text, pos, "ranks run from 1 to 9 (red fives are not used)")
            pending.append((pos, int(ch)))
        elif ch in SUIT_LETTERS:
            if not pending:
                raise NotationError(text, pos, "suit letter without digits before it")
            suit = SUIT_LETTERS.index(ch)
            for digit_pos, rank in pending:
                if suit == HONOUR and rank > 7:
                    raise NotationError(text, digit_pos, "honours are 1z to 7z")
                if suit == FLOWER:
                    if rank > NUM_FLOWERS:
                        raise NotationError(text, digit_pos, "flowers are 1f to 8f")
                    t = FLOWER_BASE + rank - 1
                    counts[t] += 1
                    if counts[t] > 1:
                        raise TileCountError(
                            f"second copy of {rank}f at position {digit_pos} in {text!r}"
                        )
                    tiles.append(t)
                    continue
                t = suit * 9 + rank - 1
                counts[t] += 1
                if counts[t] > COPIES:
                    raise TileCountError(
                        f"fifth copy of {format_tiles([t])} at position {digit_pos} in {text!r}"
                    )
                tiles.append(t)
            pending.clear()
        elif ch.isspace():
            if pending:
                raise NotationError(text, pos, "space inside a group; digits need their suit")
        else:
            raise NotationError(
                text, pos, "expected a digit 1-9, a suit letter m p s z f or a space"
            )
    if pending:
        raise NotationError(text, pending[0][0], "digits without a suit letter after them")
    return tiles


def parse_tile(text: str) -> Tile:
    """Read one tile such as ``5m`` or ``7z``."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(text, 0, f"expected exactly one tile, got {len(tiles)}")
    return tiles[0]


def parse_wind(text: str) -> Tile:
    """Read a seat or round wind: ``E``, ``S``, ``W`` or ``N`` (or ``1z``..``4z``)."""
    stripped = text.strip()
    if len(stripped) == 1 and stripped.upper() in _WIND_LETTERS:
        return WINDS[_WIND_LETTERS.index(stripped.upper())]
    try:
        t = parse_tile(stripped)
    except NotationError:
        raise NotationError(text, 0, "expected a wind E, S, W or N") from None
    if t not in WINDS:
        raise NotationError(text, 0, "expected a wind E, S, W or N")
    return t


def wind_letter(t: Tile) -> str:
    """``E``, ``S``, ``W`` or ``N`` for a wind tile."""
    if t not in WINDS:
        raise MahjongError(f"tile {t} is not a wind")
    return _WIND_LETTERS[t - EAST]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Sorted compact notation (flowers last); `parse_tiles` reads it back to the same multiset."""
    groups: list[list[str]] = [[], [], [], [], []]
    for t in sorted(tiles):
        _check_any(t)
        groups[suit_of(t)].append(str(rank_of(t)))
    return "".join(
        "".join(digits) + SUIT_LETTERS[suit] for suit, digits in enumerate(groups) if digits
    )


def to_counts(tiles: Iterable[Tile]) -> list[int]:
    """The 34 counts of a tile list; raises `TileCountError` on a fifth copy."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        _check_tile(t)
        counts[t] += 1
        if counts[t] > COPIES:
            raise TileCountError(f"fifth copy of {format_tiles([t])}")
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    """The sorted tile list of a 34-count vector."""
    if len(counts) != NUM_KINDS:
        raise MahjongError(f"expected {NUM_KINDS} counts, got {len(counts)}")
    tiles: list[Tile] = []
    for t, n in enumerate(counts):
        if not 0 <= n <= COPIES:
            raise TileCountError(f"count {n} of {format_tiles([t])} is outside 0..{COPIES}")
        tiles.extend([t] * n)
    return tiles


def tile_name_zh(t: Tile) -> str:
    """Chinese name: 一萬 … 九萬, 一筒 …, 一條 …, 東 南 西 北 白板 青發 紅中, 春 … 竹."""
    _check_any(t)
    if t >= FLOWER_BASE:
        return _FLOWERS_ZH[t - FLOWER_BASE]
    if is_honour(t):
        return _HONOURS_ZH[t - EAST]
    return _DIGITS_ZH[t % 9] + _SUITS_ZH[suit_of(t)]


def format_tiles_zh(tiles: Iterable[Tile]) -> str:
    """Sorted Chinese names separated by spaces."""
    return " ".join(tile_name_zh(t) for t in sorted(tiles))


class MeldKind(StrEnum):
    CHI = "chi"
    PON = "pon"
    KONG = "kong"
    """Open kong, claimed from a discard (明槓)."""
    CONCEALED_KONG = "ckong"
    """暗槓: four copies drawn by the player; only this kind keeps the hand concealed."""
    ADDED_KONG = "akong"
    """補槓: a fourth copy added to an earlier pon."""


_KONG_KINDS = frozenset({MeldKind.KONG, MeldKind.CONCEALED_KONG, MeldKind.ADDED_KONG})


@dataclass(frozen=True, slots=True)
class Meld:
    """An exposed (or concealed-kong) set; tiles are stored sorted."""

    kind: MeldKind
    tiles: tuple[Tile, ...]

    def __post_init__(self) -> None:
        kind = MeldKind(self.kind)
        tiles = tuple(sorted(self.tiles))
        for t in tiles:
            _check_tile(t)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "tiles", tiles)
        if kind is MeldKind.CHI:
            first = tiles[0] if tiles else 0
            ok = (
                len(tiles) == 3
                and not is_honour(first)
                and first % 9 <= 6
                and tiles == (first, first + 1, first + 2)
            )
        elif kind is MeldKind.PON:
            ok = len(tiles) == 3 and len(set(tiles)) == 1
        else:
            ok = len(tiles) == 4 and len(set(tiles)) == 1
        if not ok:
            raise MeldError(f"{format_tiles(tiles) or 'no tiles'} is not a valid {kind.value}")

    @property
    def is_kong(self) -> bool:
        return self.kind in _KONG_KINDS

    @property
    def is_concealed(self) -> bool:
        return self.kind is MeldKind.CONCEALED_KONG

    @property
    def first(self) -> Tile:
        """The lowest tile: the pung/kong tile, or the start of a chi."""
        return self.tiles[0]

    def __str__(self) -> str:
        return f"{self.kind.value}:{format_tiles(self.tiles)}"

    @classmethod
    def parse(cls, text: str) -> Meld:
        """Read ``chi:123m``, ``pon:999p``, ``kong:5555s``, ``ckong:1111z`` or ``akong:2222m``."""
        return _parse_meld(text, text, 0)


def _parse_meld(whole: str, part: str, offset: int) -> Meld:
    lead = len(part) - len(part.lstrip())
    colon = part.find(":")
    if colon < 0:
        word_end = lead
        while word_end < len(part) and part[word_end].isalpha():
            word_end += 1
        raise NotationError(whole, offset + word_end, "expected ':' between meld kind and tiles")
    kind_text = part[:colon].strip()
    try:
        kind = MeldKind(kind_text)
    except ValueError:
        raise NotationError(
            whole, offset + lead, "meld kind must be chi, pon, kong, ckong or akong"
        ) from None
    tiles_text = part[colon + 1 :]
    try:
        tiles = parse_tiles(tiles_text)
    except NotationError as exc:
        raise NotationError(whole, offset + colon + 1 + exc.position, exc.reason) from None
    return Meld(kind, tuple(tiles))


def parse_melds(text: str) -> tuple[Meld, ...]:
    """Read a comma-separated list of melds; an empty or blank text gives no melds."""
    if not text.strip():
        return ()
    melds: list[Meld] = []
    offset = 0
    for part in text.split(","):
        if not part.strip():
            raise NotationError(text, offset, "empty meld between commas")
        melds.append(_parse_meld(text, part, offset))
        offset += len(part) + 1
    return tuple(melds)


def format_melds(melds: Iterable[Meld]) -> str:
    """The comma-separated text that `parse_melds` reads back."""
    return ",".join(str(m) for m in melds)
