"""`arena bench bulls-cows` judges every target of docs/BENCHMARKS.md's 1A2B table. The verdict
logic is tested on made-up figures; no timing is asserted."""

from __future__ import annotations

import json
import statistics
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bench.bulls_cows import (
    SOUND_GUESSERS,
    evaluate_fixed,
    judge,
    over_seeds,
    render_targets,
)
from arena.cli.main import app
from arena.games.bulls_cows import code_space

runner = CliRunner()


def _figures(**changes: Any) -> dict[str, Any]:
    def run(mean: float | None, maximum: int | None, unsolved: int = 0, **more: Any) -> dict:
        return {"mean_guesses": mean, "max_guesses": maximum, "unsolved": unsolved, **more}

    figures: dict[str, Any] = {
        "super_comparison_3": run(4.754, 6, seconds=0.23, decision_ms_p99=0.3),
        "optimal_3": run(4.6369, 6),
        "against_evader_3": {name: run(5.5, 7) for name in SOUND_GUESSERS},
        "best_4": run(5.23, 7),
    }
    figures.update(changes)
    return figures


def _verdicts(figures: dict[str, Any]) -> dict[str, bool]:
    return {t["quantity"]: t["met"] for t in judge(figures)}


def test_every_target_is_listed_with_its_bound_and_met_at_the_documented_figures() -> None:
    targets = judge(_figures())
    assert [(t["comparison"], t["bound"]) for t in targets] == [
        ("<=", 4.80),
        ("<=", 6),
        ("<=", 2.0),
        ("<=", 50.0),
        ("<", 4.64),
        ("<=", 6),
        *[("<=", 7)] * len(SOUND_GUESSERS),
        ("<=", 5.25),
        ("<=", 7),
    ]
    assert all(t["met"] for t in targets)
    for t in targets:
        assert set(t) == {"quantity", "comparison", "bound", "measured", "unsolved", "met"}


def test_a_figure_over_its_bound_is_missed() -> None:
    verdicts = _verdicts(
        _figures(
            optimal_3={"mean_guesses": 4.64, "max_guesses": 6, "unsolved": 0},
            super_comparison_3={
                "mean_guesses": 4.7,
                "max_guesses": 6,
                "unsolved": 0,
                "seconds": 2.5,
                "decision_ms_p99": 51.0,
            },
        )
    )
    missed = {quantity for quantity, met in verdicts.items() if not met}
    assert missed == {
        "optimal tree, 504 secrets: mean guesses",  # the bound is strict: < 4.64
        "super comparison, 504 secrets: wall time, s",
        "super comparison: decision p99, ms",
    }


def test_unsolved_games_or_nothing_solved_miss_the_mean_and_max_targets() -> None:
    evader = {
        name: {"mean_guesses": 5.0, "max_guesses": 6, "unsolved": 0} for name in SOUND_GUESSERS
    }
    evader["random"] = {"mean_guesses": 5.0, "max_guesses": 6, "unsolved": 2}
    best4 = {"mean_guesses": None, "max_guesses": None, "unsolved": 5040}
    verdicts = _verdicts(_figures(against_evader_3=evader, best_4=best4))
    assert verdicts["random against the evader: max guesses"] is False
    assert verdicts["frequency against the evader: max guesses"] is True
    assert verdicts["4 of 0-9, best guesser (optimal): mean guesses"] is False
    lines = render_targets(judge(_figures(best_4=best4)))
    assert lines[0] == "targets"
    best_line = next(line for line in lines if "best guesser (optimal): max" in line)
    assert "none solved, 5040 unsolved" in best_line and best_line.endswith("MISSED")
    assert sum(line.endswith(": met") for line in lines) == len(lines) - 3


def _bench_figures(targets: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything `arena bench bulls-cows` prints, made up, with the given targets."""
    run = {"mean_guesses": 5.0, "max_guesses": 6, "unsolved": 0, "seconds": 0.1}
    seeded = {
        **run,
        "seeds": ["0-0", "0-1"],
        "mean_guesses_sd": 0.01,
        "mean_guesses_min": 4.99,
        "mean_guesses_max": 5.01,
    }
    claim = {
        "source": "L207",
        "claim": "random most, frequency fewer",
        "reproduced": False,
        "not_judged": None,
        "measured": {"random": 4.8256, "frequency": 4.8455},
        "gaps": [{"between": "frequency - random", "difference": 0.0199, "standard_error": 0.0176}],
        "criterion": "each gap below 0",
    }
    return {
        "baseline_random_3": seeded,
        "frequency_3": {**seeded, "time_ratio_to_random": 1.8},
        "seed_claims": [claim],
        "super_comparison_3": {
            **seeded,
            "time_ratio_to_random": 4.0,
            "decision_ms_p50": 0.1,
            "decision_ms_p99": 0.3,
        },
        "optimal_3": run,
        "against_evader_3": {name: run for name in SOUND_GUESSERS},
        "baseline_random_4": seeded,
        "best_4": run,
        "entropy_4_tree_walk": run,
        "targets": targets,
    }


@pytest.mark.parametrize("json_output", [False, True])
def test_the_bench_exits_1_when_a_target_is_missed(
    monkeypatch: pytest.MonkeyPatch, json_output: bool
) -> None:
    met = judge(_figures())
    missed = judge(_figures(best_4={"mean_guesses": 5.3, "max_guesses": 7, "unsolved": 0}))
    args = ["bench", "bulls-cows", *(["--json"] if json_output else [])]
    for targets, code in ((met, 0), (missed, 1)):
        figures = _bench_figures(targets)
        monkeypatch.setattr(
            "arena.bench.bulls_cows.run_bench", lambda figures=figures, **_: figures
        )
        result = runner.invoke(app, args)
        assert result.exit_code == code, result.output
        # The figures are printed either way: a missed target is a finding, not a crash.
        if json_output:
            assert json.loads(result.stdout)["targets"] == targets
        else:
            assert ("MISSED" in result.stdout) == bool(code)
            # Seed 004's comparisons are findings: shown, never a reason to exit 1.
            assert "L207: random most, frequency fewer: NOT reproduced" in result.stdout
            assert "frequency - random +0.0199 (standard error 0.0176)" in result.stdout
            assert "frequency (2 seeds)" in result.stdout
            assert "5.3 (target <= 5.25): MISSED" in result.stdout or not code


def test_the_random_baseline_is_the_mean_of_several_seeds() -> None:
    space = code_space(2, "12345")
    figure = over_seeds("random", space, "s", seeds=3)
    runs = [evaluate_fixed("random", space, seed=f"s-{k}") for k in range(3)]
    assert figure["seeds"] == ["s-0", "s-1", "s-2"]
    assert figure["secrets"] == space.size and figure["games"] == 3 * space.size
    means = [run.mean for run in runs]
    assert figure["mean_guesses_per_seed"] == [round(m, 4) for m in means if m is not None]
    pooled = sum(sum(run.guesses) for run in runs) / (3 * space.size)
    assert figure["mean_guesses"] == round(pooled, 4)
    assert figure["max_guesses"] == max(run.maximum or 0 for run in runs)
    assert figure["mean_guesses_sd"] == round(statistics.stdev(m for m in means if m), 4)
