"""`arena replay` ends with each match's verdict and its players' totals, `arena verify` shows
the totals too (and `--summary` only the matches), so the score of a match cut short is not lost
with its summary."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
MATCH = ["match", "liars-dice", "--a", "probability", "--b", "type9", "--games", "6"]


def _played(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    result = runner.invoke(app, [*MATCH, "--seed", "1", "--record", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (record,) = tmp_path.glob("*.jsonl")
    return record, {"probability": data["wins_a"], "type9": data["wins_b"]}


def test_replay_and_verify_end_with_the_match_and_its_totals(tmp_path: Path) -> None:
    record, wins = _played(tmp_path)
    totals = f"totals: probability {wins['probability']}, type9 {wins['type9']}"
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    last = replayed.stdout.splitlines()[-1]
    assert last.startswith("liars_dice match liars-dice-") and last.endswith(
        f": 6 games ok; {totals}"
    )
    verified = runner.invoke(app, ["verify", str(record)])
    assert verified.stdout.splitlines()[-1] == last
    assert len(verified.stdout.splitlines()) == 7  # six games, then the match
    summary = runner.invoke(app, ["verify", "--summary", str(record)])
    assert summary.exit_code == 0 and summary.stdout.splitlines() == [last]
    as_json = json.loads(runner.invoke(app, ["verify", "--json", str(record)]).stdout)
    assert as_json["matches"][0]["totals"] == {name: float(n) for name, n in wins.items()}


def test_a_match_cut_short_still_shows_the_score_of_its_games(tmp_path: Path) -> None:
    record, _ = _played(tmp_path)
    lines = [json.loads(text) for text in record.read_text("utf-8").splitlines()]
    cut = next(i for i, line in enumerate(lines) if line.get("game") == "g3")
    kept = [*lines[:cut], lines[-1]]  # the reveal kept: the games' dice follow from its seed
    wins = {"probability": 0.0, "type9": 0.0}
    for line in kept:
        if line["type"] == "header":
            seated = line["players"]
        elif line["type"] == "result":
            for name, score in zip(seated, line["scores"], strict=True):
                wins[name] += score
    short = tmp_path / "short.jsonl"
    short.write_text("".join(json.dumps(line) + "\n" for line in kept), encoding="utf-8")
    verified = runner.invoke(app, ["verify", "--summary", str(short)])
    assert verified.exit_code == 1
    expected = f"totals: probability {wins['probability']:g}, type9 {wins['type9']:g}"
    assert verified.stdout.splitlines()[0].endswith(f"3 games FAILED; {expected}")
    assert "the match announced 6 games, the record holds 3" in verified.stdout
