"""One run at a time per league and results file (`arena.leagues.in_play`): a second run of a
league being played is refused by name, other leagues of the file play on, a killed run's lock
is taken over, and `--show` says who is playing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.leagues import in_play
from arena.leagues.config import load_league
from arena.leagues.in_play import LeagueInPlayError, hold_league, league_player, lock_path
from arena.leagues.runner import open_league
from arena.store import ResultStore

DICE = """
name = "{name}"
game = "liars-dice"
games = 6
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""

_HOLD = """
import sys
from pathlib import Path
from arena.leagues.in_play import hold_league
with hold_league(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]):
    print("held", flush=True)
    sys.stdin.read()
"""


def write_league(tmp_path: Path, name: str = "dice") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(DICE.format(name=name), encoding="utf-8")
    return path


def league_id(config_file: Path, db: Path) -> int:
    with ResultStore(db) as store:
        return open_league(load_league(config_file), store).id


@contextmanager
def another_run(db: Path, league: int, name: str = "dice") -> Iterator[subprocess.Popen[str]]:
    """A process that holds the league's lock until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(db), str(league), name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder
    finally:
        if holder.poll() is None:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=60)


def play(config_file: Path, db: Path, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["league", str(config_file), "--db", str(db), *extra])
    return result.exit_code, result.stdout, result.stderr


def stored_matches(config_file: Path, db: Path) -> int:
    with ResultStore(db, read_only=True) as store:
        config = load_league(config_file)
        stored = store.league(config.name, config.fingerprint())
        return 0 if stored is None else len(store.matches(stored))


def test_a_second_run_is_refused_while_the_league_is_played_then_plays(tmp_path: Path) -> None:
    config, db = write_league(tmp_path), tmp_path / "r.sqlite"
    league = league_id(config, db)
    with another_run(db, league) as holder:
        code, _out, error = play(config, db)
        assert code == 2
        assert f"league 'dice' is being played into {db} by another run right now" in error
        assert f"process {holder.pid}" in error
        assert stored_matches(config, db) == 0  # refused before any game
        # Also with --restart, which would replay every stored match.
        assert play(config, db, "--restart")[0] == 2
    code, _out, error = play(config, db)
    assert code == 0, error
    assert stored_matches(config, db) == 1
    assert not lock_path(db, league).exists()  # removed when the run ends


def test_other_leagues_of_the_same_file_play_meanwhile(tmp_path: Path) -> None:
    busy, free, db = write_league(tmp_path), write_league(tmp_path, "other"), tmp_path / "r.sqlite"
    with another_run(db, league_id(busy, db)):
        code, _out, error = play(free, db)
    assert code == 0, error
    assert stored_matches(free, db) == 1


def test_a_killed_runs_lock_is_taken_over_and_show_does_not_name_it(tmp_path: Path) -> None:
    config, db = write_league(tmp_path), tmp_path / "r.sqlite"
    league = league_id(config, db)
    with another_run(db, league) as holder:
        holder.kill()  # SIGKILL: no clean-up, the lock file stays
        holder.wait(timeout=60)
    assert lock_path(db, league).exists()
    assert league_player(db, league) is None  # its process is gone
    code, _out, error = play(config, db, "--show")
    assert "being played now" not in error
    code, _out, error = play(config, db)
    assert code == 0, error
    assert stored_matches(config, db) == 1
    assert not lock_path(db, league).exists()


def test_show_names_the_run_that_plays(tmp_path: Path) -> None:
    config, db = write_league(tmp_path), tmp_path / "r.sqlite"
    assert play(config, db)[0] == 0
    league = league_id(config, db)
    assert play(config, db, "--show")[2] == ""  # nobody plays: no note
    with another_run(db, league) as holder:
        code, out, error = play(config, db, "--show")
        player = league_player(db, league)
    assert code == 0
    assert "1/1 matches" in out  # the stored standings, as ever
    assert f"league 'dice' is being played now (process {holder.pid}, since " in error
    assert player is not None and player.pid == holder.pid


def test_the_lock_holds_within_one_process_and_goes_with_an_error(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    db.touch()
    with pytest.raises(RuntimeError), hold_league(db, 1, "dice"):
        with (
            pytest.raises(LeagueInPlayError, match=f"process {os.getpid()}"),
            hold_league(db, 1, "dice"),
        ):
            pass  # pragma: no cover - refused
        with hold_league(db, 2, "another league"):
            assert lock_path(db, 2).exists()
        raise RuntimeError("a run that fails")
    assert not lock_path(db, 1).exists()
    with hold_league(db, 1, "dice"):  # free again
        pass


def test_two_names_of_one_results_file_share_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    db.touch()
    link = tmp_path / "link.sqlite"
    link.symlink_to(db)
    with (
        hold_league(db, 1, "dice"),
        pytest.raises(LeagueInPlayError),
        hold_league(link, 1, "dice"),
    ):
        pass  # pragma: no cover - refused


def test_a_lock_file_removed_between_open_and_lock_is_not_the_one_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that opened the lock file just before the run holding it removed it (at its end)
    must not hold that orphan: a third run would then lock the new file beside it."""
    db = tmp_path / "r.sqlite"
    db.touch()
    path = lock_path(db, 1)
    path.write_text("", encoding="utf-8")
    orphan = os.open(path, os.O_RDWR)
    path.unlink()
    real_open = in_play._open
    opened = iter([orphan])
    monkeypatch.setattr(in_play, "_open", lambda where: next(opened, None) or real_open(where))
    with hold_league(db, 1, "dice"):
        assert path.exists()  # the lock is on the file of that name
        monkeypatch.undo()
        with pytest.raises(LeagueInPlayError), hold_league(db, 1, "dice"):
            pass  # pragma: no cover - refused


def test_a_lock_file_of_garbage_still_locks_and_is_described(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    db.touch()
    with hold_league(db, 1, "dice"):
        lock_path(db, 1).write_text("[not what a run writes", encoding="utf-8")
        with (
            pytest.raises(LeagueInPlayError, match="a run that did not say who it is"),
            hold_league(db, 1, "dice"),
        ):
            pass  # pragma: no cover - refused
        assert league_player(db, 1) is None
