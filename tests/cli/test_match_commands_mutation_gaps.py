"""Gaps a mutation audit of the 1A2B and mahjong match commands' new figures found in the tests
(a match or series stopped early, ties and time in a mahjong series, config files in
``--bots``, ``--config-a`` for 1A2B, the no-spread and few-rounds wording): each test here
fails on a plausible slip in `arena.matches.bulls_cows`, `arena.matches.mahjong`,
`arena.cli.bulls_cows` or `arena.cli.mahjong_match` that the other tests let through.

A stop is raised as Ctrl-C raises it, from inside the match: the referee's ``play_game`` of the
match module raises KeyboardInterrupt at the N-th game (the games before it are played in
process). Nothing is timed: the one clock read is a stand-in that advances 2.5 s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.matches.bulls_cows as bulls_cows_match
import arena.matches.mahjong as mahjong_match
from arena.cli.main import app
from arena.matches.stats import proportion_interval

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _stop_at_game(monkeypatch: pytest.MonkeyPatch, module: Any, game: int) -> None:
    """``module``'s games stop (as Ctrl-C stops them) when its ``game``-th game starts, counted
    from this call (call it again before another command)."""
    real = getattr(module.play_game, "real", module.play_game)
    started = [0]

    async def stopping(*args: Any, **kwargs: Any) -> Any:
        started[0] += 1
        if started[0] == game:
            raise KeyboardInterrupt
        return await real(*args, **kwargs)

    stopping.real = real  # type: ignore[attr-defined]
    monkeypatch.setattr(module, "play_game", stopping)


class _Clock:
    """A stand-in for ``time`` in a match module: 2.5 s pass between its first reading and any
    later one."""

    def __init__(self) -> None:
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        return 10.0 if self.readings == 1 else 12.5


def _stopped(args: list[str]) -> Any:
    result = runner.invoke(app, args)
    assert result.exit_code == 130, result.output
    assert result.stderr.strip().splitlines()[-1].startswith("error: interrupted"), result.stderr
    assert "Traceback" not in result.output
    return result


def _ok(args: list[str]) -> Any:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result


# -- 1A2B --------------------------------------------------------------------------------------

BC_DUEL = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "40", "--seed", "1"]


def test_a_1a2b_duel_stopped_in_its_first_game_shows_no_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _stop_at_game(monkeypatch, bulls_cows_match, 1)
    assert _stopped(BC_DUEL).stdout == ""
    _stop_at_game(monkeypatch, bulls_cows_match, 1)
    assert _stopped([*BC_DUEL, "--json"]).stdout == ""


def test_a_stopped_1a2b_duel_keeps_the_time_it_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """The series' seconds are taken however it ends: a stopped one reports its time so far."""
    _stop_at_game(monkeypatch, bulls_cows_match, 4)
    monkeypatch.setattr(bulls_cows_match, "time", _Clock())
    data = json.loads(_stopped([*BC_DUEL, "--json"]).stdout)
    assert (data["games"], data["partial"], data["seconds"]) == (3, True, 2.5)


def test_an_unknown_1a2b_strategy_is_named_as_given(tmp_path: Path) -> None:
    """An unknown strategy is the strategy's fault, not that of a config given beside it."""
    beside = tmp_path / "sly.toml"
    beside.write_text('answerer = "evader"\n', encoding="utf-8")
    known = "random, frequency, super-comparison, entropy, optimal"
    duel = ["match", "bulls-cows", "--b", "random", "--games", "2", "--seed", "1"]
    for extra in ([], ["--config-a", str(beside)]):
        refused = runner.invoke(app, [*duel, "--a", "nosuch", *extra])
        assert refused.exit_code == 2
        assert _flat(refused.stderr) == f"error: unknown 1A2B bot 'nosuch'; known: {known}"


def test_a_1a2b_config_of_another_strategy_is_blamed_on_config_a(tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('strategy = "random"\n', encoding="utf-8")
    duel = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "2"]
    refused = runner.invoke(app, [*duel, "--config-a", str(other), "--seed", "1"])
    assert refused.exit_code == 2
    assert _flat(refused.stderr) == (
        f"error: --config-a: {other} configures the 'random' bot (strategy = 'random'), "
        "not 'optimal'"
    )


def test_a_1a2b_config_without_a_strategy_says_how_to_give_one(tmp_path: Path) -> None:
    bare = tmp_path / "bare.toml"
    bare.write_text('answerer = "evader"\n', encoding="utf-8")
    duel = ["match", "bulls-cows", "--b", "random", "--games", "2", "--seed", "1"]
    refused = runner.invoke(app, [*duel, "--a", str(bare)])
    assert refused.exit_code == 2
    assert _flat(refused.stderr).endswith(
        "(or name the strategy with --a and the file with --config-a)"
    )


def test_a_1a2b_config_beside_a_strategy_is_refused_on_a_server(tmp_path: Path) -> None:
    beside = tmp_path / "sly.toml"
    beside.write_text('answerer = "evader"\n', encoding="utf-8")
    args = ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "2"]
    refused = runner.invoke(app, [*args, "--config-a", str(beside), "--server", "ws://127.0.0.1:1"])
    assert refused.exit_code == 2
    assert _flat(refused.stderr).startswith(
        f"error: --config-a {beside}: a strategy config is for in-process bots"
    )


# -- mahjong: a match ----------------------------------------------------------------------------

MJ_AB = ["match", "mahjong", "--bots", "greedy,random", "--games", "8", "--seed", "1"]


def test_a_mahjong_match_stopped_in_its_first_hand_shows_no_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _stop_at_game(monkeypatch, mahjong_match, 1)
    assert _stopped(MJ_AB).stdout == ""
    _stop_at_game(monkeypatch, mahjong_match, 1)
    assert _stopped([*MJ_AB, "--json"]).stdout == ""


def test_a_mahjong_match_stopped_in_a_rounds_first_hand_has_no_round_of_no_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stopped as the second round's first hand is played: the figures are of one round (four
    hands), not of two rounds, the second with no hands and 0 points."""
    _stop_at_game(monkeypatch, mahjong_match, 5)
    data = json.loads(_stopped([*MJ_AB, "--json"]).stdout)
    assert (data["games"], data["rounds"]) == (4, 1)
    assert data["points_difference_ci95"]["n"] == 1
    assert all(player["points_ci95"]["n"] == 1 for player in data["players"])


def test_a_stopped_mahjong_match_keeps_the_time_it_played(monkeypatch: pytest.MonkeyPatch) -> None:
    _stop_at_game(monkeypatch, mahjong_match, 4)
    monkeypatch.setattr(mahjong_match, "time", _Clock())
    data = json.loads(_stopped([*MJ_AB, "--json"]).stdout)
    assert (data["games"], data["partial"], data["seconds"]) == (3, True, 2.5)


def test_two_random_bots_get_no_few_rounds_note_and_no_tie_wording_per_program() -> None:
    """Random against random (8 hands): every figure without spread, so there is no interval
    for a few-rounds note to qualify; each program's +0 is a figure of its own, not a
    comparison (only A − B says the games cannot tell the two apart)."""
    args = ["match", "mahjong", "--bots", "random,random", "--games", "8", "--seed", "1"]
    text = _flat(_ok(args).stdout)
    assert "note: only" not in text
    assert (
        "random-0+random-2: points +0 over 2 rounds, no spread: every round gave +0 (no "
        "interval to measure)"
    ) in text
    assert text.count("cannot tell them apart") == 1


def _greedy_config(directory: Path, name: str, text: str = 'strategy = "greedy"\n') -> Path:
    path = directory / f"{name}.toml"
    path.write_text(text + "think_ms = 0\n", encoding="utf-8")
    return path


def test_a_mahjong_config_file_in_bots_needs_its_strategy(tmp_path: Path) -> None:
    bare = _greedy_config(tmp_path, "bare", "")
    refused = runner.invoke(app, [*MJ_AB[:2], "--bots", f"{bare},greedy", "--games", "4"])
    assert refused.exit_code == 2
    assert _flat(refused.stderr).startswith(
        f'error: --bots {bare}: a config given as a bot needs strategy = "<bot>" in it'
    )


def test_a_mahjong_program_plays_one_config(tmp_path: Path) -> None:
    mine = _greedy_config(tmp_path, "mine")
    args = [*MJ_AB[:2], "--bots", f"{mine},greedy", "--config-a", str(mine), "--games", "4"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert f"error: --bots {mine} is a config already" in _flat(refused.stderr)


def test_a_mahjong_config_in_bots_keeps_the_other_programs_config(tmp_path: Path) -> None:
    mine, theirs = _greedy_config(tmp_path, "mine"), _greedy_config(tmp_path, "theirs")
    args = [*MJ_AB[:2], "--bots", f"{mine},greedy", "--config-b", str(theirs), "--games", "4"]
    data = json.loads(_ok([*args, "--seed", "1", "--json"]).stdout)
    assert [(p["bot"], p["config"]) for p in data["players"]] == [
        ("mine", str(mine)),
        ("theirs", str(theirs)),
    ]


def test_a_mahjong_config_in_bots_is_refused_on_a_server(tmp_path: Path) -> None:
    mine = _greedy_config(tmp_path, "mine")
    args = [*MJ_AB[:2], "--bots", f"{mine},greedy", "--server", "ws://127.0.0.1:1"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert _flat(refused.stderr).startswith(
        f"error: --bots {mine}: a strategy config is for in-process bots"
    )


# -- mahjong: a series ---------------------------------------------------------------------------

MJ_SERIES = [*MJ_AB[:4], "--games", "8", "--matches", "3", "--seed", "s"]


def test_a_series_stopped_after_two_matches_counts_them_and_not_the_third(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two matches of three finished, the third stopped in its fifth hand: the series figures
    are over the two (greedy won both: lost 0 of 2, a match score of 100%, the difference per
    match over 2 matches), and the series' time is said."""
    _stop_at_game(monkeypatch, mahjong_match, 2 * 8 + 5)
    lines = [_flat(line) for line in _stopped(MJ_SERIES).stdout.splitlines()]
    text = " ".join(lines)
    assert text.startswith("interrupted after 2 of 3 matches")
    assert "greedy: matches won 2, tied 0, lost 0 of 2 (match score 100%, a tie shared:" in text
    assert "random: matches won 0, tied 0, lost 2 of 2 (match score 0%, a tie shared:" in text
    (per_match,) = [line for line in lines if line.startswith("points difference per match")]
    assert per_match.startswith("points difference per match A−B: +29,000, 95% CI")
    assert per_match.endswith(" over 2 matches")
    assert lines[-1].startswith("time: ") and lines[-1].endswith(" s")


def test_a_series_stopped_between_two_matches_is_partial(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped as the second match's first hand starts: one match finished, none cut short
    (a match of no hands is no figure), and the series is partial all the same."""
    _stop_at_game(monkeypatch, mahjong_match, 8 + 1)
    data = json.loads(_stopped([*MJ_SERIES, "--json"]).stdout)
    assert (data["partial"], data["matches"], data["matches_planned"]) == (True, 1, 3)
    assert "interrupted_match" not in data


def test_a_series_stopped_in_its_first_match_shows_that_match_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _stop_at_game(monkeypatch, mahjong_match, 5)
    data = json.loads(_stopped([*MJ_SERIES, "--json"]).stdout)
    assert (data["partial"], data["matches"], data["games"]) == (True, 0, 0)
    assert data["per_match"] == [] and data["interrupted_match"]["games"] == 4
    _stop_at_game(monkeypatch, mahjong_match, 5)
    text = _flat(_stopped(MJ_SERIES).stdout)
    assert text.startswith("interrupted after 0 of 3 matches")
    assert "4 of 8 hands (interrupted)" in text and "matches won" not in text


def test_a_series_reports_its_time_as_the_sum_of_its_matches() -> None:
    data = json.loads(_ok([*MJ_SERIES, "--json"]).stdout)
    per_match = [match["seconds"] for match in data["per_match"]]
    assert data["seconds"] == pytest.approx(sum(per_match), abs=0.003)
    text = _ok(MJ_SERIES).stdout.splitlines()
    assert text[-1].startswith("time: ")


def test_a_series_of_tied_matches_scores_each_tie_half() -> None:
    """Three tied matches: a match score of 1.5 of 3, and the interval is of that score (not of
    the matches won outright, none)."""
    args = ["match", "mahjong", "--bots", "greedy,greedy", "--games", "8", "--matches", "3"]
    data = json.loads(_ok([*args, "--seed", "tie", "--json"]).stdout)
    want = proportion_interval(1.5, 3).to_json()
    for player in data["players"]:
        assert player["match_score_rate_ci95"] == want
