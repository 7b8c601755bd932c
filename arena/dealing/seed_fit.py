"""Seed 000's published tables (`seed_table`) tested, as data, against the exact distributions.

Seed 000 offers its pattern and points tables as evidence that its dealer is fair; this module
checks that evidence, not our own dealing. It sets each table, as printed, against its exact law
(`exact`) with the tests a sample of that size would get (the Rao–Scott pooled χ² of `stats`, and
a z for every row that allows for the dependent hands of one deal), and says where the printed
figures contradict themselves (a missing row, misprinted counts, broken symmetry). It stands
apart from `audit`, which tallies and tests what we deal, because its input is a fixed published
text rather than a tally; the bridge audit report adds its `findings` beside its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.dealing import exact, stats
from arena.dealing.bridge import SEATS, SUIT_SIZE
from arena.dealing.seed_table import (
    SEED_POINTS_ONE_HAND,
    SEED_POINTS_ONE_HAND_TOTAL,
    SEED_POINTS_ROWS,
    SEED_POINTS_TWO_HANDS,
    SEED_POINTS_TWO_HANDS_TOTAL,
    SEED_TOTAL,
    omitted_patterns,
    rows_total,
    seed_counts,
)

FloatArray = npt.NDArray[np.float64]

_SEATS = len(SEATS)

# ------------------------------------------------------------------------------ the pattern table


def _seed_pattern_observed() -> list[int]:
    counts = seed_counts()
    gap = SEED_TOTAL - rows_total()
    # One row is missing (`omitted_patterns`), so the whole gap belongs to it.
    return [counts.get(exact.pattern_text(key), gap) for key in exact.patterns()]


def seed_pattern_fit() -> stats.ChiSquare:
    """The seed's pattern counts, its gap filled in as the omitted row, against the exact law."""
    return stats.pooled_test(
        "the seed's table (its figures), gap as the omitted row",
        _seed_pattern_observed(),
        [float(p) for p in exact.pattern_probabilities()],
        exact.pattern_pair_joint(),
        _SEATS,
        ordered=False,
    )


def pooled_z(
    observed: Sequence[int], probabilities: Sequence[float], both: Sequence[float], per_deal: int
) -> FloatArray:
    """Each cell's (observed − expected) / SE for counts pooled over ``per_deal`` draws per deal.

    ``both[i]`` is P(two draws of one deal both land in cell i). The draws of a deal are
    dependent, so a cell's count has variance D·(k·p(1 − p) + k(k − 1)·(both − p²)) over D deals
    of k draws, not the binomial one. Impossible cells (p = 0) get z = 0.
    """
    obs = np.asarray(observed, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    total = obs.sum()
    deals = total / per_deal
    var = deals * (per_deal * p * (1 - p) + per_deal * (per_deal - 1) * (np.asarray(both) - p * p))
    safe = np.where(var > 0, var, 1.0)
    return np.where(var > 0, (obs - total * p) / np.sqrt(safe), 0.0)


def seed_pattern_z() -> dict[str, float]:
    """z of each row of the seed's pattern table (the gap as the omitted row) against exact."""
    z = pooled_z(
        _seed_pattern_observed(),
        [float(p) for p in exact.pattern_probabilities()],
        np.diag(exact.pattern_pair_joint()).tolist(),
        _SEATS,
    )
    return {exact.pattern_text(key): float(v) for key, v in zip(exact.patterns(), z, strict=True)}


def largest_printed_pattern_z() -> tuple[str, float]:
    """The printed row of the seed's pattern table furthest from its expectation, and its z."""
    printed = seed_counts()
    return max(
        ((name, z) for name, z in seed_pattern_z().items() if name in printed),
        key=lambda item: abs(item[1]),
    )


# ------------------------------------------------------------------------------ the points tables


def percent_disagreements(rows: Sequence[tuple[int, str]], total: int) -> list[int]:
    """The rows whose count is not their own printed percentage of ``total`` (to 4 places)."""
    return [i for i, (n, pct) in enumerate(rows) if f"{100 * n / total:.4f}" != pct]


def mirror_breaks(counts: Sequence[int]) -> list[tuple[int, int]]:
    """Points h < 20 whose count differs from that of 40 − h, as (h, 40 − h)."""
    top = len(counts) - 1
    return [(h, top - h) for h in range(top // 2) if counts[h] != counts[top - h]]


def _partnership_pair_joint() -> FloatArray:
    """P(N+S holds a and E+W holds b) for one uniform deal: b = 40 − a, always."""
    p = [float(x) for x in exact.hcp_distribution(2 * SUIT_SIZE)]
    joint = np.zeros((len(p), len(p)))
    for a, pa in enumerate(p):
        joint[a, exact.TOTAL_HCP - a] = pa
    return joint


@dataclass(frozen=True)
class SeedPointsFit:
    """One of seed 000's points tables (its figures) against the exact distribution."""

    name: str
    printed: tuple[int, ...]
    counts: tuple[int, ...]
    """The counts tested: ``printed`` with the rows in ``corrected`` replaced."""
    corrected: tuple[int, ...]
    mirrored: bool
    """Whether row h counts the same deals as row 40 − h (both partnerships of every deal)."""
    stated_total: int
    probabilities: tuple[float, ...]
    """Exact, by points 0 … 40 (zero where the points cannot occur)."""
    z: tuple[float, ...]
    test: stats.ChiSquare

    def largest_z(self) -> tuple[int, float]:
        """The points total furthest from its expectation, and its z."""
        h = max(range(len(self.z)), key=lambda i: abs(self.z[i]))
        return h, self.z[h]

    def to_json(self) -> dict[str, Any]:
        h, z = self.largest_z()
        return {
            "printed_total": self.stated_total,
            "rows_total": sum(self.counts),
            "corrected_rows": [
                {"hcp": i, "printed": self.printed[i], "used": self.counts[i]}
                for i in self.corrected
            ],
            "mirror_breaks": mirror_breaks(self.counts) if self.mirrored else None,
            "fit": self.test.to_json(),
            "largest_z": {"hcp": h, "z": z},
            "rows": [
                {
                    "hcp": i,
                    "seed_count": n,
                    "expected": sum(self.counts) * p,
                    "expected_probability": p,
                    "z": zi,
                }
                for i, (n, p, zi) in enumerate(
                    zip(self.counts, self.probabilities, self.z, strict=True)
                )
            ],
        }


def _padded(dist: Sequence[Fraction]) -> list[float]:
    return [float(p) for p in dist] + [0.0] * (SEED_POINTS_ROWS - len(dist))


def seed_points_one_hand() -> SeedPointsFit:
    """The seed's one-hand points table against the exact law, the four hands of a deal pooled."""
    printed = tuple(n for n, _ in SEED_POINTS_ONE_HAND)
    p = _padded(exact.hcp_distribution(SUIT_SIZE))
    possible = len(exact.hcp_distribution(SUIT_SIZE))
    joint = exact.hcp_pair_joint()
    test = stats.pooled_test(
        "the seed's one-hand points table (its figures)",
        printed[:possible],
        p[:possible],
        joint,
        _SEATS,
        ordered=True,
    )
    both = [*np.diag(joint).tolist(), *([0.0] * (SEED_POINTS_ROWS - possible))]
    z = pooled_z(printed, p, both, _SEATS)
    return SeedPointsFit(
        name="one hand",
        printed=printed,
        counts=printed,
        corrected=(),
        mirrored=False,
        stated_total=SEED_POINTS_ONE_HAND_TOTAL,
        probabilities=tuple(p),
        z=tuple(z.tolist()),
        test=test,
    )


def seed_points_two_hands() -> SeedPointsFit:
    """The seed's two-hand points table against the exact law of a partnership's points.

    The table counts N+S and E+W of every deal (its total is twice the deals), so row h equals
    row 40 − h by construction. A row whose count is not its own printed percentage of the
    total (`percent_disagreements`) is replaced by its mirror row. The two draws of a deal are
    the same split seen from both sides, so the test pools them with that exact joint (h with
    40 − h).
    """
    rows = SEED_POINTS_TWO_HANDS
    printed = tuple(n for n, _ in rows)
    wrong = percent_disagreements(rows, SEED_POINTS_TWO_HANDS_TOTAL)
    counts = list(printed)
    for h in wrong:
        counts[h] = printed[exact.TOTAL_HCP - h]
    p = _padded(exact.hcp_distribution(2 * SUIT_SIZE))
    joint = _partnership_pair_joint()
    test = stats.pooled_test(
        "the seed's two-hand points table (its figures, typos corrected)",
        counts,
        p,
        joint,
        2,
        ordered=True,
    )
    z = pooled_z(counts, p, np.diag(joint).tolist(), 2)
    return SeedPointsFit(
        name="two hands",
        printed=printed,
        counts=tuple(counts),
        corrected=tuple(wrong),
        mirrored=True,
        stated_total=SEED_POINTS_TWO_HANDS_TOTAL,
        probabilities=tuple(p),
        z=tuple(z.tolist()),
        test=test,
    )


def _points_notes(one: SeedPointsFit, two: SeedPointsFit) -> list[str]:
    h1, z1 = one.largest_z()
    h2, z2 = two.largest_z()
    fixes = ", ".join(f"{h} points {two.printed[h]:,} → {two.counts[h]:,}" for h in two.corrected)
    unplaced = percent_disagreements(SEED_POINTS_ONE_HAND, one.stated_total)
    breaks = ", ".join(
        f"{a}/{b} ({two.counts[a]:,} vs {two.counts[b]:,})" for a, b in mirror_breaks(two.counts)
    )
    return [
        f"the seed's one-hand points table adds up to {sum(one.counts):,} (stated "
        f"{one.stated_total:,}); rows that are not their own printed percentage: "
        f"{', '.join(map(str, unplaced)) or 'none'}. Against the exact law (four hands of a deal "
        f"pooled): "
        f"χ² {one.test.chi2:.1f}, dof {one.test.dof:.1f}, p {one.test.p_value:.3g}; largest "
        f"deviation at {h1} points (z {z1:+.2f})",
        f"the seed's two-hand points table counts both partnerships of every deal; rows that "
        f"are not their own printed percentage are replaced by their mirror rows ({fixes}), "
        f"which makes it add up to {sum(two.counts):,} (stated {two.stated_total:,}); still "
        f"not symmetric at {breaks}. Against the exact law of a partnership (its two "
        f"partnerships pooled): χ² {two.test.chi2:.1f}, dof {two.test.dof:.1f}, "
        f"p {two.test.p_value:.3g}; largest deviation at {h2} points (z {z2:+.2f})",
    ]


# ------------------------------------------------------------------------------ for the report


def findings() -> tuple[dict[str, Any], list[str]]:
    """All of the above for the bridge report: its JSON-ready tallies (``seed_table``,
    ``seed_points``) and its notes."""
    seed_rows = seed_counts()
    missing = omitted_patterns()
    gap = SEED_TOTAL - rows_total()
    fit = seed_pattern_fit()
    worst_name, worst_z = largest_printed_pattern_z()
    missing_share = sum(
        float(p)
        for key, p in zip(exact.patterns(), exact.pattern_probabilities(), strict=True)
        if exact.pattern_text(key) in missing
    )
    one, two = seed_points_one_hand(), seed_points_two_hands()
    notes = [
        f"the seed's table (its published figures, transcribed in arena/dealing/seed_table.py) "
        f"has {len(seed_rows)} rows; it omits {', '.join(missing)}. Its rows add up to "
        f"{rows_total():,}, {gap:,} short of its stated total {SEED_TOTAL:,} "
        f"({gap / SEED_TOTAL:.4%}; the exact share of {', '.join(missing)} is "
        f"{missing_share:.4%}). "
        f"Taking the gap as the missing row, the seed's figures fit the exact probabilities: "
        f"χ² {fit.chi2:.1f}, dof {fit.dof:.1f}, p {fit.p_value:.3g}; the printed "
        f"row furthest from its expectation is {worst_name} (z {worst_z:+.2f}).",
        *_points_notes(one, two),
    ]
    tallies = {
        "seed_table": {
            "rows": len(seed_rows),
            "omitted": missing,
            "rows_total": rows_total(),
            "stated_total": SEED_TOTAL,
            "fit_with_gap_as_omitted_row": fit.to_json(),
            "largest_printed_z": {"pattern": worst_name, "z": worst_z},
        },
        "seed_points": {"one_hand": one.to_json(), "two_hands": two.to_json()},
    }
    return tallies, notes
