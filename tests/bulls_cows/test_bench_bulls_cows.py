"""`arena bench bulls-cows` judges every target of docs/BENCHMARKS.md's 1A2B table. The verdict
logic is tested on made-up figures; no timing is asserted."""

from __future__ import annotations

from typing import Any

from arena.bench.bulls_cows import SOUND_GUESSERS, judge, render_targets


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
