"""Gaps a mutation audit of seed 004 L215's judgement (the gap between frequency and random
within Student's t quantile, one degree of freedom fewer than the seeds, times its standard
error) found in the tests: the criterion names its degrees of freedom, and a run of two seeds
is judged on t with one (12.71), not on an infinite quantile."""

from __future__ import annotations

from typing import Any

from arena.bench.bulls_cows import seed_claims


def _seeded(mean: float, sd: float, seeds: int) -> dict[str, Any]:
    return {
        "mean_guesses": mean,
        "mean_guesses_sd": sd,
        "seeds": [f"0-{k}" for k in range(seeds)],
        "unsolved": 0,
    }


def _l215(gap: float, seeds: int) -> dict[str, Any]:
    evader = {"histogram": {"6": 60, "7": 40}, "mean_guesses": 6.4, "unsolved": 0}
    figures = {
        "baseline_random_3": _seeded(4.84, 0.02, seeds),
        "frequency_3": _seeded(round(4.84 + gap, 4), 0.02, seeds),
        "super_comparison_3": _seeded(4.70, 0.02, seeds),
        "against_evader_3": {"random": evader, "frequency": evader},
    }
    claim: dict[str, Any] = seed_claims(figures)[1]
    assert claim["source"] == "seed 004 L215"
    return claim


def test_the_l215_criterion_names_its_degrees_of_freedom() -> None:
    assert _l215(0.01, 8)["criterion"] == (
        "the gap within 2.36 standard errors (95%, t with 7 degrees of freedom)"
    )


def test_two_seeds_judge_l215_on_t_with_one_degree_of_freedom() -> None:
    """Each spread 0.02 over 2 seeds: each mean's standard error 0.02/√2, the gap's 0.02. A gap
    of 0.3 is 15 standard errors: beyond t₁'s 12.71, so the two are distinguishable."""
    claim = _l215(0.3, 2)
    assert claim["criterion"].startswith("the gap within 12.71 standard errors")
    assert claim["reproduced"] is False
    assert _l215(0.2, 2)["reproduced"] is True
