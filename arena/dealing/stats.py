"""Chi-square tests for the dealer audit, with the corrections its sampling designs need.

Three designs occur:

* **independent draws** (one partnership per deal, every die): Pearson's X² on k cells is
  χ²(k − 1); `scipy.stats.chisquare` gives the p-value.
* **several draws from one deal** (the four hands of a bridge deal, pooled as the seed pools
  them): the hands are dependent (a long suit in one hand shortens it in the others), so X² is
  a weighted sum of χ²(1) variables. The weights are the eigenvalues of the exact covariance of
  one deal's pooled counts, scaled by the multinomial one; we match the first two moments
  (Rao & Scott 1981, the Satterthwaite approximation): X²/c ≈ χ²(ν). The covariance uses the
  exact joint distribution of two hands of one deal from `exact`.
* **a permutation tallied in a table** (card × seat, wall position × tile kind): each deal puts
  every item somewhere exactly once. For a uniform permutation of M items the covariance of the
  tallies is exactly (M / (M − 1)) times a projection of rank (R − 1)(C − 1), whatever the row
  and column multiplicities, so X² · (M − 1) / M is χ²((R − 1)(C − 1)). (Without the factor a
  perfect 52-card shuffle would show about 2 % too much X².)

Cells whose expected count is below 5 are merged before testing: unordered categories (hand
patterns) pool the rarest; ordered ones (points, sums) merge each tail inwards. A cell the exact
law gives probability 0 (a sum of 4 with five dice) is left out of the test, but a count in it
is proof against the dealer, whatever the other cells say: the test then has p = 0 and names
the outcome (`ChiSquare.impossible`), rather than merging the count into a diluted statistic or
failing to compute one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

MIN_EXPECTED = 5.0

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class ChiSquare:
    """One goodness-of-fit test. ``chi2`` and ``dof`` are on the χ² scale the p-value uses."""

    name: str
    chi2: float
    dof: float
    p_value: float
    pearson: float
    """Pearson's X² before any design correction (equal to ``chi2`` for independent draws)."""
    cells: int
    """Cells tested, after merging those expected below 5."""
    method: str
    impossible: tuple[str, ...] = ()
    """Outcomes seen that the exact law calls impossible, each as "<outcome>: <count> seen";
    any makes ``p_value`` 0 (and ``chi2`` infinite)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["impossible"] = list(self.impossible)
        # An infinite statistic is not JSON: null, as `arena.matches.stats.finite_json` does.
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in data.items()
        }


def impossible_outcomes(
    observed: Sequence[int], probabilities: Sequence[float], labels: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The cells with a count that the exact law gives probability 0, as "<label>: <count>
    seen" (``labels[i]``, or "cell i" without labels)."""
    return tuple(
        f"{labels[i] if labels is not None else f'cell {i}'}: {int(count)} seen"
        for i, (count, p) in enumerate(zip(observed, probabilities, strict=True))
        if p <= 0 and count > 0
    )


def _impossible_result(name: str, cells: int, method: str, seen: tuple[str, ...]) -> ChiSquare:
    return ChiSquare(name, math.inf, float(max(cells - 1, 1)), 0.0, math.inf, cells, method, seen)


def merge_groups(expected: Sequence[float], ordered: bool) -> list[list[int]]:
    """Groups of cell indices whose expected counts are each at least `MIN_EXPECTED`.

    Cells with zero expected count are dropped (they cannot be observed from a fair dealer;
    a count in one is caught before, `impossible_outcomes`).

    The sums compared with `MIN_EXPECTED` are `math.fsum`'s, the correctly rounded sum: the
    built-in `sum` of floats adds them one by one on Python 3.11 and with a running correction
    (Neumaier's) from 3.12, so a sum that lands within a rounding error of the threshold (fifty
    cells of 0.1: 4.999999999999998 on 3.11, 5.0 on 3.12) would merge the cells differently,
    and the audit would give other figures for the same seed on another Python.
    """
    cells = [i for i, e in enumerate(expected) if e > 0]
    if math.fsum(expected[i] for i in cells) < 2 * MIN_EXPECTED:
        raise ValueError("too few expected counts for a chi-square test: deal more")
    if ordered:
        groups: list[list[int]] = []
        current: list[int] = []
        for i in cells:
            current.append(i)
            if math.fsum(expected[j] for j in current) >= MIN_EXPECTED:
                groups.append(current)
                current = []
        if current:
            groups[-1].extend(current)
        return groups
    big = [[i] for i in cells if expected[i] >= MIN_EXPECTED]
    small = sorted((i for i in cells if expected[i] < MIN_EXPECTED), key=lambda i: expected[i])
    if not small:
        return big
    pool = list(small)
    # Top the pool up with the next-rarest cells until it is itself testable.
    big.sort(key=lambda g: expected[g[0]])
    while math.fsum(expected[i] for i in pool) < MIN_EXPECTED:
        pool.extend(big.pop(0))
    groups = [*big, pool]
    groups.sort(key=min)
    return groups


def _merge_matrix(groups: list[list[int]], size: int) -> FloatArray:
    if len(groups) < 2:
        raise ValueError("a chi-square test needs two cells after merging: deal more")
    a = np.zeros((len(groups), size))
    for g, members in enumerate(groups):
        a[g, members] = 1.0
    return a


def independent_test(
    name: str,
    observed: Sequence[int],
    probabilities: Sequence[float],
    ordered: bool,
    labels: Sequence[str] | None = None,
) -> ChiSquare:
    """Pearson's test for independent draws, cells merged as needed. A count in a cell of
    probability 0 gives p = 0 (`impossible_outcomes`, named by ``labels``)."""
    obs = np.asarray(observed, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    expected = obs.sum() * p
    a = _merge_matrix(merge_groups(expected.tolist(), ordered), len(p))
    seen = impossible_outcomes(observed, probabilities, labels)
    if seen:
        return _impossible_result(name, a.shape[0], "pearson", seen)
    from scipy import stats  # here, not at the top: see `arena.matches.stats`

    result = stats.chisquare(a @ obs, a @ expected)
    chi2 = float(result.statistic)
    return ChiSquare(
        name, chi2, float(a.shape[0] - 1), float(result.pvalue), chi2, a.shape[0], "pearson"
    )


def pooled_test(
    name: str,
    observed: Sequence[int],
    probabilities: Sequence[float],
    pair_joint: FloatArray,
    per_deal: int,
    ordered: bool,
    labels: Sequence[str] | None = None,
) -> ChiSquare:
    """Pearson's X² for ``per_deal`` exchangeable draws per deal, corrected by Rao–Scott.

    ``pair_joint[a, b]`` is P(one draw of a deal is a and another is b). A count in a cell of
    probability 0 gives p = 0 (`impossible_outcomes`, named by ``labels``).
    """
    obs = np.asarray(observed, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    expected = obs.sum() * p
    a = _merge_matrix(merge_groups(expected.tolist(), ordered), len(p))
    seen = impossible_outcomes(observed, probabilities, labels)
    if seen:
        return _impossible_result(name, a.shape[0], "rao-scott", seen)
    pm = a @ p
    qm = a @ pair_joint @ a.T
    # Covariance of one deal's pooled counts, over that of per_deal independent draws' scale.
    outer = np.outer(pm, pm)
    cov = per_deal * (np.diag(pm) - outer) + per_deal * (per_deal - 1) * (qm - outer)
    scale = 1.0 / np.sqrt(per_deal * pm)
    weights = np.linalg.eigvalsh(scale[:, None] * cov * scale[None, :])
    weights = weights[weights > 1e-12]
    c = float((weights**2).sum() / weights.sum())
    nu = float(weights.sum() ** 2 / (weights**2).sum())
    em = a @ expected
    pearson = float((((a @ obs) - em) ** 2 / em).sum())
    chi2 = pearson / c
    from scipy import stats

    return ChiSquare(
        name, chi2, nu, float(stats.chi2.sf(chi2, nu)), pearson, a.shape[0], "rao-scott"
    )


def permutation_table_test(
    name: str,
    table: npt.NDArray[np.int64],
    row_sizes: Sequence[int],
    col_sizes: Sequence[int],
) -> ChiSquare:
    """Test that a table of permutation tallies is uniform (see the module docstring).

    ``table[r, c]`` counts, over all deals, the items of row class r placed in column class c;
    ``row_sizes`` and ``col_sizes`` are the class sizes within one deal (both summing to M).
    """
    rows = np.asarray(row_sizes, dtype=np.float64)
    cols = np.asarray(col_sizes, dtype=np.float64)
    items = float(rows.sum())
    if items != cols.sum():
        raise ValueError("row and column class sizes must both add up to the items per deal")
    deals = float(table.sum()) / items
    expected = deals * np.outer(rows, cols) / items
    if expected.min() < MIN_EXPECTED:
        raise ValueError("too few deals for this table test: every cell needs 5 expected")
    pearson = float(((table - expected) ** 2 / expected).sum())
    chi2 = pearson * (items - 1) / items
    dof = float((len(rows) - 1) * (len(cols) - 1))
    from scipy import stats

    return ChiSquare(
        name,
        chi2,
        dof,
        float(stats.chi2.sf(chi2, dof)),
        pearson,
        table.size,
        "permutation",
    )
