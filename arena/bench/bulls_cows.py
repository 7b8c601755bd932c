"""1A2B experiments: every-secret evaluations and the benchmark. (Duel series between two bots are
a match format: `arena.matches.bulls_cows`.)

``evaluate`` with the fixed answerer plays every secret once through the engine's solve mode
(deal ``{"secret_index": i}``), driving the bot's synchronous `BullsCowsBot.decide` directly:
no asyncio, no envelopes, because the referee's per-decision cost would dominate the figure we
want (the strategy's). Against the evader there is no secret to enumerate; it plays ``runs``
games, the evader breaking its ties from a seeded stream per run.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from arena.dealing import MatchSeed
from arena.games.bulls_cows import DEFAULT_MAX_GUESSES, BullsCowsGame, CodeSpace, code_space
from bots.bulls_cows import GUESSERS, BullsCowsBot, EvaderAnswerer, build_bot
from bots.bulls_cows.guessers import Guesser, History, IntArray

DEFAULT_EVADER_RUNS = 100
#: seeds of the bench's every-secret runs of the guessers that draw (one run each)
BENCH_SEEDS = 8
#: guessers that only ever guess codes consistent with the answers, or split the range: they
#: always finish, whatever an adversary answers
SOUND_GUESSERS = ("random", "frequency", "super-comparison", "entropy", "optimal")


@dataclass
class EvalReport:
    """Every game of an evaluation. ``guesses`` holds the guesses of each *solved* game; a game
    not solved within ``max_guesses`` (possible for an unsound guesser, against the evader, or
    with a low cap) counts in `games` and `unsolved` only. So the mean, maximum and histogram
    are of the solved games, and there are none when nothing was solved: a mean over the
    solved games alone would flatter a guesser that often fails, so it is always shown beside
    the solved count."""

    guesser: str
    answerer: str
    digits: int
    alphabet: str
    guesses: list[int]
    unsolved: int
    seconds: float
    latencies: list[float] = field(default_factory=list, repr=False)
    max_guesses: int | None = None
    """The cap each game was played under; ``None`` for `walk_tree`, which has none."""

    @property
    def solved(self) -> int:
        return len(self.guesses)

    @property
    def games(self) -> int:
        return self.solved + self.unsolved

    @property
    def mean(self) -> float | None:
        """Mean guesses of the solved games; ``None`` when none was solved."""
        return sum(self.guesses) / len(self.guesses) if self.guesses else None

    @property
    def maximum(self) -> int | None:
        """Most guesses a solved game took; ``None`` when none was solved."""
        return max(self.guesses, default=None)

    @property
    def histogram(self) -> dict[int, int]:
        """Solved games by the guesses they took."""
        counts = Counter(self.guesses)
        return {k: counts[k] for k in sorted(counts)}

    def latency_ms(self, q: float) -> float:
        return float(np.percentile(self.latencies, q)) * 1000 if self.latencies else 0.0

    def to_json(self) -> dict[str, Any]:
        """``mean_guesses``, ``max_guesses`` and ``histogram`` are of the ``solved`` games
        (``null`` when none was); ``games`` (and ``secrets``) count every game played."""
        mean = self.mean
        return {
            "guesser": self.guesser,
            "answerer": self.answerer,
            "digits": self.digits,
            "alphabet": self.alphabet,
            "games": self.games,
            # Against the evader there is no secret to enumerate.
            "secrets": self.games if self.answerer == "fixed" else None,
            "guesses_allowed": self.max_guesses,
            "solved": self.solved,
            "unsolved": self.unsolved,
            "mean_guesses": None if mean is None else round(mean, 4),
            "max_guesses": self.maximum,
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "seconds": round(self.seconds, 3),
            "decision_ms_p50": round(self.latency_ms(50), 3),
            "decision_ms_p99": round(self.latency_ms(99), 3),
        }


def make_bc_bot(guesser: str, seed: str, answerer: str = "fixed") -> BullsCowsBot:
    bot = build_bot(guesser, guesser, {"seed": seed, "answerer": answerer})
    return bot


def evaluate_fixed(
    guesser: str,
    space: CodeSpace,
    *,
    seed: str = "0",
    max_guesses: int = DEFAULT_MAX_GUESSES,
    progress: Callable[[int], None] | None = None,
) -> EvalReport:
    """Every secret once, through the engine (solve mode), the bot deciding from observations;
    ``progress(1)`` after each secret."""
    bot = make_bc_bot(guesser, seed)
    rules = {
        "mode": "solve",
        "digits": space.digits,
        "alphabet": space.alphabet,
        "max_guesses": max_guesses,
    }
    match_seed = MatchSeed.from_text(seed)
    report = EvalReport(
        guesser, "fixed", space.digits, space.alphabet, [], 0, 0.0, max_guesses=max_guesses
    )
    clock = time.perf_counter
    started = clock()
    for index in range(space.size):
        game = BullsCowsGame(rules, match_seed, {"secret_index": index})
        bot.begin_game()
        while not game.is_over():
            observation = game.observation(0)
            before = clock()
            text = bot.decide(observation)
            report.latencies.append(clock() - before)
            game.apply(0, game.parse_action(text))
        result = game.result()
        if result.winners:
            report.guesses.append(int(result.detail["guesses"][0]))
        else:
            report.unsolved += 1
        if progress is not None:
            progress(1)
    report.seconds = clock() - started
    return report


def _solve_against(
    guesser: Guesser,
    evader: EvaderAnswerer,
    space: CodeSpace,
    max_guesses: int,
    latencies: list[float],
) -> int | None:
    history: list[tuple[int, int]] = []
    while len(history) < max_guesses:
        before = time.perf_counter()
        guess = guesser.choose(space, history)
        latencies.append(time.perf_counter() - before)
        feedback = evader.answer(space, history, guess)
        history.append((guess, feedback))
        if feedback == space.solved:
            return len(history)
    return None


def evaluate_evader(
    guesser: str,
    space: CodeSpace,
    *,
    runs: int = DEFAULT_EVADER_RUNS,
    seed: str = "0",
    max_guesses: int = DEFAULT_MAX_GUESSES,
    progress: Callable[[int], None] | None = None,
) -> EvalReport:
    """``runs`` games against the range-protecting answerer (its ties broken per run);
    ``progress(1)`` after each game."""
    bot = make_bc_bot(guesser, seed)
    match_seed = MatchSeed.from_text(seed)
    report = EvalReport(
        guesser, "evader", space.digits, space.alphabet, [], 0, 0.0, max_guesses=max_guesses
    )
    started = time.perf_counter()
    for run in range(runs):
        evader = EvaderAnswerer(match_seed.stream("bench", "bulls_cows", "evader", run))
        guesses = _solve_against(bot.guesser, evader, space, max_guesses, report.latencies)
        if guesses is None:
            report.unsolved += 1
        else:
            report.guesses.append(guesses)
        if progress is not None:
            progress(1)
    report.seconds = time.perf_counter() - started
    return report


def evaluate(
    guesser: str,
    *,
    answerer: str = "fixed",
    digits: int = 3,
    alphabet: str = "123456789",
    runs: int = DEFAULT_EVADER_RUNS,
    seed: str = "0",
    max_guesses: int = DEFAULT_MAX_GUESSES,
    progress: Callable[[int], None] | None = None,
) -> EvalReport:
    """Raises ValueError (unknown guesser or answerer, ``max_guesses`` under 1) or RulesetError
    (bad digits/alphabet). ``progress(1)`` after each game."""
    if guesser not in GUESSERS:
        raise ValueError(f"unknown guesser {guesser!r}; known: {', '.join(GUESSERS)}")
    if max_guesses < 1:
        raise ValueError(f"max_guesses must be at least 1, got {max_guesses}")
    space = code_space(digits, alphabet)
    if answerer == "fixed":
        return evaluate_fixed(guesser, space, seed=seed, max_guesses=max_guesses, progress=progress)
    if answerer == "evader":
        return evaluate_evader(
            guesser, space, runs=runs, seed=seed, max_guesses=max_guesses, progress=progress
        )
    raise ValueError(f"unknown answerer {answerer!r}; known: fixed, evader")


def walk_tree(guesser: Guesser, space: CodeSpace) -> EvalReport:
    """Every secret of a deterministic guesser at once: its guess depends only on the history,
    so each distinct history is decided once and the secrets are split by the answer. (A
    guesser with a random opening draws it once here: the figure is that opening's.)"""
    report = EvalReport(guesser.name, "fixed", space.digits, space.alphabet, [], 0, 0.0)
    started = time.perf_counter()
    stack: list[tuple[History, IntArray]] = [([], np.arange(space.size, dtype=np.int64))]
    while stack:
        history, secrets = stack.pop()
        guess = guesser.choose(space, history)
        row = space.table[guess, secrets]
        for feedback in np.unique(row).tolist():
            group = secrets[row == feedback]
            if feedback == space.solved:
                report.guesses.append(len(history) + 1)
            else:
                stack.append(([*history, (guess, feedback)], group))
    report.guesses.sort()
    report.seconds = time.perf_counter() - started
    return report


# -- the benchmark ---------------------------------------------------------------------------


def _mean_ratio(mean: float | None, baseline: float | None) -> float | None:
    """Ratio of the two means, ``None`` if either solved nothing (no mean to compare)."""
    if mean is None or baseline is None:
        return None
    return round(mean / baseline, 4)


def over_seeds(
    guesser: str, space: CodeSpace, seed: str, seeds: int = BENCH_SEEDS
) -> dict[str, Any]:
    """Every secret once per seed ``{seed}-0`` … ``{seed}-{seeds-1}``, for a guesser that draws
    (random at every guess; frequency and super comparison their opening).

    One seed's mean is one draw from a spread as wide as the gaps between the seed's methods
    (docs/STRATEGIES.md, 1A2B), so the figure is the runs' mean, shown with its spread.
    ``mean_guesses``, ``max_guesses`` and ``histogram`` pool every run's solved games;
    ``seconds`` and the latencies are per run and per decision, as the other figures'."""
    names = [f"{seed}-{k}" for k in range(seeds)]
    runs = [evaluate_fixed(guesser, space, seed=name) for name in names]
    pooled = EvalReport(
        guesser,
        "fixed",
        space.digits,
        space.alphabet,
        [g for run in runs for g in run.guesses],
        sum(run.unsolved for run in runs),
        sum(run.seconds for run in runs) / len(runs),
        [t for run in runs for t in run.latencies],
        max_guesses=runs[0].max_guesses,
    )
    means = [run.mean for run in runs]
    solved_means = [m for m in means if m is not None]
    spread = float(np.std(solved_means, ddof=1)) if len(solved_means) > 1 else 0.0
    return {
        **pooled.to_json(),
        "secrets": space.size,
        "seeds": names,
        "mean_guesses_per_seed": [None if m is None else round(m, 4) for m in means],
        "mean_guesses_sd": round(spread, 4),
        "mean_guesses_min": round(min(solved_means), 4) if solved_means else None,
        "mean_guesses_max": round(max(solved_means), 4) if solved_means else None,
    }


def run_bench(
    seed: str = "0", evader_runs: int = DEFAULT_EVADER_RUNS, seeds: int = BENCH_SEEDS
) -> dict[str, Any]:
    """Every figure of DESIGN.md §6–7 for 1A2B, measured in this run, with the random guesser's
    every-secret runs as the baseline the ratios are taken against. The guessers that draw
    (random, frequency, super comparison) play every secret once for each of ``seeds`` seeds.
    Besides the judged ``targets``, ``seed_claims`` says which of seed 004's comparisons
    between its methods these figures reproduce (`seed_claims`)."""
    three = code_space(3, "123456789")
    four = code_space(4, "0123456789")
    baseline = over_seeds("random", three, seed, seeds)
    frequency = over_seeds("frequency", three, seed, seeds)
    sc = over_seeds("super-comparison", three, seed, seeds)
    optimal = evaluate_fixed("optimal", three, seed=seed)
    evader = {
        name: evaluate_evader(name, three, runs=evader_runs, seed=seed).to_json()
        for name in SOUND_GUESSERS
    }
    baseline4 = over_seeds("random", four, seed, seeds)
    best4 = evaluate_fixed("optimal", four, seed=seed)
    entropy4 = walk_tree(GUESSERS["entropy"](MatchSeed.from_text(seed)), four)
    figures: dict[str, Any] = {
        "baseline_random_3": baseline,
        "frequency_3": {
            **frequency,
            "time_ratio_to_random": round(frequency["seconds"] / baseline["seconds"], 3),
            "mean_ratio_to_random": _mean_ratio(
                frequency["mean_guesses"], baseline["mean_guesses"]
            ),
        },
        "super_comparison_3": {
            **sc,
            "time_ratio_to_random": round(sc["seconds"] / baseline["seconds"], 3),
            "mean_ratio_to_random": _mean_ratio(sc["mean_guesses"], baseline["mean_guesses"]),
        },
        "optimal_3": {
            **optimal.to_json(),
            "mean_ratio_to_random": _mean_ratio(optimal.mean, baseline["mean_guesses"]),
        },
        "against_evader_3": evader,
        "baseline_random_4": baseline4,
        "best_4": {
            **best4.to_json(),
            "mean_ratio_to_random": _mean_ratio(best4.mean, baseline4["mean_guesses"]),
        },
        "entropy_4_tree_walk": entropy4.to_json(),
    }
    figures["targets"] = judge(figures)
    figures["seed_claims"] = seed_claims(figures)
    return figures


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda measured, bound: measured <= bound,
    "<": lambda measured, bound: measured < bound,
}


def _target(
    quantity: str, comparison: str, bound: float, measured: float | None, unsolved: int = 0
) -> dict[str, Any]:
    """One judged target. A game left unsolved misses any mean or maximum target: the solved
    games' figures leave it out, so they cannot show the target met."""
    met = measured is not None and not unsolved and _COMPARE[comparison](measured, bound)
    return {
        "quantity": quantity,
        "comparison": comparison,
        "bound": bound,
        "measured": measured,
        "unsolved": unsolved,
        "met": met,
    }


def _mean_and_max(
    name: str, data: dict[str, Any], mean_cmp: str, mean_bound: float, max_bound: int
) -> list[dict[str, Any]]:
    unsolved = int(data["unsolved"])
    return [
        _target(f"{name}: mean guesses", mean_cmp, mean_bound, data["mean_guesses"], unsolved),
        _target(f"{name}: max guesses", "<=", max_bound, data["max_guesses"], unsolved),
    ]


def judge(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The 1A2B targets (docs/BENCHMARKS.md, "1A2B"), each met or missed, from `run_bench`'s
    figures."""
    sc, optimal, best4 = figures["super_comparison_3"], figures["optimal_3"], figures["best_4"]
    targets = [
        *_mean_and_max("super comparison, 504 secrets", sc, "<=", 4.80, 6),
        _target("super comparison, 504 secrets: wall time, s", "<=", 2.0, sc["seconds"]),
        _target("super comparison: decision p99, ms", "<=", 50.0, sc["decision_ms_p99"]),
        *_mean_and_max("optimal tree, 504 secrets", optimal, "<", 4.64, 6),
    ]
    for name, data in figures["against_evader_3"].items():
        targets.append(
            _target(
                f"{name} against the evader: max guesses",
                "<=",
                7,
                data["max_guesses"],
                int(data["unsolved"]),
            )
        )
    targets += _mean_and_max("4 of 0-9, best guesser (optimal)", best4, "<=", 5.25, 7)
    return targets


def render_targets(targets: list[dict[str, Any]]) -> list[str]:
    """One line per target: what, measured, bound, met or MISSED."""
    lines = ["targets"]
    for t in targets:
        measured = "none solved" if t["measured"] is None else f"{t['measured']:g}"
        unsolved = f", {t['unsolved']} unsolved" if t["unsolved"] else ""
        verdict = "met" if t["met"] else "MISSED"
        lines.append(
            f"  {t['quantity']:<52} {measured}{unsolved} "
            f"(target {t['comparison']} {t['bound']:g}): {verdict}"
        )
    return lines


# -- seed 004's comparisons between its methods ------------------------------------------------


@dataclass(frozen=True)
class _Mean:
    """One method's mean guesses and the standard error of that mean. ``mean`` is ``None`` when
    the figure cannot be compared: nothing solved, or a game left unsolved (the solved games'
    mean would flatter the method)."""

    label: str
    mean: float | None
    standard_error: float


def _seeds_mean(label: str, data: dict[str, Any]) -> _Mean:
    """An `over_seeds` figure: one seed's mean varies by ``mean_guesses_sd`` from seed to seed,
    and every seed plays every secret, so the pooled mean's error is that over √seeds."""
    comparable = data["mean_guesses"] is not None and not data["unsolved"]
    error = data["mean_guesses_sd"] / math.sqrt(len(data["seeds"]))
    return _Mean(label, data["mean_guesses"] if comparable else None, error)


def _games_mean(label: str, data: dict[str, Any]) -> _Mean:
    """Games against the evader: the error from the spread of the games' own guesses."""
    counts = {int(k): v for k, v in data["histogram"].items()}
    games = sum(counts.values())
    if data["unsolved"] or games < 2:
        return _Mean(label, None, 0.0)
    mean = sum(k * v for k, v in counts.items()) / games
    variance = sum(v * (k - mean) ** 2 for k, v in counts.items()) / (games - 1)
    return _Mean(label, data["mean_guesses"], math.sqrt(variance / games))


def _claim(
    source: str,
    claim: str,
    quote: str,
    criterion: str,
    methods: list[_Mean],
    holds: Callable[[list[dict[str, Any]]], bool],
    unjudged: str | None = None,
) -> dict[str, Any]:
    """One claim of the seed, judged by ``holds`` on the gaps between consecutive methods;
    ``reproduced`` is ``None``, with the reason in ``not_judged``, when a method's mean cannot
    be compared or the figures cannot decide the claim (``unjudged`` says why)."""
    comparable = all(m.mean is not None for m in methods)
    if not comparable:
        unjudged = "no mean: a method left a game unsolved"
    gaps = [
        {
            "between": f"{later.label} − {earlier.label}",
            "difference": (
                round(later.mean - earlier.mean, 4)
                if later.mean is not None and earlier.mean is not None
                else None
            ),
            "standard_error": round(math.hypot(earlier.standard_error, later.standard_error), 4),
        }
        for earlier, later in pairwise(methods)
    ]
    return {
        "source": source,
        "claim": claim,
        "quote": quote,
        "criterion": criterion,
        "measured": {m.label: m.mean for m in methods},
        "gaps": gaps,
        "reproduced": None if unjudged else holds(gaps),
        "not_judged": unjudged,
    }


def seed_claims(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Seed 004 §五(三)–(五)'s comparisons between its methods, each reproduced or not by
    `run_bench`'s figures. They are findings about the seed, not targets of ours: a claim not
    reproduced is reported with its figures and never fails the bench. The two every-secret
    claims pull against each other (L207 ranks random above frequency, L215 finds little
    difference): both hold only if frequency is below random by no more than the noise.

    L215's "無太大差別" (no great difference) is judged as "not distinguishable": the gap lies
    within the 95% quantile of Student's t times its standard error, with one degree of freedom
    fewer than the seeds (each standard error is a spread over the seeds' means: 2.36 for 8
    seeds, not the normal 2). That the gap is not shown does not show the two equal."""
    random = _seeds_mean("random", figures["baseline_random_3"])
    frequency = _seeds_mean("frequency", figures["frequency_3"])
    seeds = min(len(figures[key]["seeds"]) for key in ("baseline_random_3", "frequency_3"))
    limit = _t_quantile(seeds - 1)
    sc = _seeds_mean("super-comparison", figures["super_comparison_3"])
    evader = figures["against_evader_3"]
    return [
        _claim(
            "seed 004 L207",
            "mean guesses over every secret: random most, frequency fewer, super comparison "
            "fewer still",
            "所猜的平均次數以「隨機取樣法」最多「次數分析法」較少「超級比較法」更少",
            "each mean below the one before it",
            [random, frequency, sc],
            lambda gaps: all(g["difference"] < 0 for g in gaps),
        ),
        _claim(
            "seed 004 L215",
            "mean guesses over every secret: frequency not distinguishable from random",
            "兩者所耗費的次數卻無太大差別",
            f"the gap within {limit:.2f} standard errors (95%, t with {seeds - 1} degrees of "
            "freedom)",
            [random, frequency],
            lambda gaps: abs(gaps[0]["difference"]) <= limit * gaps[0]["standard_error"],
            # One seed has no spread to judge a gap by (its limit is infinite, its error 0).
            None if seeds >= 2 else f"no spread: {seeds} seed",
        ),
        _claim(
            "seed 004 L215",
            "against the evader (保護範圍法) frequency needs fewer guesses than random",
            "和「保護範圍法」作對抗時，「次數分析法」卻略勝一籌",
            "frequency's mean below random's",
            [
                _games_mean("random", evader["random"]),
                _games_mean("frequency", evader["frequency"]),
            ],
            lambda gaps: gaps[0]["difference"] < 0,
        ),
    ]


def _t_quantile(dof: int, confidence: float = 0.95) -> float:
    """The two-sided ``confidence`` quantile of Student's t with ``dof`` degrees of freedom
    (infinite below one)."""
    if dof < 1:
        return math.inf
    from scipy import special  # scipy.stats.t.ppf, without importing scipy.stats

    return float(special.stdtrit(dof, (1 + confidence) / 2))


def _shown(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def render_seed_claims(claims: list[dict[str, Any]]) -> list[str]:
    """Two lines per claim: the claim and its verdict, then the means and the gaps."""
    lines = ["seed 004's comparisons of its methods (reported, not targets)"]
    verdicts = {True: "reproduced", False: "NOT reproduced"}
    for c in claims:
        verdict = verdicts.get(c["reproduced"], f"not judged ({c['not_judged']})")
        lines.append(f"  {c['source']}: {c['claim']}: {verdict}")
        means = ", ".join(f"{label} {_shown(mean, '.4f')}" for label, mean in c["measured"].items())
        gaps = "; ".join(
            f"{g['between']} {_shown(g['difference'], '+.4f')}"
            f" (standard error {g['standard_error']:.4f})"
            for g in c["gaps"]
        )
        lines.append(f"    {means}; {gaps} ({c['criterion']})")
    return lines
