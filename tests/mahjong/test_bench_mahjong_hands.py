"""`arena bench mahjong`: the batch rows are also timed from the baseline's own Python lists, the
win check also against Agari's regular-form-only work, and every target is judged where the
comparison is fair. Small sizes; no timing is asserted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from arena.bench import mahjong_hands
from arena.bench.mahjong_hands import CONVERSIONS, regular_form_agari, run_hand_bench
from arena.bench.mahjong_hands_report import judge, render
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.tables import get_tables


@pytest.fixture(scope="module")
def small() -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as patch:
        # Table generation takes seconds; the cached tables stand in for it.
        patch.setattr(mahjong_hands, "build_tables", get_tables)
        return run_hand_bench(30, seed=7, rounds=1)


def _target(results: dict[str, Any], quantity: str) -> dict[str, Any]:
    return next(t for t in results["targets"] if t["quantity"] == quantity)


def test_regular_form_agari_is_the_package_without_seven_pairs_and_thirteen_orphans() -> None:
    from mahjong.agari import Agari

    regular = regular_form_agari()
    assert regular is not None
    seven_pairs = [0] * 34
    for t in (0, 2, 4, 9, 11, 27, 28):  # no four sets and a pair in these
        seven_pairs[t] = 2
    orphans = [0] * 34
    for t in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33):
        orphans[t] = 1
    orphans[0] = 2
    for special in (seven_pairs, orphans):
        assert Agari.is_agari(special) and not regular(special)
    rng = np.random.default_rng(3)
    hands, _, _ = mahjong_hands._mixed_hands(rng, 300, 4)
    assert all(regular(h) == is_winning(h) for h in hands)


def test_every_list_conversion_gives_the_int8_array() -> None:
    hands = [[1, 0, 4] + [0] * 31, [0] * 33 + [2]]
    for convert in CONVERSIONS.values():
        array = convert(hands)
        assert array.dtype == np.int8 and array.shape == (2, 34)
        assert np.array_equal(array, np.array(hands, dtype=np.int8))


def test_the_report_has_both_batch_figures_and_both_win_ratios(small: dict[str, Any]) -> None:
    assert small["conversion"] in CONVERSIONS
    assert set(small["conversions_us"]) == set(CONVERSIONS)
    for key in (
        "batch_hands_per_second",
        "batch_from_lists_hands_per_second",
        "deficiency_batch_ratio",
        "deficiency_batch_from_lists_ratio",
        "win_ratio",
        "win_ratio_regular",
    ):
        assert small[key] > 0
    assert small["agari_regular_disagreements"] == 0
    for target in small["targets"]:
        assert set(target) == {"quantity", "comparison", "bound", "unit", "measured", "met", "note"}


def test_the_design_30x_is_judged_on_lists_never_on_ready_arrays(small: dict[str, Any]) -> None:
    judged = {t["quantity"] for t in small["targets"] if t["bound"] == 30.0}
    assert judged == {
        "deficiency ratio to shanten, one call (design)",
        "deficiency batch from lists, ratio to shanten (design)",
    }
    flattering = dict(small, deficiency_batch_ratio=1000.0, deficiency_batch_from_lists_ratio=29.0)
    flattering["targets"] = judge(flattering)
    verdict = _target(flattering, "deficiency batch from lists, ratio to shanten (design)")
    assert verdict["met"] is False
    text = render(flattering)
    assert "design >= 30x MISSED" in text and "not judged: no conversion" in text
    fair = dict(flattering, deficiency_batch_from_lists_ratio=31.0)
    fair["targets"] = judge(fair)
    assert _target(fair, "deficiency batch from lists, ratio to shanten (design)")["met"] is True


def test_both_win_ratios_are_judged_and_a_miss_is_said(small: dict[str, Any]) -> None:
    case = dict(small, win_ratio=2.4, win_ratio_regular=1.7, batch_from_lists_hands_per_second=9e5)
    case["targets"] = judge(case)
    assert _target(case, "win check ratio to Agari.is_agari")["met"] is True
    assert _target(case, "win check ratio to Agari, regular form only")["met"] is False
    assert _target(case, "win check batch from lists, hands/s")["met"] is False
    lines = render(case).splitlines()
    regular_row = next(line for line in lines if "Agari regular form only" in line)
    assert regular_row.rstrip().endswith(">= 2x MISSED")
    lists_row = next(line for line in lines if line.startswith("  the same from lists"))
    assert ">= 1M/s MISSED" in lists_row


def test_without_the_regular_form_copy_the_figure_is_not_measured(small: dict[str, Any]) -> None:
    case = dict(small, agari_regular_us=None, win_ratio_regular=None)
    case["targets"] = judge(case)
    assert _target(case, "win check ratio to Agari, regular form only")["met"] is None
    assert "not measured" in render(case)


def test_the_report_names_the_implementation_and_times_the_python_reference(
    small: dict[str, Any],
) -> None:
    from arena.games.mahjong.speedups import IMPLEMENTATION

    assert small["implementation"] == IMPLEMENTATION
    for key in ("win_python_us", "deficiency_python_us"):
        assert small[key] > 0
    text = render(small)
    assert f"one-hand checks: {IMPLEMENTATION}" in text
    assert ("ours in pure Python" in text) == (IMPLEMENTATION == "C")
    pure = dict(small, implementation="Python", deficiency_implementation="Python")
    assert "ours in pure Python" not in render(pure)
    assert "one-hand checks: Python" in render(pure)
    refused = dict(small, implementation="C", deficiency_implementation="Python")
    assert "the deficiency in Python: the C one refused the tables" in render(refused)
    assert render(refused).count("ours in pure Python") == 1  # the win check's row only
