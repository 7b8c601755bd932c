"""`arena bench bulls-cows` and `arena bulls-cows eval`: figures a mutation audit found untested.
The histogram's order, the decision percentiles, the guess cap against the evader, each evader
game's own tie-breaks, the over-seeds figure, every ratio `run_bench` takes, and the standard
errors and edge cases of seed 004's comparisons. Measurements are made up where the figure is
arithmetic; no timing is asserted."""

from __future__ import annotations

import math
import statistics
from typing import Any

import pytest

from arena.bench import bulls_cows as bench
from arena.bench.bulls_cows import (
    EvalReport,
    evaluate,
    evaluate_evader,
    over_seeds,
    seed_claims,
)
from arena.games.bulls_cows import CodeSpace, code_space
from bots.bulls_cows import EvaderAnswerer
from bots.bulls_cows.guessers import History


def _report(guesses: list[int], seconds: float = 0.1, unsolved: int = 0) -> EvalReport:
    return EvalReport("g", "fixed", 3, "123456789", guesses, unsolved, seconds, [0.001], 20)


def test_the_histogram_lists_the_guess_counts_in_order() -> None:
    report = _report([6, 4, 5, 4, 7, 5])
    assert list(report.histogram.items()) == [(4, 2), (5, 2), (6, 1), (7, 1)]
    assert list(report.to_json()["histogram"]) == ["4", "5", "6", "7"]


def test_the_decision_percentiles_are_the_median_and_the_99th() -> None:
    report = _report([5])
    report.latencies = [k / 1000 for k in range(1, 101)]  # 1 … 100 ms
    data = report.to_json()
    assert (data["decision_ms_p50"], data["decision_ms_p99"]) == (50.5, 99.01)


def test_the_cap_holds_against_the_evader() -> None:
    # The evader makes every guesser take at least six (seed 004 §五(三)).
    capped = evaluate_evader("optimal", code_space(), runs=3, max_guesses=5)
    assert (capped.solved, capped.unsolved, capped.maximum) == (0, 3, None)
    enough = evaluate_evader("optimal", code_space(), runs=3, max_guesses=6)
    assert (enough.solved, enough.unsolved, enough.maximum) == (3, 0, 6)


def test_each_game_against_the_evader_breaks_its_ties_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The optimal tree guesses the same after the same answers, so only the evader's ties tell
    # its games apart: one stream for every game would play one game a hundred times.
    games: list[list[tuple[int, int]]] = []

    class Recording(EvaderAnswerer):
        def answer(self, space: CodeSpace, answered: History, guess: int) -> int:
            if not answered:
                games.append([])
            feedback = super().answer(space, answered, guess)
            games[-1].append((guess, feedback))
            return feedback

    monkeypatch.setattr(bench, "EvaderAnswerer", Recording)
    evaluate_evader("optimal", code_space(), runs=20, seed="0")
    assert len(games) == 20
    assert len({tuple(game) for game in games}) > 1


@pytest.mark.parametrize("answerer", ["fixed", "evader"])
def test_evaluate_refuses_a_cap_under_one_guess(answerer: str) -> None:
    with pytest.raises(ValueError, match="max_guesses must be at least 1, got 0"):
        evaluate("optimal", answerer=answerer, runs=1, max_guesses=0)


def _fake_runs(
    monkeypatch: pytest.MonkeyPatch, runs: dict[str, EvalReport]
) -> list[tuple[str, str]]:
    """`evaluate_fixed` giving the made-up report of each seed; the calls are returned."""
    calls: list[tuple[str, str]] = []

    def fake(guesser: str, space: CodeSpace, *, seed: str, **_: Any) -> EvalReport:
        calls.append((guesser, seed))
        return runs[seed]

    monkeypatch.setattr(bench, "evaluate_fixed", fake)
    return calls


def test_over_seeds_gives_the_runs_mean_time_and_each_seeds_mean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _fake_runs(
        monkeypatch,
        {
            "s-0": _report([4, 6], seconds=1.0),
            "s-1": _report([], seconds=2.0, unsolved=2),  # nothing solved on this seed
            "s-2": _report([5, 6], seconds=3.0),
        },
    )
    space = code_space()
    figure = over_seeds("random", space, "s", seeds=3)
    assert calls == [("random", "s-0"), ("random", "s-1"), ("random", "s-2")]
    assert figure["seconds"] == 2.0  # per run, as every other figure's
    assert figure["mean_guesses_per_seed"] == [5.0, None, 5.5]
    assert (figure["mean_guesses_min"], figure["mean_guesses_max"]) == (5.0, 5.5)
    assert figure["mean_guesses_sd"] == round(statistics.stdev([5.0, 5.5]), 4)
    assert figure["guesses_allowed"] == 20
    assert (figure["solved"], figure["unsolved"], figure["max_guesses"]) == (4, 2, 6)
    assert figure["secrets"] == space.size


def test_over_one_seed_the_spread_is_zero_not_undefined(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_runs(monkeypatch, {"s-0": _report([4, 6])})
    figure = over_seeds("random", code_space(), "s", seeds=1)
    assert figure["mean_guesses_sd"] == 0.0
    assert figure["mean_guesses_min"] == figure["mean_guesses_max"] == 5.0


def _run_bench(monkeypatch: pytest.MonkeyPatch, best4: list[int]) -> dict[str, Any]:
    """`run_bench` with every measurement made up: each figure its own mean and time."""
    seeded = {  # (guesser, digits): (guesses, seconds)
        ("random", 3): ([4, 5, 5, 5, 5], 0.1),  # 4.8
        ("frequency", 3): ([4, 5, 5, 5, 5, 5, 5, 5, 5, 5], 0.2),  # 4.9
        ("super-comparison", 3): ([4, 5, 5, 5], 0.4),  # 4.75
        ("random", 4): ([5, 6, 6, 6, 5], 1.0),  # 5.6
    }
    fixed = {3: [4, 5, 5, 4, 5], 4: best4}  # optimal: 4.6 on 3 digits

    def fake_over_seeds(guesser: str, space: CodeSpace, seed: str, seeds: int) -> dict[str, Any]:
        guesses, seconds = seeded[(guesser, space.digits)]
        return {
            **_report(guesses, seconds).to_json(),
            "seeds": [f"{seed}-{k}" for k in range(seeds)],
            "mean_guesses_sd": 0.03,
        }

    def fake_fixed(guesser: str, space: CodeSpace, **_: Any) -> EvalReport:
        assert guesser == "optimal"
        guesses = fixed[space.digits]
        return _report(guesses, unsolved=0 if guesses else space.size)

    monkeypatch.setattr(bench, "over_seeds", fake_over_seeds)
    monkeypatch.setattr(bench, "evaluate_fixed", fake_fixed)
    monkeypatch.setattr(bench, "evaluate_evader", lambda *_, **__: _report([6] * 10))
    monkeypatch.setattr(bench, "walk_tree", lambda *_: _report([5]))
    return bench.run_bench()


def test_every_ratio_is_taken_against_its_own_random_baseline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    figures = _run_bench(monkeypatch, best4=[5, 5, 5, 5, 6])  # 5.2
    assert figures["frequency_3"]["time_ratio_to_random"] == 2.0
    assert figures["super_comparison_3"]["time_ratio_to_random"] == 4.0
    assert figures["frequency_3"]["mean_ratio_to_random"] == round(4.9 / 4.8, 4)
    assert figures["super_comparison_3"]["mean_ratio_to_random"] == round(4.75 / 4.8, 4)
    assert figures["optimal_3"]["mean_ratio_to_random"] == round(4.6 / 4.8, 4)
    assert figures["best_4"]["mean_ratio_to_random"] == round(5.2 / 5.6, 4)


def test_a_guesser_that_solved_nothing_has_no_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
    figures = _run_bench(monkeypatch, best4=[])
    assert figures["best_4"]["mean_guesses"] is None
    assert figures["best_4"]["mean_ratio_to_random"] is None
    verdicts = {t["quantity"]: t["met"] for t in figures["targets"]}
    assert verdicts["4 of 0-9, best guesser (optimal): mean guesses"] is False


def _seeded(mean: float, sd: float) -> dict[str, Any]:
    """An `over_seeds` figure of 8 seeds, as far as `seed_claims` reads it."""
    seeds = [f"0-{k}" for k in range(8)]
    return {"mean_guesses": mean, "mean_guesses_sd": sd, "seeds": seeds, "unsolved": 0}


def _games(histogram: dict[int, int], unsolved: int = 0) -> dict[str, Any]:
    """Games against the evader, as far as `seed_claims` reads them."""
    guesses = [k for k, v in histogram.items() for _ in range(v)]
    return {
        "mean_guesses": sum(guesses) / len(guesses),
        "histogram": {str(k): v for k, v in histogram.items()},
        "unsolved": unsolved,
    }


def _claims(random: dict[str, Any], frequency: dict[str, Any]) -> list[dict[str, Any]]:
    """Seed 004's claims at the bench's every-secret figures and the given evader games."""
    return seed_claims(
        {
            "baseline_random_3": _seeded(4.85, 0.028),
            "frequency_3": _seeded(4.84, 0.0411),
            "super_comparison_3": _seeded(4.76, 0.0307),
            "against_evader_3": {"random": random, "frequency": frequency},
        }
    )


def test_the_evader_claim_gives_the_standard_error_of_the_two_means() -> None:
    claims = _claims(_games({6: 60, 7: 40}), _games({6: 85, 7: 15}))
    (gap,) = claims[2]["gaps"]

    def error(histogram: dict[int, int]) -> float:
        guesses = [k for k, v in histogram.items() for _ in range(v)]
        return statistics.stdev(guesses) / math.sqrt(len(guesses))

    expected = math.hypot(error({6: 60, 7: 40}), error({6: 85, 7: 15}))
    assert gap["standard_error"] == round(expected, 4) == 0.0609
    assert gap["difference"] == -0.25 and claims[2]["reproduced"] is True


def test_equal_means_against_the_evader_do_not_reproduce_fewer_guesses() -> None:
    claims = _claims(_games({6: 85, 7: 15}), _games({6: 85, 7: 15}))
    assert claims[2]["gaps"][0]["difference"] == 0.0
    assert claims[2]["reproduced"] is False


@pytest.mark.parametrize(
    ("random", "label"),
    [
        (_games({6: 60, 7: 40}, unsolved=1), "a game left unsolved"),
        (_games({6: 1}), "one game: no spread to judge by"),
    ],
)
def test_evader_games_that_cannot_be_compared_are_not_judged(
    random: dict[str, Any], label: str
) -> None:
    claims = _claims(random, _games({6: 85, 7: 15}))
    assert claims[2]["reproduced"] is None, label
    assert claims[2]["measured"]["random"] is None


def test_a_gap_of_exactly_two_standard_errors_is_within_them() -> None:
    # Both spreads 0.02 over 8 seeds: each mean's error 0.02/√8, the gap's exactly 0.01.
    figures = {
        "baseline_random_3": _seeded(4.84, 0.02),
        "frequency_3": _seeded(4.86, 0.02),
        "super_comparison_3": _seeded(4.76, 0.02),
        "against_evader_3": {"random": _games({6: 60, 7: 40}), "frequency": _games({6: 1, 7: 1})},
    }
    (gap,) = seed_claims(figures)[1]["gaps"]
    assert (gap["difference"], gap["standard_error"]) == (0.02, 0.01)
    assert seed_claims(figures)[1]["reproduced"] is True
