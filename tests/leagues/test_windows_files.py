"""A league's files on Windows, simulated on Linux (`tests/windows_simulation.py`): records are
synced, written and moved into place as there they can be, a results file left with read-only
companions opens without user ids, and a second run of one league is refused with msvcrt's
locks, as ``flock`` refuses it elsewhere."""

from __future__ import annotations

import errno
import json
import os
import socket
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena import files
from arena.leagues import in_play
from arena.leagues.in_play import LeagueInPlayError, hold_league, league_player, lock_path
from arena.leagues.play import RecordWriteError, _move_into_place
from arena.leagues.runner import run_league
from arena.records import JsonlRecorder
from arena.store import ResultStore
from arena.store_open import companions
from tests.leagues.test_league_records import DICE_PAIR
from tests.leagues.test_league_runner import league
from tests.windows_simulation import (
    simulate_windows_fsync,
    simulate_windows_locks,
    simulate_windows_newlines,
)

# -- records --------------------------------------------------------------------------------


def test_a_league_with_records_plays_every_match_where_fsync_needs_a_writable_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The README's main job: on Windows the first match's record failed to sync (a read-only
    # descriptor) and the league stopped there.
    refused = simulate_windows_fsync(monkeypatch)
    records = tmp_path / "records"
    config = league(tmp_path, DICE_PAIR, jobs=1, records=records)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store)
    assert run.complete and run.played == 1 and refused == []
    (outcome,) = run.outcomes
    assert outcome.record is not None and Path(outcome.record).is_file()
    assert [path.name for path in records.iterdir()] == [Path(outcome.record).name]


def test_a_record_is_the_same_bytes_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Records are compared across machines (the same seed gives the same record): no CR.
    simulate_windows_newlines(monkeypatch, descriptors=True)
    path = tmp_path / "game.jsonl"
    with JsonlRecorder(path) as recorder:
        recorder.write({"type": "header", "players": ["a", "b"]})
        recorder.write({"type": "result"})
    assert path.read_bytes() == (b'{"type":"header","players":["a","b"]}\n{"type":"result"}\n')


def _fail_replacing(
    monkeypatch: pytest.MonkeyPatch, failures: int
) -> tuple[list[tuple[str, str]], list[float]]:
    """``os.replace`` refuses the first ``failures`` calls as Windows refuses to replace a file
    another process has open; returns the calls and the pauses slept between them (not slept)."""
    real_replace = os.replace
    calls: list[tuple[str, str]] = []
    pauses: list[float] = []

    def replace(source: object, target: object) -> None:
        calls.append((str(source), str(target)))
        if len(calls) <= failures:
            raise PermissionError(errno.EACCES, "The process cannot access the file", str(target))
        real_replace(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(files, "time", SimpleNamespace(sleep=pauses.append), raising=False)
    return calls, pauses


def _part_beside(path: Path, text: str) -> Path:
    part = path.with_name(path.name + ".1.ab.part")
    part.write_text(text, encoding="utf-8")
    return part


def test_a_record_held_open_by_another_program_is_moved_into_place_once_it_is_let_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.jsonl"
    path.write_text("old\n", encoding="utf-8")
    # Elsewhere a refused rename is final: the record is not written, as before.
    monkeypatch.setattr(sys, "platform", "linux")
    calls, pauses = _fail_replacing(monkeypatch, failures=1)
    with pytest.raises(RecordWriteError, match="cannot write the match record"):
        _move_into_place(_part_beside(path, "new\n"), path)
    assert len(calls) == 1 and pauses == [] and path.read_text(encoding="utf-8") == "old\n"
    monkeypatch.undo()
    # On Windows a reader holding the record for a moment only delays the move.
    monkeypatch.setattr(sys, "platform", "win32")
    calls, pauses = _fail_replacing(monkeypatch, failures=2)
    part = _part_beside(path, "new\n")
    _move_into_place(part, path)
    assert len(calls) == 3 and len(pauses) == 2 and pauses[0] < pauses[1]
    assert path.read_text(encoding="utf-8") == "new\n" and not part.exists()
    monkeypatch.undo()
    # One it never lets go of stops the match with the clear error, its partial record gone.
    monkeypatch.setattr(sys, "platform", "win32")
    calls, pauses = _fail_replacing(monkeypatch, failures=1000)
    part = _part_beside(path, "newer\n")
    with pytest.raises(RecordWriteError, match=f"cannot write the match record {path}"):
        _move_into_place(part, path)
    assert len(calls) == files.REPLACE_ATTEMPTS and len(pauses) == files.REPLACE_ATTEMPTS - 1
    assert path.read_text(encoding="utf-8") == "new\n" and not part.exists()


# -- the results file -----------------------------------------------------------------------


def test_a_results_file_left_with_read_only_companions_opens_where_there_are_no_user_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a killed run, or a reader of a read-only file, leaves beside it; on Windows every
    # later run failed on the missing os.geteuid.
    db = tmp_path / "r.sqlite"
    with ResultStore(db):
        pass
    for companion in companions(db):
        companion.touch(mode=0o400)
        companion.chmod(0o400)
    monkeypatch.delattr(os, "geteuid")
    with ResultStore(db) as store:
        # Made writable (a file counts as this user's where there are no user ids), and used.
        assert all(companion.stat().st_mode & stat.S_IWUSR for companion in companions(db))
        assert store.leagues() == []


# -- one run of a league at a time ----------------------------------------------------------


def test_a_second_run_of_a_league_is_refused_on_windows_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    msvcrt = simulate_windows_locks(monkeypatch)
    monkeypatch.setattr(in_play, "fcntl", None)  # its import at load time found none
    db = tmp_path / "r.sqlite"
    path = lock_path(db, 3)
    with hold_league(db, 3, "dice"):
        # The text naming the holder stays readable (Windows' locks are mandatory): the lock
        # is on a byte beyond it.
        text = path.read_bytes()
        assert json.loads(text)["pid"] == os.getpid() and text.endswith(b"}\n")
        (locked,) = msvcrt.locks
        assert locked.start >= len(text)
        with pytest.raises(LeagueInPlayError) as refused, hold_league(db, 3, "dice"):
            pass
        assert f"league 'dice' is being played into {db} by another run right now" in str(
            refused.value
        )
        assert f"(process {os.getpid()}, since " in str(refused.value)
        player = league_player(db, 3)
        assert player is not None and player.pid == os.getpid()
        assert player.host == socket.gethostname()
        # Another league of the same file plays meanwhile.
        with hold_league(db, 4, "other"):
            pass
    # Released: the file (which Windows would not let the run remove while open) names nobody,
    # no lock is left, and the next run takes the league.
    assert msvcrt.locks == [] and league_player(db, 3) is None
    with hold_league(db, 3, "dice"):
        assert json.loads(path.read_bytes())["pid"] == os.getpid()
    # Never waiting (LK_NBLCK), always the one byte, each lock released before its file closes.
    assert {(mode, position, size) for _fd, mode, position, size in msvcrt.calls} == {
        (msvcrt.LK_NBLCK, in_play.WINDOWS_LOCKED_BYTE, 1),
        (msvcrt.LK_UNLCK, in_play.WINDOWS_LOCKED_BYTE, 1),
    }
