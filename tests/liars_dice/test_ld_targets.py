"""`arena liars-dice targets`: issue 5's strength targets judged from the games — met when the
games show it, missed when they show the opposite, not shown when they leave it open."""

from __future__ import annotations

import json

import pytest
from fake_gauntlets import GAMES, played, won
from typer.testing import CliRunner

from arena.bench.liars_dice import Gauntlet
from arena.bench.liars_dice_targets import (
    BAYES,
    PROBABILITY,
    RANDOM_GUESS,
    TargetRun,
)
from arena.cli.main import app

runner = CliRunner()
SEEDS = ["1", "2"]


def _gauntlet(bot: str, seed: str, rates: list[float]) -> Gauntlet:
    return played(bot, seed, [won(rate, f"{seed}/{k}") for k, rate in enumerate(rates)])


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
    assert "wholly below (95% over all types at once): type1" in floor.measured
    assert "per seed: 1" in floor.measured


def test_a_type_is_shown_below_the_floor_only_by_an_interval_for_all_types_at_once() -> None:
    # type1 wins 410 of 800 (51.25%): its own 95% interval (47.8–54.7%) lies under 55%, but one
    # type of several will seem so by chance; the interval that holds for both types at once
    # (each at 97.5%: 47.3–55.2%) reaches 55%, so the miss is not shown, and nothing is met.
    run = _run([[0.5125, 0.70], [0.5125, 0.70]], bayes=[0.60, 0.75], probability=[0.5, 0.5])
    (duel, own), _ = run.type_rates(RANDOM_GUESS)
    (_, family), _ = run.family_rates(RANDOM_GUESS)
    assert duel.wins == 410 and own.high < 0.55 <= family.high
    assert _verdicts(run)["random_guess_floor"] == "not shown"
    assert "wholly below (95% over all types at once): none" in run.floor_check().measured


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


def _claims(run: TargetRun) -> dict[str, str]:
    return {check.key: check.verdict for check in run.seed_claims()}


def test_the_seeds_words_the_games_show_are_met() -> None:
    # Every type at 65% over the 800 games (61.6–68.2%), none lost; bayes 15 points up against
    # both types, each whole interval at or above 5 points (7 points up would not show it: the
    # interval of 56 pairs gained of 800 reaches under 5).
    run = _run([[0.64, 0.66], [0.66, 0.64]], bayes=[0.80, 0.80], probability=[0.5, 0.5])
    assert all(gain.low >= 0.05 for _, gain in run.type_gains(BAYES, RANDOM_GUESS))
    assert _claims(run) == {
        "seed_band": "met",
        "seed_loses_to_none": "met",
        "seed_network_gain": "met",
    }
    assert "2 gain 5 points or more" in run.network_claim().measured


def test_the_seeds_words_the_games_refute_are_missed() -> None:
    # type1 lost (40%, its 800 games wholly under 50%), type2 won 85%: both outside 60–70%.
    # bayes loses 5 points against each type: every interval lies under 5 points (a gain of 1
    # point would not show it: the exact interval of a gain over 800 paired games reaches
    # about 7 points either side).
    run = _run([[0.40, 0.85], [0.40, 0.85]], bayes=[0.35, 0.80], probability=[0.5, 0.5])
    assert all(gain.high < 0.05 for _, gain in run.type_gains(BAYES, RANDOM_GUESS))
    assert _claims(run) == {
        "seed_band": "missed",
        "seed_loses_to_none": "missed",
        "seed_network_gain": "missed",
    }
    assert (
        "wholly below 50% (95% over all types at once): type1" in run.loses_to_none_claim().measured
    )
    band = run.band_claim().measured
    assert "wholly below 60% (95% over all types at once): 1, wholly above 70%: 1" in band


def test_the_seeds_words_the_games_leave_open_are_not_shown() -> None:
    # type1 at 48% on one seed and 52% on the other: under 50% once, but 800 games prove no
    # loss and no win (and its whole interval is under 60%: the band is missed).
    # bayes: +8 points against type1 (its interval above 0 and reaching under 5 points: open,
    # though its estimate is over 5), −5 against type2 (wholly under 5), and against type3 +5
    # points on games that differ both ways, so its interval holds 0 and 5 alike: one type
    # falls short, two are open.
    rg_type3 = [n < 200 for n in range(GAMES)]
    bayes_type3 = [n >= 180 for n in range(GAMES)]
    rg_rates = {"1": [0.48, 0.65], "2": [0.52, 0.65]}
    runs = {
        RANDOM_GUESS: [played(RANDOM_GUESS, s, [*map(won, rg_rates[s]), rg_type3]) for s in SEEDS],
        BAYES: [played(BAYES, s, [won(0.58), won(0.60), bayes_type3]) for s in SEEDS],
        PROBABILITY: [_gauntlet(PROBABILITY, s, [0.5, 0.5, 0.5]) for s in SEEDS],
    }
    run = TargetRun("alternate", GAMES, SEEDS, runs)
    assert [len(gauntlet.below(0.5)) for gauntlet in run.runs[RANDOM_GUESS]] == [1, 0]
    verdicts = _claims(run)
    assert verdicts["seed_loses_to_none"] == "not shown"
    assert verdicts["seed_band"] == "missed"
    gains = dict(run.type_gains(BAYES, RANDOM_GUESS))
    assert gains["type1"].estimate >= 0.05 and 0 < gains["type1"].low < 0.05
    assert gains["type2"].high < 0.05
    assert gains["type3"].estimate == pytest.approx(0.05)
    assert gains["type3"].low < 0 < 0.05 < gains["type3"].high
    assert verdicts["seed_network_gain"] == "not shown"


def test_the_floor_is_met_when_the_pooled_games_clear_it() -> None:
    # 54% on one seed, 66% on the other: one seed is under 55%, but over the 800 games type1's
    # whole interval (56.6–63.4%) is above it.
    run = _run([[0.54, 0.7], [0.66, 0.7]], bayes=[0.6, 0.7], probability=[0.5, 0.5])
    assert run.below_counts(RANDOM_GUESS) == [1, 0]
    assert run.floor_check().verdict == "met"


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
    type1 = data["by_type"][0]
    assert type1["opponent"] == "type1"
    assert type1[RANDOM_GUESS]["estimate"] == pytest.approx(0.61)  # 60% and 62%, pooled
    assert type1["bayes_minus_random-guess"]["estimate"] == pytest.approx(0.09)
    assert [claim["key"] for claim in data["seed_claims"]] == [
        "seed_band",
        "seed_loses_to_none",
        "seed_network_gain",
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
    verdicts = {check["verdict"] for check in opened["checks"] + opened["seed_claims"]}
    assert verdicts <= {"met", "missed", "not shown"}
    assert len(opened["by_type"]) == 32
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
