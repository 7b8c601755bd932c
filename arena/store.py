"""SQLite results: every league, every match it played and every game's scores.

One file holds any number of leagues. A league is identified by its name and the fingerprint of
its config (`LeagueConfig.fingerprint`): running the same config again resumes it, skipping the
matches already stored; a changed config is a new league. A match is written in one transaction
when it finishes, so an interrupted league loses at most the matches still being played.

Schema (``PRAGMA user_version = 1``)::

    leagues(id, name, game, seed, fingerprint, config JSON, created, finished)
    matches(id, league_id, idx, key, bots JSON, seed, summary JSON, penalties JSON,
            seconds, record, finished)                  -- UNIQUE(league_id, key)
    games(match_id, idx, unit, scores JSON)             -- PRIMARY KEY(match_id, idx)

``games.scores`` maps each bot of the match to its score in that game: a win is 1, a loss 0
and a 1A2B draw ½; a mahjong hand's score is the bot's points (copies added). Times are UTC ISO
8601. Plain SQL reads it, e.g. ``SELECT key, json_extract(summary, '$.seconds') FROM matches``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS leagues (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    game        TEXT NOT NULL,
    seed        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    config      TEXT NOT NULL,
    created     TEXT NOT NULL,
    finished    TEXT,
    UNIQUE (name, fingerprint)
);
CREATE TABLE IF NOT EXISTS matches (
    id          INTEGER PRIMARY KEY,
    league_id   INTEGER NOT NULL REFERENCES leagues(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    key         TEXT NOT NULL,
    bots        TEXT NOT NULL,
    seed        TEXT NOT NULL,
    summary     TEXT NOT NULL,
    penalties   TEXT NOT NULL,
    seconds     REAL NOT NULL,
    record      TEXT,
    finished    TEXT NOT NULL,
    UNIQUE (league_id, key)
);
CREATE TABLE IF NOT EXISTS games (
    match_id    INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    unit        INTEGER NOT NULL,
    scores      TEXT NOT NULL,
    PRIMARY KEY (match_id, idx)
);
"""


class StoreError(ArenaError):
    """The results file cannot be used (not SQLite, a newer schema, unwritable)."""


@dataclass(frozen=True, slots=True)
class StoredLeague:
    id: int
    name: str
    game: str
    seed: str
    fingerprint: str
    config: dict[str, Any]
    created: str
    finished: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResultStore:
    """The results file; use as a context manager or call `close`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Another run may be writing the same file: wait for its lock rather than fail.
            self._db = sqlite3.connect(path, timeout=60.0)
            self._db.execute("PRAGMA foreign_keys = ON")
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: results schema {version} is newer than this arena's "
                    f"({SCHEMA_VERSION}); upgrade the arena or use another --db"
                )
            with self._db:
                self._db.executescript(_SCHEMA)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot use as a results database: {exc}") from None
        except OSError as exc:
            raise StoreError(f"{path}: {exc}") from None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- leagues ------------------------------------------------------------------------------

    def open_league(
        self, name: str, game: str, seed: str, fingerprint: str, config: dict[str, Any]
    ) -> StoredLeague:
        """The stored league of that name and fingerprint, created if new."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO leagues (name, game, seed, fingerprint, config, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, game, seed, fingerprint, json.dumps(config, ensure_ascii=False), _now()),
            )
        found = self.league(name, fingerprint)
        assert found is not None
        return found

    def league(self, name: str, fingerprint: str | None = None) -> StoredLeague | None:
        """The league of that name and fingerprint; without a fingerprint the latest of that
        name."""
        query = "SELECT * FROM leagues WHERE name = ?"
        args: tuple[Any, ...] = (name,)
        if fingerprint is not None:
            query += " AND fingerprint = ?"
            args += (fingerprint,)
        row = self._db.execute(query + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return None if row is None else _league(row)

    def leagues(self) -> list[StoredLeague]:
        rows = self._db.execute("SELECT * FROM leagues ORDER BY id").fetchall()
        return [_league(row) for row in rows]

    def clear_league(self, league: StoredLeague) -> None:
        """Forget every match of ``league`` (a restart)."""
        with self._db:
            self._db.execute("DELETE FROM matches WHERE league_id = ?", (league.id,))
            self._db.execute("UPDATE leagues SET finished = NULL WHERE id = ?", (league.id,))

    def mark_finished(self, league: StoredLeague) -> None:
        """Record when the league's last match was stored (kept on later resumes)."""
        with self._db:
            self._db.execute(
                "UPDATE leagues SET finished = ? WHERE id = ? AND finished IS NULL",
                (_now(), league.id),
            )

    # -- matches ------------------------------------------------------------------------------

    def save_match(self, league: StoredLeague, outcome: MatchOutcome) -> bool:
        """Store a finished match and its games in one transaction; `False` when the match is
        already stored (another run of the same league got there first) and nothing changed."""
        try:
            self._insert_match(league, outcome)
        except sqlite3.IntegrityError:
            if outcome.plan.key in self.stored_keys(league):
                return False
            raise
        return True

    def _insert_match(self, league: StoredLeague, outcome: MatchOutcome) -> None:
        plan = outcome.plan
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO matches (league_id, idx, key, bots, seed, summary, penalties, "
                "seconds, record, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    league.id,
                    plan.index,
                    plan.key,
                    json.dumps(list(plan.bots), ensure_ascii=False),
                    plan.seed,
                    json.dumps(outcome.summary, ensure_ascii=False),
                    json.dumps(outcome.penalties, ensure_ascii=False),
                    outcome.seconds,
                    outcome.record,
                    _now(),
                ),
            )
            match_id = cursor.lastrowid
            self._db.executemany(
                "INSERT INTO games (match_id, idx, unit, scores) VALUES (?, ?, ?, ?)",
                [
                    (match_id, game.index, game.unit, json.dumps(game.scores, ensure_ascii=False))
                    for game in outcome.games
                ],
            )

    def matches(self, league: StoredLeague) -> list[MatchOutcome]:
        """Every stored match of ``league`` with its games, in plan order."""
        rows = self._db.execute(
            "SELECT id, idx, bots, seed, summary, penalties, seconds, record FROM matches "
            "WHERE league_id = ? ORDER BY idx",
            (league.id,),
        ).fetchall()
        found = []
        for match_id, index, bots, seed, summary, penalties, seconds, record in rows:
            games = [
                GameOutcome(idx, unit, json.loads(scores))
                for idx, unit, scores in self._db.execute(
                    "SELECT idx, unit, scores FROM games WHERE match_id = ? ORDER BY idx",
                    (match_id,),
                )
            ]
            plan = MatchPlan(index, tuple(json.loads(bots)), seed)
            found.append(
                MatchOutcome(
                    plan, games, json.loads(summary), seconds, record, json.loads(penalties)
                )
            )
        return found

    def stored_keys(self, league: StoredLeague) -> set[str]:
        rows = self._db.execute("SELECT key FROM matches WHERE league_id = ?", (league.id,))
        return {key for (key,) in rows}


def _league(row: tuple[Any, ...]) -> StoredLeague:
    id_, name, game, seed, fingerprint, config, created, finished = row
    return StoredLeague(id_, name, game, seed, fingerprint, json.loads(config), created, finished)
