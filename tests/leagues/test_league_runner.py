"""Playing a league: stored game by game, resumable, the same for any number of processes, and
standings that add up."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest

from arena.leagues.config import LeagueConfig, load_league
from arena.leagues.runner import run_league
from arena.leagues.standings import match_lines, standings
from arena.store import ResultStore, StoreError

THREE_DICE_BOTS = """
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
[[bots]]
name = "type5"
"""
"""Three liar's dice bots of a test league, as TOML."""

DICE = (
    """
name = "dice"
game = "liars-dice"
games = 30
"""
    + THREE_DICE_BOTS
)

MAHJONG = """
name = "mj"
game = "mahjong"
games = 8
[[bots]]
name = "greedy"
[[bots]]
name = "random"
[[bots]]
name = "greedy-copy"
bot = "greedy"
"""


def league(tmp_path: Path, text: str, **overrides: object) -> LeagueConfig:
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return load_league(path).with_overrides(**overrides)


def scores_by_match(store: ResultStore, config: LeagueConfig) -> dict[str, list[dict[str, float]]]:
    stored = store.league(config.name, config.fingerprint())
    assert stored is not None
    return {m.plan.key: [g.scores for g in m.games] for m in store.matches(stored)}


def test_a_dice_league_stores_every_game_and_its_standings_add_up(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1)
    seen: list[int] = []
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store, on_games=seen.append)
    assert run.complete and run.played == 3 and run.resumed == 0
    assert sum(seen) == 3 * 30
    table = standings(config.game, run.outcomes, config.bot_names)
    assert sorted(row.bot for row in table) == sorted(config.bot_names)
    # One winner per game: the scores add up to the games played.
    assert math.isclose(sum(row.score for row in table), 3 * 30)
    assert all(row.games == 60 and row.matches == 2 for row in table)
    # A match counts as won only when its interval shows the winner.
    shown = sum(len(line.winners) for line in match_lines(config.game, run.outcomes))
    assert sum(row.match_points for row in table) == shown <= 3
    for row in table:
        assert row.per_game.low <= row.per_game.estimate <= row.per_game.high
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (90,)
        keys = [key for (key,) in db.execute("SELECT key FROM matches ORDER BY idx")]
        pairs = ["random-guess vs probability", "random-guess vs type5", "probability vs type5"]
        assert keys == pairs
        finished = db.execute("SELECT finished FROM leagues").fetchone()[0]
        assert finished is not None


def test_running_again_resumes_and_restart_replays_the_same_games(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
        first = scores_by_match(store, config)
        again = run_league(config, store)
        assert (again.played, again.resumed) == (0, 3)
        assert scores_by_match(store, config) == first
        replayed = run_league(config, store, restart=True)
        assert replayed.played == 3
        assert scores_by_match(store, config) == first
        other = config.with_overrides(seed="another seed")
        run_league(other, store)
        assert len(store.leagues()) == 2
        assert scores_by_match(store, other) != first


def test_an_interrupted_league_keeps_its_finished_matches(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1)

    class Stop(Exception):
        pass

    def stop_after_first(_outcome: object) -> None:
        raise Stop

    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(Stop):
            run_league(config, store, on_match=stop_after_first)
        resumed = run_league(config, store)
    assert (resumed.resumed, resumed.played) == (1, 2)
    assert resumed.complete


def test_worker_processes_play_the_same_games_as_one_process(tmp_path: Path) -> None:
    one = league(tmp_path, MAHJONG, jobs=1)
    with ResultStore(tmp_path / "one.sqlite") as store:
        run_league(one, store)
        alone = scores_by_match(store, one)
    with ResultStore(tmp_path / "two.sqlite") as store:
        two = one.with_overrides(jobs=2)
        counted: list[int] = []
        run = run_league(two, store, on_games=counted.append)
        assert scores_by_match(store, two) == alone
    assert sum(counted) == 3 * 8
    assert run.complete


def test_a_mahjong_league_is_zero_sum_and_identical_programs_tie(tmp_path: Path) -> None:
    config = league(tmp_path, MAHJONG, jobs=1, records=tmp_path / "records")
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store)
    for outcome in run.outcomes:
        assert [g.unit for g in outcome.games] == [0, 0, 0, 0, 1, 1, 1, 1]
        for game in outcome.games:
            assert sum(game.scores.values()) == 0
        assert outcome.record is not None and Path(outcome.record).exists()
    lines = {line.key: line for line in match_lines(config.game, run.outcomes)}
    # The A/B layout replays each wall with seats rotated: the same deterministic program on both
    # sides gets exactly the same points.
    same = lines["greedy vs greedy-copy"]
    assert same.totals["greedy"] == same.totals["greedy-copy"]
    assert same.leaders == ("greedy", "greedy-copy") and same.winners == ()
    assert lines["greedy vs random"].leaders == ("greedy",)
    table = standings(config.game, run.outcomes, config.bot_names)
    assert table[-1].bot == "random"
    assert math.isclose(sum(row.score for row in table), 0.0)


def test_a_bulls_cows_league_reads_strategy_configs(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    text = f"""
name = "duels"
game = "bulls-cows"
games = 6
[[bots]]
name = "optimal-evader"
config = "{repo / "configs/bots/bulls_cows/optimal-evader.toml"}"
[[bots]]
name = "random"
"""
    config = league(tmp_path, text, jobs=1)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store)
    (outcome,) = run.outcomes
    assert outcome.summary["bots"] == ["optimal-evader", "random"]
    assert all(sum(g.scores.values()) == 1.0 for g in outcome.games)


def test_a_match_stored_twice_is_kept_once(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1, games=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store)
        assert store.save_match(run.league, run.outcomes[0]) is False
        assert len(store.matches(run.league)) == 3


def test_the_store_refuses_files_it_cannot_use(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database, just text" * 10)
    with pytest.raises(StoreError, match="cannot use as a results database"):
        ResultStore(junk)
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer than this arena's"):
        ResultStore(newer)


def test_the_stored_config_is_readable_json(tmp_path: Path) -> None:
    config = league(tmp_path, DICE, jobs=1, games=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        (text,) = db.execute("SELECT config FROM leagues").fetchone()
    stored = json.loads(text)
    assert stored["games"] == 2 and [b["name"] for b in stored["bots"]] == config.bot_names


def record_lines(path: str | None) -> list[str]:
    assert path is not None
    return Path(path).read_text(encoding="utf-8").splitlines()


def test_a_changed_league_keeps_the_old_leagues_records(tmp_path: Path) -> None:
    records = tmp_path / "records"
    old = league(tmp_path, DICE, jobs=1, games=4, records=records)
    new = old.with_overrides(games=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        old_run = run_league(old, store)
        kept = {o.plan.key: record_lines(o.record) for o in old_run.outcomes}
        new_run = run_league(new, store)
        # Both leagues are stored, each pointing at its own files, the old ones untouched.
        assert {o.plan.key: record_lines(o.record) for o in store.matches(old_run.league)} == kept
    old_files = {str(o.record) for o in old_run.outcomes}
    new_files = {str(o.record) for o in new_run.outcomes}
    assert len(old_files) == len(new_files) == 3 and not old_files & new_files
    assert {str(p) for p in records.iterdir()} == old_files | new_files
    # The names say the league, its fingerprint, the match's index and its bots.
    first = Path(str(new_run.outcomes[0].record)).name
    assert first == f"dice-{new.fingerprint()[:8]}-000-random-guess-probability.jsonl"


def test_a_replayed_match_replaces_its_own_record_and_leaves_no_partial_file(
    tmp_path: Path,
) -> None:
    records = tmp_path / "records"
    repo = Path(__file__).resolve().parents[2]
    duels = f"""
name = "duels"
game = "bulls-cows"
games = 3
[[bots]]
name = "optimal-evader"
config = "{repo / "configs/bots/bulls_cows/optimal-evader.toml"}"
[[bots]]
name = "random"
"""
    for text in (DICE, duels):
        config = league(tmp_path, text, jobs=1, games=3, records=records)
        with ResultStore(tmp_path / f"{config.name}.sqlite") as store:
            run = run_league(config, store)
            first = record_lines(run.outcomes[0].record)
            # A worker killed mid-match leaves its partial record (a 1A2B series: a directory
            # holding it); replayed, the match starts afresh.
            path = Path(str(run.outcomes[0].record))
            part = path.with_name(path.name + ".part")
            if config.game == "bulls-cows":
                part.mkdir()
                part = part / "stale.jsonl"
            part.write_text("junk\n", encoding="utf-8")
            again = run_league(config, store, restart=True)
        assert again.outcomes[0].record == str(path)
        assert record_lines(again.outcomes[0].record) == first
    assert not list(records.glob("*.part")), "a partial record was left behind"
