"""Reading a mahjong observation into the counts a strategy computes with.

Bots decide from ``request.observation`` only. Tiles arrive in compact notation (``1123m45p``);
this module turns them into 34-count lists once per decision, with a parser cheaper than the
general `parse_tiles` because it trusts the referee's sorted, valid text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from protocol.games.mahjong import MahjongObservation

_SUIT_BASE: Final = {"m": 0, "p": 9, "s": 18, "z": 27}
TILE_INDEX: Final = {f"{r}{s}": b + r - 1 for s, b in _SUIT_BASE.items() for r in range(1, 10)}


def add_tiles(text: str, counts: list[int]) -> None:
    """Add the tiles of compact text to ``counts`` (digits precede their suit letter)."""
    start = 0
    for i, ch in enumerate(text):
        base = _SUIT_BASE.get(ch)
        if base is not None:
            for digit in text[start:i]:
                counts[base + ord(digit) - 49] += 1
            start = i + 1


def tile_counts(text: str) -> list[int]:
    counts = [0] * 34
    add_tiles(text, counts)
    return counts


@dataclass(slots=True)
class TableView:
    """One seat's view of the table as counts."""

    hand: list[int]
    """Own concealed tiles."""
    visible: list[int]
    """Every tile this seat can see: own hand and sets, all discards, others' exposed sets."""
    melds: int
    """Own exposed sets (concealed kongs included): the hand needs ``5 - melds`` more sets."""
    drawn: int
    """The tile just drawn, or -1."""
    claim_tile: int
    """The tile that may be claimed now, or -1."""


def read(observation: MahjongObservation) -> TableView:
    hand = tile_counts(observation.tiles)
    visible = list(hand)
    for river in observation.discards:
        for tile in river:
            visible[TILE_INDEX[tile]] += 1
    for seat_melds in observation.melds:
        for meld in seat_melds:
            if meld.tiles is not None:
                add_tiles(meld.tiles, visible)
    drawn = TILE_INDEX[observation.drawn] if observation.drawn else -1
    claim = TILE_INDEX[observation.claim_tile] if observation.claim_tile else -1
    return TableView(hand, visible, len(observation.melds[observation.seat]), drawn, claim)
