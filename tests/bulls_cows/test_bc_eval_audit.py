"""Audit fixes: `arena bulls-cows eval` counts unsolved games and takes --max-guesses; the 1A2B
score-difference interval stays inside [−1, +1] (`mean_interval(bounds=…)`); Ctrl-C in eval is
one line and exit 130."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from arena.bench.bulls_cows import EvalReport
from arena.cli.main import app
from arena.matches.bulls_cows import SeriesReport
from arena.matches.stats import mean_interval
from tests.bulls_cows.test_bc_cli import runner

THIRTY_SIX = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"


def _eval(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["bulls-cows", "eval", *args])
    return result.exit_code, result.output


def _eval_json(*args: str) -> dict[str, object]:
    code, output = _eval(*args, "--json")
    assert code == 0, output
    data: dict[str, object] = json.loads(output.splitlines()[-1])
    return data


# -- eval: every game counts --------------------------------------------------------------------


def test_unsolved_secrets_count_as_secrets() -> None:
    # 36 one-symbol secrets; the random guesser leaves some unsolved within 20 guesses.
    data = _eval_json("--guesser", "random", "--digits", "1", "--alphabet", THIRTY_SIX)
    assert data["games"] == data["secrets"] == 36
    assert isinstance(data["unsolved"], int) and data["unsolved"] > 0
    assert data["solved"] == 36 - data["unsolved"]
    histogram = data["histogram"]
    assert isinstance(histogram, dict) and sum(histogram.values()) == data["solved"]
    code, text = _eval("--guesser", "random", "--digits", "1", "--alphabet", THIRTY_SIX)
    assert code == 0 and "36 secrets" in text
    assert f"solved                 {data['solved']} of 36" in text
    assert f"mean guesses (solved)  {data['mean_guesses']:.4f}" in text


def test_nothing_solved_has_no_mean() -> None:
    args = ["--guesser", "optimal", "--answerer", "evader", "--runs", "4"]
    args += ["--digits", "1", "--alphabet", "abcdefghijklmnopqrstuvwxyz"]
    data = _eval_json(*args)
    assert data["games"] == 4 and data["secrets"] is None
    assert data["solved"] == 0 and data["unsolved"] == 4
    assert data["mean_guesses"] is None and data["max_guesses"] is None
    code, text = _eval(*args)
    assert code == 0 and "4 games vs evader" in text and "solved                 0 of 4" in text
    assert "mean guesses (solved)  —" in text and "max guesses (solved)   —" in text
    assert "0.0000" not in text


def test_an_empty_report_has_no_figures() -> None:
    report = EvalReport("random", "evader", 1, "ab", [], 3, 0.0)
    assert (report.games, report.solved, report.mean, report.maximum) == (3, 0, None, None)


def test_max_guesses_caps_every_game() -> None:
    # The shipped 3-digit tree solves 55 secrets in 6 guesses (docs/STRATEGIES.md): with 5
    # allowed they are unsolved, and the rest keep their counts.
    data = _eval_json("--guesser", "optimal", "--max-guesses", "5")
    assert data["games"] == data["secrets"] == 504 and data["guesses_allowed"] == 5
    assert data["unsolved"] == 55 and data["solved"] == 449 and data["max_guesses"] == 5
    assert data["histogram"] == {"1": 1, "2": 5, "3": 29, "4": 161, "5": 253}
    assert data["mean_guesses"] == round((2337 - 6 * 55) / 449, 4)
    code, output = _eval("--guesser", "optimal", "--max-guesses", "0")
    assert code == 2 and "error: --max-guesses must be at least 1, got 0" in output


def test_the_documented_figures_stay_under_the_default_cap() -> None:
    data = _eval_json("--guesser", "optimal")
    assert data["guesses_allowed"] == 20 and data["solved"] == 504 and data["unsolved"] == 0
    assert (data["mean_guesses"], data["max_guesses"]) == (4.6369, 6)
    evader = _eval_json("--guesser", "optimal", "--answerer", "evader")
    assert (evader["games"], evader["mean_guesses"], evader["max_guesses"]) == (100, 6.0, 6)


def test_ctrl_c_in_eval_is_one_line_and_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> EvalReport:
        raise KeyboardInterrupt

    monkeypatch.setattr("arena.bench.bulls_cows.evaluate", interrupted)
    code, output = _eval("--guesser", "optimal")
    assert code == 130
    assert output.strip() == "error: interrupted" and "Traceback" not in output


# -- score-difference intervals ---------------------------------------------------------------


def test_bounds_clip_a_t_interval_that_spills_over() -> None:
    values = [1.0, 0.0, 0.0, 0.0]
    free = mean_interval(values)
    assert free.high > 1  # what the audit saw: t(3) from four games runs past +1
    clipped = mean_interval(values, bounds=(-1.0, 1.0))
    assert clipped.estimate == free.estimate == 0.25
    assert (clipped.low, clipped.high) == (free.low, 1.0)


def test_bounds_leave_an_interval_inside_them_alone() -> None:
    values = [0.0, 0.5, 1.0, 0.5, -0.5, 0.0, 1.0, 0.5] * 10
    assert mean_interval(values, bounds=(-1.0, 1.0)) == mean_interval(values)


def test_bounds_are_the_interval_without_two_values() -> None:
    one = mean_interval([0.5], bounds=(-1.0, 1.0))
    assert (one.estimate, one.low, one.high, one.n) == (0.5, -1.0, 1.0, 1)
    none = mean_interval([], bounds=(-1.0, 1.0))
    assert math.isnan(none.estimate) and (none.low, none.high) == (-1.0, 1.0)
    assert math.isinf(mean_interval([0.5]).low)  # unbounded: still undefined


def test_bounds_must_hold_the_values() -> None:
    with pytest.raises(ValueError, match="outside"):
        mean_interval([0.0, 2.0], bounds=(-1.0, 1.0))
    with pytest.raises(ValueError, match="low <= high"):
        mean_interval([0.0, 0.0], bounds=(1.0, -1.0))


def test_identical_values_give_no_zero_width_interval_and_are_flagged() -> None:
    from arena.matches.stats import no_spread_interval, spread_free

    interval = mean_interval([0.0] * 4, bounds=(-1.0, 1.0))
    assert interval == no_spread_interval(0.0, 4, (-1.0, 1.0))
    assert (interval.low, interval.high) == pytest.approx((-0.6024, 0.6024), abs=1e-4)
    assert spread_free([0.0] * 4) and not spread_free([0.0]) and not spread_free([0.0, 1.0])


def _series(diffs: list[float]) -> SeriesReport:
    wins = [sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)]
    draws = len(diffs) - sum(wins)
    return SeriesReport(("a", "b"), len(diffs), wins, draws, Counter(), [0, 0], diffs, 0.0)


@pytest.mark.parametrize(
    "diffs", [[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [1.0], []]
)
def test_series_interval_stays_in_the_possible_range(diffs: list[float]) -> None:
    low, high = _series(diffs).ci95
    assert -1.0 <= low <= high <= 1.0
    shown = _series(diffs).to_json()["score_diff_ci95"]
    low_json, high_json = shown["low"], shown["high"]
    assert -1.0 <= low_json <= high_json <= 1.0


def test_match_text_stays_in_range_and_flags_all_draws() -> None:
    args = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "4"]
    result = runner.invoke(app, [*args, "--seed", "7", "--json"])
    assert result.exit_code == 0, result.output
    ci = json.loads(result.stdout)["score_diff_ci95"]
    assert -1.0 <= ci["low"] <= ci["high"] <= 1.0
    drawn = runner.invoke(app, [*args, "--seed", "7", "--max-guesses", "1"])
    assert drawn.exit_code == 0, drawn.output
    assert "draws                     4" in drawn.stdout
    assert "[-0.602, +0.602] (every game the same: no spread to measure)" in drawn.stdout


# -- the duel's interval is the league's exact one ----------------------------------------------


def _league_difference(diffs: list[float]) -> tuple[float, float]:
    """The interval a 1A2B league's match line gives the same games."""
    from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
    from arena.leagues.standings import match_lines

    games = [GameOutcome(k, k, {"a": (1 + d) / 2, "b": (1 - d) / 2}) for k, d in enumerate(diffs)]
    (line,) = match_lines("bulls-cows", [MatchOutcome(MatchPlan(0, ("a", "b"), "s"), games, {}, 0)])
    assert line.difference is not None
    return line.difference.low, line.difference.high


@pytest.mark.parametrize(
    "diffs",
    [
        [1.0] * 15 + [-1.0] * 5,
        [1.0] * 7 + [0.0] * 9 + [-1.0] * 4,
        [1.0] * 173 + [0.0] * 27,
        [0.0] * 10,
        [1.0, -1.0],
    ],
)
def test_series_interval_is_the_one_a_league_gives_the_same_games(diffs: list[float]) -> None:
    series = _series(diffs)
    assert series.ci95 == pytest.approx(_league_difference(diffs), abs=1e-12)
    ci = series.to_json()["score_diff_ci95"]
    assert (ci["low"], ci["high"]) == (round(series.ci95[0], 4), round(series.ci95[1], 4))


def test_fifteen_wins_of_twenty_give_the_exact_interval() -> None:
    """The audit's example: the t interval said [+0.084, +0.916]; Clopper–Pearson's of 15 of 20
    mapped onto the difference is [+0.018, +0.827]."""
    low, high = _series([1.0] * 15 + [-1.0] * 5).ci95
    assert (round(low, 3), round(high, 3)) == (0.018, 0.827)


def test_series_interval_covers_at_least_95_percent_at_twenty_games() -> None:
    """Exact enumeration over every 20-game match of wins and losses, A winning each game with
    probability p: the interval holds the true 2p − 1 at least 95% of the time for every p (the
    clipped Student-t interval it replaced: 86.6% at worst, at p = 0.845;
    tests/liars_dice/test_stats_review_fixes.py)."""
    from scipy import stats

    n = 20
    intervals = [_series([1.0] * w + [-1.0] * (n - w)).interval() for w in range(n + 1)]
    worst = 1.0
    for step in range(1, 400):
        p = step / 400
        covered = math.fsum(
            float(stats.binom.pmf(w, n, p))
            for w, ci in enumerate(intervals)
            if ci.low - 1e-9 <= 2 * p - 1 <= ci.high + 1e-9
        )
        worst = min(worst, covered)
    assert worst >= 0.95 - 1e-9, worst


def test_match_json_gives_the_leagues_interval() -> None:
    args = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "20"]
    result = runner.invoke(app, [*args, "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    wins_a, wins_b = data["wins"]["optimal"], data["wins"]["random"]
    diffs = [1.0] * wins_a + [0.0] * data["draws"] + [-1.0] * wins_b
    low, high = _league_difference(diffs)
    ci = data["score_diff_ci95"]
    assert (ci["low"], ci["high"], ci["n"]) == (round(low, 4), round(high, 4), 20)
