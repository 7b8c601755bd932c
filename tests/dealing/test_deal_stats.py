from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from arena.dealing import stats


def test_ordered_merging_folds_the_tails_inwards() -> None:
    expected = [1.0, 2.0, 3.0, 10.0, 20.0, 10.0, 4.0, 0.5, 0.0]
    # the right tail 4 + 0.5 is still below 5, so it joins the last full cell
    assert stats.merge_groups(expected, ordered=True) == [[0, 1, 2], [3], [4], [5, 6, 7]]


def test_unordered_merging_pools_the_rarest() -> None:
    expected = [50.0, 1.0, 30.0, 2.0, 6.0, 0.0]
    # 1 + 2 is below 5, so the next-rarest cell (6) joins the pool; the impossible cell is dropped
    assert stats.merge_groups(expected, ordered=False) == [[0], [1, 3, 4], [2]]


# Fifty cells of 0.1 expected: their exact sum rounds to 5.0, but 3.11's sum() of floats ends
# at 4.999999999999998 (3.12's at 5.0), so an audit merged its cells by the Python it ran on.


def test_ordered_merging_closes_a_group_at_the_correctly_rounded_five() -> None:
    groups = stats.merge_groups([0.1] * 100 + [100.0], ordered=True)
    assert groups == [list(range(50)), list(range(50, 100)), [100]]


def test_unordered_merging_stops_the_pool_at_the_correctly_rounded_five() -> None:
    groups = stats.merge_groups([0.1] * 50 + [100.0] * 3, ordered=False)
    assert groups == [list(range(50)), [50], [51], [52]]


def test_a_tests_degrees_of_freedom_do_not_hang_on_the_pythons_sum() -> None:
    # 100 draws: a hundred cells expecting 0.1 each make two groups of five, the last cell a third.
    result = stats.independent_test("tail", [0] * 100 + [100], [0.001] * 100 + [0.9], ordered=True)
    assert result.cells == 3
    assert result.dof == 2


def test_independent_test_is_scipys_chisquare() -> None:
    observed = [18, 22, 21, 19, 25, 15]
    result = stats.independent_test("die", observed, [1 / 6] * 6, ordered=False)
    reference = sps.chisquare(observed)
    assert result.chi2 == pytest.approx(reference.statistic)
    assert result.p_value == pytest.approx(reference.pvalue)
    assert result.dof == 5


def test_pooled_test_without_dependence_is_pearson() -> None:
    p = np.array([0.5, 0.3, 0.2])
    observed = [210, 110, 80]
    pooled = stats.pooled_test("x", observed, p.tolist(), np.outer(p, p), 4, ordered=False)
    plain = stats.independent_test("x", observed, p.tolist(), ordered=False)
    assert pooled.chi2 == pytest.approx(plain.chi2)
    assert pooled.dof == pytest.approx(plain.dof)
    assert pooled.p_value == pytest.approx(plain.p_value)


def test_pooled_test_of_identical_draws_divides_by_the_cluster_size() -> None:
    # Four copies of one draw per deal: X² is four times a single draw's, and the test says so.
    p = np.array([0.5, 0.3, 0.2])
    observed = [4 * 52, 4 * 30, 4 * 18]
    pooled = stats.pooled_test("x", observed, p.tolist(), np.diag(p), 4, ordered=False)
    single = stats.independent_test("x", [52, 30, 18], p.tolist(), ordered=False)
    assert pooled.pearson == pytest.approx(4 * single.chi2)
    assert pooled.chi2 == pytest.approx(single.chi2)
    assert pooled.dof == pytest.approx(2)


def test_permutation_table_is_calibrated_on_uniform_permutations() -> None:
    # Averaged over many runs X²·(M−1)/M has mean (R−1)(C−1); plain X² would run M/(M−1) high.
    rng = np.random.default_rng(7)
    values = []
    for _ in range(200):
        perms = np.argsort(rng.random((300, 8)), axis=1)
        table = np.zeros((8, 8), dtype=np.int64)
        np.add.at(table, (perms, np.arange(8)), 1)
        values.append(stats.permutation_table_test("t", table, [1] * 8, [1] * 8).chi2)
    assert np.mean(values) == pytest.approx(49, abs=49 * 0.06)


def test_too_few_deals_are_refused() -> None:
    with pytest.raises(ValueError):
        stats.independent_test("x", [1, 2], [0.5, 0.5], ordered=True)
    with pytest.raises(ValueError):
        stats.permutation_table_test("t", np.ones((4, 4), dtype=np.int64), [1] * 4, [1] * 4)
