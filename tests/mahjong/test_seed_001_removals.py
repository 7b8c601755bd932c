"""Seed 001's claim counted rather than timed: the sets the recursive removal and theorem 1
remove (`arena.bench.mahjong_recursive.set_removals`). Timing the two plain checks gave ratios
that moved from 0.79× to 1.05× between runs of the same bench (a researcher's walkthrough);
the counts are the same on every run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bench import mahjong_hands
from arena.bench.mahjong_hands_report import against_recursion_lines
from arena.bench.mahjong_recursive import set_removals
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.tiles import parse_tiles, to_counts


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def test_the_recursion_undoes_what_theorem_one_never_tries() -> None:
    # 11122233m: pair 11 — a chow, then stuck (1 set each); pair 22 — the pung 111, then stuck;
    # the recursion also undoes it and tries the chow 123 (2 sets; theorem 1 stops at 1); pair
    # 33 — 111 and 222, a win (2 each).
    assert set_removals(counts_of("11122233m"), backtrack=True) == (True, 5)
    assert set_removals(counts_of("11122233m"), backtrack=False) == (True, 4)


def test_seed_001_examples_counted() -> None:
    # Example 1: the only pair 33, then 345 and 678.
    assert set_removals(counts_of("33345678m"), backtrack=False) == (True, 2)
    # Example 2: no pair works. Under 55: 666, 777, then 889 is stuck (2); under 66 and 77:
    # one 567, then the second 5 has no 6 or 7 left (1 each); under 88: 567 twice, then 6 has
    # no 8 after it (2).
    assert set_removals(counts_of("55666777889m"), backtrack=False) == (False, 6)
    # Theorem 2's example: wins with the pair 44 (234 333 456 555 666), after 33 fails.
    assert set_removals(counts_of("23333444455556666m"), backtrack=False)[0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda c: sum(c) % 3 == 2))
def test_both_counts_give_the_win_checks_verdict_and_theorem_one_never_removes_more(
    one_suit: list[int],
) -> None:
    hand = [*one_suit, *([0] * 25)]
    by_recursion, recursive = set_removals(hand, backtrack=True)
    by_theorem, theorem1 = set_removals(hand, backtrack=False)
    assert by_recursion == by_theorem == is_winning(hand)
    assert theorem1 <= recursive


def test_the_bench_reports_the_counts_and_they_do_not_depend_on_the_run() -> None:
    hands, _kinds, _ = mahjong_hands._mixed_hands(np.random.default_rng(5), 300, 5)
    wins = [is_winning(h) for h in hands]
    first = mahjong_hands._counted_against_recursion(hands, wins)
    again = mahjong_hands._counted_against_recursion(hands, wins)
    assert first == again and first["disagreements"] == 0
    assert first["recursive_over_theorem1"] == pytest.approx(
        first["recursive_per_hand"] / first["theorem1_per_hand"]
    )
    assert first["recursive_over_theorem1"] > 1.0  # mixed hands still hold a little backtracking


def test_the_text_shows_the_counts_per_family() -> None:
    family = {
        "hands": 10,
        "wins": 4,
        "ours_us": 1.0,
        "ours_python_us": 1.0,
        "theorem1_plain_us": 1.0,
        "recursive_us": 1.0,
        "ours_ratio": 1.0,
        "ours_python_ratio": 1.0,
        "theorem1_plain_ratio": 1.0,
        "by_kind": {},
        "set_removals": {
            "recursive_per_hand": 10.38,
            "theorem1_per_hand": 8.54,
            "recursive_over_theorem1": 10.38 / 8.54,
        },
    }
    waits_row = {
        "hands": 3,
        "waits_per_hand": 2.0,
        "ours_us": 1.0,
        "ours_python_us": 1.0,
        "recursive_us": 1.0,
        "ours_ratio": 1.0,
        "ours_python_ratio": 1.0,
        "disagreements": 0,
    }
    results = {
        "implementation": "C",
        "win_vs_recursive": {"families": {"one_suit_17": family}, "disagreements": 0},
        "waits_vs_recursive": waits_row,
    }
    lines = against_recursion_lines(results)
    assert "  one-suit 17-tile hands: 10.38 / 8.54, 1.215x" in lines
