"""A league on a secret seed keeps it secret until its last match is played: no match seed holds
it (a finished match reveals its seed), and standings shown before the end do not print it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.leagues.config import load_league
from arena.leagues.play import plan_matches

SECRET = "4e" * 32

THREE_BOTS = f"""
name = "secret"
game = "liars-dice"
games = 4
jobs = 1
seed = "{SECRET}"
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
[[bots]]
name = "type5"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_match_seed_holds_a_secret_league_seed(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, THREE_BOTS))
    plans = plan_matches(config)
    seeds = [plan.seed for plan in plans]
    assert len(set(seeds)) == len(plans) == 3
    for plan in plans:
        assert SECRET not in plan.seed.lower()
        assert MatchSeed.from_hex(plan.seed).hex() == plan.seed  # a raw secret of its own
        assert plan.seed == config.match_seed(plan.bots)  # the same in any process
    # A text seed is public anyway and keeps its readable match seeds.
    text = load_league(write(tmp_path, THREE_BOTS.replace(SECRET, "open")))
    assert plan_matches(text)[0].seed == "open/random-guess vs probability"


def test_standings_hide_a_secret_seed_until_the_league_is_over(tmp_path: Path) -> None:
    config = write(tmp_path, THREE_BOTS)
    db = tmp_path / "r.sqlite"
    runner = CliRunner()
    done = runner.invoke(app, ["league", str(config), "--db", str(db), "--json"])
    assert done.exit_code == 0, done.output
    finished = json.loads(done.stdout)
    assert finished["seed"] == SECRET
    commitment = MatchSeed.from_hex(SECRET).commitment()
    assert finished["seed_commitment"] == commitment

    # One match not yet played: interim standings, as an organiser publishes them.
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM matches WHERE key = 'probability vs type5'")
    shown = runner.invoke(app, ["league", str(config), "--db", str(db), "--show", "--json"])
    interim = json.loads(shown.stdout)
    assert interim["matches_stored"] == 2
    assert interim["seed"] is None and interim["seed_commitment"] == commitment
    assert SECRET not in shown.stdout.lower()
    text = runner.invoke(app, ["league", str(config), "--db", str(db), "--show"])
    assert SECRET not in text.stdout.lower()
    assert f"secret seed, commitment {commitment[:12]}" in text.stdout.replace("\n", " ")
