"""The gauntlet's statistics: a Wilson interval per personality, one clustered by game index for
the mean, and the floor check that tells a miss the games prove from one that is within noise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench.liars_dice import FLOOR, Gain, Gauntlet, pool_gauntlets, run_gauntlet
from arena.bench.liars_dice_charts import plot_trends
from arena.cli.main import app
from arena.matches.liars_dice_series import Duel, first_player
from arena.matches.stats import clustered_mean_interval, proportion_interval

runner = CliRunner()


def _duel(opponent: str, wins: int, games: int, decisions: int = 0) -> Duel:
    return Duel(opponent, [True] * wins + [False] * (games - wins), decisions=decisions)


def _gauntlet() -> Gauntlet:
    duels = [
        _duel("type1", 300, 500, decisions=1500),  # 60%: above the floor
        _duel("type5", 260, 500, decisions=1600),  # 52%: below, the interval reaches 55%
        _duel("type7", 230, 500, decisions=1400),  # 46%: the whole interval below 55%
    ]
    return Gauntlet("random-guess", 500, "1", duels, seconds=1.0, driver="direct")


def test_each_duel_has_its_wilson_interval() -> None:
    duel = _duel("type5", 260, 500)
    interval = duel.interval()
    assert interval == proportion_interval(260, 500)
    assert interval.low < 0.52 < 0.55 < interval.high
    row = duel.to_json()
    assert row["win_rate_ci95"]["low"] == round(interval.low, 4)
    assert row["win_rate_ci95"]["high"] == round(interval.high, 4)


def test_the_floor_separates_a_proven_miss_from_noise() -> None:
    gauntlet = _gauntlet()
    assert [d.opponent for d in gauntlet.below(FLOOR)] == ["type5", "type7"]
    assert [d.opponent for d in gauntlet.clearly_below(FLOOR)] == ["type7"]
    assert gauntlet.below(0.4) == gauntlet.clearly_below(0.4) == []


def test_the_mean_interval_is_over_every_game_clustered_by_index() -> None:
    gauntlet = _gauntlet()
    interval = gauntlet.mean_interval()
    assert interval.estimate == pytest.approx(gauntlet.mean) == (300 + 260 + 230) / 1500
    # Game k of every duel dealt the same dice: the 500 game indices are the observations.
    per_index = [sum(d.outcomes[k] for d in gauntlet.duels) / 3 for k in range(500)]
    assert interval == clustered_mean_interval([[m] for m in per_index], bounds=(0.0, 1.0))
    assert interval.half_width > proportion_interval(790, 1500).half_width
    assert gauntlet.decisions_per_game == 4500 / 1500


def test_the_json_carries_the_intervals_and_the_floor() -> None:
    data = _gauntlet().to_json(0.55)
    assert data["floor"] == {"rate": 0.55, "below": ["type5", "type7"], "clearly_below": ["type7"]}
    assert data["mean_ci95"]["low"] < data["mean"] < data["mean_ci95"]["high"]
    assert [row["decisions_per_game"] for row in data["results"]] == [3.0, 3.2, 2.8]
    assert data["decisions_per_game"] == 3.0


def test_the_command_reports_the_floor() -> None:
    args = ["liars-dice", "gauntlet", "--games", "20", "--opponents", "type9,type5"]
    data = json.loads(runner.invoke(app, [*args, "--floor", "1", "--json"]).stdout)
    assert data["floor"]["rate"] == 1.0
    assert data["floor"]["below"] == ["type9", "type5"]  # nobody wins every game of 20 here
    text = runner.invoke(app, [*args, "--floor", "0"])
    assert text.exit_code == 0, text.output
    assert "below 0%: none" in text.output
    assert "95% interval" in text.output
    refused = runner.invoke(app, [*args, "--floor", "1.5"])
    assert refused.exit_code == 2


def test_worker_processes_give_the_same_gauntlet() -> None:
    opponents = ["type5", "type9", "type23"]
    serial = run_gauntlet("bayes", 12, "jobs", opponents=opponents, driver="direct")
    heard: list[int] = []
    shared = run_gauntlet(
        "bayes", 12, "jobs", opponents=opponents, driver="direct", jobs=2, progress=heard.append
    )
    assert [d.outcomes for d in shared.duels] == [d.outcomes for d in serial.duels]
    assert [d.opponent for d in shared.duels] == opponents
    assert [d.decisions for d in shared.duels] == [d.decisions for d in serial.duels]
    assert heard == [12, 12, 12]


def test_charts_draw_a_baseline_beside_the_bot(tmp_path: Path) -> None:
    """圖 5.9–5.11: the player before and after the Bayesian network, one chart a personality."""
    pair = ["type1", "type8"]
    bayes = run_gauntlet("bayes", 20, "charts", opponents=pair, driver="direct")
    plain = run_gauntlet("random-guess", 20, "charts", opponents=pair, driver="direct")
    written = plot_trends(bayes, tmp_path, plain)
    assert [p.name for p in written] == [
        "bayes-vs-type1.png",
        "bayes-vs-type8.png",
        "bayes-gauntlet.png",
    ]
    assert all(p.stat().st_size > 0 for p in written)
    other_seed = run_gauntlet("random-guess", 20, "other", opponents=pair, driver="direct")
    with pytest.raises(ValueError, match="same seed, games, opener and opponents"):
        plot_trends(bayes, tmp_path, other_seed)


def test_opener_decides_who_opens_and_keeps_each_game_s_dice() -> None:
    """Game k uses dice k whoever opens, and random-guess and the personalities carry nothing
    from game to game: the games the bot opens under `alternate` (the even ones) are the same
    games under `bot`, and the odd ones the same under `opponent`."""
    args = ("random-guess", 24, "opener")
    alternate = run_gauntlet(*args, opponents=["type5"], driver="direct").duels[0].outcomes
    bot = run_gauntlet(*args, opponents=["type5"], driver="direct", opener="bot")
    opponent = run_gauntlet(*args, opponents=["type5"], driver="direct", opener="opponent")
    assert bot.duels[0].outcomes[0::2] == alternate[0::2]
    assert opponent.duels[0].outcomes[1::2] == alternate[1::2]
    assert bot.duels[0].outcomes != opponent.duels[0].outcomes
    assert bot.to_json()["opener"] == "bot"
    # The loser of a game opens the next (the bot opens the first): each of its games is the
    # game of the same index in the run where that side opens every game.
    for rule in ("loser", "winner"):
        played = run_gauntlet(*args, opponents=["type5"], driver="direct", opener=rule)
        won = played.duels[0].outcomes
        for k, result in enumerate(won):
            opens = first_player(rule, k, won[k - 1] if k else None)
            assert result == (bot if opens == 0 else opponent).duels[0].outcomes[k]
    assert first_player("winner", 5, True) == 0 and first_player("winner", 5, False) == 1
    with pytest.raises(ValueError, match="opener"):
        Gain(bot, opponent)


def test_gauntlet_refuses_an_unknown_opener() -> None:
    result = runner.invoke(app, ["liars-dice", "gauntlet", "--opener", "first", "--games", "1"])
    assert result.exit_code == 2
    expected = "--opener must be one of alternate, bot, opponent, loser, winner"
    assert expected in " ".join(result.output.split())


def test_pooled_seeds_follow_each_other_and_still_pair() -> None:
    runs = [
        run_gauntlet("random-guess", 12, seed, opponents=["type5", "type9"], driver="direct")
        for seed in ("a", "b")
    ]
    pooled = pool_gauntlets(runs)
    assert pooled.seed == "a,b" and pooled.games == 24
    for k, duel in enumerate(pooled.duels):
        assert duel.outcomes == runs[0].duels[k].outcomes + runs[1].duels[k].outcomes
    assert pooled.mean == pytest.approx((runs[0].mean + runs[1].mean) / 2)
    other = pool_gauntlets(
        [
            run_gauntlet("probability", 12, seed, opponents=["type5", "type9"], driver="direct")
            for seed in ("a", "b")
        ]
    )
    diffs = [
        float(x) - float(y)
        for mine, theirs in zip(pooled.duels, other.duels, strict=True)
        for x, y in zip(mine.outcomes, theirs.outcomes, strict=True)
    ]
    assert Gain(pooled, other).interval().estimate == pytest.approx(sum(diffs) / len(diffs))
    with pytest.raises(ValueError, match="cannot pool"):
        pool_gauntlets([runs[0], other])


def test_gauntlet_seeds_reports_the_pool_and_each_seed() -> None:
    args = ["liars-dice", "gauntlet", "--games", "6", "--opponents", "type5", "--driver", "direct"]
    result = runner.invoke(app, [*args, "--seeds", "3-4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["seed"] == "3,4" and data["results"][0]["games"] == 12
    for summary in data["per_seed"]:
        single = runner.invoke(app, [*args, "--seed", summary["seed"], "--json"])
        assert json.loads(single.stdout)["mean"] == summary["mean"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", "1", "--seeds", "1-2"], "not both"),
        (["--seeds", "5-1"], "not a range"),
        (["--seeds", "1,1"], "different seeds"),
        (["--seeds", "1-2", "--plot", "charts"], "one seed"),
    ],
)
def test_gauntlet_refuses_bad_seeds(extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["liars-dice", "gauntlet", "--games", "1", *extra])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
