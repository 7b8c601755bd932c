"""The single-cell figures the verdict and the tables rest on: the mahjong audit's largest cell
(an exact binomial tail, Bonferroni over the cells) and the z columns (the SE of each count's
sampling design), checked against exact sums over the binomial law and against a simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from arena.dealing import MatchSeed
from arena.dealing.audit import (
    MAHJONG_KINDS,
    MAHJONG_TILES,
    BridgeTally,
    audit_dice,
    audit_mahjong,
    bridge_report,
    worst_cell,
)
from arena.games.mahjong.wall import round_wall

SEED = MatchSeed.from_text("audit-verdict-cells")


def _binomial_two_sided(k: int, n: int, p: Fraction) -> Fraction:
    """min(P(X ≥ k), P(X ≤ k)) doubled, capped at 1, summed exactly over the binomial law."""
    pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
    upper, lower = sum(pmf[k:], Fraction(0)), sum(pmf[: k + 1], Fraction(0))
    return min(Fraction(1), 2 * min(upper, lower))


def _table(walls: int) -> np.ndarray:
    table = np.zeros((len(MAHJONG_TILES), MAHJONG_KINDS), dtype=np.int64)
    for r in range(walls):
        table[np.arange(len(MAHJONG_TILES)), round_wall(SEED, r)] += 1
    return table


@pytest.mark.parametrize("walls", [170, 400])
def test_largest_cell_is_the_exact_binomial_tail_times_the_cells(walls: int) -> None:
    report = audit_mahjong(SEED, walls, deficiency=lambda c: np.zeros(len(c), dtype=np.int64))
    worst = report.tallies["worst_cell"]
    table = _table(walls)  # rebuilt from the engine's walls
    p = Fraction(1, MAHJONG_KINDS)
    exact = {int(k): _binomial_two_sided(int(k), walls, p) for k in np.unique(table)}
    smallest = min(exact.values())
    assert table[worst["position"], worst["kind"]] == worst["observed"]
    assert exact[worst["observed"]] == smallest
    want = min(1.0, table.size * float(smallest))
    assert worst["p_adjusted"] == pytest.approx(want, rel=1e-9)


def test_largest_cell_takes_the_lower_tail_when_it_is_the_rarer() -> None:
    walls = 1000
    table = np.full((len(MAHJONG_TILES), MAHJONG_KINDS), 29, dtype=np.int64)
    table[3, 4] = 45  # above the expected 29.4
    table[7, 8] = 14  # below it, and rarer
    p = Fraction(1, MAHJONG_KINDS)
    high, low = (_binomial_two_sided(k, walls, p) for k in (45, 14))
    assert low < high
    worst = worst_cell(table, walls)
    assert (worst["position"], worst["kind"], worst["observed"]) == (7, 8, 14)
    assert worst["p_two_sided"] == pytest.approx(float(low), rel=1e-9)
    assert worst["p_adjusted"] == pytest.approx(min(1.0, table.size * float(low)), rel=1e-9)


def _pattern_names(decks: np.ndarray) -> np.ndarray:
    """Pattern text of every hand, (deals, 4), from suit lengths counted here."""
    suits = decks.reshape(len(decks), 13, 4) // 13  # position p to seat p % 4
    lengths = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=-1)
    lengths = -np.sort(-lengths, axis=-1)
    return np.array(["-".join(map(str, row)) for row in lengths.reshape(-1, 4)]).reshape(-1, 4)


def test_pattern_z_uses_the_se_of_four_dependent_hands() -> None:
    rng = np.random.default_rng(20240601)
    deals = 100_000
    decks = np.argsort(rng.random((deals, 52)), axis=1)
    names = _pattern_names(decks)
    tally = BridgeTally()
    tally.add(decks.astype(np.uint8))  # shuffled orders are uint8, as BridgeTally.add takes
    rows = {row["pattern"]: row for row in bridge_report(tally, "sim").tallies["patterns"]}
    for pattern in ("4-4-3-2", "5-3-3-2", "5-4-3-1", "5-4-2-2", "4-3-3-3"):
        per_deal = (names == pattern).sum(axis=1)
        se = math.sqrt(deals * per_deal.var(ddof=1))  # simulated SE of the pooled count
        row = rows[pattern]
        deviation = row["observed"] - row["expected"]
        assert row["observed"] == per_deal.sum()
        # The SE implied by the z column agrees with the simulation (its own error ≈ 0.3 %).
        assert abs(row["z"] * se - deviation) <= 0.015 * abs(deviation)
    # √expected, the old column's SE, is 7–10 % too large for the commonest patterns: the hands
    # of a deal are dependent.
    for pattern in ("4-4-3-2", "5-3-3-2", "5-4-3-1"):
        per_deal = (names == pattern).sum(axis=1)
        assert math.sqrt(deals * per_deal.var(ddof=1) / rows[pattern]["expected"]) < 0.95


def test_dice_z_uses_the_binomial_variance() -> None:
    report = audit_dice(SEED, 2000)
    faces = report.tallies["faces"]
    n = sum(row["observed"] for row in faces)
    for row in faces:
        var = n * Fraction(1, 6) * Fraction(5, 6)  # every die independent
        assert row["z"] == pytest.approx((row["observed"] - n / 6) / math.sqrt(var), rel=1e-12)
    for row in report.tallies["sums"] + report.tallies["hand_types"]:
        p = row["expected_probability"]
        var = 2000 * p * (1 - p)  # one sum, one hand type per roll, rolls independent
        assert row["z"] == pytest.approx((row["observed"] - 2000 * p) / math.sqrt(var), rel=1e-9)
