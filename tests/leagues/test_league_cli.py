"""`arena league FILE` as a user runs it: in-process, resumed, shown; bad input refused.
(On a server: tests/network/test_net_league.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

DICE = """
name = "dice"
game = "liars-dice"
games = 20
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


def test_league_json_then_resume_then_show(tmp_path: Path) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(DICE, encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    runner = CliRunner()
    first = runner.invoke(app, ["league", str(config), "--db", db, "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["matches_played"] == 1 and data["matches_stored"] == 1
    (row_a, row_b) = data["standings"]
    assert row_a["score"] + row_b["score"] == 20
    again = runner.invoke(app, ["league", str(config), "--db", db])
    assert again.exit_code == 0, again.output
    # Resumed, not replayed: the stored match is shown (how the table wraps depends on the
    # width and on the result, so the names are read from --show --json).
    assert "1/1 matches" in again.stdout
    shown = runner.invoke(app, ["league", str(config), "--db", db, "--show", "--json"])
    stored = json.loads(shown.stdout)
    assert stored["standings"] == data["standings"]
    assert [m["match"] for m in stored["matches"]] == ["random-guess vs probability"]


def test_a_bad_config_exits_2_with_the_reason(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(DICE.replace('"probability"', '"nobody"'), encoding="utf-8")
    result = CliRunner().invoke(app, ["league", str(config), "--db", str(tmp_path / "r.sqlite")])
    assert result.exit_code == 2
    assert "no liars_dice bot named 'nobody'" in result.output


def test_show_creates_nothing_and_says_there_are_no_results(tmp_path: Path) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(DICE, encoding="utf-8")
    db = tmp_path / "absent" / "dir" / "r.sqlite"
    result = CliRunner().invoke(app, ["league", str(config), "--db", str(db), "--show"])
    assert result.exit_code == 2
    assert result.output.startswith("error: no results file")
    assert str(db) in "".join(result.output.split())  # the console wraps long paths
    assert not (tmp_path / "absent").exists()


ROTATE = """
name = "rotation"
game = "mahjong"
games = 4
layout = "rotate"
jobs = 1
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "greedy-2"
bot = "greedy"
[[bots]]
name = "random-2"
bot = "random"
"""


def test_the_match_table_heads_its_column_with_what_it_shows(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "r.sqlite")
    headings = {}
    for name, text in (("dice", DICE), ("rotation", ROTATE)):
        config = tmp_path / f"{name}.toml"
        config.write_text(text, encoding="utf-8")
        result = runner.invoke(app, ["league", str(config), "--db", db])
        assert result.exit_code == 0, result.output
        headings[name] = result.stdout
    assert "A − B per game, 95% CI" in headings["dice"]
    # Four bots a match: no A and B; the figures are each bot's total points.
    assert "A − B" not in headings["rotation"]
    assert "total points per bot" in headings["rotation"]
    assert "greedy " in headings["rotation"] and "random-2 " in headings["rotation"]
