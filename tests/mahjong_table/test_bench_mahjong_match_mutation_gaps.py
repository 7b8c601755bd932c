"""Gaps a mutation audit of ``arena bench mahjong-match`` found: the figures of its report and
its verdict line, from a made-up match and made-up clocks (nothing is timed, no hand is played):
rates per CPU second, the greedy/random ratio, the scaled target and its bound, the baseline on
the same seed, and the ruleset's name shown as text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from arena.bench import mahjong_match
from arena.bench.mahjong_match import run_match_bench, target_line
from arena.games.mahjong.rules import load_ruleset
from arena.matches.mahjong import MATCH_HANDS, MatchSpec

COMPETITION = load_ruleset("competition")


class FakeBench:
    """Stands in for the match and the clocks: each match "takes" the next CPU and wall times
    given, and reports made-up hands, decisions, wins and exhaustive draws."""

    def __init__(self, cpu: list[float], wall: list[float]) -> None:
        self.specs: list[MatchSpec] = []
        self._cpu = self._readings(cpu)
        self._wall = self._readings(wall)

    @staticmethod
    def _readings(spans: list[float]) -> Iterator[float]:
        now = 100.0
        for span in spans:
            yield now
            now += span
            yield now
            now += 1000.0

    def clock(self) -> SimpleNamespace:
        return SimpleNamespace(
            process_time=lambda: next(self._cpu), perf_counter=lambda: next(self._wall)
        )

    async def play_match(
        self, spec: MatchSpec, on_hand: Callable[[int, int], None] | None = None
    ) -> Any:
        self.specs.append(spec)
        programs = [SimpleNamespace(wins=w) for w in (5, 2, 0, 1)]
        return SimpleNamespace(hands=spec.games, decisions=600, programs=programs, exhaustive=3)


def fake_bench(
    monkeypatch: pytest.MonkeyPatch, cpu: list[float], wall: list[float] | None = None
) -> FakeBench:
    fake = FakeBench(cpu, wall or [5.0, 2.0])
    monkeypatch.setattr(mahjong_match, "play_match", fake.play_match)
    monkeypatch.setattr(mahjong_match, "time", fake.clock())
    return fake


def test_the_rows_are_per_cpu_second_with_wall_time_beside(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bench(monkeypatch, cpu=[3.0, 1.5], wall=[5.0, 2.0])
    report = run_match_bench(12, "s", COMPETITION, ruleset="competition")
    assert report["games"] == 12
    assert report["greedy"] == {
        "bots": "greedy,greedy,greedy,greedy",
        "hands": 12,
        "decisions": 600,
        "wall_seconds": 5.0,
        "cpu_seconds": 3.0,
        "hands_per_cpu_second": 4.0,
        "decisions_per_cpu_second": 200.0,
        "wins": 8,
        "exhaustive_draws": 3,
    }
    assert report["random"]["bots"] == "random,random,random,random"
    assert (report["random"]["cpu_seconds"], report["random"]["wall_seconds"]) == (1.5, 2.0)
    assert report["greedy_cost_ratio"] == 2.0  # greedy CPU over random CPU


def test_the_random_baseline_plays_the_same_seed_rules_and_length(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_bench(monkeypatch, cpu=[3.0, 1.5])
    run_match_bench(12, "same seed", COMPETITION)
    greedy, random = fake.specs
    assert (greedy.bots, random.bots) == (("greedy",) * 4, ("random",) * 4)
    assert random.seed == greedy.seed == "same seed"
    assert random.games == greedy.games == 12 and random.rules == greedy.rules == COMPETITION


def test_the_target_is_judged_on_the_scaled_figure_and_its_bound_is_inclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 2 hands in 5/64 s scale to exactly 15 s for 384: the bound itself is met.
    fake_bench(monkeypatch, cpu=[15 * 2 / MATCH_HANDS, 0.01])
    report = run_match_bench(2, "s", COMPETITION)
    assert report["target"]["scaled"] == 15.0 and report["target"]["met"] is True
    # 3 s for 2 hands is under 15 s as measured, but 576 s for 384 hands: missed.
    fake_bench(monkeypatch, cpu=[3.0, 1.0])
    report = run_match_bench(2, "s", COMPETITION)
    assert report["target"]["measured"] == 3.0 and report["target"]["scaled"] == 576.0
    assert report["target"]["met"] is False
    line = target_line(report)
    assert "[bold red]missed[/], an estimate" in line and "not judged" not in line
    assert "[green]met" not in line


def test_a_full_length_match_is_no_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bench(monkeypatch, cpu=[12.5, 1.0])
    report = run_match_bench(MATCH_HANDS, "s", COMPETITION)
    target = report["target"]
    assert target["estimated"] is False and target["scaled"] == target["measured"] == 12.5
    line = target_line(report)
    assert line.endswith(": [green]met[/]")
    assert "12.50 CPU s" in line and "≈" not in line and "estimate" not in line


def test_the_ruleset_path_is_shown_as_text_not_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bench(monkeypatch, cpu=[3.0, 1.0])
    report = run_match_bench(2, "s", load_ruleset("flowers"), ruleset="rules/[bold]x.toml")
    console = Console(width=300, record=True, color_system=None)
    console.print(target_line(report))
    assert console.export_text().startswith("ruleset rules/[bold]x.toml; greedy/random CPU ratio")
