"""Seed 000's figures: its shuffle walk-through and its three tables, against our code.

The tables are the seed's data (`arena/dealing/seed_table.py`); every figure checked here about
them is computed by `arena/dealing/seed_fit.py` from that data and the exact distributions, and
docs/DEALING.md §5 quotes the same figures.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed, RandomStream
from arena.dealing.exact import hcp_distribution, pattern_probabilities, pattern_text, patterns
from arena.dealing.planted import seed_c_literal
from arena.dealing.seed_fit import (
    largest_printed_pattern_z,
    mirror_breaks,
    percent_disagreements,
    seed_pattern_fit,
    seed_points_one_hand,
    seed_points_two_hands,
)
from arena.dealing.seed_table import (
    SEED_POINTS_ONE_HAND,
    SEED_POINTS_TWO_HANDS,
    SEED_ROWS,
    SEED_TOTAL,
    omitted_patterns,
    rows_total,
    seed_counts,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "DEALING.md"

SEED_PRINTED_PERCENT_TOTAL = "100.00%"
"""The percentage the seed prints on its pattern table's 合計 line (`seed_table` keeps only the
count, `SEED_TOTAL`)."""

# --- the shuffle walk-through ----------------------------------------------------------------

DECK = 52
SEED_DRAWS = (4, 5, 5, 39)
"""The seed's random numbers for steps 1–4: step k swaps position k with that position."""

SEED_STATES = (
    [4, 2, 3, 1, *range(5, 53)],
    [4, 5, 3, 1, 2, *range(6, 53)],
    [4, 5, 2, 1, 3, *range(6, 53)],
    [4, 5, 2, 39, 3, *range(6, 39), 1, *range(40, 53)],
)
"""The deck after each of those steps as the seed prints it (its "……" are the cards untouched)."""


class ScriptedStream(RandomStream):
    """A stream whose draws are given, so the real shuffle loop runs on the seed's numbers."""

    def __init__(self, draws: Iterable[int]) -> None:
        super().__init__(MatchSeed(bytes(32)), "scripted")
        self.draws = list(draws)
        self.asked: list[int] = []

    def randbelow(self, n: int) -> int:
        self.asked.append(n)
        value = self.draws.pop(0)
        assert 0 <= value < n, f"draw {value} outside 0 … {n - 1}"
        return value


def _forward_draws(steps: int) -> list[int]:
    """Positions (1-based) the seed's steps 1 … 51 swap with: its draws, then each step's own
    position (a swap with itself), so the deck stops at the seed's state after ``steps``."""
    return [*SEED_DRAWS[:steps], *range(steps + 1, DECK)]


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
def test_our_shuffle_mirrored_replays_the_seeds_walk_through(steps: int) -> None:
    # The seed's step k swaps position k with one of k … 52; ours swaps position i with one of
    # 0 … i, i = 51 down to 1. Reading the deck from the far end (position p is our 52 − p),
    # our step i = 52 − k is the seed's step k, and the seed's draw r is our draw 52 − r.
    stream = ScriptedStream(DECK - r for r in _forward_draws(steps))
    deck = list(range(DECK, 0, -1))
    stream.shuffle(deck)
    assert deck[::-1] == SEED_STATES[steps - 1]
    # Step k offers the seed's 53 − k choices ("介於k與52之間"); its 52nd step is no swap at all.
    assert stream.asked == [DECK + 1 - k for k in range(1, DECK)]
    assert stream.draws == []


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
def test_the_seeds_c_fragment_read_literally_replays_it_too(steps: int) -> None:
    # `seed_c_literal` runs first position first, as the seed does, drawing j = i + random(52 − i)
    # (1-based). The walk-through's draws never reach position 52, so the off-by-one (one choice
    # fewer at every step, never position 52) does not show in it, only in what is asked.
    stream = ScriptedStream(r - k for k, r in enumerate(_forward_draws(steps), start=1))
    assert seed_c_literal(stream, range(1, DECK + 1)) == SEED_STATES[steps - 1]
    assert stream.asked == [DECK - k for k in range(1, DECK)]


# --- the hand-pattern table ------------------------------------------------------------------


def test_seed_pattern_table_figures() -> None:
    assert omitted_patterns() == ["6-4-2-1"]
    assert len(seed_counts()) == 38
    assert rows_total() == 76_500_147
    gap = SEED_TOTAL - rows_total()
    assert gap == 3_777_789
    assert f"{gap / SEED_TOTAL:.4%}" == "4.7059%"
    share = dict(zip(map(pattern_text, patterns()), pattern_probabilities(), strict=True))
    assert f"{float(share['6-4-2-1']):.4%}" == "4.7021%"
    fit = seed_pattern_fit()
    assert (round(fit.chi2, 1), round(fit.dof, 1), f"{fit.p_value:.3g}") == (31.2, 35.9, "0.693")
    name, z = largest_printed_pattern_z()
    assert (name, round(z, 2)) == ("7-4-2-0", -1.92)


def test_seed_pattern_table_percentages_are_of_the_stated_total() -> None:
    # Every printed percentage is its own count over the stated 80,277,936 hands, to the 4
    # places printed (6-3-2-2's "5,6415%" read with a decimal point). So the rows were divided
    # by the total that is printed, and their percentages add up to 95.2942%, not the 100.00%
    # printed under them: the gap is the 6-4-2-1 row's (4.7059% of that total), missing from a
    # table whose total is right, not a wrong total.
    printed = {row.pattern: row.percent for row in SEED_ROWS}
    assert printed["6-3-2-2"] == "5,6415%"
    rows = [(row.count, row.percent.removesuffix("%").replace(",", ".")) for row in SEED_ROWS]
    assert percent_disagreements(rows, SEED_TOTAL) == []
    column = sum(Decimal(pct) for _, pct in rows)
    assert column == Decimal("95.2942")
    shortfall = Decimal(SEED_PRINTED_PERCENT_TOTAL.removesuffix("%")) - column
    gap = 100 * (SEED_TOTAL - rows_total()) / SEED_TOTAL
    # 4.7058 against 4.7059: the same share, up to the rounding of 38 printed figures.
    assert (shortfall, f"{gap:.4f}") == (Decimal("4.7058"), "4.7059")


# --- the points tables -----------------------------------------------------------------------


def test_seed_one_hand_points_table_fits_the_exact_law() -> None:
    one = seed_points_one_hand()
    assert len(SEED_POINTS_ONE_HAND) == 41
    # Its column adds up to 10 more than its stated total, and no row's percentage says where.
    assert (sum(one.printed), one.stated_total) == (80_277_946, 80_277_936)
    assert percent_disagreements(SEED_POINTS_ONE_HAND, one.stated_total) == []
    # 38 … 40 points cannot be held in 13 cards, and the seed has none.
    assert len(hcp_distribution(13)) == 38 and one.printed[38:] == (0, 0, 0)
    fit = one.test
    assert (round(fit.chi2, 1), round(fit.dof, 1), f"{fit.p_value:.3g}") == (23.1, 30.9, "0.843")
    h, z = one.largest_z()
    assert (h, round(z, 2)) == (18, -2.01)


def test_seed_two_hand_points_table_fits_once_its_misprints_are_mirrored() -> None:
    two = seed_points_two_hands()
    assert len(SEED_POINTS_TWO_HANDS) == 41
    assert mirror_breaks(two.printed) == [(10, 30), (12, 28), (13, 27), (14, 26), (16, 24)]
    # Of those, the rows that contradict their own printed percentage are the misprints; their
    # mirror rows agree with it and restore the stated total exactly.
    assert list(two.corrected) == [10, 14, 28]
    assert [two.counts[h] for h in two.corrected] == [383_334, 1_556_897, 851_843]
    assert sum(two.printed) == 38_392_458
    assert sum(two.counts) == two.stated_total == 40_138_968 == 2 * (SEED_TOTAL // 4)
    # Two pairs still differ by one, which counting both partnerships of a deal cannot give.
    assert mirror_breaks(two.counts) == [(13, 27), (16, 24)]
    fit = two.test
    # N+S holding h means E+W holds 40 − h, so X² is exactly twice a χ² on 20 dof.
    assert fit.pearson / fit.chi2 == pytest.approx(2.0) and fit.dof == pytest.approx(20.0)
    assert (round(fit.chi2, 1), f"{fit.p_value:.3g}") == (18.0, "0.589")
    h, z = two.largest_z()
    assert (h, round(z, 2)) == (27, -1.66)


def test_audit_shows_the_seeds_points_tables() -> None:
    runner = CliRunner()
    args = ["audit", "bridge", "--deals", "300", "--seed", "seed-000"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    points = data["seed_points"]
    assert [r["seed_count"] for r in points["one_hand"]["rows"]][:3] == [
        291_870,
        631_864,
        1_089_037,
    ]
    assert points["two_hands"]["corrected_rows"][0] == {
        "hcp": 10,
        "printed": 38_334,
        "used": 383_334,
    }
    assert data["seed_table"]["largest_printed_z"]["pattern"] == "7-4-2-0"
    text = runner.invoke(app, args).stdout
    assert "the seed's points tables" in text and "383,334*" in text


def test_dealing_doc_quotes_the_computed_figures() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    pattern = seed_pattern_fit()
    name, z = largest_printed_pattern_z()
    one, two = seed_points_one_hand(), seed_points_two_hands()
    h1, z1 = one.largest_z()
    h2, z2 = two.largest_z()
    share = dict(zip(map(pattern_text, patterns()), pattern_probabilities(), strict=True))
    quoted = [
        f"add up to {rows_total():,}",
        f"21.5466 % printed, {100 * float(share['4-4-3-2']):.4f} % exact",
        f"χ² = {pattern.chi2:.1f} on {pattern.dof:.1f} dof, p = {pattern.p_value:.3g}",
        f"{name}, {abs(z):.2f} standard errors",
        f"adds up to {sum(one.counts):,}",
        f"χ² = {one.test.chi2:.1f} on {one.test.dof:.1f} dof, p = {one.test.p_value:.3g}",
        f"{h1} points (z = {z1:+.2f})".replace("-", "−"),
        f"χ² = {two.test.chi2:.1f} on {two.test.dof:.0f} dof, p = {two.test.p_value:.3g}",
        f"{h2} points (z = {z2:+.2f})".replace("-", "−"),
        f"adds up to the stated {two.stated_total:,}",
    ]
    missing = [q for q in quoted if q not in text]
    assert not missing, missing
