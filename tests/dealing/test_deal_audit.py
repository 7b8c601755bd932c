"""The audit passes the real dealers and catches planted biased ones, at modest sizes.

Every run has a fixed seed, so these are deterministic checks, not statistical gambles: the
thresholds are far from the values the fixed seeds give (noted beside each).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from arena.dealing import MatchSeed, RandomStream, exact, shuffled_wall
from arena.dealing.audit import (
    MAHJONG_KINDS,
    audit_bridge,
    audit_dice,
    audit_mahjong,
    deficiency_tally,
    starting_hand_counts,
)
from arena.dealing.audit_report import Report
from arena.dealing.planted import mask_modulo_die, seed_c_literal, swap_with_any
from arena.games.mahjong.analysis import deficiency, deficiency_batch
from arena.games.mahjong.wall import Wall, round_wall

SEED = MatchSeed.from_text("planted-bias-test")
TINY = 1e-9
NOT_TINY = 1e-3


def _p(report: Report, name: str) -> float:
    return next(t.p_value for t in report.tests if t.name == name)


def test_real_bridge_shuffle_passes() -> None:
    report = audit_bridge(SEED, 1000)
    assert report.min_p_value() > NOT_TINY  # 0.19 with this seed


def test_swap_with_any_is_caught_by_card_positions() -> None:
    report = audit_bridge(SEED, 1000, shuffle=swap_with_any)
    assert _p(report, "card × deck position") < TINY  # 1.3e-14 with this seed


def test_seeds_c_fragment_read_literally_is_caught() -> None:
    # The ♣K never moves, so West always holds it.
    report = audit_bridge(SEED, 1000, shuffle=seed_c_literal)
    assert _p(report, "card × seat") < TINY
    assert _p(report, "HCP of the N+S partnership") < NOT_TINY


def test_real_wall_passes_and_swap_with_any_is_caught() -> None:
    assert audit_mahjong(SEED, 600).min_p_value() > NOT_TINY
    assert audit_mahjong(SEED, 600, shuffle=swap_with_any).min_p_value() < TINY


def test_real_dice_pass_and_mask_modulo_is_caught() -> None:
    assert audit_dice(SEED, 2000).min_p_value() > NOT_TINY
    planted = audit_dice(SEED, 2000, roll=mask_modulo_die)
    assert _p(planted, "faces of every die") < TINY


def test_bridge_report_json_shape() -> None:
    data = json.loads(json.dumps(audit_bridge(SEED, 300).to_json()))
    assert data["deals"] == 300
    assert {"name", "chi2", "dof", "p_value"} <= set(data["tests"][0])
    assert len(data["patterns"]) == 39
    assert sum(row["observed"] for row in data["patterns"]) == 4 * 300
    assert abs(sum(row["expected_probability"] for row in data["patterns"]) - 1) < 1e-12
    omitted = [row["pattern"] for row in data["patterns"] if row["seed_count"] is None]
    assert omitted == data["seed_table"]["omitted"] == ["6-4-2-1"]
    assert sum(row["observed"] for row in data["hcp_partnership"]) == 300
    assert "6-4-2-1" in data["notes"][0]


def test_mahjong_deficiency_tally_uses_the_given_function() -> None:
    # A stand-in measure (kinds held twice or more) checks the tally, not the analysis.
    report = audit_mahjong(SEED, 200, deficiency=lambda counts: (counts >= 2).sum(axis=1))
    rows = report.tallies["deficiency"]
    assert sum(r["dealer"] for r in rows) == 200
    assert sum(r["others"] for r in rows) == 600
    assert report.tallies["worst_cell"]["kind"] in range(MAHJONG_KINDS)


def test_audited_walls_are_the_engines_walls() -> None:
    captured: list[list[int]] = []

    def spy(stream: RandomStream, tiles: Sequence[int]) -> list[int]:
        captured.append(shuffled_wall(stream, tiles))
        return captured[-1]

    audit_mahjong(SEED, 200, shuffle=spy)
    assert captured[0] == round_wall(SEED, 0)
    assert captured[199] == round_wall(SEED, 199)


def test_starting_hands_are_the_engines_and_deficiency_matches_the_scalar_function() -> None:
    wall = round_wall(SEED, 0)
    engine = Wall(wall, reserve=16, per_seat=False)
    dealer_tiles = [*engine.dealt(0), engine.draw(0, replacement=False)[0]]
    walls = np.array([wall])
    dealer, others = starting_hand_counts(walls)
    assert dealer[0].tolist() == np.bincount(dealer_tiles, minlength=34).tolist()
    for k in (1, 2, 3):
        assert others[k - 1].tolist() == np.bincount(engine.dealt(k), minlength=34).tolist()
    rows = deficiency_tally(walls, deficiency_batch)
    by_value = {r["deficiency"]: (r["dealer"], r["others"]) for r in rows}
    expected_dealer = deficiency(dealer[0].tolist())
    assert by_value[expected_dealer][0] == 1
    assert sum(n for _, n in by_value.values()) == 3


def test_dice_report_lists_every_possible_sum() -> None:
    data = audit_dice(SEED, 500).to_json()
    assert [row["sum"] for row in data["sums"]] == list(range(5, 31))
    assert sum(row["observed"] for row in data["faces"]) == 2500


SEED_002_TABLE_4_6 = {
    "nothing": 480,
    "one pair": 3600,
    "two pairs": 1800,
    "three of a kind": 1200,
    "low straight": 120,
    "high straight": 120,
    "full house": 300,
    "four of a kind": 150,
    "five of a kind": 6,
}


def test_five_dice_hand_types_are_seed_002_table_4_6() -> None:
    counted = dict(zip(exact.DICE_HAND_TYPES, exact.dice_hand_type_counts(), strict=True))
    assert counted == SEED_002_TABLE_4_6
    assert sum(counted.values()) == 6**5
    rolls = np.array([[1, 2, 3, 4, 5], [6, 5, 4, 3, 2], [1, 2, 3, 4, 6], [3, 3, 5, 5, 3]])
    names = [exact.DICE_HAND_TYPES[t] for t in exact.dice_hand_types(rolls)]
    assert names == ["low straight", "high straight", "nothing", "full house"]


def test_dice_audit_tests_the_hand_types_of_five_dice() -> None:
    report = audit_dice(SEED, 2000)
    assert _p(report, "hand types of five dice") > NOT_TINY
    rows = report.to_json()["hand_types"]
    assert [row["ways"] for row in rows] == list(SEED_002_TABLE_4_6.values())
    assert sum(row["observed"] for row in rows) == 2000
    assert "hand_types" not in audit_dice(SEED, 50, dice=4).to_json()
