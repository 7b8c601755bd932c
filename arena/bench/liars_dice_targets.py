"""The liar's dice strength targets (issue 5, DESIGN §7), measured in one run and judged from the
games.

random-guess, bayes and probability each play the 32 personalities on the same seeds, with the
same opener, so every game k deals all three the same dice and the gains pair game by game
(`Gain`). Each target then gets one of three verdicts:

* ``met`` — the games show it: the pooled 95% interval lies on the right side of the line
  (every seed's point estimate on the right side is not enough: 275 wins in 500 games, 55.0%,
  has the interval 50.6–59.3% and does not show a rate of 55% or more);
* ``missed`` — the games show the opposite: the pooled interval lies on the wrong side;
* ``not shown`` — the games leave it open: the interval holds the line.

A target about every personality (random-guess ≥ 55% against each) is met when each one's 95%
interval is on the right side; it is missed when some personality's interval lies on the wrong
side with intervals that hold for all 32 at once (`TargetRun.family_rates`), since among 32
separate 95% intervals one may stray by chance.

A pooled interval is over every seed's games. The gains and the mean win rates take the game
indices as their observations (`Gauntlet.mean_interval`, `Gain`), since game k deals the same
dice against every personality; a rate or gain against one personality is over its games.

Beside the issue's targets, the seed's own words (002 §5.2) are judged the same way, type by
type (`TargetRun.seed_claims`): random-guess wins "about 60–70%" against each personality and
loses to none; the Bayesian network adds "about 5–10%" against most, with no clear gain against a
few (a type shows that gain when its whole interval lies at or above 5 points). The issue's
targets are its reading of those words; the two sets of verdicts show where the reading and the
words part.

Under the ``winner`` and ``loser`` openers who opens depends on the previous game, so a duel's
games form a chain rather than independent games: a type's interval is widened by the chain's
correlation (`Duel.interval`) and the pooled intervals take blocks of games as their
observations (`Gauntlet.clusters`).

This replaces hand-assembled figures: the target table of docs/STRATEGIES.md is this module's
output (``arena liars-dice targets --opener all --seeds 1-8``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any, Literal

from arena.bench.liars_dice import FLOOR, Gain, Gauntlet, pool_gauntlets, run_gauntlet
from arena.matches.liars_dice_series import Driver, Duel, Opener, Progress
from arena.matches.stats import CONFIDENCE, Interval
from bots.liars_dice import PERSONALITIES

Verdict = Literal["met", "missed", "not shown"]

FAMILY_WISE = "95% over all types at once"
"""How the "wholly below/above" lists are judged (`TargetRun.family_rates`)."""

RANDOM_GUESS, BAYES, PROBABILITY = "random-guess", "bayes", "probability"
TARGET_BOTS: tuple[str, ...] = (RANDOM_GUESS, BAYES, PROBABILITY)
"""The three players the targets speak of, in the order they are run."""

MEAN_RANGE = (0.60, 0.70)
"""random-guess's mean win rate over the 32 personalities, as the seed reports it (60–70%)."""

MIN_GAIN = 0.03
"""How far bayes must average above random-guess (3 points)."""

EVEN = 0.5
"""Below this win rate against a personality, random-guess loses to it (the seed: "並不會輸給
任何一種", it loses to none)."""

SEED_GAIN = 0.05
"""The low end of the Bayesian network's gain against most personalities in the seed's words
("勝率都提高了約 5%~10%")."""

GAINS: tuple[tuple[str, str], ...] = (
    (BAYES, RANDOM_GUESS),
    (RANDOM_GUESS, PROBABILITY),
    (BAYES, PROBABILITY),
)
"""The paired gains the targets read: (bot, baseline)."""


@dataclass(frozen=True)
class TargetCheck:
    key: str
    target: str
    verdict: Verdict
    measured: str
    """The figures the verdict rests on, in words."""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "target": self.target,
            "verdict": self.verdict,
            "measured": self.measured,
        }


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def points(interval: Interval) -> str:
    return f"{100 * interval.estimate:+.2f} [{100 * interval.low:+.2f}, {100 * interval.high:+.2f}]"


def spread(values: Sequence[float]) -> str:
    low, high = min(values), max(values)
    return _pct(low) if low == high else f"{_pct(low)}–{_pct(high)}"


def count_spread(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}–{high}"


@dataclass
class TargetRun:
    """The three players' gauntlets under one opener, on each seed (``runs[bot][k]`` is seed
    ``seeds[k]``)."""

    opener: Opener
    games: int
    seeds: list[str]
    runs: dict[str, list[Gauntlet]]
    floor: float = FLOOR
    _pooled: dict[str, Gauntlet] = field(default_factory=dict, init=False, repr=False)
    _gains: dict[tuple[str, str, float], Interval] = field(
        default_factory=dict, init=False, repr=False
    )
    _type_gains: dict[tuple[str, str], list[tuple[str, Interval]]] = field(
        default_factory=dict, init=False, repr=False
    )
    _rates: dict[str, list[tuple[Duel, Interval]]] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        missing = [bot for bot in TARGET_BOTS if bot not in self.runs]
        if missing:
            raise ValueError(f"the targets need gauntlets of {', '.join(missing)}")
        for bot in TARGET_BOTS:
            if [run.seed for run in self.runs[bot]] != self.seeds:
                raise ValueError(f"{bot}'s gauntlets are not on the seeds {self.seeds}")

    def pooled(self, bot: str) -> Gauntlet:
        if bot not in self._pooled:
            self._pooled[bot] = pool_gauntlets(self.runs[bot])
        return self._pooled[bot]

    def gain(self, bot: str, baseline: str, confidence: float = CONFIDENCE) -> Interval:
        """``bot``'s win rate minus ``baseline``'s, paired game by game over every seed."""
        if (bot, baseline, confidence) not in self._gains:
            gain = Gain(self.pooled(bot), self.pooled(baseline))
            self._gains[bot, baseline, confidence] = gain.interval(confidence)
        return self._gains[bot, baseline, confidence]

    def type_rates(self, bot: str) -> list[tuple[Duel, Interval]]:
        """``bot``'s pooled duel against each personality with its win rate's 95% interval
        (`Gauntlet.rate`: widened under the ``winner`` and ``loser`` openers)."""
        if bot not in self._rates:
            pooled = self.pooled(bot)
            self._rates[bot] = [(duel, pooled.rate(duel)) for duel in pooled.duels]
        return self._rates[bot]

    def family_rates(self, bot: str) -> list[tuple[Duel, Interval]]:
        """``bot``'s pooled win rate against each personality with an interval that holds for
        all of them at once, 95% of the time (Bonferroni: each at 1 − 0.05/32). A claim that
        *some* type lies beyond a line is judged on these: with 32 separate 95% intervals one
        type in 32 would seem beyond it by chance alone (were every type exactly at the line,
        some interval would fall wholly below it in more than half the runs, 1 − 0.975³²). A
        claim that *every* type lies on the right side is judged on the separate 95% intervals
        (`type_rates`): it holds only if each one does, so no correction is due. The gauntlet's
        "wholly below" list is judged on these too (`Gauntlet.clearly_below`)."""
        pooled = self.pooled(bot)
        level = pooled.family_confidence
        return [(duel, pooled.rate(duel, level)) for duel in pooled.duels]

    def type_gains(self, bot: str, baseline: str) -> list[tuple[str, Interval]]:
        """``bot``'s gain over ``baseline`` against each personality, paired over every seed."""
        if (bot, baseline) not in self._type_gains:
            gain = Gain(self.pooled(bot), self.pooled(baseline))
            self._type_gains[bot, baseline] = gain.by_opponent()
        return self._type_gains[bot, baseline]

    def means(self, bot: str) -> list[float]:
        return [run.mean for run in self.runs[bot]]

    def below_counts(self, bot: str) -> list[int]:
        return [len(run.below(self.floor)) for run in self.runs[bot]]

    def lowest(self, bot: str) -> list[float]:
        return [min(duel.win_rate for duel in run.duels) for run in self.runs[bot]]

    # -- the four targets --------------------------------------------------------------------

    def _floor_verdict(self, floor: float) -> tuple[Verdict, list[str]]:
        """Met when every personality's pooled 95% interval lies at or above ``floor``; missed
        when some personality's family-wise interval (`family_rates`) lies wholly under it
        (those personalities are returned)."""
        rates = self.type_rates(RANDOM_GUESS)
        proven = [
            duel.opponent for duel, rate in self.family_rates(RANDOM_GUESS) if rate.high < floor
        ]
        if all(rate.low >= floor for _, rate in rates):
            return "met", proven
        return ("missed" if proven else "not shown"), proven

    def floor_check(self) -> TargetCheck:
        verdict, proven = self._floor_verdict(self.floor)
        measured = (
            f"types below {self.floor:.0%} per seed: "
            f"{count_spread(self.below_counts(RANDOM_GUESS))}; lowest per seed "
            f"{spread(self.lowest(RANDOM_GUESS))}; over all seeds, wholly below "
            f"({FAMILY_WISE}): "
            f"{', '.join(proven) or 'none'}"
        )
        return TargetCheck(
            "random_guess_floor",
            f"random-guess wins ≥ {self.floor:.0%} against every personality",
            verdict,
            measured,
        )

    def mean_check(self) -> TargetCheck:
        low, high = MEAN_RANGE
        means = self.means(RANDOM_GUESS)
        pooled = self.pooled(RANDOM_GUESS).mean_interval()
        if low <= pooled.low and pooled.high <= high:
            verdict: Verdict = "met"
        elif pooled.high < low or pooled.low > high:
            verdict = "missed"
        else:
            verdict = "not shown"
        measured = (
            f"mean per seed {spread(means)}; over all seeds {_pct(pooled.estimate)} "
            f"({_pct(pooled.low)}–{_pct(pooled.high)})"
        )
        return TargetCheck(
            "random_guess_mean",
            f"random-guess's mean win rate within {low:.0%}–{high:.0%}",
            verdict,
            measured,
        )

    def gain_check(self) -> TargetCheck:
        gain = self.gain(BAYES, RANDOM_GUESS)
        if gain.low >= MIN_GAIN:
            verdict: Verdict = "met"
        elif gain.high < MIN_GAIN:
            verdict = "missed"
        else:
            verdict = "not shown"
        return TargetCheck(
            "bayes_gain",
            f"bayes averages ≥ {100 * MIN_GAIN:.0f} points above random-guess",
            verdict,
            f"bayes − random-guess {points(gain)} points (paired, 95%); bayes mean per seed "
            f"{spread(self.means(BAYES))}",
        )

    def probability_check(self) -> TargetCheck:
        """Met when both gains over probability lie above 0 on their own 95% intervals (both
        must: no correction is due); missed when *some* one lies below 0, judged on intervals
        that hold for both at once (Bonferroni: each at 1 − 0.05/2), as every claim about some
        type or player is."""
        players = (RANDOM_GUESS, BAYES)
        gains = {bot: self.gain(bot, PROBABILITY) for bot in players}
        both = 1 - (1 - CONFIDENCE) / len(players)
        if all(gain.low > 0 for gain in gains.values()):
            verdict: Verdict = "met"
        elif any(self.gain(bot, PROBABILITY, both).high < 0 for bot in players):
            verdict = "missed"
        else:
            verdict = "not shown"
        measured = "; ".join(f"{bot} − probability {points(g)}" for bot, g in gains.items())
        measured += (
            f" points (95% each; missed only below 0 at {both:.1%}, both at once); "
            f"probability mean per seed {spread(self.means(PROBABILITY))}"
        )
        return TargetCheck(
            "beat_probability",
            "random-guess and bayes both beat probability",
            verdict,
            measured,
        )

    def checks(self) -> list[TargetCheck]:
        return [self.floor_check(), self.mean_check(), self.gain_check(), self.probability_check()]

    # -- the seed's own words (002 §5.2), type by type ----------------------------------------

    def band_claim(self) -> TargetCheck:
        low, high = MEAN_RANGE
        rates = self.type_rates(RANDOM_GUESS)
        family = self.family_rates(RANDOM_GUESS)
        under = [duel.opponent for duel, rate in family if rate.high < low]
        over = [duel.opponent for duel, rate in family if rate.low > high]
        if all(low <= rate.low and rate.high <= high for _, rate in rates):
            verdict: Verdict = "met"
        elif under or over:
            verdict = "missed"
        else:
            verdict = "not shown"
        lowest = min((duel for duel, _ in rates), key=lambda duel: duel.win_rate)
        highest = max((duel for duel, _ in rates), key=lambda duel: duel.win_rate)
        measured = (
            f"over all seeds, from {_pct(lowest.win_rate)} ({lowest.opponent}) to "
            f"{_pct(highest.win_rate)} ({highest.opponent}); wholly below {low:.0%} "
            f"({FAMILY_WISE}): {len(under)}, wholly above {high:.0%}: {len(over)}"
        )
        return TargetCheck(
            "seed_band",
            f"random-guess wins about {low:.0%}–{high:.0%} against each personality "
            "(seed: 約 6~7 成)",
            verdict,
            measured,
        )

    def loses_to_none_claim(self) -> TargetCheck:
        verdict, proven = self._floor_verdict(EVEN)
        lowest, interval = min(self.type_rates(RANDOM_GUESS), key=lambda pair: pair[0].win_rate)
        measured = (
            f"lowest over all seeds {lowest.opponent} {_pct(lowest.win_rate)} "
            f"({_pct(interval.low)}–{_pct(interval.high)}); wholly below {EVEN:.0%} "
            f"({FAMILY_WISE}): {', '.join(proven) or 'none'}"
        )
        return TargetCheck(
            "seed_loses_to_none",
            "random-guess loses to no personality (seed: 並不會輸給任何一種)",
            verdict,
            measured,
        )

    def network_claim(self) -> TargetCheck:
        """The seed's "about 5–10% against most types": a personality shows it when its paired
        gain's whole 95% interval lies at or above 5 points (the games show that gain, as "met"
        reads everywhere; an estimate of 5 points or more is not enough: were every type's true
        gain exactly 5, a majority of estimates at 5 or more would call the claim met about
        43% of the time), falls short when the whole interval is under 5 points. Met when more
        than half show it, missed when half or more fall short (then no majority can)."""
        gains = self.type_gains(BAYES, RANDOM_GUESS)
        shows = [name for name, gain in gains if gain.low >= SEED_GAIN]
        short = [name for name, gain in gains if gain.high < SEED_GAIN]
        no_gain = [name for name, gain in gains if gain.low <= 0]
        if 2 * len(shows) > len(gains):
            verdict: Verdict = "met"
        elif 2 * len(short) >= len(gains):
            verdict = "missed"
        else:
            verdict = "not shown"
        estimates = [gain.estimate for _, gain in gains]
        # The first three counts part the types; those with no clear gain are among the types
        # that do not show the gain (most of them also fall short), so they are said apart.
        between = len(gains) - len(shows) - len(short)
        line = f"{100 * SEED_GAIN:.0f}"
        measured = (
            f"of {len(gains)} types, {len(shows)} gain {line} points or more (the whole "
            f"interval at or above {line}), {len(short)} wholly under {line}, {between} in "
            "between; of the "
            f"{len(gains) - len(shows)} that do not gain {line}, {len(no_gain)} with no clear "
            f"gain (interval reaching 0); gains from {100 * min(estimates):+.1f} to "
            f"{100 * max(estimates):+.1f} points, median {100 * median(estimates):+.1f}"
        )
        return TargetCheck(
            "seed_network_gain",
            f"bayes adds about {100 * SEED_GAIN:.0f}–10 points against most personalities, "
            "no clear gain against a few (seed: 勝率都提高了約 5%~10%)",
            verdict,
            measured,
        )

    def seed_claims(self) -> list[TargetCheck]:
        return [self.band_claim(), self.loses_to_none_claim(), self.network_claim()]

    def to_json(self) -> dict[str, Any]:
        bots = {
            bot: {
                "mean_per_seed": [round(mean, 4) for mean in self.means(bot)],
                "lowest_per_seed": [round(rate, 4) for rate in self.lowest(bot)],
                "below_floor_per_seed": self.below_counts(bot),
                "mean_ci95": self.pooled(bot).mean_interval().to_json(),
            }
            for bot in TARGET_BOTS
        }
        gains = {f"{bot}_minus_{base}": self.gain(bot, base).to_json() for bot, base in GAINS}
        by_type: dict[str, dict[str, Any]] = {
            duel.opponent: {} for duel in self.pooled(RANDOM_GUESS).duels
        }
        for bot in TARGET_BOTS:
            for duel, rate in self.type_rates(bot):
                by_type[duel.opponent][bot] = rate.to_json()
        for bot, base in GAINS:
            for name, gain in self.type_gains(bot, base):
                by_type[name][f"{bot}_minus_{base}"] = gain.to_json()
        for name, figures in by_type.items():
            traits = PERSONALITIES.get(name)
            if traits is not None:
                figures["traits"] = traits.to_json()
        return {
            "opener": self.opener,
            "games": self.games,
            "seeds": self.seeds,
            "floor": self.floor,
            "checks": [check.to_json() for check in self.checks()],
            "seed_claims": [check.to_json() for check in self.seed_claims()],
            "bots": bots,
            "gains": gains,
            "by_type": [{"opponent": name, **figures} for name, figures in by_type.items()],
            "by_group": self.groups_json(),
        }

    def group_rates(self, bot: str) -> list[tuple[str, list[str], Interval]]:
        """``bot``'s pooled mean win rate against each group of personalities
        (`Gauntlet.by_group`): (group, its personalities, the rate)."""
        return [
            (group, [duel.opponent for duel in members], rate)
            for group, members, rate in self.pooled(bot).by_group()
        ]

    def group_gains(self, bot: str, baseline: str) -> dict[str, Interval]:
        """``bot``'s gain over ``baseline`` against each group, paired over every seed."""
        return dict(Gain(self.pooled(bot), self.pooled(baseline)).by_group())

    def groups_json(self) -> list[dict[str, Any]]:
        groups: dict[str, dict[str, Any]] = {}
        for bot in TARGET_BOTS:
            for group, members, rate in self.group_rates(bot):
                groups.setdefault(group, {"group": group, "opponents": members})[bot] = (
                    rate.to_json()
                )
        for bot, base in GAINS:
            for group, gain in self.group_gains(bot, base).items():
                groups[group][f"{bot}_minus_{base}"] = gain.to_json()
        return list(groups.values())


def measure_targets(
    opener: Opener,
    games: int,
    seeds: Sequence[str],
    *,
    driver: Driver = "direct",
    jobs: int = 1,
    floor: float = FLOOR,
    progress: Progress | None = None,
) -> TargetRun:
    """Run the three players' gauntlets (default configs, as the targets are stated for) on
    every seed under ``opener``. With ``jobs`` > 1 the script needs the ``__main__`` guard of
    `run_gauntlet`."""
    runs = {
        bot: [
            run_gauntlet(
                bot, games, seed, driver=driver, progress=progress, jobs=jobs, opener=opener
            )
            for seed in seeds
        ]
        for bot in TARGET_BOTS
    }
    return TargetRun(opener, games, list(seeds), runs, floor)
