"""Mutation audit of the league format tables (`LEAGUE_FORMATS`, `MATCH_PLAYERS`,
`standings.difference_bounds`) and of the order of a config's problems: a 1A2B league's default
length and its rules checked at load, a server league's mahjong rules, the 1A2B rules as a
mapping, a game without a format counted as unbounded, and the file's own keys named first, in
file order, before the bots' and the rules' tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.leagues.config import LeagueConfigError, load_league
from arena.leagues.formats import DEFAULT_GAMES, LEAGUE_FORMATS
from arena.leagues.standings import difference_bounds

BULLS_COWS = """
name = "b"
game = "bulls-cows"
[[bots]]
name = "random"
[[bots]]
name = "random2"
bot = "random"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_1a2b_league_plays_100_games_a_match_by_default(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, BULLS_COWS))
    assert config.games_per_match == DEFAULT_GAMES["bulls-cows"] == 100
    assert LEAGUE_FORMATS["bulls-cows"].default_games == 100


def test_a_1a2b_league_whose_code_cannot_be_drawn_is_refused_at_load(tmp_path: Path) -> None:
    text = BULLS_COWS.replace(
        'game = "bulls-cows"', 'game = "bulls-cows"\nrules = { digits = 5, alphabet = "0123" }'
    )
    with pytest.raises(LeagueConfigError, match="digits: 5 distinct symbols cannot be drawn"):
        load_league(write(tmp_path, text))


def test_a_1a2b_leagues_rules_are_a_mapping(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, BULLS_COWS))
    assert config.load_rules() == {"digits": 3, "alphabet": "123456789", "max_guesses": 20}


def test_a_mahjong_league_on_a_server_asks_every_seat_on_a_claim(tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "{n}"\n' for n in ("random", "greedy", "r2", "g2"))
    text = f'name = "m"\ngame = "mahjong"\nserver = "ws://127.0.0.1:8765"\nseed = "{"ab" * 32}"\n'
    config = load_league(write(tmp_path, text + bots))
    assert config.mahjong_rules().claims_ask_every_seat is True


def test_a_game_without_a_league_format_counts_as_unbounded() -> None:
    assert difference_bounds("tic-tac-toe") is None
    assert difference_bounds("mahjong") is None
    assert difference_bounds("liars-dice") == (-1.0, 1.0)


def test_the_files_own_keys_come_first_in_file_order_then_bots_then_rules(
    tmp_path: Path,
) -> None:
    text = (
        'name = "b"\ngame = "bulls-cows"\ngames = "x"\ngmes = 4\nnmae = 3\n'
        "rules = { colours = 4 }\n"
        '[[bots]]\nname = "random"\n[[bots]]\nname = "random2"\nbot = "random"\nconfg = 1\n'
    )
    with pytest.raises(LeagueConfigError) as caught:
        load_league(write(tmp_path, text))
    problems = str(caught.value).split(": ", 1)[1].split("; ")
    assert problems == [
        "games: Input should be a valid integer, unable to parse string as an integer",
        "unknown key 'gmes' (did you mean 'games'?)",
        "unknown key 'nmae' (did you mean 'name'?)",
        "bot 2 ('random2'): unknown key 'confg' (did you mean 'config'?)",
        "rules: unknown key 'colours' (known keys: digits, alphabet, max_guesses)",
    ], problems
