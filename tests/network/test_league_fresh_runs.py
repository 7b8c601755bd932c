"""A later run of a league on a server (after one cut short, or a ``--restart``) deals its
matches from seeds of their own: the connected bots saw the earlier run's dice (every cup is
lifted at a challenge) and, once a match ended, its seed. And a league on a server may
not take the seed of another league the file played on a server."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from net_helpers import clients, run_arena, running_server, ws_url

from arena.errors import ArenaError
from arena.leagues.config import load_league
from arena.leagues.runner import open_league, run_league
from arena.store import ResultStore
from bots.registry import make_bot

SEED = "ab" * 32
SERVER = "ws://127.0.0.1:1"
"""A server named in the config (no test here reaches one)."""
DICE = f"""
name = "cup"
seed = "{SEED}"
game = "liars-dice"
games = 4
[[bots]]
name = "p1"
[[bots]]
name = "p2"
"""


def _config_file(tmp_path: Path, text: str = DICE, name: str = "cup.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_each_run_of_a_league_is_counted_and_an_older_releases_league_had_one(
    tmp_path: Path,
) -> None:
    config = load_league(_config_file(tmp_path), server=SERVER)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        league = open_league(config, store)
        assert [store.begin_run(league) for _ in range(3)] == [0, 1, 2]
        other = _config_file(tmp_path, DICE.replace("games = 4", "games = 5"), "old.toml")
        old = open_league(load_league(other, server=SERVER), store)
    # A league an earlier release made counted no runs: its matches may have been dealt.
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM league_runs WHERE league_id = ?", (old.id,))
    with ResultStore(path) as store:
        assert store.begin_run(old) == 1


def test_a_match_of_a_later_run_has_a_seed_of_its_own(tmp_path: Path) -> None:
    config = load_league(_config_file(tmp_path), server=SERVER)
    seeds = [config.match_seed(("p1", "p2"), run) for run in range(3)]
    assert len(set(seeds)) == 3 and all(len(seed) == 64 for seed in seeds)
    assert seeds[0] == config.match_seed(("p1", "p2"))  # the first run as ever
    assert config.match_seed(("p1", "p2"), 2) == seeds[2]  # each one reproducible


def _commitments(records: Path) -> set[str]:
    found = set()
    for path in records.glob("*.jsonl"):
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        found.add(first["seed_commitment"])
    return found


async def test_a_restart_on_a_server_deals_every_match_afresh(tmp_path: Path) -> None:
    config = _config_file(tmp_path)
    db = str(tmp_path / "r.sqlite")
    async with running_server() as server:
        bots = {name: make_bot("liars_dice", "probability", name=name) for name in ("p1", "p2")}
        async with clients(ws_url(server), "liars_dice", bots):
            args = ["league", str(config), "--db", db, "--server", ws_url(server), "--json"]
            await run_arena(*args, "--records", str(tmp_path / "first"))
            await run_arena(*args, "--records", str(tmp_path / "again"), "--restart")
    # The config names no server (it was given with --server): --show reads the league back
    # without one, its bots being names of connected bots, no strategies.
    shown = await run_arena("league", str(config), "--db", db, "--show", "--json")
    assert [match["match"] for match in shown["matches"]] == ["p1 vs p2"]
    first, again = _commitments(tmp_path / "first"), _commitments(tmp_path / "again")
    assert len(first) == len(again) == 1 and first != again
    with ResultStore(Path(db), read_only=True) as store:
        league = store.league("cup")
        assert league is not None
        (stored,) = store.matches(league)
    loaded = load_league(config, server=ws_url(server))
    assert stored.plan.seed == loaded.match_seed(("p1", "p2"), 1)


def test_a_league_on_a_server_may_not_take_the_seed_of_another_played_there(
    tmp_path: Path,
) -> None:
    played = load_league(_config_file(tmp_path), server=SERVER)
    copy = load_league(
        _config_file(tmp_path, DICE.replace('name = "cup"', 'name = "cup2"'), "cup2.toml"),
        server=SERVER,
    )
    in_process = DICE.replace('name = "cup"', 'name = "cup3"').replace(
        'name = "p', 'bot = "probability"\nname = "p'
    )
    local = load_league(_config_file(tmp_path, in_process, "cup3.toml"))
    with ResultStore(tmp_path / "r.sqlite") as store:
        open_league(played, store)
        with pytest.raises(ArenaError, match=r"the league seed is that of league 'cup' \(id 1\)"):
            run_league(copy, store)
        assert [league.name for league in store.leagues()] == ["cup"]  # nothing opened
        # A league played in-process showed its dice to no connected bot: not refused.
        with ResultStore(tmp_path / "other.sqlite") as other:
            open_league(local, other)
            with pytest.raises(ArenaError) as refused:
                run_league(copy, other, on_start=_stop)
            assert "seed is that of" not in str(refused.value)


class _Stopped(ArenaError):
    """Raised by `_stop` to end a league before its first table."""


def _stop(_todo: int, _planned: int) -> None:
    raise _Stopped("stopped before the first table")
