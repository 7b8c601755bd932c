"""`arena bench mahjong-match` says which ruleset ran and judges its target only for the
competition ruleset. Two-hand matches; no timing is asserted."""

from __future__ import annotations

from arena.bench.mahjong_match import run_match_bench, target_line
from arena.games.mahjong.rules import load_ruleset


def test_the_competition_ruleset_is_judged_and_named() -> None:
    report = run_match_bench(2, "t", load_ruleset("competition"), ruleset="competition")
    assert report["ruleset"] == "competition"
    target = report["target"]
    assert target["ruleset"] == "competition" and target["judged"] is True
    assert target["met"] == (target["scaled"] <= target["bound"])
    line = target_line(report)
    assert line.startswith("ruleset competition;") and "an estimate" in line
    # Without rules the bench plays the competition's, and names them.
    assert run_match_bench(2, "t")["ruleset"] == "competition"


def test_another_ruleset_is_timed_but_not_judged() -> None:
    report = run_match_bench(2, "t", load_ruleset("flowers"), ruleset="flowers")
    assert report["ruleset"] == "flowers"
    assert report["target"]["judged"] is False and report["target"]["met"] is None
    line = target_line(report)
    assert "not judged: the target is for the competition ruleset" in line
    assert "[green]met" not in line and "missed" not in line
    unnamed = run_match_bench(2, "t", load_ruleset("duplicate"))
    assert unnamed["ruleset"] == "(rules given, not named)"
    assert unnamed["target"]["met"] is None
