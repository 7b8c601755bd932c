"""Seed 001's efficiency claims, checked without timing anything: the recursive set removal it
compares theorem 1 with (the baseline `arena bench mahjong` times) answers as our win check does;
theorem 2 leaves at most three pairs to check (its line "檢驗至多三次"); the bench's JSON and
text carry the comparison. No figure is asserted: these run on loaded machines."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bench import mahjong_hands
from arena.bench.mahjong_hands_report import render
from arena.bench.mahjong_recursive import (
    recursive_is_winning,
    recursive_waits,
    theorem_one_is_winning,
)
from arena.cli.main import app
from arena.games.mahjong import analysis
from arena.games.mahjong.analysis import (
    is_winning,
    pair_candidates,
    waits,
    winning_decompositions,
)
from arena.games.mahjong.tables import get_tables, pattern_digits
from arena.games.mahjong.tiles import parse_tiles, to_counts

runner = CliRunner()


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def one_suit_hands(size: int) -> list[list[int]]:
    """Every hand of ``size`` tiles all in the characters suit (at most four of a kind)."""
    digits = pattern_digits(9)
    return [[*row, *([0] * 25)] for row in digits[digits.sum(axis=1) == size].tolist()]


def sample_hands(seed: int, n: int, sets: int) -> list[list[int]]:
    """The bench's mix: a third winning, a third ready plus one drawn tile, a third random."""
    hands, _, _ = mahjong_hands._mixed_hands(np.random.default_rng(seed), n, sets)
    return hands


# --- the baselines answer as the win check does ---------------------------------------------


def test_the_baselines_follow_seed_001_examples() -> None:
    for check in (recursive_is_winning, theorem_one_is_winning):
        assert check(counts_of("33345678m"))  # example 1
        assert not check(counts_of("55666777889m"))  # example 2: no pair works
        assert check(counts_of("23333444455556666m"))  # theorem 2's example, the pair 44
        assert check(counts_of("11122233m"))  # 111 222 and the pair 33, after 11 and 22 fail
        assert not check(counts_of("123m"))  # 3k tiles: no pair
    assert recursive_waits(counts_of("3456667888m")) == [1, 4, 5, 6, 7, 8]  # example 3
    assert recursive_waits(counts_of("1112345678999m")) == list(range(9))


@pytest.mark.parametrize("size", [2, 5, 8, 11, 14])
def test_the_baselines_agree_with_is_winning_on_every_one_suit_hand(size: int) -> None:
    """Exhaustive: one suit is where the recursion has the most choices to undo."""
    hands = one_suit_hands(size)
    wins = [is_winning(h) for h in hands]
    assert [recursive_is_winning(h) for h in hands] == wins
    assert [theorem_one_is_winning(h) for h in hands] == wins
    assert any(wins) and not all(wins)


@pytest.mark.parametrize(("seed", "sets"), [(11, 4), (12, 5), (13, 5)])
def test_the_baselines_agree_with_is_winning_on_the_bench_mix(seed: int, sets: int) -> None:
    hands = sample_hands(seed, 3000, sets)
    wins = [is_winning(h) for h in hands]
    assert [recursive_is_winning(h) for h in hands] == wins
    assert [theorem_one_is_winning(h) for h in hands] == wins
    assert 1000 <= sum(wins) < 3000  # a third win by construction, a few near misses too


def test_the_baselines_count_honours_and_copies_as_the_win_check_does() -> None:
    cases = {
        "123m456p789s11122z555z": True,
        "123m456p789s1122z": False,
        "11z": True,
        "111z": False,
        "567z567z55z": False,  # honours make no chow
        "1111z22z": False,  # four of an honour: a pung and one left
        "789m": False,
    }
    for text, wins in cases.items():
        hand = counts_of(text)
        assert (
            recursive_is_winning(hand) == theorem_one_is_winning(hand) == is_winning(hand) == wins
        )


def test_the_recursive_waits_agree_with_waits_on_ready_hands() -> None:
    rng = np.random.default_rng(21)
    ready = []
    for _ in range(400):
        c = mahjong_hands._winning_hand(rng, 5)
        held = [t for t in range(34) for _ in range(c[t])]
        c[held[int(rng.integers(len(held)))]] -= 1
        ready.append(c)
    assert [recursive_waits(h) for h in ready] == [waits(h) for h in ready]
    assert all(recursive_waits(h) for h in ready)  # a winning hand less a tile waits on it


def test_the_recursive_baseline_needs_no_mahjong_package() -> None:
    code = (
        "import sys; sys.modules['mahjong'] = None\n"
        "from arena.bench.mahjong_recursive import recursive_is_winning, recursive_waits\n"
        "hand = [3, 1, 1, 1, 1, 1, 1, 1, 3] + [0] * 25\n"
        "assert recursive_waits(hand) == list(range(9))\n"
        "assert 'mahjong' not in {m.split('.')[0] for m in sys.modules if sys.modules[m]}\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- theorem 2: at most three pairs to check -------------------------------------------------


def winning_one_suit_hands(sets: int) -> Iterator[list[int]]:
    """Every winning hand of ``sets`` sets and a pair all in one suit, each once."""
    melds = [("pung", r) for r in range(9)] + [("chow", r) for r in range(7)]
    seen: set[tuple[int, ...]] = set()
    for chosen in combinations_with_replacement(melds, sets):
        base = [0] * 9
        for kind, r in chosen:
            for k in (r, r, r) if kind == "pung" else (r, r + 1, r + 2):
                base[k] += 1
        for pair in range(9):
            c = list(base)
            c[pair] += 2
            key = tuple(c)
            if max(c) <= 4 and key not in seen:
                seen.add(key)
                yield [*c, *([0] * 25)]


class PairChecks:
    """The pairs `_is_winning_python` checks with theorem 1, as ranks in the pair's suit: every
    `_sets_only` call made from `_sets_and_pair`, which takes two copies off one rank first."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tried: list[int] = []
        self._before: list[int] | None = None
        sets_only, sets_and_pair = analysis._sets_only, analysis._sets_and_pair

        def counting(c: list[int], *rest: Any) -> bool:
            if self._before is not None:
                before = self._before
                self.tried.append(next(i for i in range(9) if before[i] - c[i] == 2))
            return sets_only(c, *rest)

        def watching(c: list[int]) -> bool:
            self._before = list(c)
            try:
                return sets_and_pair(c)
            finally:
                self._before = None

        monkeypatch.setattr(analysis, "_sets_only", counting)
        monkeypatch.setattr(analysis, "_sets_and_pair", watching)

    def of(self, hand: list[int]) -> list[int]:
        self.tried = []
        assert analysis._is_winning_python(hand)
        return self.tried


def check_pair_candidates(hands: list[list[int]], checks: PairChecks) -> dict[str, int]:
    """Every hand wins; theorem 2 leaves one to three pairs, among them the pair of every split,
    and the Python win check tries no other. Returns the largest counts seen."""
    most = {"candidates": 0, "pairs_held": 0, "tried": 0}
    for hand in hands:
        candidates = pair_candidates(hand)
        assert 1 <= len(candidates) <= 3, hand
        assert {d.pair for d in winning_decompositions(hand)} <= set(candidates), hand
        assert all(hand[t] >= 2 for t in candidates)
        tried = checks.of(hand)
        if tried:
            suit = candidates[0] // 9
            assert all(9 * suit + r in candidates for r in tried), hand
        assert len(tried) <= len(candidates)
        held = sum(n >= 2 for n in hand)
        for key, value in (("candidates", len(candidates)), ("pairs_held", held)):
            most[key] = max(most[key], value)
        most["tried"] = max(most["tried"], len(tried))
    return most


@pytest.mark.parametrize("sets", [4, 5])
def test_theorem_two_leaves_at_most_three_pairs_in_every_one_suit_hand(
    sets: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exhaustive over every winning one-suit hand of 14 and 17 tiles (seed 001 L131): the
    hands where the most pairs are held, and so where theorem 2 has the most to rule out."""
    hands = list(winning_one_suit_hands(sets))
    assert all(is_winning(h) for h in hands)
    most = check_pair_candidates(hands, PairChecks(monkeypatch))
    assert most["candidates"] == 3 and most["tried"] <= 3
    assert most["pairs_held"] >= 5  # every pair would be tried without theorem 2


def test_theorem_two_leaves_at_most_three_pairs_in_mixed_17_tile_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(31)
    hands = [mahjong_hands._winning_hand(rng, 5) for _ in range(3000)]
    most = check_pair_candidates(hands, PairChecks(monkeypatch))
    assert most["candidates"] <= 3 and most["pairs_held"] > 3


def test_pair_candidates_follow_the_seed_examples() -> None:
    # Theorem 2's example: 4, 5 and 8 tiles of ranks 147, 258, 369 (1, 2, 2 mod 3): only 44.
    assert pair_candidates(counts_of("23333444455556666m")) == [3]
    # 11, 22 and 33 are held, but only 369 is at 2 mod 3: 33 alone is left (111 222).
    assert pair_candidates(counts_of("11122233m")) == [2]
    # The suit totals put the pair in the pins (11 tiles); there the 369 group holds 333 and 66.
    hand = counts_of("123m 33344455566p 789s")
    assert pair_candidates(hand) == [11, 14]
    assert {d.pair for d in winning_decompositions(hand)} == {11, 14}
    assert pair_candidates(counts_of("123m456p789s111z22z")) == [28]  # an honour pair
    assert pair_candidates(counts_of("123m456p789s1z")) == []  # an honour alone: no pair left
    assert pair_candidates(counts_of("11m11p")) == []  # two suits at 2 mod 3


def test_pair_candidates_bound_every_hand_not_only_the_winning_ones() -> None:
    for hand in sample_hands(41, 1500, 5):
        candidates = pair_candidates(hand)
        assert len(candidates) <= 3
        if is_winning(hand):
            assert candidates


# --- the bench carries the comparison ---------------------------------------------------------

FAMILY_KEYS = {
    "hands",
    "wins",
    "ours_us",
    "ours_python_us",
    "theorem1_plain_us",
    "recursive_us",
    "ours_ratio",
    "ours_python_ratio",
    "theorem1_plain_ratio",
    "by_kind",
}


@pytest.fixture(scope="module")
def tiny_bench() -> Iterator[tuple[dict[str, Any], str]]:
    with pytest.MonkeyPatch.context() as patch:
        # Table generation takes seconds; the cached tables stand in for it.
        patch.setattr(mahjong_hands, "build_tables", get_tables)
        args = ["bench", "mahjong", "--hands", "30", "--rounds", "1"]
        as_json = runner.invoke(app, [*args, "--json"])
        assert as_json.exit_code == 0, as_json.output
        as_text = runner.invoke(app, args, env={"COLUMNS": "300"})
        assert as_text.exit_code == 0, as_text.output
        yield json.loads(as_json.stdout), as_text.stdout


def test_the_bench_json_carries_the_recursive_baseline(
    tiny_bench: tuple[dict[str, Any], str],
) -> None:
    data, _ = tiny_bench
    against = data["win_vs_recursive"]
    assert "recursive" in against["baseline"] and "theorem1_plain" in against["baseline"]
    assert against["disagreements"] == 0
    assert set(against["families"]) == {"hands_14", "hands_17", "one_suit_17"}
    for family in against["families"].values():
        assert set(family) == FAMILY_KEYS | {"set_removals"}
        assert all(family[k] > 0 for k in FAMILY_KEYS - {"by_kind", "wins"})
        counted = family["set_removals"]
        assert set(counted) == {
            "recursive_per_hand",
            "theorem1_per_hand",
            "recursive_over_theorem1",
        }
        assert counted["recursive_over_theorem1"] >= 1.0
        for kind in family["by_kind"].values():
            assert set(kind) == FAMILY_KEYS - {"hands", "wins", "by_kind"}
    assert against["families"]["hands_14"]["hands"] == data["n_hands"] == 30
    assert set(against["families"]["hands_14"]["by_kind"]) == {
        "winning",
        "ready_plus_draw",
        "random",
    }
    waits_row = data["waits_vs_recursive"]
    assert waits_row["hands"] == data["mix_17"]["winning"] and waits_row["disagreements"] == 0
    for key in ("ours_us", "ours_python_us", "recursive_us", "ours_ratio", "ours_python_ratio"):
        assert waits_row[key] > 0
    # The Agari comparison is still there beside it.
    assert data["win_ratio"] > 0 and data["win_disagreements"] == 0


def test_the_bench_text_shows_the_comparison_and_says_where_theorem_one_is_not_faster(
    tiny_bench: tuple[dict[str, Any], str],
) -> None:
    data, text = tiny_bench
    assert "seed 001: theorem 1 against the recursive set removal" in text
    assert "waits, ready 16-tile hands" in text and "theorem 1 written as plainly" in text

    def shown(ratios: dict[str, float]) -> str:
        case = json.loads(json.dumps(data))
        for key, ratio in ratios.items():
            case["win_vs_recursive"]["families"][key]["theorem1_plain_ratio"] = ratio
        return render(case)

    slower = shown({"hands_14": 0.91, "hands_17": 1.2, "one_suit_17": 1.3})
    assert "is NOT faster than it on: 14-tile hands above (0.91x)" in slower
    faster = shown({"hands_14": 1.1, "hands_17": 1.2, "one_suit_17": 1.3})
    assert "is faster than it on every family" in faster and "NOT" not in faster


def test_the_text_names_no_python_column_when_the_checks_are_python(
    tiny_bench: tuple[dict[str, Any], str],
) -> None:
    data, _ = tiny_bench
    pure = dict(data, implementation="Python")
    lines = render(pure).splitlines()
    header = next(line for line in lines if line.startswith("what ") and "recursive" in line)
    assert "ours (Python)" in header and "ours in Python" not in header
