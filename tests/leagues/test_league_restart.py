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


def rows(db: Path) -> dict[str, tuple[int, int]]:
    """Each stored match's row id and its number of games."""
    with sqlite3.connect(db) as connection:
        found = connection.execute(
            "SELECT key, id, (SELECT COUNT(*) FROM games WHERE match_id = matches.id) "
            "FROM matches ORDER BY idx"
        ).fetchall()
    return {key: (match_id, games) for key, match_id, games in found}


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupted_restart_keeps_every_stored_match(tmp_path: Path, jobs: int) -> None:
    config = league(tmp_path, DICE, jobs=jobs)
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        assert run_league(config, store).complete
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
    assert after[new][0] != before[new][0]  # the replayed match is the new result
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
    assert all(final[key][0] != before[key][0] for key in before)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (90,)
        (finished,) = connection.execute("SELECT finished FROM leagues").fetchone()
    assert finished is not None
