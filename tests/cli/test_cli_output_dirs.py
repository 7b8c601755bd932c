"""An output directory that cannot be made (a file is in the way) is refused by every command
that writes one, before any game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["match", "liars-dice", "--a", "bayes", "--b", "type5", "--record"], "--record"),
        (["match", "mahjong", "--bots", "greedy,greedy,random,random", "--record"], "--record"),
        (["match", "bulls-cows", "--a", "optimal", "--b", "random", "--record"], "--record"),
        (["liars-dice", "gauntlet", "--games", "1", "--plot"], "--plot"),
        (
            ["league", str(REPO / "configs/leagues/liars-dice.toml"), "--records"],
            "records directory",
        ),
    ],
    ids=["liars-dice match", "mahjong match", "bulls-cows match", "gauntlet", "league"],
)
def test_an_output_path_that_is_a_file_is_refused_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], option: str
) -> None:
    monkeypatch.chdir(REPO)  # the league config names its bot configs from the repository
    taken = tmp_path / "taken"
    taken.write_text("", encoding="utf-8")
    extra = ["--db", str(tmp_path / "league.sqlite")] if args[0] == "league" else []
    result = runner.invoke(app, [*args, str(taken), *extra])
    assert result.exit_code == 2, result.output
    # Compared without whitespace: a long path may be folded anywhere on an 80-column console.
    expected = f"{option} {taken}: cannot make that directory"
    assert "".join(expected.split()) in "".join(result.output.split())
    assert not (tmp_path / "league.sqlite").exists()  # nothing was played or stored
