"""A league worker killed mid-match (what the OOM killer does; a walkthrough's ``kill -9``): the
league stops with one line naming the match, a non-zero exit and no traceback, instead of
waiting forever for that match. The matches finished before stay stored, the other workers are
stopped with their partial records removed, and the same command again plays the rest: the
league then holds what an uninterrupted run stores.

The league runs as a subprocess, as a user runs it; every wait is bounded only so that a broken
build fails rather than hangs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.leagues.test_league_double_interrupt import still_running, workers_of
from tests.leagues.test_league_interrupt import (
    DICE,
    WAIT_S,
    playing,
    start_league,
    stored,
    wait_until,
)

LINUX = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")

KEYS = ["random-guess vs probability", "random-guess vs type5", "probability vs type5"]
"""The matches of ``DICE``, in plan order."""


def player_of(records: Path, index: int) -> int:
    """The worker writing match ``index``'s partial record (``NAME.jsonl.<pid>.<token>.part``)."""
    (part,) = records.glob(f"*-{index:03d}-*.part")
    return int(part.name.split(".")[-3])


def finish(process: subprocess.Popen[str], what: str) -> tuple[str, str]:
    try:
        return process.communicate(timeout=WAIT_S * 3)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{what} did not end")


def results(out: str) -> dict[str, Any]:
    """What a league's ``--json`` says of its games (not of when or where they were played)."""
    league = json.loads(out)
    return {
        "standings": league["standings"],
        "matches": {match["match"]: match["totals"] for match in league["matches"]},
    }


@LINUX
@pytest.mark.timeout(900)
def test_a_killed_worker_stops_the_league_with_one_line_and_a_resume_completes_it(
    tmp_path: Path,
) -> None:
    records = tmp_path / "records"
    process, db = start_league(tmp_path, DICE, "--jobs", "2")
    wait_until(playing(records, 1), process, "the second match")
    workers = workers_of(process.pid)
    victim = player_of(records, 1)
    assert victim in workers
    os.kill(victim, signal.SIGKILL)
    _out, err = finish(process, "the league with a dead worker")

    assert process.returncode not in (0, None), err
    assert "Traceback" not in err, err
    done = stored(db)
    finished = {
        0: "before any match of this run finished",
        1: "after 1 match of this run finished",
    }.get(len(done), f"after {len(done)} matches of this run finished")
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err
    # `arena league` may go on to say what is kept, and how to resume.
    assert errors[0].startswith(
        f"error: a worker process died (signal 9) while playing {KEYS[1]}, {finished}"
    ), err
    assert KEYS[1] not in [key for key, _record in done]
    # Stopped before the command ended, with their partial records: only stored matches'
    # records are left, each complete.
    assert still_running(workers) == []
    assert sorted(records.iterdir()) == sorted(Path(record) for _key, record in done)

    process, _db = start_league(tmp_path, DICE, "--jobs", "2", "--json")
    out, err = finish(process, "the resumed league")
    assert process.returncode == 0, err
    resumed = json.loads(out)
    assert (resumed["matches_resumed"], resumed["matches_stored"]) == (len(done), 3)

    reference = tmp_path / "reference"
    reference.mkdir()
    process, _db = start_league(reference, DICE, "--jobs", "2", "--json")
    uninterrupted, err = finish(process, "the reference league")
    assert process.returncode == 0, err
    assert results(out) == results(uninterrupted)
