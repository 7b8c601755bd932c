"""A league on a server stores each match off the event loop that every table plays on: while a
write waits for another program's lock on the results file, the other tables keep playing (their
bots' answer times would otherwise include the stall)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import arena.server.remote
from arena.leagues.config import LeagueConfig, load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.play import plan_matches
from arena.leagues.runner import run_league
from arena.store import ResultStore

ON_SERVER = """
name = "stall"
game = "liars-dice"
games = 1
jobs = 2
server = "ws://127.0.0.1:9"
seed = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
[[bots]]
name = "p1"
[[bots]]
name = "p2"
[[bots]]
name = "p3"
"""


def server_league(tmp_path: Path) -> LeagueConfig:
    path = tmp_path / "league.toml"
    path.write_text(ON_SERVER, encoding="utf-8")
    return load_league(path)


def outcome_of(plan: MatchPlan) -> MatchOutcome:
    first, second = plan.bots
    return MatchOutcome(plan, [GameOutcome(0, 0, {first: 1.0, second: 0.0})], {}, 0.01)


def test_a_blocked_store_does_not_stop_the_other_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = server_league(tmp_path)
    plans = {plan.bots: plan for plan in plan_matches(config)}
    db = tmp_path / "results.sqlite"
    # Another program holds the file's write lock from the moment the first match is played.
    lockers: list[sqlite3.Connection] = []
    save_started = threading.Event()
    save_done = threading.Event()
    seen_while_saving: list[bool] = []
    tables = 0

    async def fake_table(
        url: str, bots: Sequence[str], game: str, play: Callable[..., Awaitable[Any]], **_: Any
    ) -> MatchOutcome:
        nonlocal tables
        tables += 1
        if tables == 1:
            lockers.append(sqlite3.connect(db, isolation_level=None))
            lockers[0].execute("BEGIN IMMEDIATE")
        elif tables == 2:
            # Another table, playing while the first match waits to be stored: it gets to run
            # only if the event loop is free. It then lets the lock go.
            while not save_started.is_set():
                await asyncio.sleep(0.01)
            seen_while_saving.append(not save_done.is_set())
            lockers[0].execute("COMMIT")
        return outcome_of(plans[tuple(bots)])

    monkeypatch.setattr(arena.server.remote, "play_on_server", fake_table)

    with ResultStore(db, timeout_s=30) as store:
        save_match = store.save_match

        def watched(*args: Any, **kwargs: Any) -> bool:
            save_started.set()
            try:
                return save_match(*args, **kwargs)
            finally:
                save_done.set()

        store.save_match = watched  # type: ignore[method-assign]
        league_run = run_league(config, store)
    for locker in lockers:
        locker.close()
    assert seen_while_saving == [True]
    assert (league_run.played, len(league_run.outcomes)) == (3, 3)
    with ResultStore(db, read_only=True) as store:
        (league,) = store.leagues()
        assert {m.plan.key for m in store.matches(league)} == {plan.key for plan in plans.values()}
