"""The exact distributions, checked against independent counts and known values."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb

import numpy as np

from arena.dealing.exact import (
    dice_sum_distribution,
    hcp_distribution,
    hcp_pair_joint,
    pattern_pair_joint,
    pattern_probabilities,
    pattern_text,
    patterns,
)


def test_there_are_39_patterns_and_they_add_up() -> None:
    assert len(patterns()) == 39
    assert sum(pattern_probabilities()) == 1
    assert pattern_text(patterns()[0]) == "4-3-3-3"
    assert pattern_text(patterns()[-1]) == "13-0-0-0"


def test_known_pattern_probabilities() -> None:
    p = dict(zip(map(pattern_text, patterns()), pattern_probabilities(), strict=True))
    # 4-4-3-2: 12 suit orders × C(13,4)² C(13,3) C(13,2)
    assert p["4-4-3-2"] == Fraction(12 * comb(13, 4) ** 2 * comb(13, 3) * comb(13, 2), comb(52, 13))
    assert p["13-0-0-0"] == Fraction(4, comb(52, 13))
    assert round(float(p["6-4-2-1"]), 6) == 0.047021


def test_hcp_single_hand() -> None:
    dist = hcp_distribution(13)
    assert len(dist) == 38 and sum(dist) == 1
    assert dist[0] == Fraction(comb(36, 13), comb(52, 13))
    assert dist[37] == Fraction(4, comb(52, 13))  # all the A K Q and one of four jacks
    assert sum(h * p for h, p in enumerate(dist)) == 10


def test_hcp_partnership_is_symmetric_about_20() -> None:
    dist = hcp_distribution(26)
    assert len(dist) == 41 and sum(dist) == 1
    assert all(dist[h] == dist[40 - h] for h in range(41))
    assert dist[0] == Fraction(comb(36, 26), comb(52, 26))


def test_pair_joints_have_the_single_hand_marginals() -> None:
    for joint, single in (
        (pattern_pair_joint(), pattern_probabilities()),
        (hcp_pair_joint(), hcp_distribution(13)),
    ):
        expected = np.array([float(p) for p in single])
        assert np.allclose(joint.sum(axis=1), expected, atol=1e-15, rtol=1e-12)
        assert np.allclose(joint, joint.T, atol=1e-16)


def test_hcp_pair_joint_by_direct_count() -> None:
    # Both hands without a point: North takes 13 of the 36 spot cards, East 13 of the other 23.
    joint = hcp_pair_joint()
    both_zero = comb(36, 13) * comb(23, 13) / (comb(52, 13) * comb(39, 13))
    assert np.isclose(joint[0, 0], both_zero, rtol=1e-12)
    # two hands of one deal cannot both hold 21+ points: there are only 40
    assert joint[21:, 21:].sum() == 0


def test_dice_sums_by_enumeration() -> None:
    counts = [0] * 31
    for roll in product(range(1, 7), repeat=5):
        counts[sum(roll)] += 1
    assert dice_sum_distribution(5) == tuple(Fraction(c, 6**5) for c in counts)
