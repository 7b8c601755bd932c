"""A contributor's walkthrough (adding tic-tac-toe to leagues): a league of a game without a
league format must be refused when its config loads, naming the games that have one, never
played as 1A2B (``ValueError: a tic-tac-toe league has no bulls-cows rules`` mid-play) nor
stopped by a ``KeyError`` in the standings after every match was stored.

The new names are imported inside the tests, so that each test fails on the code before the
fix for what it checks, not for an import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import arena.leagues.formats as league_formats
from arena.leagues.config import LeagueConfigError, load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.play import plan_matches, play_league_match
from arena.leagues.standings import match_lines

DICE = """
name = "dice"
game = "liars-dice"
games = 2
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""

TIC_TAC_TOE = DICE.replace('game = "liars-dice"', 'game = "tic-tac-toe"')


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_game_without_a_league_format_is_refused_when_the_config_loads(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, TIC_TAC_TOE)
    with pytest.raises(LeagueConfigError) as refused:
        load_league(path)
    assert str(refused.value) == (
        f"{path}: game: no league format for 'tic-tac-toe'; the games that have one: "
        "bulls-cows, liars-dice, mahjong"
    )


def test_a_format_without_a_match_player_is_refused_when_the_config_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A contributor who adds the game's format (names, default length, bounds, rules) but not
    its match player learns so from the config, naming both tables."""
    formats = getattr(league_formats, "LEAGUE_FORMATS", None)
    assert formats is not None, "no table of league formats"
    monkeypatch.setitem(formats, "tic-tac-toe", formats["liars-dice"])
    with pytest.raises(LeagueConfigError) as refused:
        load_league(write(tmp_path, TIC_TAC_TOE))
    said = str(refused.value)
    assert "'tic-tac-toe' has a league format" in said
    assert "MATCH_PLAYERS in arena/leagues/play.py" in said
    assert said.endswith("the games that have both: bulls-cows, liars-dice, mahjong")


async def test_a_match_of_a_game_without_a_player_is_never_played_as_1a2b(
    tmp_path: Path,
) -> None:
    """A config that skipped the load-time check (a copy whose game was changed) is refused
    before its match starts, with the same message; the old code played it as 1A2B."""
    config = load_league(write(tmp_path, DICE)).model_copy(update={"game": "tic-tac-toe"})
    (plan, *_) = plan_matches(config)
    with pytest.raises(LeagueConfigError, match="no league format for 'tic-tac-toe'"):
        await play_league_match(config, plan)


def _two_bot_match(scores_a: list[float]) -> MatchOutcome:
    games = [GameOutcome(k, k, {"a": s, "b": 1.0 - s}) for k, s in enumerate(scores_a)]
    return MatchOutcome(MatchPlan(0, ("a", "b"), "s"), games, {}, 0.0)


def test_standings_of_a_game_without_bounds_never_raise() -> None:
    """The old code's ``DIFFERENCE_BOUNDS[game]`` raised KeyError after every match was
    stored; a game without a format now gets the interval that holds for any scores."""
    (line,) = match_lines("tic-tac-toe", [_two_bot_match([1.0, 0.0, 1.0, 0.5])])
    assert line.difference is not None
    assert line.difference.estimate == pytest.approx((1 - 1 + 1 + 0) / 4)


def test_standings_take_the_bounds_of_the_league_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """One table: a game's format gives its standings' bounds (no second table to forget)."""
    formats: dict[str, Any] = league_formats.LEAGUE_FORMATS
    monkeypatch.setitem(formats, "tic-tac-toe", formats["liars-dice"])
    outcome = _two_bot_match([1.0, 1.0, 0.0, 1.0, 1.0])
    (ours,) = match_lines("tic-tac-toe", [outcome])
    (dice,) = match_lines("liars-dice", [outcome])
    assert ours.difference == dice.difference
    (mahjong_like,) = match_lines("mahjong", [outcome])
    assert ours.difference != mahjong_like.difference


def test_every_league_format_has_a_match_player_and_an_engine() -> None:
    from arena.games.registry import GAME_MODULES, canonical_name
    from arena.leagues.formats import ENGINE_GAME, LEAGUE_FORMATS, league_format_problem
    from arena.leagues.play import MATCH_PLAYERS

    assert set(MATCH_PLAYERS) == set(LEAGUE_FORMATS)
    for game, league_format in LEAGUE_FORMATS.items():
        assert league_format_problem(game) is None
        assert league_format.engine_game in GAME_MODULES
        # A league names its game as a person types it: an alias of the engine's name.
        assert canonical_name(game) == league_format.engine_game == ENGINE_GAME[game]
