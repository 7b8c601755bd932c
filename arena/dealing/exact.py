"""Exact probabilities the dealer audit compares against, computed by counting.

Nothing here is sampled: single-hand distributions are exact fractions from binomial
coefficients and generating functions, and the joint distributions of two hands of one deal
(needed to correct the chi-square test for pooling the four hands of a deal) are exact counts
held as floats.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from math import comb, prod

import numpy as np
import numpy.typing as npt

from arena.dealing.bridge import DECK, HCP_BY_RANK, SUIT_SIZE

SUITS = 4
HAND = SUIT_SIZE
MAX_HCP_HAND = 37
"""Four aces, kings and queens and one jack: the most points 13 cards can hold."""
TOTAL_HCP = 40

FloatArray = npt.NDArray[np.float64]


def suit_length_vectors() -> list[tuple[int, int, int, int]]:
    """Every (♠, ♥, ♦, ♣) length vector of a 13-card hand: 560 of them."""
    return [
        (s, h, d, HAND - s - h - d)
        for s, h, d in product(range(HAND + 1), repeat=SUITS - 1)
        if s + h + d <= HAND
    ]


def pattern_key(lengths: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(lengths, reverse=True))


@cache
def patterns() -> tuple[tuple[int, ...], ...]:
    """The 39 hand patterns, in the seed's order (4-3-3-3, 4-4-3-2, … 13-0-0-0)."""
    return tuple(sorted({pattern_key(v) for v in suit_length_vectors()}))


def pattern_text(key: tuple[int, ...]) -> str:
    return "-".join(map(str, key))


@cache
def pattern_probabilities() -> tuple[Fraction, ...]:
    """P(a hand has each pattern), in `patterns` order: ``Σ Π C(13, ℓ_s) / C(52, 13)``."""
    index = {key: i for i, key in enumerate(patterns())}
    ways = [0] * len(index)
    for v in suit_length_vectors():
        ways[index[pattern_key(v)]] += prod(comb(SUIT_SIZE, length) for length in v)
    total = comb(DECK, HAND)
    return tuple(Fraction(w, total) for w in ways)


@cache
def pattern_pair_joint() -> FloatArray:
    """P(North has pattern a and East has pattern b) for one uniform deal, 39 × 39.

    East's suit lengths are drawn from what North left: ``Π C(13, n_s) C(13 - n_s, e_s)`` ways
    out of ``C(52, 13) C(39, 13)``. Any two seats have this joint, since seats are exchangeable.
    """
    vectors = np.array(suit_length_vectors(), dtype=np.int64)
    index = {key: i for i, key in enumerate(patterns())}
    pattern_of_vector = np.array([index[pattern_key(tuple(v))] for v in vectors.tolist()])
    binom = np.array(
        [[comb(n, k) for k in range(HAND + 1)] for n in range(HAND + 1)], dtype=np.float64
    )
    north = vectors[:, None, :]
    east = vectors[None, :, :]
    left = SUIT_SIZE - north
    feasible = (east <= left).all(axis=2)
    ways = np.prod(binom[SUIT_SIZE, north] * binom[np.maximum(left, 0), east], axis=2)
    ways = np.where(feasible, ways, 0.0)
    joint = np.zeros((len(index), len(index)))
    np.add.at(joint, (pattern_of_vector[:, None], pattern_of_vector[None, :]), ways)
    return joint / float(comb(DECK, HAND) * comb(DECK - HAND, HAND))


def _honour_values() -> list[int]:
    return [v for v in HCP_BY_RANK if v] * SUITS


def hcp_distribution(cards: int) -> tuple[Fraction, ...]:
    """P(``cards`` cards hold h points), h = 0 … max: 13 cards for a hand, 26 for a partnership.

    The generating function ``Π_honours (1 + x·y^v) · (1 + x)^36``: the coefficient of
    ``x^cards y^h`` counts the holdings, over ``C(52, cards)``.
    """
    return _hcp_distribution(cards)


@cache
def _hcp_distribution(cards: int) -> tuple[Fraction, ...]:
    honours = _honour_values()
    spots = DECK - len(honours)
    # ways[n][h]: sets of n honours worth h points
    ways = [[0] * (TOTAL_HCP + 1) for _ in range(len(honours) + 1)]
    ways[0][0] = 1
    for value in honours:
        for n in range(len(honours), 0, -1):
            row, below = ways[n], ways[n - 1]
            for h in range(TOTAL_HCP, value - 1, -1):
                row[h] += below[h - value]
    total = comb(DECK, cards)
    most = min(cards, len(honours))
    dist = [
        Fraction(sum(ways[n][h] * comb(spots, cards - n) for n in range(most + 1)), total)
        for h in range(TOTAL_HCP + 1)
    ]
    while not dist[-1]:
        dist.pop()
    return tuple(dist)


@cache
def hcp_pair_joint() -> FloatArray:
    """P(North holds a points and East holds b points) for one uniform deal, 38 × 38.

    Each honour goes to North, to East or elsewhere; ``ways[n, e, a, b]`` counts honour splits
    with n honours worth a to North and e worth b to East, and the 36 spot cards fill both hands.
    """
    honours = _honour_values()
    size = MAX_HCP_HAND + 1
    limit = len(honours)
    ways = np.zeros((limit + 1, limit + 1, size, size))
    ways[0, 0, 0, 0] = 1.0
    for value in honours:
        nxt = ways.copy()
        nxt[1:, :, value:, :] += ways[:-1, :, : size - value, :]
        nxt[:, 1:, :, value:] += ways[:, :-1, :, : size - value]
        ways = nxt
    spots = DECK - limit
    joint = np.zeros((size, size))
    for n in range(min(HAND, limit) + 1):
        for e in range(min(HAND, limit - n) + 1):
            fill = comb(spots, HAND - n) * comb(spots - (HAND - n), HAND - e)
            joint += ways[n, e] * float(fill)
    return joint / float(comb(DECK, HAND) * comb(DECK - HAND, HAND))


def dice_sum_distribution(count: int, faces: int = 6) -> tuple[Fraction, ...]:
    """P(the sum of ``count`` fair dice is s) for s = 0 … count·faces, by repeated convolution."""
    dist = [Fraction(1)]
    one = Fraction(1, faces)
    for _ in range(count):
        nxt = [Fraction(0)] * (len(dist) + faces)
        for s, p in enumerate(dist):
            if p:
                for face in range(1, faces + 1):
                    nxt[s + face] += p * one
        dist = nxt
    return tuple(dist)


DICE_HAND_TYPES: tuple[str, ...] = (
    "nothing",
    "one pair",
    "two pairs",
    "three of a kind",
    "low straight",
    "high straight",
    "full house",
    "four of a kind",
    "five of a kind",
)
"""The hands of five six-sided dice in increasing value, as seed 002 table 4.6 lists them."""


def dice_hand_types(rolls: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The `DICE_HAND_TYPES` index of each row of five dice (faces 1–6)."""
    counts = np.stack([(rolls == face).sum(axis=1) for face in range(1, 7)], axis=1)
    ordered = -np.sort(-counts, axis=1)
    top, second = ordered[:, 0], ordered[:, 1]
    types = np.zeros(len(rolls), dtype=np.int64)
    types[(top == 2) & (second == 1)] = 1
    types[(top == 2) & (second == 2)] = 2
    types[(top == 3) & (second == 1)] = 3
    distinct = top == 1
    types[distinct & (counts[:, 5] == 0)] = 4  # 1 2 3 4 5
    types[distinct & (counts[:, 0] == 0)] = 5  # 2 3 4 5 6
    types[(top == 3) & (second == 2)] = 6
    types[top == 4] = 7
    types[top == 5] = 8
    return types


@cache
def dice_hand_type_counts() -> tuple[int, ...]:
    """How many of the 6⁵ = 7,776 rolls of five dice make each hand type (table 4.6), counted
    over every roll."""
    every = np.array(list(product(range(1, 7), repeat=5)), dtype=np.int64)
    return tuple(int(n) for n in np.bincount(dice_hand_types(every), minlength=9))
