"""The liar's dice command line: a bad bot or config is refused before any game is played."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.matches.liars_dice_series import MatchReport

runner = CliRunner()


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bot.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('guess = "oddz"\n', "'guess' must be one of"),
        ('guess = "odds"\npsychology = 2\n', "'psychology' must be between 0 and 1"),
        ("guess = [\n", "not valid TOML"),
    ],
)
def test_a_bad_config_is_refused_before_the_games(
    tmp_path: Path, config: str, message: str
) -> None:
    path = _config(tmp_path, config)
    for args in (
        ["liars-dice", "gauntlet", "--bot", "bayes", "--config", path, "--games", "1"],
        ["match", "liars-dice", "--a", "bayes", "--config-a", path, "--b", "probability"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code != 0
        assert message in " ".join(result.output.split())
        assert "personalities" not in result.output  # no progress bar: nothing started
        assert " vs " not in result.output


def test_an_unknown_bot_is_named() -> None:
    result = runner.invoke(app, ["liars-dice", "gauntlet", "--bot", "psychic", "--games", "1"])
    assert result.exit_code != 0
    assert "no liars_dice bot named 'psychic'" in result.output


def test_configs_belong_to_bots_run_when_playing_on_a_server(tmp_path: Path) -> None:
    path = _config(tmp_path, "real_guess = true\n")
    args = ["match", "liars-dice", "--a", "x", "--b", "y", "--server", "ws://127.0.0.1:9"]
    result = runner.invoke(app, [*args, "--config-a", path])
    assert result.exit_code != 0
    assert "bots run --config" in " ".join(result.output.split())


def test_a_good_config_plays(tmp_path: Path) -> None:
    path = _config(tmp_path, 'guess = "odds"\n')
    args = ["match", "liars-dice", "--a", "random-guess", "--config-a", path]
    result = runner.invoke(app, [*args, "--b", "probability", "--games", "4", "--json"])
    assert result.exit_code == 0, result.output
    assert '"games": 4' in result.stdout


def test_a_duel_reports_its_interval() -> None:
    args = ["match", "liars-dice", "--a", "probability", "--b", "type9", "--seed", "1"]
    args += ["--games", "200"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    interval = data["win_rate_a_ci95"]
    assert interval["n"] == 200 and interval["low"] < data["win_rate_a"] < interval["high"]
    assert interval["low"] > 0.5  # the liar is told apart in 200 games
    shown = _flat(runner.invoke(app, args).output)
    assert "probability is the stronger" in shown and "95% interval" in shown
    even = _flat(runner.invoke(app, [*args[:-1], "2"]).output)  # 2 of 2 still holds 50%
    assert "no difference shown" in even


def _league_rate(wins: int, games: int) -> tuple[float, float]:
    """A's win rate interval that a liar's dice league's match line gives the same games (its
    A − B interval mapped back from 2 × rate − 1)."""
    from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
    from arena.leagues.standings import match_lines

    scores = [1.0] * wins + [0.0] * (games - wins)
    played = [GameOutcome(k, k, {"a": s, "b": 1.0 - s}) for k, s in enumerate(scores)]
    plan = MatchPlan(0, ("a", "b"), "s")
    (line,) = match_lines("liars-dice", [MatchOutcome(plan, played, {}, 0.0)])
    assert line.difference is not None
    return (line.difference.low + 1) / 2, (line.difference.high + 1) / 2


def _report(wins: int, games: int) -> MatchReport:
    won = [True] * wins + [False] * (games - wins)
    return MatchReport("a", "b", games, wins, 0, 0.0, won)


@pytest.mark.parametrize(("wins", "games"), [(60, 100), (17, 31), (3, 3), (0, 5), (530, 1000)])
def test_a_duel_interval_is_the_one_a_league_gives_the_same_games(wins: int, games: int) -> None:
    interval = _report(wins, games).interval()
    assert (interval.low, interval.high) == pytest.approx(_league_rate(wins, games), abs=1e-9)


@pytest.mark.parametrize("games", [31, 50, 100])
def test_equal_bots_are_called_different_in_at_most_5_percent_of_duels(games: int) -> None:
    """Exact enumeration over every duel of two equal bots (each game a fair coin): the verdict
    names a stronger bot when the interval excludes 50%, which must happen in at most 5% of
    duels. Wilson's interval, used from 30 games before, did so in 7.08% of 31-game duels."""
    false_verdicts = math.fsum(
        math.comb(games, wins) / 2**games
        for wins in range(games + 1)
        if _report(wins, games).interval().excludes(0.5)
    )
    assert false_verdicts <= 0.05, false_verdicts


def test_sixty_wins_of_a_hundred_name_no_stronger_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """60–40 over 100 games: the league's exact interval holds an even match, so the match
    command must not name A the stronger (Wilson's interval, 50.2–69.1%, did)."""
    import arena.cli.liars_dice as cli

    async def sixty_of_a_hundred(a: str, b: str, games: int, seed: str, **_: object) -> MatchReport:
        report = _report(60, games)
        report.a, report.b = a, b
        return report

    monkeypatch.setattr(cli, "run_match", sixty_of_a_hundred)
    args = ["match", "liars-dice", "--a", "bayes", "--b", "probability", "--games", "100"]
    result = runner.invoke(app, [*args, "--seed", "1"])
    assert result.exit_code == 0, result.output
    shown = _flat(result.output)
    assert "bayes 60 – 40 probability over 100 games: 60.0% for bayes" in shown
    assert "95% interval 49.7%–69.7% (no difference shown: the interval holds 50%)" in shown
    assert "stronger" not in shown
    data = json.loads(runner.invoke(app, [*args, "--seed", "1", "--json"]).stdout)
    low, high = _league_rate(60, 100)
    assert data["win_rate_a_ci95"]["low"] == round(low, 4)
    assert data["win_rate_a_ci95"]["high"] == round(high, 4)


# -- tables (--bots) ---------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "bayes,type5", "--a", "bayes"], "leave out --a/--b"),
        (["--a", "bayes"], "name the two bots of a duel with --a and --b"),
        (["--bots", "bayes,type5,probability", "--rules", "liars_dice_party"], "players = 4"),
        (["--bots", "bayes,type5", "--config", "bayes"], "--config takes BOT=FILE"),
        (["--bots", "bayes,type5", "--config", "psychic=x.toml"], "not one of the bots"),
        (["--bots", "bayes,type5,psychic"], "no liars_dice bot named 'psychic'"),
        (["--a", "bayes", "--b", "type5", "--rules", "liars_dice_party"], "a duel seats two"),
        (["--a", "bayes", "--b", "type5", "--config", "bayes=x.toml"], "is for tables"),
    ],
)
def test_a_table_that_cannot_be_played_is_refused_before_it_starts(
    args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["match", "liars-dice", "--games", "2", *args])
    assert result.exit_code != 0
    assert message in _flat(result.output)
    assert "━" not in result.output  # no progress bar: nothing started


def test_a_table_plays_with_a_config_and_writes_a_record_that_verifies(tmp_path: Path) -> None:
    path = _config(tmp_path, 'guess = "odds"\n')
    args = ["match", "liars-dice", "--bots", "random-guess,type5,random-guess", "--games", "6"]
    result = runner.invoke(
        app, [*args, "--config", f"random-guess={path}", "--record", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["bots"] == ["random-guess#1", "type5", "random-guess#2"]
    assert data["every_seating_equally"] and data["fair_share"] == pytest.approx(2 / 3, abs=1e-4)
    (record,) = tmp_path.glob("liars-dice-table-*.jsonl")
    verified = runner.invoke(app, ["verify", str(record)])
    assert verified.exit_code == 0, verified.output
    assert _flat(verified.output).count("decisions ok") == 6


def test_a_partial_cycle_of_seatings_is_pointed_out() -> None:
    args = ["match", "liars-dice", "--bots", "bayes,type5,probability", "--games", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "not a multiple of 6" in _flat(result.output)
    assert "vs fair share" in result.output


def test_a_gauntlet_can_be_run_against_chosen_personalities(tmp_path: Path) -> None:
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "6", "--json"]
    result = runner.invoke(app, [*args, "--opponents", "type5, type23", "--plot", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["opponent"] for row in data["results"]] == ["type5", "type23"]
    assert {p.name for p in tmp_path.iterdir()} == {
        "bayes-vs-type5.png",
        "bayes-vs-type23.png",
        "bayes-gauntlet.png",
    }
    refused = runner.invoke(app, [*args, "--opponents", "type5,type33"])
    assert refused.exit_code != 0
    assert "type1 … type32" in _flat(refused.output)


def test_a_plot_path_that_is_a_file_is_refused_before_the_games(tmp_path: Path) -> None:
    taken = tmp_path / "charts"
    taken.write_text("", encoding="utf-8")
    args = ["liars-dice", "gauntlet", "--games", "2", "--plot", str(taken)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "cannot make that directory" in _flat(result.output)
    assert "personalities" not in result.output  # no progress bar: nothing was played


def test_a_gauntlet_beside_a_baseline_gives_the_paired_gain() -> None:
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "10", "--opponents", "type5"]
    result = runner.invoke(app, [*args, "--baseline", "random-guess", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["baseline"]["bot"] == "random-guess"
    assert data["gain"]["estimate"] == pytest.approx(
        data["mean"] - data["baseline"]["mean"], abs=1e-3
    )
    shown = runner.invoke(app, [*args, "--baseline", "random-guess"])
    assert "gain of bayes" in _flat(shown.output)
    refused = runner.invoke(app, [*args, "--baseline-config", "x.toml"])
    assert refused.exit_code != 0 and "--baseline-config needs --baseline" in _flat(refused.output)


# -- one-line errors for bad counts, deadlines, names and seeds ---------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "liars-dice", "--a", "bayes", "--b", "type5", "--games", "0"], "--games"),
        (["liars-dice", "gauntlet", "--games", "0"], "--games"),
        (["liars-dice", "gauntlet", "--jobs", "0"], "--jobs"),
        (["liars-dice", "targets", "--games", "0"], "--games"),
        (["bench", "liars-dice", "--driver-games", "0"], "--driver-games"),
        (["liars-dice", "play", "--games", "0"], "--games"),
        (["match", "bulls-cows", "--a", "random", "--b", "random", "--games", "0"], "--games"),
    ],
)
def test_a_count_under_one_is_a_one_line_error_like_in_bulls_cows(
    args: list[str], message: str
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"error: {message} must be at least 1" in result.output
    assert "Usage:" not in result.output and "╭" not in result.output


def test_a_floor_outside_zero_to_one_is_a_one_line_error() -> None:
    result = runner.invoke(app, ["liars-dice", "targets", "--floor", "1.5"])
    assert result.exit_code == 2
    assert "error: --floor must lie between 0 and 1, got 1.5" in result.output


@pytest.mark.parametrize("deadline", ["-5", "0"])
def test_a_duel_and_a_table_need_a_positive_deadline(deadline: str) -> None:
    for bots in (["--a", "bayes", "--b", "type5"], ["--bots", "bayes,type5,probability"]):
        result = runner.invoke(app, ["match", "liars-dice", *bots, "--deadline-ms", deadline])
        assert result.exit_code == 2
        assert f"error: --deadline-ms must be at least 1, got {deadline}" in result.output


def test_a_deadline_reaches_the_games() -> None:
    args = ["match", "liars-dice", "--a", "probability", "--b", "type9", "--games", "4", "--json"]
    result = runner.invoke(app, [*args, "--deadline-ms", "1000"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 4


@pytest.mark.parametrize("bots", ["bayes,,probability", "bayes,probability,", ","])
def test_an_empty_bot_name_is_refused_not_dropped(bots: str) -> None:
    result = runner.invoke(app, ["match", "liars-dice", "--bots", bots, "--games", "2"])
    assert result.exit_code == 2
    assert f"error: --bots: empty entry in {bots!r}" in _flat(result.output)


@pytest.mark.parametrize("seeds", ["1 - 3", "1-", "-3", "a-b", "1-2-3", "x,2-"])
def test_a_malformed_seed_range_is_refused_not_played_as_one_seed(seeds: str) -> None:
    for command in (["liars-dice", "gauntlet"], ["liars-dice", "targets"]):
        result = runner.invoke(app, [*command, "--games", "1", "--seeds", seeds])
        assert result.exit_code == 2
        shown = _flat(result.output)
        assert "is not a range (two whole numbers joined by '-', e.g. 1-8)" in shown
        assert "--seed" in shown  # where a text seed holding '-' goes
        assert "━" not in result.output  # refused before any game


def test_ranges_and_text_seeds_still_pool_and_a_dashed_text_seed_goes_to_seed() -> None:
    base = ["liars-dice", "gauntlet", "--games", "1", "--opponents", "type1", "--driver", "direct"]
    data = json.loads(runner.invoke(app, [*base, "--seeds", "1-2,x", "--json"]).stdout)
    assert [run["seed"] for run in data["per_seed"]] == ["1", "2", "x"]
    data = json.loads(runner.invoke(app, [*base, "--seed", "a-b", "--json"]).stdout)
    assert data["seed"] == "a-b"


def test_records_of_seeds_that_look_alike_do_not_overwrite_each_other(tmp_path: Path) -> None:
    args = ["match", "liars-dice", "--a", "probability", "--b", "type9", "--games", "2"]
    long = "s" * 60
    for seed in ("a/b", "a_b", long, long + "t", "plain-1"):
        result = runner.invoke(app, [*args, "--seed", seed, "--record", str(tmp_path)])
        assert result.exit_code == 0, result.output
    names = sorted(path.name for path in tmp_path.glob("*.jsonl"))
    assert len(names) == 5
    assert [name for name in names if name.startswith("liars-dice-duel-a_b-probability-type9-")]
    assert [name for name in names if name.startswith("liars-dice-duel-plain-1-probability-")]


# -- the default seed is fresh, never a public text ---------------------------------------------


def _printed_seed(stderr: str) -> str:
    (seed,) = re.findall(r"^seed: ([0-9a-f]{64})$", stderr, re.M)
    return seed


@pytest.mark.parametrize(
    "bots", [["--a", "probability", "--b", "type9"], ["--bots", "probability,type9,type5"]]
)
def test_without_seed_a_match_draws_a_fresh_one_and_prints_it_first(
    tmp_path: Path, bots: list[str]
) -> None:
    args = ["match", "liars-dice", *bots, "--games", "6", "--json"]
    first = runner.invoke(app, [*args, "--record", str(tmp_path / "a")])
    second = runner.invoke(app, args)
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    seed = _printed_seed(first.stderr)
    assert seed != _printed_seed(second.stderr)
    assert first.stderr.index(f"seed: {seed}") < first.stderr.index("record:")
    data = json.loads(first.stdout)
    if "seed" in data:  # a table's JSON names its seed
        assert data["seed"] == seed
    # The record is named after the commitment (the match id's digits), never the seed, and
    # the seed printed replays the match.
    (record,) = (tmp_path / "a").glob("*.jsonl")
    commitment = MatchSeed.from_hex(seed).commitment()
    assert f"-c{commitment[:12]}-probability-type9-" in record.name
    assert seed[:12] not in record.name
    assert json.loads(record.read_text().splitlines()[0])["seed_commitment"] == commitment
    again = runner.invoke(app, [*args, "--seed", seed])
    assert "seed: " not in again.stderr  # a given seed is not printed again
    strip = ("seconds", "record")  # the second run writes no record
    assert {k: v for k, v in json.loads(again.stdout).items() if k not in strip} == {
        k: v for k, v in data.items() if k not in strip
    }
