"""Gaps a mutation audit of ``arena bench mahjong`` found: its figures and text checked against
made-up timings (every timed call answers from a table of µs per hand, so nothing is timed),
its agreement counts against baselines made to differ, the hands it draws, the best-of timing
helpers, and the targets' bounds. Small sizes."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from itertools import count
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from arena.bench import mahjong_hands
from arena.bench.mahjong_hands import CONVERSIONS, run_hand_bench
from arena.bench.mahjong_hands_report import judge, render
from arena.bench.mahjong_recursive import recursive_is_winning, set_removals
from arena.games.mahjong import analysis
from arena.games.mahjong.analysis import is_winning, waits
from arena.games.mahjong.tables import get_tables

N = 30
US_PER_HAND = {
    "is_winning": 1.0,
    "_is_winning_python": 5.0,
    "is_agari": 4.0,
    "is_agari_regular": 3.0,
    "deficiency": 2.0,
    "_deficiency_python": 8.0,
    "calculate_shanten_for_regular_hand": 60.0,
    "theorem_one_is_winning": 7.0,
    "recursive_is_winning": 21.0,
    "waits": 10.0,
    "recursive_waits": 50.0,
    "_waits_in_python": 25.0,
}
"""The made-up cost of one call of each timed function, by name."""

BEST_OF = [[1.0, 3.0, 2.0, 5.0, 4.0], [0.5, 0.75, 0.6]]
"""What the two batch timings answer, in seconds: (deficiency batch from arrays, from lists by
each conversion, each conversion alone), then (win batch from arrays, from lists by each)."""

Calls = list[tuple[list[str], list[list[int]]]]


def fake_per_call(calls: Calls) -> Callable[..., list[float]]:
    def per_call(
        rounds: int, fns: Sequence[Callable[..., object]], hands: Sequence[Any]
    ) -> list[float]:
        names = [fn.__name__ for fn in fns]
        calls.append((names, [list(h) for h in hands]))
        return [US_PER_HAND[name] * len(hands) / 1e6 for name in names]

    return per_call


def fake_best_of() -> Callable[..., list[float]]:
    answers = iter(BEST_OF)

    def best_of(rounds: int, *timed: Callable[[], object]) -> list[float]:
        times = next(answers)
        assert len(times) == len(timed)
        return times

    return best_of


def flipping_once(fn: Callable[..., Any], call: int) -> Callable[..., Any]:
    """``fn`` answering wrongly on its ``call``-th use (from 0), right otherwise."""
    counter = count()

    @functools.wraps(fn)
    def flipped(hand: Any) -> Any:
        answer = fn(hand)
        if next(counter) != call:
            return answer
        if isinstance(answer, np.ndarray):
            answer = answer.copy()
            answer[call] += 1
            return answer
        return not answer

    return flipped


def flipping_theorem_one_once(removals: Callable[..., Any], call: int) -> Callable[..., Any]:
    """`set_removals` whose theorem-1 verdict (``backtrack=False``) is wrong on its ``call``-th
    use (from 0)."""
    counter = count()

    @functools.wraps(removals)
    def flipped(hand: Any, backtrack: bool) -> tuple[bool, int]:
        found, removed = removals(hand, backtrack=backtrack)
        if backtrack or next(counter) != call:
            return found, removed
        return not found, removed

    return flipped


SEVEN_PAIRS = [0] * 34
for _t in (0, 2, 4, 9, 11, 27, 28):
    SEVEN_PAIRS[_t] = 2


@pytest.fixture(scope="module")
def faked() -> tuple[dict[str, Any], Calls]:
    """A 30-hand bench with made-up timings, one seven-pairs hand among the 14-tile ones, and
    baselines that each differ from ours once (theorem 1 plain, its counted pass, the
    deficiency batch)."""
    calls: Calls = []
    real_mixed = mahjong_hands._mixed_hands

    def mixed_with_seven_pairs(rng: np.random.Generator, n: int, sets: int) -> Any:
        hands, kinds, mix = real_mixed(rng, n, sets)
        if sets == 4:
            hands[kinds.index("random")] = list(SEVEN_PAIRS)
        return hands, kinds, mix

    readings = iter([0.0, 2.0, 10.0, 10.25])  # table generation 2 s, cache load 0.25 s
    c_check = analysis.c_is_winning
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mahjong_hands, "build_tables", get_tables)
        patch.setattr(mahjong_hands, "_per_call", fake_per_call(calls))
        patch.setattr(mahjong_hands, "_best_of", fake_best_of())
        patch.setattr(mahjong_hands, "time", SimpleNamespace(perf_counter=lambda: next(readings)))
        patch.setattr(mahjong_hands, "IMPLEMENTATION", "C")
        patch.setattr(mahjong_hands, "deficiency_implementation", lambda: "C")
        patch.setattr(mahjong_hands, "_mixed_hands", mixed_with_seven_pairs)
        patch.setattr(
            mahjong_hands,
            "theorem_one_is_winning",
            flipping_once(mahjong_hands.theorem_one_is_winning, 5),
        )
        patch.setattr(
            mahjong_hands, "set_removals", flipping_theorem_one_once(mahjong_hands.set_removals, 3)
        )
        patch.setattr(
            mahjong_hands, "deficiency_batch", flipping_once(mahjong_hands.deficiency_batch, 0)
        )
        results = run_hand_bench(N, seed=7, rounds=1)
    assert analysis.c_is_winning is c_check  # the waits in Python put the C check back
    return results, calls


def test_the_one_call_figures_are_microseconds_per_hand_and_baseline_over_ours(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    expected = {
        "win_us": 1.0,
        "agari_us": 4.0,
        "win_ratio": 4.0,
        "agari_regular_us": 3.0,
        "win_ratio_regular": 3.0,
        "win_python_us": 5.0,
        "win_python_ratio": 0.8,
        "deficiency_us": 2.0,
        "shanten_us": 60.0,
        "deficiency_ratio": 30.0,
        "deficiency_python_us": 8.0,
        "deficiency_python_ratio": 7.5,
        "deficiency_17_us": 2.0,
        "generation_seconds": 2.0,
        "load_seconds": 0.25,
    }
    assert {key: r[key] for key in expected} == pytest.approx(expected)
    for kind in ("winning", "ready_plus_draw", "random"):
        assert r["win_by_kind"][kind] == pytest.approx(
            {
                "ours_us": 1.0,
                "agari_us": 4.0,
                "ratio": 4.0,
                "agari_regular_us": 3.0,
                "ratio_regular": 3.0,
            }
        )


def test_the_batch_figures_charge_the_fastest_conversion(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    shanten_total = 60e-6 * N
    first, second = list(CONVERSIONS)
    assert r["deficiency_batch_us"] == pytest.approx(1.0 / N * 1e6)
    assert r["deficiency_batch_ratio"] == pytest.approx(shanten_total / 1.0)
    # From lists: 3 s by the first conversion, 2 s by the second, which is charged.
    assert r["conversion"] == second
    assert r["deficiency_batch_from_lists_us"] == pytest.approx(2.0 / N * 1e6)
    assert r["deficiency_batch_from_lists_ratio"] == pytest.approx(shanten_total / 2.0)
    assert r["conversions_us"] == pytest.approx({first: 5.0 / N * 1e6, second: 4.0 / N * 1e6})
    # The win batch runs the 17-tile hands repeated to 300,000.
    assert r["batch_hands"] == 300_000
    assert r["batch_hands_per_second"] == pytest.approx(300_000 / 0.5)
    assert r["batch_from_lists_hands_per_second"] == pytest.approx(300_000 / 0.6)


def test_the_recursion_figures_are_its_time_over_each_of_the_others(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, calls = faked
    row = {
        "ours_us": 1.0,
        "ours_python_us": 5.0,
        "theorem1_plain_us": 7.0,
        "recursive_us": 21.0,
        "ours_ratio": 21.0,
        "ours_python_ratio": 4.2,
        "theorem1_plain_ratio": 3.0,
    }
    for family in r["win_vs_recursive"]["families"].values():
        assert {k: family[k] for k in row} == pytest.approx(row)
        for by_kind in family["by_kind"].values():
            assert by_kind == pytest.approx(row)
    w = r["waits_vs_recursive"]
    figures = {
        "ours_us": 10.0,
        "ours_python_us": 25.0,
        "recursive_us": 50.0,
        "ours_ratio": 5.0,
        "ours_python_ratio": 2.0,
    }
    assert {k: w[k] for k in figures} == pytest.approx(figures)
    (ready,) = [hands for names, hands in calls if names[0] == "waits"]
    assert w["hands"] == len(ready) == r["mix_17"]["winning"]
    assert w["waits_per_hand"] == pytest.approx(sum(len(waits(h)) for h in ready) / len(ready))


def test_the_one_suit_family_is_seventeen_tiles_of_characters(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, calls = faked
    family = r["win_vs_recursive"]["families"]["one_suit_17"]
    timed = [
        hands
        for names, hands in calls
        if "recursive_is_winning" in names and all(sum(h[9:]) == 0 for h in hands)
    ]
    assert len(timed[0]) == family["hands"] == N // 2
    assert all(sum(h) == 17 for hands in timed for h in hands)
    assert family["wins"] == sum(is_winning(h) for h in timed[0]) >= (N // 2 + 1) // 2


def test_the_agreement_counts_leave_out_seven_pairs_and_count_every_difference(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    # Agari wins the seven pairs, ours does not: left out, not a disagreement.
    assert r["special_14"] >= 1 and r["win_disagreements"] == 0
    assert r["deficiency_disagreements"] == 0  # deficiency is shanten + 1
    # The baselines made to differ once are caught, wherever the difference is.
    assert r["deficiency_batch_disagreements"] == 1
    assert r["win_vs_recursive"]["disagreements"] == 2  # timed check and counted pass
    assert r["waits_vs_recursive"]["disagreements"] == 0
    assert r["wins_17"] == r["win_vs_recursive"]["families"]["hands_17"]["wins"]
    assert r["wins_14"] == r["win_vs_recursive"]["families"]["hands_14"]["wins"]


def test_without_the_c_checks_ours_in_python_is_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Calls = []
    monkeypatch.setattr(mahjong_hands, "_per_call", fake_per_call(calls))
    hands = [list(SEVEN_PAIRS)] * 3
    fns = [is_winning, mahjong_hands.theorem_one_is_winning, mahjong_hands.recursive_is_winning]
    row = mahjong_hands._timed_against_recursion(1, fns, hands)
    assert row["ours_python_us"] == row["ours_us"] == pytest.approx(1.0)
    assert row["ours_python_ratio"] == row["ours_ratio"] == pytest.approx(21.0)


# --- the hands drawn ----------------------------------------------------------------------------


def test_the_mix_is_a_third_of_each_kind_and_the_winning_ones_win() -> None:
    for n in (30, 31):
        hands, kinds, mix = mahjong_hands._mixed_hands(np.random.default_rng(5), n, 5)
        assert mix == {"winning": 10, "ready_plus_draw": 10, "random": n - 20}
        assert {kind: kinds.count(kind) for kind in mix} == mix
        assert all(sum(h) == 17 and max(h) <= 4 for h in hands)
        assert all(is_winning(h) for h, kind in zip(hands, kinds, strict=True) if kind == "winning")
        near = [h for h, kind in zip(hands, kinds, strict=True) if kind == "ready_plus_draw"]
        assert not all(is_winning(h) for h in near)


def test_random_hands_are_drawn_from_all_136_tiles() -> None:
    hands = mahjong_hands._random_hands(np.random.default_rng(9), 400, 17)
    assert hands.shape == (400, 34)
    assert (hands.sum(axis=1) == 17).all() and hands.max() <= 4
    assert (hands.sum(axis=0) > 0).all()  # every kind, honours included, turns up


def test_one_suit_hands_stay_in_the_characters_and_half_of_them_win() -> None:
    hands, kinds = mahjong_hands._one_suit_hands(np.random.default_rng(3), 41, 5)
    assert len(hands) == 41 and kinds.count("winning") == 21
    assert all(sum(h) == 17 and sum(h[9:]) == 0 and max(h) <= 4 for h in hands)
    assert all(is_winning(h) for h, k in zip(hands, kinds, strict=True) if k == "winning")


def test_a_package_source_without_the_markers_leaves_the_regular_form_unmeasured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A later ``mahjong`` release whose is_agari no longer has the ``if j & 2:`` test: no
    figure (the report says "not measured"), rather than a check cut at the wrong place."""
    real = inspect.getsource

    def changed(obj: Any) -> str:
        return real(obj).replace("if j & 2:", "if j & 0b10:")

    assert mahjong_hands.regular_form_agari() is not None
    monkeypatch.setattr(inspect, "getsource", changed)
    assert mahjong_hands.regular_form_agari() is None


def test_counting_a_hand_of_the_wrong_size_removes_nothing() -> None:
    """As `recursive_is_winning`, which answers no at once: a 3k-tile hand (111222m, whose pair
    22 would leave the pung 111) is not worked on."""
    hand = [3, 3] + [0] * 32
    assert not recursive_is_winning(hand)
    assert set_removals(hand, backtrack=True) == set_removals(hand, backtrack=False) == (False, 0)


def test_fewer_than_three_hands_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        run_hand_bench(2)


# --- the best-of timing helpers, on a made-up clock ----------------------------------------------


class Clock:
    """A perf_counter that only the timed functions move."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls = 0

    def perf_counter(self) -> float:
        return self.now


def test_per_call_sums_the_best_round_of_every_block(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(mahjong_hands, "time", clock)
    # Each call costs 1 s in round 0, 0.25 s in round 1 and 0.5 s in round 2 of its block.
    hands = [[number] for number in range(2 * mahjong_hands._BLOCK + 7)]
    block_sizes = [mahjong_hands._BLOCK, mahjong_hands._BLOCK, 7]
    per_round = [1.0, 0.25, 0.5]

    def fn(hand: list[int]) -> None:
        block = hand[0] // mahjong_hands._BLOCK
        done = clock.calls - sum(block_sizes[:block]) * 3
        clock.calls += 1
        clock.now += per_round[done // block_sizes[block]]

    (total,) = mahjong_hands._per_call(3, [fn], hands)
    assert clock.calls == 3 * len(hands)  # every hand, every round
    assert total == pytest.approx(0.25 * len(hands))


def test_best_of_keeps_each_callables_fastest_round(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(mahjong_hands, "time", clock)
    costs = {"a": iter([3.0, 1.0, 2.0]), "b": iter([0.5, 0.75, 0.25])}

    def timed(name: str) -> Callable[[], None]:
        def run() -> None:
            clock.now += next(costs[name])

        return run

    assert mahjong_hands._best_of(3, timed("a"), timed("b")) == [1.0, 0.25]


# --- the targets and the text ------------------------------------------------------------------


def judged(results: dict[str, Any], **changes: Any) -> dict[str, Any]:
    case = dict(results, **changes)
    case["targets"] = judge(case)
    return case


def verdict(results: dict[str, Any], quantity: str) -> bool | None:
    met: bool | None = next(t["met"] for t in results["targets"] if t["quantity"] == quantity)
    return met


def test_each_bound_is_met_by_its_own_value_and_missed_beyond(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    on_the_bound = judged(r, win_ratio=2.0, deficiency_17_us=25.0, load_seconds=0.5)
    assert verdict(on_the_bound, "win check ratio to Agari.is_agari") is True
    assert verdict(on_the_bound, "deficiency, one 17-tile hand, µs") is True
    assert verdict(on_the_bound, "table cache load, s") is True
    beyond = judged(r, deficiency_17_us=30.0, load_seconds=0.6, generation_seconds=12.0)
    assert verdict(beyond, "deficiency, one 17-tile hand, µs") is False
    assert verdict(beyond, "table cache load, s") is False
    assert verdict(beyond, "table generation, s") is False
    quick = judged(r, deficiency_17_us=10.0, generation_seconds=9.0, load_seconds=0.75)
    assert verdict(quick, "deficiency, one 17-tile hand, µs") is True
    assert verdict(quick, "table generation, s") is True


def cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_the_text_shows_the_figures_in_their_units(faked: tuple[dict[str, Any], Calls]) -> None:
    r, _ = faked
    lines = render(r).splitlines()

    def row(start: str) -> list[str]:
        return cells(next(line for line in lines if line.startswith(start)))

    assert row("win check batch, 17-tile")[1] == "0.6M hands/s"
    assert row("table generation")[1:] == ["2.00 s", "<= 10 s met"]
    assert row("table cache load")[1:] == ["250.0 ms", "<= 0.5 s met"]
    by_kind = next(line for line in lines if line.startswith("win check by kind"))
    assert "winning 1.00 vs 4.00 µs (4.0x), regular form 3.00 µs (3.0x)" in by_kind
    header = cells(next(line for line in lines if line.endswith("recursive removal")))
    assert header == ["what", "ours (C)", "ours in Python", "theorem 1, plain", "recursive removal"]
    assert row("win check, 14-tile hands above") == [
        f"win check, 14-tile hands above ({N}, {r['wins_14']} win)",
        "1.00 µs 21.00x",
        "5.00 µs 4.20x",
        "7.00 µs 3.00x",
        "21.00 µs",
    ]
    assert row("waits, ready 16-tile hands")[1:] == ["10.00 µs 5.00x", "25.00 µs 2.00x", "50.00 µs"]
    assert any(line.endswith("time over ours / ours in Python / theorem 1:") for line in lines)
    last = lines[-1]
    assert "differ from our win check on 2 hands" in last and "from our waits on 0" in last


def test_the_agreement_line_counts_what_was_compared(faked: tuple[dict[str, Any], Calls]) -> None:
    r, _ = faked
    case = dict(
        r,
        special_14=2,
        win_disagreements=1,
        deficiency_disagreements=3,
        mix_14={"winning": 10, "ready_plus_draw": 9, "random": 11},
    )
    text = render(case)
    assert "win check 27/28 with Agari (2 seven-pairs/thirteen-orphans hands left out)" in text
    assert f"deficiency 27/{N} equal to shanten + 1, batch 1 differences" in text
    assert "14-tile hands: 10 winning, 9 ready plus one drawn tile, 11 random" in text


def test_theorem_one_no_faster_than_the_recursion_is_said(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    case = dict(r, win_vs_recursive=dict(r["win_vs_recursive"]))
    families = {key: dict(row) for key, row in r["win_vs_recursive"]["families"].items()}
    families["one_suit_17"]["theorem1_plain_ratio"] = 1.0
    case["win_vs_recursive"]["families"] = families
    assert "is NOT faster than it on: one-suit 17-tile hands (1.00x)" in render(case)


def test_all_in_python_says_nothing_of_a_refused_c_deficiency(
    faked: tuple[dict[str, Any], Calls],
) -> None:
    r, _ = faked
    pure = dict(r, implementation="Python", deficiency_implementation="Python")
    assert "refused the tables" not in render(pure)
