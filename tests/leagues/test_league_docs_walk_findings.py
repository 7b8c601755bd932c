"""Findings of a walk through every documented command that touch leagues: a league file's own
unknown key is named before a bot's problems, where it used to follow them and read as another
key of that bot (docs/LEAGUES.md's example said `bot 2 ('bayes-odds'): unknown key 'confg' …;
unknown key 'gmes' …`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.leagues.config import LeagueConfigError, load_league

LEAGUE = """
name = "dice"
game = "liars-dice"
gmes = 4
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
confg = "x.toml"
"""


def test_the_files_own_key_comes_before_a_bots_problem(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE, encoding="utf-8")
    with pytest.raises(LeagueConfigError) as caught:
        load_league(path)
    message = str(caught.value)
    league_key = "unknown key 'gmes' (did you mean 'games'?)"
    bot_key = "bot 2 ('probability'): unknown key 'confg' (did you mean 'config'?)"
    assert f"league.toml: {league_key}; {bot_key}" in message, message
