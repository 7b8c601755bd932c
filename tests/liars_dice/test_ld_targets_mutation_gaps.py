"""Verdicts of `arena liars-dice targets` that the other target tests leave open, found by a
mutation audit. Every expectation is read from docs/STRATEGIES.md ("Where the issue's targets
stand", "The seed's own words"): met when the pooled 95% interval lies on the right side of the
line, missed when it lies wholly on the wrong side, not shown when it holds the line; a claim
about *some* type is judged on intervals for all types at once (Bonferroni), a claim about
*every* type on each type's own 95% interval.

The gauntlets are built by hand (two seeds of 400 games against a few personalities), so no game
is played."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_gauntlets import GAMES, played, won
from typer.testing import CliRunner

from arena.bench import liars_dice_targets
from arena.bench.liars_dice import FLOOR, Gauntlet
from arena.bench.liars_dice_targets import (
    BAYES,
    PROBABILITY,
    RANDOM_GUESS,
    TARGET_BOTS,
    TargetRun,
    count_spread,
    measure_targets,
    points,
    spread,
)
from arena.cli.main import app
from arena.matches.liars_dice_series import CHAIN_OPENERS, OPENERS, Opener

runner = CliRunner()
SEEDS = ["1", "2"]


def _gauntlet(bot: str, seed: str, rates: list[float], salt: str = "") -> Gauntlet:
    return played(bot, seed, [won(rate, f"{salt}{seed}/{k}") for k, rate in enumerate(rates)])


def _run(
    random_guess: list[float] | dict[str, list[float]],
    bayes: list[float],
    probability: list[float],
    *,
    floor: float = FLOOR,
    salts: tuple[str, str, str] = ("", "", ""),
    opener: Opener = "alternate",
) -> TargetRun:
    """Each player's rate against each type, on every seed (random-guess's may be per seed).
    The same ``salts`` make the players' games nest (the better one wins where the other does);
    different ones make them independent."""
    per_seed = (
        random_guess if isinstance(random_guess, dict) else dict.fromkeys(SEEDS, random_guess)
    )
    rates = {RANDOM_GUESS: per_seed, BAYES: dict.fromkeys(SEEDS, bayes)}
    rates[PROBABILITY] = dict.fromkeys(SEEDS, probability)
    runs = {
        bot: [_gauntlet(bot, seed, rates[bot][seed], salt) for seed in SEEDS]
        for bot, salt in zip(TARGET_BOTS, salts, strict=True)
    }
    return TargetRun(opener, GAMES, SEEDS, runs, floor)


def _verdict(run: TargetRun, key: str) -> str:
    (check,) = [c for c in run.checks() + run.seed_claims() if c.key == key]
    return check.verdict


# -- the 55% floor ---------------------------------------------------------------------------


def test_every_type_above_the_floor_is_judged_on_its_own_interval() -> None:
    # type1 wins 59% of 800: its own 95% interval (55.6–62.4%) clears 55%, the one for all
    # four types at once (54.6–) does not. "Each is above 55%" needs each own interval only.
    run = _run([0.59, 0.70, 0.70, 0.70], bayes=[0.7] * 4, probability=[0.5] * 4)
    (_, own), *_ = run.type_rates(RANDOM_GUESS)
    (_, family), *_ = run.family_rates(RANDOM_GUESS)
    assert family.low < FLOOR <= own.low
    assert _verdict(run, "random_guess_floor") == "met"


def test_an_interval_that_ends_on_the_floor_holds_it() -> None:
    # With the line exactly at type1's upper end (for all types at once) the interval still
    # holds it: not wholly below, so no miss is shown.
    rates = [0.50, 0.70, 0.70, 0.70]
    (_, family), *_ = _run(rates, [0.7] * 4, [0.5] * 4).family_rates(RANDOM_GUESS)
    run = _run(rates, [0.7] * 4, [0.5] * 4, floor=family.high)
    assert _verdict(run, "random_guess_floor") == "not shown"
    assert "wholly below (95% over all types at once): none" in run.floor_check().measured


def test_an_interval_that_starts_on_the_floor_is_at_or_above_it() -> None:
    rates = [0.60, 0.70, 0.70, 0.70]
    (_, own), *_ = _run(rates, [0.7] * 4, [0.5] * 4).type_rates(RANDOM_GUESS)
    run = _run(rates, [0.7] * 4, [0.5] * 4, floor=own.low)
    assert _verdict(run, "random_guess_floor") == "met"


def test_the_floor_asked_for_is_the_one_judged_and_counted() -> None:
    # type1 at 62%: clear of 55%, wholly under a floor of 70%.
    run = _run([0.62, 0.75, 0.75, 0.75], bayes=[0.8] * 4, probability=[0.5] * 4, floor=0.70)
    check = run.floor_check()
    assert check.verdict == "missed"
    assert check.target == "random-guess wins ≥ 70% against every personality"
    assert "types below 70% per seed: 1;" in check.measured
    assert "wholly below (95% over all types at once): type1" in check.measured
    assert run.below_counts(RANDOM_GUESS) == [1, 1]


def test_the_floor_figures_give_the_range_over_the_seeds() -> None:
    # Seed 1: type1 at 54% (below 55%), seed 2: at 62%; the lowest type per seed is type1.
    run = _run({"1": [0.54, 0.70], "2": [0.62, 0.70]}, bayes=[0.7] * 2, probability=[0.5] * 2)
    measured = run.floor_check().measured
    assert "types below 55% per seed: 0–1;" in measured
    assert "lowest per seed 54.0%–62.0%;" in measured


def test_spreads_name_the_lowest_and_the_highest_value() -> None:
    assert spread([0.685, 0.672]) == "67.2%–68.5%"
    assert spread([0.5, 0.5]) == "50.0%"
    assert count_spread([6, 3, 4]) == "3–6"
    assert count_spread([0, 0]) == "0"


# -- the mean of 60–70% ----------------------------------------------------------------------


def test_a_mean_wholly_above_the_range_is_missed() -> None:
    # As with the bot opening every game (71.3%, 70.9–71.7: missed): 80% against every type.
    run = _run([0.80] * 4, bayes=[0.85] * 4, probability=[0.5] * 4)
    assert run.pooled(RANDOM_GUESS).mean_interval().low > 0.70
    assert _verdict(run, "random_guess_mean") == "missed"


def test_a_mean_estimated_under_the_range_whose_interval_reaches_it_is_not_shown() -> None:
    run = _run([0.595] * 4, bayes=[0.7] * 4, probability=[0.5] * 4)
    pooled = run.pooled(RANDOM_GUESS).mean_interval()
    assert pooled.estimate < 0.60 < pooled.high
    assert _verdict(run, "random_guess_mean") == "not shown"


def test_the_mean_reported_over_all_seeds_is_the_pooled_one() -> None:
    run = _run({"1": [0.64, 0.66], "2": [0.66, 0.68]}, bayes=[0.7] * 2, probability=[0.5] * 2)
    measured = run.mean_check().measured
    assert measured.startswith("mean per seed 65.0%–67.0%; over all seeds 66.0% (")


# -- bayes ≥ 3 points above random-guess -----------------------------------------------------


def test_a_gain_estimated_above_three_points_whose_interval_holds_three_is_not_shown() -> None:
    # As under the previous game's loser opening (+3.07 [2.76, 3.39]: not shown).
    run = _run([0.65] * 4, bayes=[0.685] * 4, probability=[0.5] * 4)
    gain = run.gain(BAYES, RANDOM_GUESS)
    assert gain.low < 0.03 < gain.estimate
    assert _verdict(run, "bayes_gain") == "not shown"


def test_a_gain_wholly_under_three_points_is_missed_even_above_two() -> None:
    run = _run([0.65] * 8, bayes=[0.675] * 8, probability=[0.5] * 8)
    gain = run.gain(BAYES, RANDOM_GUESS)
    assert gain.low > 0.02 and gain.high < 0.03
    check = run.gain_check()
    assert check.verdict == "missed"
    assert check.target == "bayes averages ≥ 3 points above random-guess"


# -- both beat probability -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("random_guess", "bayes"),
    [(0.60, 0.72), (0.70, 0.60)],
    ids=["random-guess below, bayes above", "random-guess above, bayes below"],
)
def test_one_player_wholly_below_probability_misses_the_target(
    random_guess: float, bayes: float
) -> None:
    # As when the personality opens every game (−3.65; bayes +1.46): missed.
    run = _run([random_guess] * 4, bayes=[bayes] * 4, probability=[0.65] * 4)
    gains = [run.gain(bot, PROBABILITY) for bot in (RANDOM_GUESS, BAYES)]
    assert sorted(gain.high < 0 for gain in gains) == [False, True]
    assert _verdict(run, "beat_probability") == "missed"


def test_a_gain_over_probability_whose_interval_holds_zero_is_not_shown() -> None:
    # bayes and probability independent: bayes +2 points with an interval holding 0.
    run = _run([0.70] * 4, bayes=[0.52] * 4, probability=[0.50] * 4, salts=("", "b", "p"))
    over = run.gain(BAYES, PROBABILITY)
    assert over.low < 0 < over.estimate
    assert run.gain(RANDOM_GUESS, PROBABILITY).low > 0
    assert _verdict(run, "beat_probability") == "not shown"


# -- the seed's "about 60–70% against each type" ---------------------------------------------


def test_the_band_is_met_on_each_type_s_own_interval() -> None:
    # type1 at 64%: own interval 60.6–67.3%, within 60–70%; for all four at once it is not.
    run = _run([0.64, 0.65, 0.65, 0.65], bayes=[0.7] * 4, probability=[0.5] * 4)
    (_, own), *_ = run.type_rates(RANDOM_GUESS)
    (_, family), *_ = run.family_rates(RANDOM_GUESS)
    assert family.low < 0.60 <= own.low
    assert _verdict(run, "seed_band") == "met"


@pytest.mark.parametrize(
    ("type1", "line"),
    [(0.70, 0.70), (0.565, 0.60), (0.735, 0.70)],
    ids=["holds 70%", "own interval below 60%", "own interval above 70%"],
)
def test_a_type_the_band_is_missed_by_only_on_its_own_interval_is_not_shown(
    type1: float, line: float
) -> None:
    # Some type outside the band is judged on the intervals for all types at once: type1's own
    # 95% interval may hold the line or lie beyond it, but the one for all four holds it.
    run = _run([type1, 0.65, 0.65, 0.65], bayes=[0.7] * 4, probability=[0.5] * 4)
    (_, family), *_ = run.family_rates(RANDOM_GUESS)
    assert family.low <= line <= family.high
    check = run.band_claim()
    assert check.verdict == "not shown"
    assert "wholly below 60% (95% over all types at once): 0, wholly above 70%: 0" in (
        check.measured
    )


# -- the seed's "loses to none" --------------------------------------------------------------


def test_losing_to_none_reports_the_lowest_type() -> None:
    run = _run([0.70, 0.59, 0.80, 0.75], bayes=[0.8] * 4, probability=[0.5] * 4)
    measured = run.loses_to_none_claim().measured
    assert measured.startswith("lowest over all seeds type2 59.0% (55.6%–62.4%);")


# -- the seed's "about 5–10 points against most types" ---------------------------------------


def _network_run(third_rg: list[bool], third_bayes: list[bool]) -> TargetRun:
    """bayes +15 points against type1 and type2 (nested games: each whole interval above 5
    points), nothing against type4; type3 as given."""
    runs: dict[str, list[Gauntlet]] = {RANDOM_GUESS: [], BAYES: []}
    for seed in SEEDS:
        shared = [won(0.60, f"{seed}/{k}") for k in range(2)]
        better = [won(0.75, f"{seed}/{k}") for k in range(2)]
        level = won(0.60, f"{seed}/3")
        runs[RANDOM_GUESS].append(played(RANDOM_GUESS, seed, [*shared, third_rg, level]))
        runs[BAYES].append(played(BAYES, seed, [*better, third_bayes, level]))
    runs[PROBABILITY] = [_gauntlet(PROBABILITY, seed, [0.5] * 4) for seed in SEEDS]
    return TargetRun("alternate", GAMES, SEEDS, runs)


def test_a_gain_of_five_points_whose_interval_holds_zero_does_not_count() -> None:
    # type3: +5 points on games that differ both ways (random-guess wins the first 200,
    # bayes from game 180 on), so its interval holds 0: two types of four show the gain (their
    # whole intervals above 5 points), not more than half, and one falls short, not half: the
    # claim is open.
    run = _network_run([n < 200 for n in range(GAMES)], [n >= 180 for n in range(GAMES)])
    gains = dict(run.type_gains(BAYES, RANDOM_GUESS))
    assert gains["type3"].estimate == pytest.approx(0.05) and gains["type3"].low < 0
    check = run.network_claim()
    assert check.verdict == "not shown"
    # type3 and type4 (exactly no gain) have no clear gain; the median of +15, +15, +5 and 0
    # is 10.
    assert check.measured == (
        "of 4 types, 2 gain 5 points or more (the whole interval at or above 5), 1 wholly "
        "under 5, 1 in between; of the 2 that do not gain 5, 2 with no clear gain (interval "
        "reaching 0); gains from +0.0 to +15.0 points, median +10.0"
    )


def test_half_the_types_short_of_five_points_miss_the_network_claim() -> None:
    # type3 level too: two types show the gain, two fall short ("missed if half or more").
    level = won(0.60, "level")
    run = _network_run(level, level)
    assert _verdict(run, "seed_network_gain") == "missed"


# -- the JSON ----------------------------------------------------------------------------------


def test_the_json_gives_every_gain_pooled_and_by_type() -> None:
    run = _run({"1": [0.60, 0.70], "2": [0.64, 0.70]}, bayes=[0.7] * 2, probability=[0.5] * 2)
    data = run.to_json()
    names = {
        "bayes_minus_random-guess",
        "random-guess_minus_probability",
        "bayes_minus_probability",
    }
    assert set(data["gains"]) == names
    for entry in data["by_type"]:
        assert names | set(TARGET_BOTS) <= set(entry)
    assert data["by_type"][0]["random-guess_minus_probability"]["estimate"] == pytest.approx(0.12)
    # The mean's interval is the pooled one: one observation per game index of both seeds.
    mean = data["bots"][RANDOM_GUESS]["mean_ci95"]
    assert mean["n"] == 2 * GAMES
    assert mean["estimate"] == pytest.approx(0.66)


# -- measure_targets and the command ---------------------------------------------------------


def _hand_built(bot: str, opener: Opener) -> list[Gauntlet]:
    """A player's gauntlets on both seeds, built by hand: bayes gains 3.5 points with an
    interval holding 3, so the four targets are met, met, not shown, met and the seed's words
    met, met, missed."""
    rates = {RANDOM_GUESS: 0.65, BAYES: 0.685, PROBABILITY: 0.5}[bot]
    runs = [_gauntlet(bot, seed, [rates] * 4) for seed in SEEDS]
    for run in runs:
        run.opener = opener
    return runs


def test_measure_targets_plays_each_gauntlet_as_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def fake_gauntlet(bot: str, games: int, seed: str, **options: Any) -> Gauntlet:
        calls.append({"bot": bot, "games": games, "seed": seed, **options})
        (played,) = [g for g in _hand_built(bot, options["opener"]) if g.seed == seed]
        return played

    monkeypatch.setattr(liars_dice_targets, "run_gauntlet", fake_gauntlet)
    run = measure_targets("loser", GAMES, SEEDS, driver="referee", jobs=2, floor=0.6)
    assert run.floor == 0.6
    assert run.floor_check().target == "random-guess wins ≥ 60% against every personality"
    assert [(c["bot"], c["seed"]) for c in calls] == [(b, s) for b in TARGET_BOTS for s in SEEDS]
    assert all(
        (c["games"], c["opener"], c["driver"], c["jobs"]) == (GAMES, "loser", "referee", 2)
        for c in calls
    )


def _fake_measure(asked: list[dict[str, Any]]) -> Any:
    def measure(opener: Opener, games: int, seeds: list[str], **options: Any) -> TargetRun:
        asked.append({"opener": opener, **options})
        runs = {bot: _hand_built(bot, opener) for bot in TARGET_BOTS}
        return TargetRun(opener, games, list(seeds), runs, options["floor"])

    return measure


def test_the_command_runs_every_opener_and_sums_them_up(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []
    monkeypatch.setattr("arena.cli.liars_dice_targets.measure_targets", _fake_measure(asked))
    result = runner.invoke(app, ["liars-dice", "targets", "--opener", "all", "--seeds", "1-2"])
    assert result.exit_code == 0, result.output
    assert [call["opener"] for call in asked] == list(OPENERS)
    text = result.stdout
    assert text.count("issue 5's targets") == len(OPENERS)
    assert text.count("the seed's own words") == len(OPENERS)
    assert "who opens" in text
    summary = text[text.index("who opens") :]
    rows = [line for line in summary.splitlines() if line.strip("│ ").startswith(OPENERS)]
    assert len(rows) == len(OPENERS)
    for row in rows:
        # targets: three of four met (the gain is not shown); seed's words: two of three.
        cells = [cell.strip() for cell in row.strip("│").split("│")]
        assert cells[-2:] == ["3/4", "2/3"]
        # The same games under every opener: the interval is clustered by game index, or
        # under winner and loser (whose games are a chain) by blocks of games.
        run = _fake_measure([])(cells[0], GAMES, SEEDS, floor=FLOOR)
        assert cells[4] == points(run.gain(BAYES, RANDOM_GUESS))
        if cells[0] not in CHAIN_OPENERS:
            assert cells[4] == "+3.50 [+2.85, +4.15]"


def test_one_opener_gets_its_tables_and_no_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []
    monkeypatch.setattr("arena.cli.liars_dice_targets.measure_targets", _fake_measure(asked))
    result = runner.invoke(
        app, ["liars-dice", "targets", "--opener", "winner", "--seeds", "1-2", "--floor", "0.6"]
    )
    assert result.exit_code == 0, result.output
    assert [(call["opener"], call["floor"]) for call in asked] == [("winner", 0.6)]
    assert "the seed's own words" in result.stdout
    assert "who opens" not in result.stdout


def test_the_json_says_the_floor_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []
    monkeypatch.setattr("arena.cli.liars_dice_targets.measure_targets", _fake_measure(asked))
    args = [
        "liars-dice",
        "targets",
        "--opener",
        "bot",
        "--seeds",
        "1,2",
        "--floor",
        "0.6",
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["floor"] == 0.6
    assert data["openers"][0]["floor"] == 0.6


def test_ctrl_c_during_the_targets_is_one_line_and_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> TargetRun:
        raise KeyboardInterrupt

    monkeypatch.setattr("arena.cli.liars_dice_targets.measure_targets", interrupted)
    result = runner.invoke(app, ["liars-dice", "targets", "--games", "1"])
    assert result.exit_code == 130
    assert result.output.strip().splitlines()[-1].startswith("error: interrupted")
