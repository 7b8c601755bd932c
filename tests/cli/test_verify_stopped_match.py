"""A match stopped before its first game leaves its match line and its reveal: `arena verify`
and `arena replay` read it and say the games are missing (exit 1), not that the record cannot be
read; and a record that cannot be split into matches is refused naming the file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.matches.liars_dice_series import make_ld_bot, run_match
from arena.records import JsonlRecorder
from arena.transports.inprocess import InProcessSeat


class GoneAtOnce(InProcessSeat):
    """A seat whose bot is unreachable from the first message on."""

    async def send(self, message: Any) -> None:
        raise ConnectionError("peer gone")


def stopped_before_its_first_game(path: Path) -> None:
    seats = (GoneAtOnce(make_ld_bot("random-guess")), InProcessSeat(make_ld_bot("type5")))
    with JsonlRecorder(path) as recorder, pytest.raises(ConnectionError):
        asyncio.run(run_match("rg", "t5", 4, "stopped", seats=seats, recorder=recorder))


def test_a_match_stopped_before_its_first_game_is_reported_as_missing_its_games(
    tmp_path: Path,
) -> None:
    record = tmp_path / "stopped.jsonl"
    stopped_before_its_first_game(record)
    assert [
        line.split('"type":"')[1].split('"')[0] for line in record.read_text().splitlines()
    ] == [
        "match",
        "reveal",
    ]
    verified = CliRunner().invoke(app, ["verify", str(record)])
    assert verified.exit_code == 1, verified.output
    assert "the match announced 4 games, the record holds 0 (0 finished)" in verified.output
    replayed = CliRunner().invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 1, replayed.output
    assert "the match announced 4 games, the record holds 0" in replayed.output


def test_a_record_that_cannot_be_split_into_matches_is_refused_naming_it(tmp_path: Path) -> None:
    record = tmp_path / "stopped.jsonl"
    stopped_before_its_first_game(record)
    lines = record.read_text().splitlines()
    record.write_text("\n".join([lines[0], lines[1], lines[1]]) + "\n")  # a second reveal
    verified = CliRunner().invoke(app, ["verify", str(record)])
    assert verified.exit_code == 2
    assert f"{record}: line 3: 'reveal' after the match's reveal line" in verified.output
