"""`arena liars-dice targets`: issue 5's strength targets judged from the games — met when the
games show it, missed when they show the opposite, not shown when they leave it open."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.bench.liars_dice import Duel, Gauntlet
from arena.bench.liars_dice_targets import (
    BAYES,
    PROBABILITY,
    RANDOM_GUESS,
    TargetRun,
)
from arena.cli.main import app

runner = CliRunner()
GAMES = 400
SEEDS = ["1", "2"]


def _gauntlet(bot: str, seed: str, rates: list[float]) -> Gauntlet:
    """Wins first, then losses, so two bots' games pair win for win as far as both go."""
    duels = [
        Duel(f"type{k + 1}", [n < round(rate * GAMES) for n in range(GAMES)])
        for k, rate in enumerate(rates)
    ]
    return Gauntlet(bot, GAMES, seed, duels, seconds=1.0, driver="direct")


def _run(
    random_guess: list[list[float]], bayes: list[float], probability: list[float]
) -> TargetRun:
    """random-guess's rates per seed; bayes's and probability's on every seed."""
    runs = {
        RANDOM_GUESS: [
            _gauntlet(RANDOM_GUESS, s, r) for s, r in zip(SEEDS, random_guess, strict=True)
        ],
        BAYES: [_gauntlet(BAYES, seed, bayes) for seed in SEEDS],
        PROBABILITY: [_gauntlet(PROBABILITY, seed, probability) for seed in SEEDS],
    }
    return TargetRun("alternate", GAMES, SEEDS, runs)


def _verdicts(run: TargetRun) -> dict[str, str]:
    return {check.key: check.verdict for check in run.checks()}


def test_targets_the_games_show_are_met() -> None:
    run = _run([[0.60, 0.70], [0.62, 0.68]], bayes=[0.70, 0.75], probability=[0.50, 0.55])
    assert _verdicts(run) == {
        "random_guess_floor": "met",
        "random_guess_mean": "met",
        "bayes_gain": "met",
        "beat_probability": "met",
    }


def test_targets_the_games_refute_are_missed() -> None:
    # type1 at 45% on both seeds: its interval over 800 games lies wholly under 55%.
    # The mean (57.5%) is under 60% with its whole interval; bayes gains nothing; probability
    # wins more than either.
    run = _run([[0.45, 0.70], [0.45, 0.70]], bayes=[0.45, 0.70], probability=[0.70, 0.80])
    assert _verdicts(run) == {
        "random_guess_floor": "missed",
        "random_guess_mean": "missed",
        "bayes_gain": "missed",
        "beat_probability": "missed",
    }
    floor = run.floor_check()
    assert "wholly below (95%): type1" in floor.measured
    assert "per seed: 1" in floor.measured


def test_targets_the_games_leave_open_are_not_shown() -> None:
    # 54% on one seed only: below the floor there, but 800 games do not prove a miss. The means
    # straddle 70%; bayes gains 2.5 points with an interval that holds 3; probability ties.
    run = _run([[0.54, 0.85], [0.58, 0.85]], bayes=[0.58, 0.88], probability=[0.56, 0.85])
    assert run.below_counts(RANDOM_GUESS) == [1, 0]
    verdicts = _verdicts(run)
    assert verdicts["random_guess_floor"] == "not shown"
    assert verdicts["random_guess_mean"] == "not shown"
    gain = run.gain(BAYES, RANDOM_GUESS)
    assert gain.estimate == pytest.approx(0.025) and gain.low < 0.03 < gain.high
    assert verdicts["bayes_gain"] == "not shown"
    assert verdicts["beat_probability"] == "not shown"


def test_the_json_carries_each_bot_and_gain() -> None:
    run = _run([[0.60, 0.70], [0.62, 0.68]], bayes=[0.70, 0.75], probability=[0.50, 0.55])
    data = run.to_json()
    assert data["bots"][RANDOM_GUESS]["mean_per_seed"] == [0.65, 0.65]
    assert data["bots"][BAYES]["below_floor_per_seed"] == [0, 0]
    assert data["gains"]["bayes_minus_random-guess"]["estimate"] == pytest.approx(0.075)
    assert [check["key"] for check in data["checks"]] == [
        "random_guess_floor",
        "random_guess_mean",
        "bayes_gain",
        "beat_probability",
    ]


def test_a_target_run_needs_all_three_players_on_the_same_seeds() -> None:
    run = _run([[0.6], [0.6]], bayes=[0.6], probability=[0.6])
    with pytest.raises(ValueError, match="probability"):
        TargetRun(
            "alternate", GAMES, SEEDS, {k: v for k, v in run.runs.items() if k != "probability"}
        )
    shifted = dict(run.runs, bayes=run.runs[BAYES][::-1])
    with pytest.raises(ValueError, match="bayes's gauntlets are not on the seeds"):
        TargetRun("alternate", GAMES, SEEDS, shifted)


def test_the_command_judges_the_gauntlets_it_plays() -> None:
    """The pooled figures are those of `gauntlet --seeds` on the same seeds and opener."""
    common = ["--games", "3", "--seeds", "1-2", "--opener", "bot", "--json"]
    result = runner.invoke(app, ["liars-dice", "targets", *common])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (opened,) = data["openers"]
    assert opened["opener"] == "bot" and opened["seeds"] == ["1", "2"]
    assert {check["verdict"] for check in opened["checks"]} <= {"met", "missed", "not shown"}
    paired = ["--bot", "bayes", "--baseline", "random-guess", "--driver", "direct"]
    gauntlet = runner.invoke(app, ["liars-dice", "gauntlet", *paired, *common])
    assert gauntlet.exit_code == 0, gauntlet.output
    pooled = json.loads(gauntlet.stdout)
    assert opened["bots"][BAYES]["mean_per_seed"] == [s["mean"] for s in pooled["per_seed"]]
    assert opened["gains"]["bayes_minus_random-guess"] == pooled["gain"]


def test_the_command_refuses_an_unknown_opener() -> None:
    result = runner.invoke(app, ["liars-dice", "targets", "--opener", "dealer"])
    assert result.exit_code == 2
    assert "or all" in " ".join(result.output.split())
