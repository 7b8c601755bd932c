"""The liar's dice gauntlet, its gain, `arena bench liars-dice` and the win-trend charts: figures
a mutation audit found untested. Most gauntlets here are made up from outcomes (no game is
played); no timing is asserted."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from matplotlib.figure import Figure

from arena.bench import liars_dice_speed as speed
from arena.bench.liars_dice import Gain, Gauntlet, by_game, pool_gauntlets, run_gauntlet
from arena.bench.liars_dice_charts import plot_trends
from arena.bench.liars_dice_speed import BenchReport, compare_drivers
from arena.matches.liars_dice_series import Duel, Opener


def _gauntlet(
    outcomes: list[list[bool]], bot: str = "random-guess", opener: Opener = "alternate", **more: Any
) -> Gauntlet:
    """A gauntlet whose k-th duel, against type k+1, went ``outcomes[k]``."""
    duels = [
        Duel(f"type{k + 1}", won, decisions=3 * len(won), give_ups=k + 1)
        for k, won in enumerate(outcomes)
    ]
    played = Gauntlet(bot, len(outcomes[0]), "1", duels, seconds=1.0, driver="direct")
    return dataclasses.replace(played, opener=opener, **more)


# -- the gauntlet's figures ---------------------------------------------------------------------


def test_a_duel_won_throughout_is_not_below_a_floor_of_one_hundred_percent() -> None:
    played = _gauntlet([[True] * 20, [True] * 19 + [False]])
    assert played.duels[0].interval().high == 1.0
    # One game lost proves the rate under 100%; none lost cannot.
    assert [d.opponent for d in played.below(1.0)] == ["type2"]
    assert [d.opponent for d in played.clearly_below(1.0)] == ["type2"]


def test_a_side_won_exactly_at_the_floor_is_not_below_it() -> None:
    # Alternate openers: the bot opens the even games (won 2 of 4), the opponent the odd ones
    # (won 1 of 4).
    played = _gauntlet([[True, False, True, False, False, True, False, False]])
    split = played.by_opener(floor=0.5)
    assert (split["bot"]["wins"], split["bot"]["games"]) == (2, 4)
    assert split["bot"]["below_floor"] == []
    assert split["opponent"]["below_floor"] == ["type1"]


def test_a_side_that_opened_no_game_has_no_rate_and_nothing_below() -> None:
    played = _gauntlet([[True, False, False], [False, False, True]], opener="bot")
    split = played.by_opener()
    assert split["opponent"] == {"games": 0, "wins": 0, "win_rate": None, "below_floor": []}
    assert split["bot"]["games"] == 6 and split["bot"]["win_rate"] == round(2 / 6, 4)
    assert split["bot"]["below_floor"] == ["type1", "type2"]


def test_the_json_gives_the_lowest_rate_the_give_ups_and_each_group_s_games() -> None:
    played = _gauntlet([[True, True, False, True], [False, True, False, False], [True] * 4])
    data = played.to_json()
    assert data["min"] == 0.25
    assert data["give_ups"] == 1 + 2 + 3
    groups = data["groups"]
    assert sorted(name for group in groups for name in group["opponents"]) == [
        "type1",
        "type2",
        "type3",
    ]
    for group in groups:
        members = [d for d in played.duels if d.opponent in group["opponents"]]
        assert group["games"] == sum(d.games for d in members)
        assert group["wins"] == sum(d.wins for d in members)


def test_a_gauntlet_timed_at_zero_seconds_has_no_rate_rather_than_an_error() -> None:
    played = _gauntlet([[True, False]], seconds=0.0)
    assert played.games_per_second == 0.0
    assert played.to_json()["games_per_second"] == 0.0


def test_by_game_keeps_every_game_of_series_of_different_lengths() -> None:
    assert by_game([[1.0, 0.0, 1.0], [0.0]]) == [[1.0, 0.0], [0.0], [1.0]]
    assert by_game([]) == []


# -- pooling ------------------------------------------------------------------------------------


def test_pooling_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no gauntlet to pool"):
        pool_gauntlets([])


def test_a_pool_takes_every_seed_s_time() -> None:
    first = _gauntlet([[True, False]], seconds=1.5)
    second = dataclasses.replace(_gauntlet([[False, False]], seconds=2.5), seed="2")
    assert pool_gauntlets([first, second]).seconds == 4.0


def test_pools_pooled_again_keep_each_seed_s_games_apart() -> None:
    # Under `loser` the bot opens each seed's first game, then the loser opens: every game won,
    # the opponent opens the rest of the seed's games.
    seeds = [_gauntlet([[True] * 4], opener="loser", seed=str(k)) for k in range(4)]
    pooled = pool_gauntlets([pool_gauntlets(seeds[:2]), pool_gauntlets(seeds[2:])])
    assert pooled.games == 16 and pooled.seed == "0,1,2,3"
    assert pooled.bot_opened(pooled.duels[0]) == [True, False, False, False] * 4


# -- the runs -----------------------------------------------------------------------------------


def test_worker_processes_follow_the_opener_asked_for() -> None:
    args = ("random-guess", 8, "opener-jobs")
    opponents = ["type5", "type9"]
    serial = run_gauntlet(*args, opponents=opponents, driver="direct", opener="bot")
    shared = run_gauntlet(*args, opponents=opponents, driver="direct", opener="bot", jobs=2)
    assert [d.outcomes for d in shared.duels] == [d.outcomes for d in serial.duels]
    other = run_gauntlet(*args, opponents=opponents, driver="direct", opener="opponent")
    assert [d.outcomes for d in other.duels] != [d.outcomes for d in serial.duels]


def test_the_gain_json_keeps_the_baseline_s_split_by_opener() -> None:
    bot = _gauntlet([[True, False, True, True]])
    baseline = _gauntlet([[False, False, True, False]], bot="probability")
    data = Gain(bot, baseline).to_json()
    assert data["baseline"]["by_opener"] == baseline.to_json()["by_opener"]
    assert data["baseline"]["bot"] == "probability"


# -- the speed benchmark ------------------------------------------------------------------------


def _bench_report(games: int = 500) -> BenchReport:
    bayes = dataclasses.replace(_gauntlet([[True, True, False, True]], bot="bayes"), seconds=8.0)
    baseline = dataclasses.replace(_gauntlet([[False, True, False, False]]), seconds=2.0)
    return BenchReport(
        games=games,
        seed="1",
        bayes=bayes,
        baseline=baseline,
        referee_games=10,
        direct_seconds=2.0,
        referee_seconds=5.0,
        referee_decisions=400,
        direct_decisions=500,
    )


def test_the_bench_json_gives_each_driver_its_own_figures() -> None:
    data = _bench_report().to_json()
    assert data["bayes_vs_random_guess_time_ratio"] == 4.0
    assert (data["bayes_mean_win_rate"], data["random_guess_mean_win_rate"]) == (0.75, 0.25)
    assert data["driver_comparison"] == {
        "games": 10,
        "direct_games_per_second": 5.0,
        "referee_games_per_second": 2.0,
        "referee_vs_direct_time_ratio": 2.5,
        "referee_us_per_decision": 12500.0,
        "direct_us_per_decision": 4000.0,
    }


def test_the_time_target_is_judged_at_500_games_only_not_above() -> None:
    assert _bench_report(games=1000).time_target()["met"] is None
    assert _bench_report(games=500).time_target()["met"] is True


def test_both_drivers_play_the_same_games() -> None:
    _, direct_decisions, _, referee_decisions = compare_drivers(10, "x")
    assert direct_decisions == referee_decisions
    assert direct_decisions >= 10 * 2  # every game has a bid and a challenge at least


def test_the_bench_times_bayes_against_random_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[tuple[str, int, str]] = []

    def fake_gauntlet(bot: str, games: int, seed: str, **_: Any) -> Gauntlet:
        played.append((bot, games, seed))
        return _gauntlet([[True, False]], bot=bot)

    monkeypatch.setattr(speed, "run_gauntlet", fake_gauntlet)
    monkeypatch.setattr(speed, "compare_drivers", lambda games, seed: (1.0, 11, 3.0, 12))
    report = speed.run_bench(2, "s", driver_games=7)
    assert played == [("bayes", 2, "s"), ("random-guess", 2, "s")]
    assert (report.bayes.bot, report.baseline.bot) == ("bayes", "random-guess")
    assert (report.referee_games, report.direct_seconds, report.referee_seconds) == (7, 1.0, 3.0)
    assert (report.direct_decisions, report.referee_decisions) == (11, 12)


# -- the charts ---------------------------------------------------------------------------------


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures `plot_trends` saves, kept instead of written."""
    figures: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda figure, *_a, **_k: figures.append(figure))
    return figures


def _lines(figure: Figure) -> dict[str, tuple[list[float], list[float]]]:
    (ax,) = figure.axes
    return {
        str(line.get_label()): (list(line.get_xdata()), list(line.get_ydata()))  # type: ignore[arg-type]
        for line in ax.get_lines()
    }


def test_each_chart_draws_cumulative_wins_between_the_guide_lines(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    bot = _gauntlet([[True, True, False, True], [False, False, False, True]], bot="bayes")
    baseline = _gauntlet([[False, True, False, False], [True, True, True, False]])
    plot_trends(bot, tmp_path, baseline)
    first, second, grid = drawn
    lines = _lines(second)
    assert lines["bayes wins"] == ([1, 2, 3, 4], [0, 0, 0, 1])
    assert lines["random-guess wins"] == ([1, 2, 3, 4], [1, 2, 3, 3])
    assert lines["slope 1"] == ([0, 4], [0, 4])
    assert lines["slope 1/2"] == ([0, 4], [0, 2])
    assert first.axes[0].get_title() == "vs type1: 75.0% (random-guess 25.0%)"
    assert second.axes[0].get_title() == "vs type2: 25.0% (random-guess 75.0%)"
    assert "mean 50.0% (random-guess 50.0%)" in grid.get_suptitle()


def test_the_grid_has_a_chart_for_every_opponent_and_hides_the_rest(
    tmp_path: Path, drawn: list[Figure]
) -> None:
    bot = _gauntlet([[k % 2 == 0, True] for k in range(9)])
    plot_trends(bot, tmp_path)
    grid = drawn[-1]
    shown = [ax.get_title().split(":")[0] for ax in grid.axes if ax.get_visible()]
    assert shown == [f"vs type{k + 1}" for k in range(9)]
    assert len(grid.axes) == 16  # two rows of eight


def test_a_bot_named_by_a_path_gets_charts_in_the_directory(tmp_path: Path) -> None:
    bot = _gauntlet([[True, False]], bot="configs/bayes.toml")
    written = plot_trends(bot, tmp_path)
    assert [p.name for p in written] == [
        "configs_bayes.toml-vs-type1.png",
        "configs_bayes.toml-gauntlet.png",
    ]
    assert all(p.parent == tmp_path and p.stat().st_size > 0 for p in written)
