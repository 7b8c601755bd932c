"""What the standings tell a league's players: which bots had decisions played for them by the
referee (fallbacks for answers late, missing or illegal: the figures count those as the bot's own
play, and a bot whose connection was lost may have played a whole match so), and in `--json`
each match's seed commitment and record, to check the record against what the bots were told;
and, in a log file, how far a league is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import league as league_cli
from arena.cli import league_report
from arena.cli.main import app
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan


def _outcome(bots: tuple[str, str], penalties: dict[str, int]) -> MatchOutcome:
    game = GameOutcome(0, 0, {bots[0]: 1.0, bots[1]: 0.0})
    return MatchOutcome(MatchPlan(0, bots, "s"), [game], {}, 0.0, penalties=penalties)


def test_penalties_are_named_by_bot_and_match() -> None:
    outcomes = [
        _outcome(("alice", "bob"), {"alice": 0, "bob": 1683}),
        _outcome(("alice", "carol"), {"carol": 2, "alice": 1}),
    ]
    note = league_report._penalties_note(outcomes)
    assert note is not None and note.startswith("penalties (decisions the referee played")
    assert note.endswith(
        ": bob 1683 in alice vs bob; alice 1 in alice vs carol; carol 2 in alice vs carol"
    )


def test_no_penalties_no_note() -> None:
    assert league_report._penalties_note([_outcome(("a", "b"), {"a": 0})]) is None
    assert league_report._penalties_note([_outcome(("a", "b"), {})]) is None


def test_the_json_names_each_matchs_commitment_and_record(tmp_path: Path) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(
        'name = "tiny"\ngame = "liars-dice"\ngames = 2\n'
        '[[bots]]\nname = "probability"\n[[bots]]\nname = "random-guess"\n',
        encoding="utf-8",
    )
    args = ["league", str(config), "--db", str(tmp_path / "r.sqlite"), "--json"]
    result = CliRunner().invoke(app, [*args, "--records", str(tmp_path / "records")])
    assert result.exit_code == 0, result.output
    (match,) = json.loads(result.stdout)["matches"]
    record = Path(match["record"])
    header = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
    assert match["seed_commitment"] == header["seed_commitment"]


def test_a_league_logged_to_a_file_says_how_far_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No progress bar in a log file or a pipe: a line now and then instead (every time here)."""
    monkeypatch.setattr(league_cli, "PROGRESS_LINE_S", 0.0)
    config = tmp_path / "tiny.toml"
    config.write_text(
        'name = "tiny"\ngame = "liars-dice"\ngames = 3\n'
        '[[bots]]\nname = "probability"\n[[bots]]\nname = "random-guess"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["league", str(config), "--db", str(tmp_path / "r.sqlite")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "games played" in line]
    assert lines[-1] == "league 'tiny': 3/3 games played (0/1 matches stored)"
