"""Who sits where, game by game: the seating rules a match line names and `arena verify` checks.

The schedules of the formats live here rather than in the formats themselves, so that a match
frame, the formats and the record checks read one definition without importing one another.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Final

from arena.games.mahjong.rules import SEATS

SEATING_RULES = ("alternate", "permutations", "mahjong-rotate", "mahjong-ab")
"""How a match seats its players, game by game (``players`` as the match line lists them):
``alternate`` — a duel, the order reversed in odd games; ``permutations`` — a table, game k in
the (k mod N!)-th ordering (`table_seating`); ``mahjong-rotate`` / ``mahjong-ab`` — the
competition match, by round (`mahjong_seating`)."""

HANDS_PER_ROUND: Final = SEATS
"""Mahjong hands played on one seating and one wall."""

CYCLIC_ORDERS: Final[tuple[tuple[int, ...], ...]] = tuple(
    (0, *rest) for rest in itertools.permutations((1, 2, 3))
)
"""Seat → player for the six cyclic orders of four players."""
AB_ORDERS: Final[tuple[tuple[int, ...], ...]] = ((0, 1, 2, 3), (0, 3, 2, 1))
"""Seat → copy for the A/B layout; copies 0, 2 play program A and 1, 3 program B."""


def seat_order(rule: str, game: int, players: int) -> tuple[int, ...]:
    """Which player (index into the match's players) sits at each seat in game ``game``."""
    if rule == "alternate":
        return (0, 1) if game % 2 == 0 else (1, 0)
    if rule == "permutations":
        return table_seating(game, players)
    if rule in ("mahjong-rotate", "mahjong-ab"):
        return mahjong_seating(rule.removeprefix("mahjong-"), game // HANDS_PER_ROUND)
    raise ValueError(f"unknown seating rule {rule!r}; known: {', '.join(SEATING_RULES)}")


def table_seating(game: int, seats: int) -> tuple[int, ...]:
    """Which bot sits at each seat in game ``game`` of a liar's dice table: the
    (game mod seats!)-th permutation."""
    orderings = _orderings(seats)
    return orderings[game % len(orderings)]


@cache
def _orderings(seats: int) -> tuple[tuple[int, ...], ...]:
    # Built once per table size: every game of a table asks for its seating.
    return tuple(itertools.permutations(range(seats)))


def mahjong_seating(layout: str, round_index: int) -> tuple[int, ...]:
    """Which player (``rotate``) or copy (``ab``) sits at each seat in round ``round_index`` of
    the competition mahjong match."""
    orders = CYCLIC_ORDERS if layout == "rotate" else AB_ORDERS
    return orders[round_index % len(orders)]
