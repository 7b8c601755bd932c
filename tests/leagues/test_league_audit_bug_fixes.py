"""Two bugs the mutation audit of the league changes found: a ``tables_dir`` that is not text
got past the config check (the bot was test-built without it) and crashed the league mid-run;
a seed holding rich markup was read as markup in the standings' title (or crashed it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.leagues.config import LeagueConfigError, load_league


def test_a_tables_dir_that_is_not_text_is_refused_when_the_config_loads(tmp_path: Path) -> None:
    league = tmp_path / "l.toml"
    league.write_text(
        'name = "l"\ngame = "liars-dice"\ngames = 2\njobs = 1\n'
        '[[bots]]\nname = "random-guess"\n'
        '[[bots]]\nname = "b"\nbot = "bayes"\noptions = { tables_dir = 5 }\n',
        encoding="utf-8",
    )
    with pytest.raises(LeagueConfigError, match="tables_dir' must be str, got 5"):
        load_league(league)


@pytest.mark.parametrize("seed", ["s[red]x[/red]y", "tune[v2]", "a[/b]"])
def test_the_standings_show_the_seed_as_written(tmp_path: Path, seed: str) -> None:
    league = tmp_path / "l.toml"
    league.write_text(
        f'name = "l"\ngame = "liars-dice"\ngames = 2\njobs = 1\nseed = "{seed}"\n'
        '[[bots]]\nname = "random-guess"\n[[bots]]\nname = "probability"\n',
        encoding="utf-8",
    )
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(app, ["league", str(league), "--db", str(db)])
    assert played.exit_code == 0, played.output
    assert f"seed {seed!r}" in played.stdout, played.stdout
