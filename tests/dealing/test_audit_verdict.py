"""The audit's verdict: one family-wise level split over its tests (Bonferroni), a pass or FAIL
line in the text, the verdict in --json, and exit 1 on FAIL (2 stays for usage errors)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.dealing.audit import audit_dice, audit_mahjong
from arena.dealing.audit_report import FAMILY_ALPHA, Report
from arena.dealing.stats import ChiSquare

runner = CliRunner()


def _report(p_values: list[float], scans: list[tuple[str, float]] | None = None) -> Report:
    tests = [ChiSquare(f"t{i}", 1.0, 1.0, p, 1.0, 2, "pearson") for i, p in enumerate(p_values)]
    return Report("x", 100, "00", tests, scans=scans or [])


def test_fail_exactly_when_a_p_value_is_below_alpha_over_the_number_of_tests() -> None:
    k = 5
    threshold = FAMILY_ALPHA / k
    assert _report([0.5] * (k - 1) + [threshold]).verdict().passed
    low = _report([0.5] * (k - 1) + [np.nextafter(threshold, 0)]).verdict()
    assert not low.passed and low.failed == (("t4", np.nextafter(threshold, 0)),)
    # Below α but not α/k: one of k tests that small is not evidence at level α.
    assert _report([0.5] * (k - 1) + [FAMILY_ALPHA / 2]).verdict().passed


def test_the_level_can_be_chosen() -> None:
    report = _report([0.5, 0.004])
    assert report.verdict().passed
    assert not report.verdict(alpha=0.01).passed


def test_scans_count_as_tests() -> None:
    report = _report([0.5], scans=[("largest cell", 0.4 * FAMILY_ALPHA)])
    verdict = report.verdict()
    assert verdict.tests == 2 and not verdict.passed
    assert verdict.failed == (("largest cell", 0.4 * FAMILY_ALPHA),)


def test_mahjong_family_holds_the_table_test_and_the_largest_cell() -> None:
    report = audit_mahjong(
        MatchSeed.from_text("verdict"), 200, deficiency=lambda c: np.zeros(len(c), dtype=np.int64)
    )
    names = [name for name, _ in report.family()]
    assert len(names) == 2 and names[0] == "wall position × tile kind"
    assert report.family()[1][1] == report.tallies["worst_cell"]["p_adjusted"]


def test_dice_family_is_every_dice_test() -> None:
    assert audit_dice(MatchSeed.from_text("verdict"), 300).verdict().tests == 3


FAIR = [
    ["audit", "bridge", "--deals", "300", "--seed", "cli"],
    ["audit", "mahjong", "--deals", "200", "--seed", "cli"],
    ["audit", "dice", "--deals", "300", "--seed", "cli"],
]
PLANTED = [
    ["audit", "bridge", "--deals", "1000", "--seed", "cli", "--planted", "seed-c-literal"],
    ["audit", "mahjong", "--deals", "600", "--seed", "cli", "--planted", "swap-with-any"],
    ["audit", "dice", "--deals", "500", "--seed", "cli", "--planted", "mask-modulo"],
]


@pytest.mark.parametrize("args", FAIR, ids=lambda a: a[1])
def test_fair_dealers_pass_with_exit_0(args: list[str]) -> None:
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "verdict: pass" in text.stdout
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass" and data["alpha"] == FAMILY_ALPHA
    assert data["family_tests"] == len(data["tests"]) + (args[1] == "mahjong")
    assert data["per_test_threshold"] == FAMILY_ALPHA / data["family_tests"]
    assert data["failed_tests"] == []


@pytest.mark.parametrize("args", PLANTED, ids=lambda a: a[1])
def test_planted_dealers_fail_with_exit_1(args: list[str]) -> None:
    text = runner.invoke(app, args)
    assert text.exit_code == 1, text.output
    assert "verdict: FAIL" in text.stdout
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "fail"
    assert data["failed_tests"]
    assert all(t["p_value"] < data["per_test_threshold"] for t in data["failed_tests"])


def test_a_usage_error_still_exits_2() -> None:
    result = runner.invoke(app, ["audit", "mahjong", "--deals", "10"])
    assert result.exit_code == 2
