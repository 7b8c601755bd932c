"""A league's game records: two runs of one league sharing a records directory never collide,
the records name the players by their league names, ``matches.record`` is absolute, and a
records directory that cannot be written is one line of error, not a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import ArenaError
from arena.leagues.play import discard_partial_record, plan_matches, record_path
from arena.leagues.runner import run_league
from arena.matches.liars_dice_series import run_match
from arena.records import MemoryRecorder
from arena.store import ResultStore
from tests.leagues.test_league_interrupt import WAIT_S, start_league
from tests.leagues.test_league_runner import league, record_lines

# Two bots of one strategy under other names: the record must say the league's names, which
# are neither the strategy nor the ``#a``/``#b`` a match of one strategy twice falls back on.
DICE_PAIR = """
name = "dice"
game = "liars-dice"
games = 4
[[bots]]
name = "first"
bot = "random-guess"
[[bots]]
name = "second"
bot = "random-guess"
"""


def players_in(record: Path) -> set[tuple[str, ...]]:
    """The players of every ``match`` and ``header`` line of a record."""
    lines = [json.loads(text) for text in record.read_text(encoding="utf-8").splitlines()]
    return {tuple(line["players"]) for line in lines if line["type"] in ("match", "header")}


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A directory nothing may be written in; skipped where permission bits do not stop this
    user (root)."""
    directory = tmp_path / "read-only"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        if os.access(directory, os.W_OK):
            pytest.skip("permission bits do not stop this user (root)")
        yield directory
    finally:
        directory.chmod(0o700)


# -- two runs of one league, one records directory -----------------------------------------


def test_a_second_run_finishing_the_same_match_first_does_not_break_the_first(
    tmp_path: Path,
) -> None:
    # Run A is in its (only) match when run B — another process, the same records directory,
    # another results file (into the same one B would be refused: test_league_one_run.py) —
    # plays that match; then A finishes it. Earlier both wrote one NAME.jsonl.part: B removed
    # A's, and A's move onto NAME.jsonl failed.
    config = league(tmp_path, DICE_PAIR, jobs=1, records=tmp_path / "records")
    other: list[subprocess.CompletedProcess[str]] = []

    def run_other_meanwhile(_games: int) -> None:
        if other:
            return
        process, _db = start_league(tmp_path, DICE_PAIR, "--jobs", "1")
        out, err = process.communicate(timeout=WAIT_S)
        other.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))

    with ResultStore(tmp_path / "a.sqlite") as store:
        run = run_league(config, store, on_games=run_other_meanwhile)
    (finished,) = other
    assert finished.returncode == 0, finished.stderr
    assert run.complete and run.played == 1
    (outcome,) = run.outcomes
    # One complete record (A's replaced B's: the same seed, the same games); no partial file.
    (record,) = (tmp_path / "records").iterdir()
    assert outcome.record == str(record.resolve())
    assert sum('"type":"result"' in line for line in record_lines(outcome.record)) == 4


def test_discarding_keeps_another_runs_partial_record(tmp_path: Path) -> None:
    config = league(tmp_path, DICE_PAIR, records=tmp_path / "records")
    (plan,) = plan_matches(config)
    final = record_path(config, tmp_path / "records", plan)
    final.parent.mkdir()
    final.write_text("complete\n", encoding="utf-8")
    dead = subprocess.Popen([sys.executable, "-c", ""])  # a worker that has stopped
    dead.wait()

    def part(pid: int) -> Path:
        path = final.with_name(f"{final.name}.{pid}.0123abcd.part")
        path.write_text("partial\n", encoding="utf-8")
        return path

    mine, dead_worker, live_run = part(os.getpid()), part(dead.pid), part(os.getppid())
    old_file = final.with_name(final.name + ".part")
    old_file.write_text("partial\n", encoding="utf-8")
    discard_partial_record(config, plan)
    assert not mine.exists() and not dead_worker.exists() and not old_file.exists()
    assert live_run.exists(), "the partial record of a run still playing was removed"
    assert final.read_text(encoding="utf-8") == "complete\n"
    # An earlier release's partial 1A2B series was a directory.
    old_directory = final.with_name(final.name + ".part")
    old_directory.mkdir()
    (old_directory / "stale.jsonl").write_text("junk\n", encoding="utf-8")
    discard_partial_record(config, plan)
    assert not old_directory.exists()
    assert sorted(p.name for p in final.parent.iterdir()) == sorted([final.name, live_run.name])


# -- who the record says played --------------------------------------------------------------


def test_a_liars_dice_league_records_its_own_bot_names(tmp_path: Path) -> None:
    config = league(tmp_path, DICE_PAIR, jobs=1, records=tmp_path / "records")
    with ResultStore(tmp_path / "r.sqlite") as store:
        (outcome,) = run_league(config, store).outcomes
    assert outcome.record is not None
    # Seats alternate: each game's header lists the two in its own seat order.
    assert players_in(Path(outcome.record)) == {("first", "second"), ("second", "first")}


def test_named_players_play_the_same_games() -> None:
    # A bot's random stream is named after the bot, not after what the record calls it: the
    # league's names must not change the games its seed gives.
    def play(names: tuple[str, str] | None) -> tuple[list[bool], MemoryRecorder]:
        recorder = MemoryRecorder()
        match = run_match("bayes", "bayes", 6, "names", recorder=recorder, names=names)
        return asyncio.run(match).a_won, recorder

    plain, plain_lines = play(None)
    named, named_lines = play(("north", "south"))
    assert named == plain
    assert plain_lines.lines[0]["players"] == ["bayes#a", "bayes#b"]
    assert named_lines.lines[0]["players"] == ["north", "south"]
    same, same_lines = play(("twin", "twin"))
    assert same == plain and same_lines.lines[0]["players"] == ["twin#a", "twin#b"]


# -- where matches.record points ---------------------------------------------------------------


def test_a_relative_records_directory_is_stored_as_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = league(tmp_path, DICE_PAIR, jobs=1, records=Path("records"))
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        (record,) = db.execute("SELECT record FROM matches").fetchone()
    assert Path(record).is_absolute()
    assert Path(record) == (tmp_path / "records").resolve() / Path(record).name
    assert Path(record).is_file()


# -- a records directory that cannot be written ----------------------------------------------


def test_the_league_cli_refuses_a_records_directory_it_cannot_write_in(
    tmp_path: Path, read_only: Path
) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(DICE_PAIR, encoding="utf-8")
    db = tmp_path / "r.sqlite"
    arguments = ["league", str(config), "--db", str(db), "--records", str(read_only)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2, result.output
    assert f"records directory {read_only}: cannot write in that directory" in result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert not db.exists(), "games were played before the directory was checked"


def test_a_record_that_cannot_be_written_is_one_arena_error(
    tmp_path: Path, read_only: Path
) -> None:
    # The directory passed the CLI's check, then refused the record (changed meanwhile).
    config = league(tmp_path, DICE_PAIR, jobs=1, records=read_only)
    with ResultStore(tmp_path / "r.sqlite") as store, pytest.raises(ArenaError) as failed:
        run_league(config, store)
    message = str(failed.value)
    assert "\n" not in message and "cannot write the match record" in message
    assert str(read_only / "dice-") in message


def test_a_records_path_that_cannot_be_a_directory_is_one_arena_error(tmp_path: Path) -> None:
    # A path under a file: refused whoever runs it (root too).
    (tmp_path / "file").write_text("", encoding="utf-8")
    config = league(tmp_path, DICE_PAIR, jobs=1, records=tmp_path / "file" / "records")
    with ResultStore(tmp_path / "r.sqlite") as store, pytest.raises(ArenaError) as failed:
        run_league(config, store)
    assert str(failed.value).startswith(f"cannot make the records directory {tmp_path / 'file'}")
