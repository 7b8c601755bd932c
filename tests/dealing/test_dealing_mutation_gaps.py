"""Properties of the dealer that a plausible slip in `arena.dealing` would break unnoticed.

Found by a mutation audit: each test here fails on one hand-made bug the rest of the suite let
through, and asserts the documented rule (docs/DEALING.md §2, seed 000), not merely today's
output.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from scipy import stats as sps

from arena.dealing import DealingError, MatchSeed, RandomStream, draw_code
from arena.dealing import stats as dealing_stats


class ScriptedStream(RandomStream):
    """A stream whose ``randbelow`` answers come from a script, recording what it was asked:
    running a deal over every script enumerates every way its draws can fall, each as likely
    as any other for a fair ``randbelow``."""

    def __init__(self, answers: tuple[int, ...]) -> None:
        super().__init__(MatchSeed(bytes(32)), "scripted")
        self._answers: Iterator[int] = iter(answers)
        self.asked: list[int] = []

    def randbelow(self, n: int) -> int:
        self.asked.append(n)
        return next(self._answers)


def _every_code(alphabet: str, length: int) -> Counter[str]:
    """How many equally likely draw sequences give each code: the documented partial
    Fisher–Yates asks ``randbelow(len − i)`` for i < length, so the sequences are the product
    of those ranges."""
    ranges = [range(len(alphabet) - i) for i in range(length)]
    codes: Counter[str] = Counter()
    for answers in itertools.product(*ranges):
        stream = ScriptedStream(answers)
        codes[draw_code(stream, alphabet, length)] += 1
        assert stream.asked == [len(alphabet) - i for i in range(length)]
    return codes


def test_a_code_is_drawn_by_the_documented_partial_fisher_yates() -> None:
    # docs/DEALING.md §2: "for i < length, swap i with i + randbelow(len − i)". Each draw
    # sequence gives a different code, so each of the n!/(n−k)! codes is exactly as likely.
    codes = _every_code("abcd", 2)
    every = {"".join(p) for p in itertools.permutations("abcd", 2)}
    assert set(codes) == every
    assert set(codes.values()) == {1}


def test_a_code_matches_the_documented_rule_on_real_streams() -> None:
    def documented(stream: RandomStream, alphabet: str, length: int) -> str:
        symbols = list(alphabet)
        for i in range(length):
            j = i + stream.randbelow(len(symbols) - i)
            symbols[i], symbols[j] = symbols[j], symbols[i]
        return "".join(symbols[:length])

    seed = MatchSeed.from_text("mutation-audit")
    for game in range(200):
        label = ("bulls_cows", "game_index", game, "secret")
        drawn = draw_code(seed.stream(*label), "123456789", 4)
        assert drawn == documented(seed.stream(*label), "123456789", 4)


def test_a_code_of_no_symbols_is_refused() -> None:
    stream = MatchSeed.from_text("mutation-audit").stream("codes")
    with pytest.raises(DealingError):
        draw_code(stream, "0123456789", 0)


def test_the_permutation_table_test_has_r_minus_one_times_c_minus_one_degrees() -> None:
    # The module docstring: X² · (M − 1)/M of a permutation table is χ²((R − 1)(C − 1)); the
    # p-value must use those degrees of freedom (a 4 × 13 card table: 36, not 51).
    rng = np.random.default_rng(3)
    perms = np.argsort(rng.random((400, 52)), axis=1)
    table = np.zeros((4, 13), dtype=np.int64)
    # Card c (row: its suit) at position p (column: p mod 13, thirteen classes of four).
    np.add.at(table, (np.arange(52)[None, :] // 13, perms % 13), 1)
    result = dealing_stats.permutation_table_test("suit x position", table, [13] * 4, [4] * 13)
    assert result.dof == 36
    assert result.p_value == pytest.approx(float(sps.chi2.sf(result.chi2, 36)))
