"""Flowers (補花) under the ``flowers`` ruleset option: what a seat was dealt, and what putting
a flower face up does to the hand.

The engine (`engine.py`) draws the replacements and tells the seats; the rules here need no
events: which flowers each seat was dealt, and the two wins a flower put face up can make —
八仙過海 (one seat holds all eight) and 七搶一 (one seat holds seven, another the eighth).
"""

from __future__ import annotations

from arena.games.mahjong.payments import ScoredWin, score_flowers
from arena.games.mahjong.rules import SEATS
from arena.games.mahjong.state import TILE_TEXT, HandState
from arena.games.mahjong.tiles import FLOWER_BASE, NUM_FLOWERS


def dealt_flowers(s: HandState) -> list[list[int]]:
    """Each seat's flowers among the tiles it was dealt, sorted (none without the option)."""
    return [
        sorted(t for t in s.wall.dealt(s.position(seat)) if t >= FLOWER_BASE)
        if s.rules.flowers
        else []
        for seat in range(SEATS)
    ]


def expose_flower(s: HandState, seat: int, flower: int) -> ScoredWin | None:
    """Put ``flower`` face up before ``seat``; the win of flowers it makes (八仙過海 or 七搶一),
    which ends the hand, or None."""
    s.flowers[seat].append(flower)
    s.last = f"seat {seat}: flower {TILE_TEXT[flower]}"
    held = len(s.flowers[seat])
    if held == NUM_FLOWERS:
        return score_flowers(s, seat, flower, None)
    if held == 1:
        # The eighth flower of the table: another seat may hold the other seven.
        for step in (1, 2, 3):
            other = (seat + step) % SEATS
            if len(s.flowers[other]) == NUM_FLOWERS - 1:
                return score_flowers(s, other, flower, seat)
    if held == NUM_FLOWERS - 1:
        # The seventh, the eighth being face up already before another seat: this seat
        # holds seven and another the one, as above, only in the other order.
        for step in (1, 2, 3):
            other = (seat + step) % SEATS
            if len(s.flowers[other]) == 1:
                return score_flowers(s, seat, s.flowers[other][0], other)
    return None
