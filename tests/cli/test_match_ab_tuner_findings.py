"""A strategy tuner's findings about the A/B match commands of the three games, fixed:

1. a match stopped early (Ctrl-C, SIGTERM) shows the figures of the games played, marked
   partial, still exits 130 and leaves its record consistent;
2. one A/B shape: 1A2B's ``score_diff_ci95`` is an interval object, 1A2B takes
   ``--config-a/--config-b``, mahjong's ``--bots`` takes a config file, mahjong reports its time;
3. ``bots list --options`` / ``--json`` give each strategy's settings, from its validation;
4. a misspelt liar's dice or 1A2B setting gets the closest one;
5. the random mahjong bot takes a seed of text or an integer only;
6. a mahjong match of fewer than 8 rounds says its intervals are approximate;
8. a mahjong difference with no spread says the games cannot tell the bots apart, and a
   series reports tied matches apart.

The stop is raised as Ctrl-C raises it, from the match's progress callback once N games are
done (in-process, nothing timed)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.cli.bulls_cows as bulls_cows_cli
import arena.cli.liars_dice as liars_dice_cli
import arena.cli.mahjong_match as mahjong_cli
from arena.cli.main import app
from arena.games.liars_dice import LiarsDiceRules
from arena.matches.liars_dice import TableReport, in_process_seats, run_table
from arena.matches.liars_dice_series import MatchReport, run_match
from arena.matches.mahjong import MatchResult, MatchSpec, ProgramStats
from arena.replay import check_record
from bots.cli import app as bots_app
from bots.options import strategy_options
from bots.registry import BOT_MODULES, bot_names, make_bot

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
GREEDY_SLOW = REPO / "configs" / "bots" / "mahjong" / "greedy-slow.toml"
INTERVAL_KEYS = {"estimate", "low", "high", "n", "confidence"}


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- 1. a stopped match shows its figures --------------------------------------------------------


def _stop_after(games: int) -> Callable[..., Any]:
    """`arena.cli.common.progress` whose advance stops the match (as Ctrl-C does) once
    ``games`` games are done: each match reports a game after tallying it."""

    @contextmanager
    def fake(_total: int, _label: str, *, transient: bool = False) -> Iterator[Any]:
        done = [0]

        def advance(count: int) -> None:
            done[0] += count
            if done[0] >= games:
                raise KeyboardInterrupt

        yield advance

    return fake


class _StopAfterHands:
    """`progress_bar` for `arena match mahjong`: stops the series once ``hands`` are done."""

    def __init__(self, hands: int) -> None:
        self.hands = hands

    def __enter__(self) -> _StopAfterHands:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def add_task(self, *_args: object, **_kwargs: object) -> int:
        return 0

    def update(self, _task: int, *, completed: int) -> None:
        if completed >= self.hands:
            raise KeyboardInterrupt


def _stopped(args: list[str]) -> Any:
    result = runner.invoke(app, args)
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines()[-1].startswith("error: interrupted"), result.stderr
    assert "Traceback" not in result.output
    return result


def _reveal(directory: Path) -> dict[str, Any]:
    (record,) = directory.glob("*.jsonl")
    lines = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    assert lines[-1]["type"] == "reveal"
    return dict(lines[-1])


def test_a_stopped_liars_dice_duel_shows_the_games_played(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(liars_dice_cli, "progress", _stop_after(7))
    duel = ["match", "liars-dice", "--a", "bayes", "--b", "random-guess", "--games", "1000"]
    result = _stopped([*duel, "--seed", "1", "--json", "--record", str(tmp_path)])
    data = json.loads(result.stdout)
    assert (data["partial"], data["games"], data["games_planned"]) == (True, 7, 1000)
    assert data["wins_a"] + data["wins_b"] == 7
    assert data["win_rate_a_ci95"]["n"] == 7
    # The record holds the same games, revealed, and is where the JSON says.
    reveal = _reveal(tmp_path)
    assert reveal["games"] == 7 and reveal["totals"] == [data["wins_a"], data["wins_b"]]
    assert Path(data["record"]).is_file()
    (match,) = check_record(Path(data["record"])).matches
    assert any("announced 1000 games" in problem for problem in match.problems)
    text = _flat(_stopped([*duel, "--seed", "1"]).stdout)
    assert text.startswith("interrupted after 7 of 1,000 games: the figures below are of the")
    assert "over 7 games" in text and "95% interval" in text


def test_a_stopped_liars_dice_table_shows_the_games_played(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(liars_dice_cli, "progress", _stop_after(5))
    table = ["match", "liars-dice", "--bots", "bayes,probability,type5", "--games", "600"]
    data = json.loads(_stopped([*table, "--seed", "1", "--json"]).stdout)
    assert (data["partial"], data["games"], data["games_planned"]) == (True, 5, 600)
    assert all(result["games"] == 5 for result in data["results"])
    text = _flat(_stopped([*table, "--seed", "1"]).stdout)
    assert "interrupted after 5 of 600 games" in text and "table, 5 games" in text


def test_a_match_stopped_before_its_first_game_shows_no_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @contextmanager
    def stop_at_once(_total: int, _label: str, *, transient: bool = False) -> Iterator[Any]:
        raise KeyboardInterrupt
        yield  # pragma: no cover

    monkeypatch.setattr(liars_dice_cli, "progress", stop_at_once)
    result = _stopped(["match", "liars-dice", "--a", "bayes", "--b", "type5", "--seed", "1"])
    assert result.stdout == ""


def test_a_stopped_1a2b_duel_shows_the_games_played(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(bulls_cows_cli, "progress", _stop_after(6))
    duel = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "500"]
    data = json.loads(_stopped([*duel, "--seed", "1", "--json", "--record", str(tmp_path)]).stdout)
    assert (data["partial"], data["games"], data["games_planned"]) == (True, 6, 500)
    assert sum(data["wins"].values()) + data["draws"] == 6
    assert data["score_diff_ci95"]["n"] == 6 and data["seconds"] >= 0
    assert _reveal(tmp_path)["games"] == 6
    text = _flat(_stopped([*duel, "--seed", "1"]).stdout)
    assert text.startswith("interrupted after 6 of 500 games") and "1A2B duel, 6 games" in text


def test_a_stopped_mahjong_match_shows_the_hands_played(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(mahjong_cli, "progress_bar", lambda *_a, **_k: _StopAfterHands(6))
    match = ["match", "mahjong", "--bots", "greedy,random", "--games", "16", "--seed", "1"]
    data = json.loads(_stopped([*match, "--json", "--record", str(tmp_path)]).stdout)
    assert (data["partial"], data["games"], data["games_planned"]) == (True, 6, 16)
    # Two rounds begun, the second after two hands: no round without a hand among them.
    assert data["rounds"] == 2 and data["points_difference_ci95"]["n"] == 2
    assert sum(player["hands"] for player in data["players"]) == 6 * 4
    assert _reveal(tmp_path)["games"] == 6 and Path(data["record"]).is_file()
    text = _flat(_stopped(match).stdout)
    assert text.startswith("interrupted after 6 of 16 hands")
    assert "6 of 16 hands (interrupted)" in text and "points difference A−B" in text


def test_a_stopped_mahjong_series_shows_its_finished_matches_and_the_cut_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mahjong_cli, "progress_bar", lambda *_a, **_k: _StopAfterHands(12))
    series = ["match", "mahjong", "--bots", "greedy,random", "--games", "8", "--matches", "3"]
    data = json.loads(_stopped([*series, "--seed", "s", "--json"]).stdout)
    assert (data["partial"], data["matches"], data["matches_planned"]) == (True, 1, 3)
    assert len(data["per_match"]) == 1 and data["per_match"][0]["games"] == 8
    cut = data["interrupted_match"]
    assert (cut["games"], cut["games_planned"], cut["partial"]) == (4, 8, True)
    text = _flat(_stopped([*series, "--seed", "s"]).stdout)
    assert "interrupted after 1 of 3 matches" in text and "4 of 8 hands (interrupted)" in text


def _stopped_run(run: Any, games: int) -> None:
    """Run ``run(progress)`` (a match) until its progress callback stops it, as Ctrl-C does,
    after ``games`` games."""
    done = [0]

    def advance(count: int) -> None:
        done[0] += count
        if done[0] >= games:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(run(advance))


def test_a_stopped_duel_hands_back_the_figures_of_the_games_played() -> None:
    """`run_match`'s ``on_start`` report holds, once the match is stopped, the figures of a
    match of the games played (B sits at seat 0 in every odd game): one source of figures."""
    live: list[MatchReport] = []
    duel = partial(run_match, "bayes", "random-guess", seed_text="same", on_start=live.append)
    _stopped_run(lambda advance: duel(1000, progress=advance), 7)
    (stopped,) = live
    assert stopped.games == 7 and stopped.seconds > 0
    whole = asyncio.run(duel(7))
    assert live[1] is whole, "the report handed over is the one returned"
    assert replace(stopped, seconds=0) == replace(whole, seconds=0)


def test_a_stopped_table_hands_back_the_figures_of_the_games_played() -> None:
    live: list[TableReport] = []
    rules = LiarsDiceRules(players=3)

    def table(games: int, **options: Any) -> Any:
        names, seats = in_process_seats(["bayes", "probability", "type5"], "same", {})
        return run_table(names, seats, games, "same", rules=rules, on_start=live.append, **options)

    _stopped_run(lambda advance: table(600, progress=advance), 5)
    (stopped,) = live
    assert stopped.games == 5 and stopped.seconds > 0
    assert [standing.games for standing in stopped.standings] == [5, 5, 5]
    whole = asyncio.run(table(5))
    assert live[1] is whole, "the report handed over is the one returned"
    assert replace(stopped, seconds=0) == replace(whole, seconds=0)


# -- 2. one A/B shape ------------------------------------------------------------------------


def _json(args: list[str]) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_ab_interval_has_one_shape() -> None:
    bc = _json(["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "4"])
    ld = _json(["match", "liars-dice", "--a", "bayes", "--b", "type5", "--games", "4"])
    mj = _json(["match", "mahjong", "--bots", "greedy,random", "--games", "8", "--seed", "1"])
    assert set(bc["score_diff_ci95"]) == INTERVAL_KEYS
    assert bc["score_diff_ci95"]["estimate"] == bc["score_diff_mean"]
    assert set(ld["win_rate_a_ci95"]) == set(mj["points_difference_ci95"]) == INTERVAL_KEYS
    for data in (bc, ld, mj):
        assert data["seconds"] >= 0 and data["partial"] is False


def test_1a2b_takes_a_config_beside_its_strategy(tmp_path: Path) -> None:
    beside = tmp_path / "sly.toml"
    beside.write_text('answerer = "evader"\n', encoding="utf-8")
    named = tmp_path / "named" / "sly.toml"
    named.parent.mkdir()
    named.write_text('strategy = "optimal"\nanswerer = "evader"\n', encoding="utf-8")
    duel = ["match", "bulls-cows", "--b", "optimal", "--games", "6", "--seed", "1"]
    by_option = _json([*duel, "--a", "optimal", "--config-a", str(beside)])
    by_file = _json([*duel, "--a", str(named)])
    assert by_option["config_a"] == str(beside) and by_option["bots"] == ["sly", "optimal"]
    same = ("wins", "draws", "reasons", "score_diff_ci95")
    assert {key: by_option[key] for key in same} == {key: by_file[key] for key in same}
    refused = runner.invoke(app, [*duel, "--a", str(named), "--config-a", str(beside)])
    assert refused.exit_code == 2 and "is a config already" in refused.stderr
    typo = tmp_path / "typo.toml"
    typo.write_text('answrer = "evader"\n', encoding="utf-8")
    refused = runner.invoke(app, [*duel, "--a", "optimal", "--config-a", str(typo)])
    assert _flat(refused.stderr) == (
        f"error: --config-a {typo}: answrer: unknown 1A2B bot setting (did you mean "
        "'answerer'?); known: answerer, seed"
    )


def test_mahjong_bots_take_a_config_file_as_the_other_games_do() -> None:
    ab = ["match", "mahjong", "--games", "8", "--seed", "1"]
    by_file = _json([*ab, "--bots", f"{GREEDY_SLOW},greedy"])
    by_option = _json([*ab, "--bots", "greedy,greedy", "--config-a", str(GREEDY_SLOW)])
    slow = by_file["players"][0]
    assert (slow["bot"], slow["strategy"], slow["config"]) == (
        "greedy-slow",
        "greedy",
        str(GREEDY_SLOW),
    )
    for key in ("players", "points_difference_ci95", "winners"):
        assert by_file[key] == by_option[key]
    text = _flat(
        runner.invoke(app, ["match", "mahjong", *ab[2:], "--bots", "greedy,random"]).stdout
    )
    assert "time: " in text


# -- 3. bots list --options / --json -------------------------------------------------------------


def test_bots_list_gives_every_strategys_settings() -> None:
    result = runner.invoke(bots_app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    listed = {game["game"]: game for game in json.loads(result.stdout)["games"]}
    assert set(listed) == set(BOT_MODULES)
    think = listed["mahjong"]["strategies"][0]
    assert think["name"] == "greedy"
    assert think["options"] == [
        {
            "name": "think_ms",
            "type": "number",
            "default": 0,
            "default_text": None,
            "allowed": "0 to 60000",
        }
    ]
    bayes = {s["name"]: s for s in listed["liars_dice"]["strategies"]}["bayes"]
    described = {option["name"]: option for option in bayes["options"]}
    assert described["belief"]["default"] == "threshold"
    assert described["networks"]["default"] == ["opening", "response", "our_opening"]
    assert described["psychology"]["allowed"].startswith("0 to 1")
    text = runner.invoke(bots_app, ["list", "--options", "--game", "bulls-cows"]).stdout
    assert 'answerer (text, default "fixed"; one of fixed, evader)' in text


@pytest.mark.parametrize("game", sorted(BOT_MODULES))
def test_the_settings_listed_are_the_ones_the_bots_take(game: str) -> None:
    """Every setting described is accepted with its default; nothing else is."""
    for strategy in bot_names(game):
        settings = strategy_options(game, strategy)
        assert settings is not None, strategy
        for setting in settings:
            if setting.default is not None:
                # As a config file (or the JSON listing) gives it: a list, not a tuple.
                make_bot(game, strategy, {setting.name: setting.to_json()["default"]})
        with pytest.raises(ValueError):
            make_bot(game, strategy, {"not_a_setting": 1})


# -- 4. the closest setting ---------------------------------------------------------------------


def test_a_misspelt_liars_dice_setting_gets_the_closest(tmp_path: Path) -> None:
    typo = tmp_path / "typo.toml"
    typo.write_text("psycholgy = 0.3\n", encoding="utf-8")
    args = ["match", "liars-dice", "--a", "bayes", "--config-a", str(typo), "--b", "type5"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert "unknown liar's dice bot option 'psycholgy' (did you mean 'psychology'?)" in (
        _flat(refused.stderr)
    )
    # A setting of another strategy says whose it is, not a near miss.
    with pytest.raises(ValueError, match="it is an option of bayes, not of random-guess"):
        make_bot("liars_dice", "random-guess", {"tables_dir": "x"})


def test_a_misspelt_mahjong_random_setting_gets_the_closest() -> None:
    with pytest.raises(ValueError, match=r"\['sed'\] \(did you mean 'seed'\?\)"):
        make_bot("mahjong", "random", {"sed": 1})


# -- 5. the random mahjong bot's seed ------------------------------------------------------------


@pytest.mark.parametrize("seed", [True, 1.5, [1, 2], {"a": 1}])
def test_the_random_mahjong_bot_refuses_a_seed_that_is_no_text_or_integer(seed: Any) -> None:
    with pytest.raises(ValueError, match="seed: must be text or an integer"):
        make_bot("mahjong", "random", {"seed": seed})


def test_the_random_mahjong_bot_takes_text_or_an_integer(tmp_path: Path) -> None:
    for seed in ("x", 7):
        make_bot("mahjong", "random", {"seed": seed})
    config = tmp_path / "rand.toml"
    config.write_text('strategy = "random"\nseed = true\n', encoding="utf-8")
    args = ["match", "mahjong", "--bots", "random,greedy", "--config-a", str(config)]
    refused = runner.invoke(app, [*args, "--games", "4"])
    assert _flat(refused.stderr) == (
        f"error: --config-a {config}: seed: must be text or an integer, got True"
    )


# -- 6. few rounds ------------------------------------------------------------------------------


def _ab_result(rounds: int) -> MatchResult:
    spec = MatchSpec(("greedy", "random"), "s", 4 * rounds, layout="ab")
    a = ProgramStats("greedy", 2, round_points=[1000 * (r % 3) for r in range(rounds)])
    b = ProgramStats("random", 2, round_points=[-1000 * (r % 3) for r in range(rounds)])
    return MatchResult(spec, [a, b], seed_hex="00", hands=4 * rounds)


def test_a_mahjong_match_of_fewer_than_8_rounds_says_its_intervals_are_approximate() -> None:
    assert [_ab_result(rounds).intervals_approximate() for rounds in (1, 2, 7, 8, 96)] == [
        False,  # one round has no interval at all
        True,
        True,
        False,
        False,
    ]
    assert _ab_result(7).to_json()["intervals_approximate"] is True
    args = ["match", "mahjong", "--bots", "greedy,random", "--games", "8", "--seed", "1"]
    text = _flat(runner.invoke(app, args).stdout)
    assert "note: only 2 rounds: with fewer than 8 the 95% intervals above are approximate" in text


# -- 8. no spread, tied matches -------------------------------------------------------------------


def test_random_against_random_says_the_games_cannot_tell_them_apart() -> None:
    args = ["match", "mahjong", "--bots", "random,random", "--games", "8", "--seed", "1"]
    text = _flat(runner.invoke(app, args).stdout)
    assert (
        "points difference A−B: +0 over 2 rounds, no spread: the games cannot tell them apart"
        in (text)
    )
    assert "[+0, +0]" not in text


def test_a_series_of_tied_matches_reports_the_ties_apart() -> None:
    args = ["match", "mahjong", "--bots", "greedy,greedy", "--games", "8", "--matches", "3"]
    data = _json([*args, "--seed", "tie"])
    for player in data["players"]:
        assert (player["matches_won"], player["matches_tied"]) == (0, 3)
        assert (
            player["match_score"] == 1.5 and set(player["match_score_rate_ci95"]) == INTERVAL_KEYS
        )
    text = _flat(runner.invoke(app, [*args, "--seed", "tie"]).stdout)
    assert "matches won 0, tied 3, lost 0 of 3" in text
    assert "matches won 1.5/3" not in text


# -- 6 and 7. the README's A/B examples ---------------------------------------------------------


def test_the_readmes_mahjong_configs_example_plays_8_rounds_and_says_what_it_can_tell() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    examples = [
        line
        for line in readme.splitlines()
        if line.startswith("arena match mahjong") and ".toml" in line
    ]
    assert examples
    for line in examples:
        games = int(line.split("--games ")[1].split()[0])
        assert games >= 32, line  # 8 rounds: intervals no longer approximate
    flat = _flat(readme)
    assert "Mahjong** has no tunable strategy yet" in flat
    assert "liars-dice gauntlet --bot bayes --config" in flat and "--baseline bayes" in flat
    assert "all draws" in flat and "arena bulls-cows eval" in flat
