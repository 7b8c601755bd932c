"""``arena bench mahjong-match``: a whole competition match through the referee, in-process.

Four greedy bots play the match (384 hands by default), then four random bots play the same
seed, in the same process, one after the other: the random run is the baseline (the engine and
referee with almost free decisions), so the ratio shows what the greedy bots' deficiency search
costs. Both wall-clock and process CPU time are reported, because the machine may be shared;
the target (≤ 15 s for the greedy match on one core) is checked against CPU time, and only when
the match was played under the competition ruleset, the one the target is stated for.
"""

from __future__ import annotations

import asyncio
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.markup import escape

from arena.games.mahjong.rules import MahjongRules, load_ruleset
from arena.matches.mahjong import MATCH_HANDS, MatchResult, MatchSpec, play_match

TARGET_SECONDS = 15.0
"""The brief's bound for 384 greedy hands in-process on one core."""
TARGET_RULESET = "competition"
"""The ruleset the target is stated for; under any other rules (more decisions with every seat
asked, flowers, another reserve …) the match is another task, timed but not judged."""


@dataclass(frozen=True, slots=True)
class MatchTiming:
    bots: str
    hands: int
    decisions: int
    wall_seconds: float
    cpu_seconds: float
    wins: int
    exhaustive: int

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.cpu_seconds if self.cpu_seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.cpu_seconds if self.cpu_seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": self.bots,
            "hands": self.hands,
            "decisions": self.decisions,
            "wall_seconds": round(self.wall_seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "hands_per_cpu_second": round(self.hands_per_second, 1),
            "decisions_per_cpu_second": round(self.decisions_per_second, 0),
            "wins": self.wins,
            "exhaustive_draws": self.exhaustive,
        }


def _timed(spec: MatchSpec, on_hand: Callable[[int, int], None] | None) -> MatchTiming:
    wall = time.perf_counter()
    cpu = time.process_time()
    result: MatchResult = asyncio.run(play_match(spec, on_hand=on_hand))
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    wins = sum(p.wins for p in result.programs)
    return MatchTiming(
        ",".join(spec.bots), result.hands, result.decisions, wall, cpu, wins, result.exhaustive
    )


def run_match_bench(
    games: int = MATCH_HANDS,
    seed: str = "bench",
    rules: MahjongRules | None = None,
    on_hand: Callable[[int, int], None] | None = None,
    ruleset: str | None = None,
) -> dict[str, Any]:
    """Time the greedy match, then the random baseline on the same seed; return the report.
    ``rules`` default to the competition ruleset's; ``ruleset`` is the name or path they were
    read from, shown in the report (default: the competition's name when they are its rules).
    The target is judged when the rules equal the competition ruleset's, whatever the name."""
    competition_rules = load_ruleset(TARGET_RULESET)
    rules = rules or competition_rules
    judged = rules == competition_rules
    if ruleset is None:
        ruleset = TARGET_RULESET if judged else "(rules given, not named)"
    greedy = _timed(MatchSpec(("greedy",) * 4, seed, games, rules), on_hand)
    random = _timed(MatchSpec(("random",) * 4, seed, games, rules), on_hand)
    # The target is stated for MATCH_HANDS hands; another length is scaled to it, per hand,
    # and marked as an estimate (the first hands, the caches still cold, cost more).
    scaled = greedy.cpu_seconds * MATCH_HANDS / games
    return {
        "benchmark": "mahjong-match",
        "games": games,
        "seed": seed,
        "ruleset": ruleset,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "greedy": greedy.to_json(),
        "random": random.to_json(),
        "greedy_cost_ratio": round(
            greedy.cpu_seconds / random.cpu_seconds if random.cpu_seconds else 0.0, 2
        ),
        "target": {
            "what": f"{MATCH_HANDS} greedy hands in-process, CPU seconds",
            "bound": TARGET_SECONDS,
            "measured": round(greedy.cpu_seconds, 3),
            "measured_hands": games,
            "scaled": round(scaled, 3),
            "estimated": games != MATCH_HANDS,
            "ruleset": TARGET_RULESET,
            "judged": judged,
            "met": scaled <= TARGET_SECONDS if judged else None,
        },
    }


def target_line(report: dict[str, Any]) -> str:
    """The verdict line of a `run_match_bench` report, with rich markup: the ruleset played,
    the figure (scaled and marked an estimate when the match was not 384 hands), and met,
    missed or not judged (another ruleset)."""
    target = report["target"]
    if target["met"] is None:
        mark = f"not judged: the target is for the {target['ruleset']} ruleset"
    else:
        mark = "[green]met[/]" if target["met"] else "[bold red]missed[/]"
        if target["estimated"]:
            mark += ", an estimate"
    if target["estimated"]:
        figure = (
            f"≈ {target['scaled']:.2f} CPU s, scaled from {target['measured']:.2f} s over "
            f"{target['measured_hands']} hands"
        )
    else:
        figure = f"{target['measured']:.2f} CPU s"
    return (
        f"ruleset {escape(report['ruleset'])}; greedy/random CPU ratio "
        f"{report['greedy_cost_ratio']}; {MATCH_HANDS} greedy hands {figure} "
        f"(target ≤ {TARGET_SECONDS:g} s): {mark}"
    )
