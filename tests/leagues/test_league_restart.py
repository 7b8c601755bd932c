"""``--restart`` replays every match, replacing each stored one only when its new result is
stored: a restart stopped part way (Ctrl-C, a crash) leaves every match stored once, new or old,
never fewer than before (a league on a server cannot be played again identically)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.leagues.outcomes import MatchOutcome
from arena.leagues.runner import run_league
from arena.store import ResultStore
from tests.leagues.test_league_runner import DICE, league

OLD = -1.0
"""The ``seconds`` every match stored before the restart is marked with: a stored result always
has a time of 0 or more, so a match that still reads -1 is the old one. (Row ids cannot tell:
a replaced row may get its old id back.)"""


def rows(db: Path) -> dict[str, tuple[float, int]]:
    """Each stored match's time and its number of games."""
    with sqlite3.connect(db) as connection:
        found = connection.execute(
            "SELECT key, seconds, (SELECT COUNT(*) FROM games WHERE match_id = matches.id) "
            "FROM matches ORDER BY idx"
        ).fetchall()
    return {key: (seconds, games) for key, seconds, games in found}


def mark_old(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE matches SET seconds = ?", (OLD,))


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupted_restart_keeps_every_stored_match(tmp_path: Path, jobs: int) -> None:
    config = league(tmp_path, DICE, jobs=jobs)
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        assert run_league(config, store).complete
    mark_old(db)
    before = rows(db)
    assert len(before) == 3

    replaced: list[str] = []

    def stop_after_first(outcome: MatchOutcome) -> None:
        replaced.append(outcome.plan.key)
        raise KeyboardInterrupt  # Ctrl-C just after the first new result is stored

    with ResultStore(db) as store, pytest.raises(KeyboardInterrupt):
        run_league(config, store, restart=True, on_match=stop_after_first)
    after = rows(db)
    assert sorted(after) == sorted(before)  # every match still stored, each once
    assert all(games == 30 for _id, games in after.values())
    (new,) = replaced
    assert before[new][0] == OLD and after[new][0] >= 0  # the replayed match is the new result
    assert {key: after[key] for key in after if key != new} == {
        key: before[key] for key in before if key != new
    }
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (90,)
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []

    # A restart that runs to the end replaces every match.
    with ResultStore(db) as store:
        run = run_league(config, store, restart=True)
    assert run.complete and (run.resumed, run.played) == (0, 3)
    final = rows(db)
    assert all(final[key][0] >= 0 for key in before)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (90,)
        (finished,) = connection.execute("SELECT finished FROM leagues").fetchone()
    assert finished is not None
