"""`arena bench liars-dice`: the bayes gauntlet timed beside random-guess's, and the two game
drivers timed on the same games, with the design's time target (DESIGN §6) judged. It only times
what `arena.bench.liars_dice` runs as an experiment, so it is apart from it: the gauntlet and its
statistics do not depend on the benchmark, and the benchmark reads as one piece.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Final

from arena.bench.liars_dice import Gauntlet, run_gauntlet
from arena.dealing import MatchSeed
from arena.matches.liars_dice_series import Progress, make_ld_bot, play_direct, play_refereed
from bots.liars_dice import LiarsDiceBot

BENCH_GAMES: Final = 500
"""Games against each personality that the design's time target is set for."""
BENCH_SECONDS: Final = 20.0
"""DESIGN §6: the 32 personalities × 500 games with the Bayesian bot in at most this long."""


@dataclass
class BenchReport:
    games: int
    seed: str
    bayes: Gauntlet
    baseline: Gauntlet
    referee_games: int
    direct_seconds: float
    referee_seconds: float
    referee_decisions: int
    direct_decisions: int

    def to_json(self) -> dict[str, Any]:
        direct_rate = self.referee_games / self.direct_seconds if self.direct_seconds else 0.0
        referee_rate = self.referee_games / self.referee_seconds if self.referee_seconds else 0.0
        return {
            "games_per_opponent": self.games,
            "seed": self.seed,
            "bayes_seconds": round(self.bayes.seconds, 3),
            "bayes_games_per_second": round(self.bayes.games_per_second, 1),
            "random_guess_seconds": round(self.baseline.seconds, 3),
            "random_guess_games_per_second": round(self.baseline.games_per_second, 1),
            "bayes_vs_random_guess_time_ratio": round(
                self.bayes.seconds / self.baseline.seconds, 3
            ),
            "driver_comparison": {
                "games": self.referee_games,
                "direct_games_per_second": round(direct_rate, 1),
                "referee_games_per_second": round(referee_rate, 1),
                "referee_vs_direct_time_ratio": round(self.referee_seconds / self.direct_seconds, 2)
                if self.direct_seconds
                else None,
                "referee_us_per_decision": round(
                    1e6 * self.referee_seconds / max(1, self.referee_decisions), 1
                ),
                "direct_us_per_decision": round(
                    1e6 * self.direct_seconds / max(1, self.direct_decisions), 1
                ),
            },
            "bayes_mean_win_rate": round(self.bayes.mean, 4),
            "random_guess_mean_win_rate": round(self.baseline.mean, 4),
            "targets": [self.time_target()],
        }

    def time_target(self) -> dict[str, Any]:
        """The design's target for the bayes gauntlet, met or missed; judged only at the 500
        games a personality it is set for (``met`` is ``None`` at any other count)."""
        seconds = round(self.bayes.seconds, 3)
        return {
            "quantity": f"bayes, 32 personalities × {BENCH_GAMES} games: wall time, s",
            "comparison": "<=",
            "bound": BENCH_SECONDS,
            "measured": seconds,
            "met": seconds <= BENCH_SECONDS if self.games == BENCH_GAMES else None,
        }


def compare_drivers(games: int, seed_text: str) -> tuple[float, int, float, int]:
    """bayes against type1 for ``games`` games by each driver: (direct s, decisions, referee s,
    decisions). Fresh bots each time, so both drivers play the very same games."""
    seed = MatchSeed.from_text(seed_text)

    def pair() -> tuple[LiarsDiceBot, LiarsDiceBot]:
        return make_ld_bot("bayes", {"seed": seed_text}), make_ld_bot("type1", {"seed": seed_text})

    bots = pair()
    started = time.perf_counter()
    direct_decisions = 0
    for k in range(games):
        _, used = play_direct(bots, seed, game_index=k, first=k % 2, match_id="drivers")
        direct_decisions += used
    direct = time.perf_counter() - started

    async def refereed() -> int:
        bots = pair()
        total = 0
        for k in range(games):
            _, used = await play_refereed(bots, seed, game_index=k, first=k % 2, match_id="drivers")
            total += used
        return total

    started = time.perf_counter()
    referee_decisions = asyncio.run(refereed())
    return direct, direct_decisions, time.perf_counter() - started, referee_decisions


def run_bench(
    games: int, seed_text: str, *, driver_games: int = 500, progress: Progress | None = None
) -> BenchReport:
    bayes = run_gauntlet("bayes", games, seed_text, progress=progress)
    baseline = run_gauntlet("random-guess", games, seed_text, progress=progress)
    direct, direct_decisions, refereed, referee_decisions = compare_drivers(driver_games, seed_text)
    return BenchReport(
        games=games,
        seed=seed_text,
        bayes=bayes,
        baseline=baseline,
        referee_games=driver_games,
        direct_seconds=direct,
        referee_seconds=refereed,
        referee_decisions=referee_decisions,
        direct_decisions=direct_decisions,
    )
