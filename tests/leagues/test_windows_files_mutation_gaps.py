"""Gaps a mutation audit found in the Windows file, lock, encoding and worker-cap code: what a
user relies on there that no other test pinned down. Windows is simulated on Linux
(`tests/windows_simulation.py`, ``sys.platform``) as in the tests of that code."""

from __future__ import annotations

import codecs
import errno
import json
import os
import socket
import stat
import subprocess
import sys
import types
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import arena.cli.league as league_cli
import bots.version
from arena import files
from arena.cli.main import app
from arena.errors import ArenaError
from arena.files import lock_byte, replace_file
from arena.games import rulesets
from arena.leagues.in_play import LeagueInPlayError, hold_league, lock_path
from arena.leagues.play import _move_into_place
from arena.store import ResultStore
from arena.store_open import companions, make_companions_writable
from bots.registry import BotConfigError, read_config
from tests.windows_simulation import simulate_windows_locks

# -- replace_file: patient on Windows, for a file in use only ---------------------------------


class _Clock:
    """Time that passes only when slept (nothing is slept for real)."""

    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _held_for(monkeypatch: pytest.MonkeyPatch, seconds: float) -> _Clock:
    """``os.replace`` refuses, as Windows does, while another program holds the target open:
    for ``seconds`` of the fake clock's time."""
    clock = _Clock()
    real_replace = os.replace

    def replace(source: Any, target: Any) -> None:
        if clock.now < seconds:
            raise PermissionError(errno.EACCES, "The process cannot access the file", str(target))
        real_replace(source, target)

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(files, "time", SimpleNamespace(sleep=clock.sleep), raising=False)
    return clock


def test_a_file_held_open_for_most_of_a_second_is_still_replaced_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A viewer or virus scanner that lets go within 0.7 s delays the write, no more.
    target, source = tmp_path / "tables.json", tmp_path / "tables.json.tmp"
    target.write_text("old", encoding="utf-8")
    source.write_text("new", encoding="utf-8")
    clock = _held_for(monkeypatch, 0.7)
    replace_file(source, target)
    assert target.read_text(encoding="utf-8") == "new" and not source.exists()
    assert clock.now < 1.0


def test_a_file_never_let_go_is_given_up_within_the_documented_time_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At most 1.55 s of waiting (files.REPLACE_FIRST_PAUSE_S), then the refusal itself.
    target, source = tmp_path / "record.jsonl", tmp_path / "record.jsonl.part"
    target.write_text("old", encoding="utf-8")
    source.write_text("new", encoding="utf-8")
    clock = _held_for(monkeypatch, float("inf"))
    with pytest.raises(PermissionError):
        replace_file(source, target)
    assert clock.now == pytest.approx(1.55)  # what LEAGUES.md promises: about 1.5 s
    assert target.read_text(encoding="utf-8") == "old" and source.exists()


def test_a_file_held_for_more_than_a_second_is_still_replaced_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A scanner holding the file for 1.2 s: the last of the five pauses still catches it.
    target, source = tmp_path / "tables.json", tmp_path / "tables.json.tmp"
    target.write_text("old", encoding="utf-8")
    source.write_text("new", encoding="utf-8")
    _held_for(monkeypatch, 1.2)
    replace_file(source, target)
    assert target.read_text(encoding="utf-8") == "new"


def test_a_missing_source_is_not_waited_for_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only a file in use is worth waiting for: any other failure is final at once.
    clock = _Clock()
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(files, "time", SimpleNamespace(sleep=clock.sleep), raising=False)
    with pytest.raises(FileNotFoundError):
        replace_file(tmp_path / "gone.tmp", tmp_path / "target.json")
    assert clock.now == 0.0


# -- lock_byte: a lock that was not taken is never taken for held -----------------------------


@pytest.mark.parametrize("wait", [False, True])
def test_a_lock_that_fails_for_another_reason_raises_that_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait: bool
) -> None:
    msvcrt = simulate_windows_locks(monkeypatch)

    def locking(fd: int, mode: int, nbytes: int) -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(sys.modules["msvcrt"], "locking", locking)
    descriptor = os.open(tmp_path / "guard.lock", os.O_RDWR | os.O_CREAT)
    try:
        with pytest.raises(OSError) as failed:
            lock_byte(descriptor, 0, wait=wait)
    finally:
        os.close(descriptor)
    assert failed.value.errno == errno.EBADF and not isinstance(failed.value, BlockingIOError)
    assert msvcrt.locks == []


# -- config files: every byte-order mark, and where a legacy byte is --------------------------


def test_a_bot_config_in_utf32_big_endian_with_its_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "slow.toml"
    text = '# 貪心\r\nstrategy = "greedy"\r\nthink_ms = 1\r\n'
    path.write_bytes(codecs.BOM_UTF32_BE + text.encode("utf-32-be"))
    assert read_config(path) == ("greedy", {"think_ms": 1})


def test_a_damaged_utf8_file_with_a_mark_is_refused_naming_utf8(tmp_path: Path) -> None:
    # Saved as "UTF-8 with BOM", then a line pasted in Big5: the mark's encoding is named as a
    # person knows it, not as Python's codec is called.
    path = tmp_path / "slow.toml"
    path.write_bytes(codecs.BOM_UTF8 + b'strategy = "greedy"\r\n' + "# 台灣\r\n".encode("cp950"))
    with pytest.raises(BotConfigError) as caught:
        read_config(path)
    message = str(caught.value)
    assert message.startswith(
        f"cannot read bot config {path}: it starts with a UTF-8 byte-order mark but is not UTF-8 "
        "text (from byte "
    )
    assert message.endswith("): save it as UTF-8") and "SIG" not in message
    # The place counts the mark's three bytes, as it does for UTF-16 and UTF-32.
    bad = path.read_bytes().index("台".encode("cp950"))
    assert f"(from byte {bad})" in message


def test_the_column_of_a_legacy_byte_counts_the_characters_before_it(tmp_path: Path) -> None:
    # A UTF-8 file with one cp1252 "é" pasted after Chinese text: an editor's column counts
    # 小 and 明 as one each, not as their three bytes.
    path = tmp_path / "slow.toml"
    line = "# 小明的 bot: caf"
    path.write_bytes(b'strategy = "greedy"\n' + line.encode("utf-8") + "é\n".encode("cp1252"))
    with pytest.raises(BotConfigError) as caught:
        read_config(path)
    assert f"byte 0xE9 at line 2, column {len(line) + 1} " in str(caught.value)


def test_a_ruleset_in_a_legacy_code_page_does_not_hide_the_others_from_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "big5.toml").write_bytes('# 台灣\r\ngame = "mahjong"\r\n'.encode("cp950"))
    (tmp_path / "flowers.toml").write_text('game = "mahjong"\n[rules]\n', encoding="utf-8")
    monkeypatch.setattr(rulesets, "RULESET_DIR", tmp_path)
    assert rulesets.list_rulesets("mahjong") == ["flowers"]


# -- league --show: the hint that reads the config again --------------------------------------

runner = CliRunner()

DICE_WITH_A_CONFIG_FILE = """# 聯賽
name = "dice"
game = "liars-dice"
games = 2
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "tuned"
bot = "bayes"
config = "tuned.toml"
"""


@pytest.fixture
def played_dice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A results file ``y.sqlite`` holding the league 'dice', played in ``tmp_path``, whose bot
    config is then gone."""
    monkeypatch.chdir(tmp_path)  # a bot config is read from the current directory
    (tmp_path / "tuned.toml").write_text("", encoding="utf-8")
    (tmp_path / "dice.toml").write_text(DICE_WITH_A_CONFIG_FILE, encoding="utf-8")
    played = runner.invoke(app, ["league", "dice.toml", "--db", "y.sqlite"])
    assert played.exit_code == 0, played.output
    (tmp_path / "tuned.toml").unlink()
    yield tmp_path


def _error_line(result: Result) -> str:
    assert isinstance(result.exception, SystemExit), result.exception
    return " ".join(result.output.split())


def test_show_hint_reads_a_config_saved_with_a_byte_order_mark(played_dice: Path) -> None:
    config = played_dice / "dice.toml"
    config.write_bytes(codecs.BOM_UTF16_LE + DICE_WITH_A_CONFIG_FILE.encode("utf-16-le"))
    shown = runner.invoke(app, ["league", "dice.toml", "--db", "y.sqlite", "--show"])
    assert _error_line(shown).endswith(
        "; to show league 'dice' as y.sqlite holds it, without its files: "
        "arena league --db y.sqlite --show --id 1"
    )


def test_show_of_a_config_in_a_legacy_code_page_is_one_error_with_its_hint(
    played_dice: Path,
) -> None:
    config = played_dice / "dice.toml"
    config.write_bytes(DICE_WITH_A_CONFIG_FILE.replace("\n", "\r\n").encode("cp950"))
    shown = runner.invoke(app, ["league", "dice.toml", "--db", "y.sqlite", "--show"])
    said = _error_line(shown)
    assert shown.exit_code != 0 and "save it as UTF-8" in said
    assert said.endswith("shows one as it was stored, without its files")


# -- the league's guard ----------------------------------------------------------------------


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
@pytest.mark.parametrize("windows", [False, True], ids=["flock", "msvcrt"])
def test_a_league_run_leaves_no_descriptor_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, windows: bool
) -> None:
    # `arena serve` and a test run play league after league in one process.
    if windows:
        simulate_windows_locks(monkeypatch)
        monkeypatch.setattr("arena.leagues.in_play.fcntl", None)
    db = tmp_path / "r.sqlite"
    before = _open_descriptors()
    for _ in range(3):
        with hold_league(db, 1, "dice"):
            pass
    assert _open_descriptors() == before


@pytest.mark.parametrize("windows", [False, True], ids=["flock", "msvcrt"])
def test_a_run_taking_over_a_killed_runs_longer_lock_file_names_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, windows: bool
) -> None:
    # A run killed with -9 leaves its text; the next may name itself in fewer bytes.
    if windows:
        simulate_windows_locks(monkeypatch)
        monkeypatch.setattr("arena.leagues.in_play.fcntl", None)
    db = tmp_path / "r.sqlite"
    left = {"pid": 2**22 + 1, "host": "h" * 200, "started": "2020-01-01T00:00:00+00:00"}
    lock_path(db, 1).write_text(json.dumps(left) + "\n", encoding="utf-8")
    with hold_league(db, 1, "dice"):
        with pytest.raises(LeagueInPlayError) as refused, hold_league(db, 1, "dice"):
            pass
        written = json.loads(lock_path(db, 1).read_bytes())
    assert f"(process {os.getpid()}, since " in str(refused.value)
    assert written["pid"] == os.getpid() and written["host"] == socket.gethostname()


# -- a record is on disk before its name is -----------------------------------------------------


def test_a_record_is_synced_before_it_is_moved_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A crash (power cut) right after the rename must not leave an empty record under its name.
    path = tmp_path / "match.jsonl"
    part = path.with_name(path.name + ".1.ab.part")
    part.write_text('{"type":"result"}\n', encoding="utf-8")
    events: list[tuple[str, int]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: Any) -> None:
        number = fd if isinstance(fd, int) else fd.fileno()
        events.append(("fsync", os.fstat(number).st_ino))
        real_fsync(number)

    def replace(source: Any, target: Any) -> None:
        events.append(("replace", os.stat(source).st_ino))
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    inode = part.stat().st_ino
    _move_into_place(part, path)
    assert ("fsync", inode) in events and ("replace", inode) in events
    assert events.index(("fsync", inode)) < events.index(("replace", inode))
    assert path.read_text(encoding="utf-8") == '{"type":"result"}\n'


# -- the results file where there are no user ids ----------------------------------------------


def test_read_only_companions_are_made_writable_where_there_are_no_user_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checked on the files themselves: SQLite run by root writes through read-only ones anyway.
    db = tmp_path / "r.sqlite"
    with ResultStore(db):
        pass
    for companion in companions(db):
        companion.touch(mode=0o400)
        companion.chmod(0o400)
    monkeypatch.delattr(os, "geteuid")
    make_companions_writable(db)
    assert all(companion.stat().st_mode & stat.S_IWUSR for companion in companions(db))


# -- the note on --jobs: only where workers run ---------------------------------------------------

SERVER_LEAGUE = """name = "tiny"
game = "liars-dice"
games = 2
seed = "{seed}"
[[bots]]
name = "g1"
[[bots]]
name = "g2"
"""

TINY_LEAGUE = """name = "tiny"
game = "liars-dice"
games = 2
{jobs}
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


def _not_played(*args: Any, **kwargs: Any) -> Any:
    raise ArenaError("not played in this test")


def _worker_notes(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if "worker processes" in line]


def test_a_league_on_a_server_says_nothing_of_worker_processes_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a server --jobs is how many matches the server plays at once: no worker is started.
    config = tmp_path / "league.toml"
    config.write_text(SERVER_LEAGUE.format(seed="ab" * 32), encoding="utf-8")
    monkeypatch.setattr(league_cli, "_play", _not_played)
    monkeypatch.setattr(sys, "platform", "win32")
    args = [str(config), "--db", str(tmp_path / "l.sqlite"), "--jobs", "40"]
    result = runner.invoke(app, ["league", *args, "--server", "ws://127.0.0.1:1"])
    assert "not played in this test" in result.output, result.output
    assert _worker_notes(result) == []


def test_a_league_shown_says_nothing_of_worker_processes_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --show plays nothing, so starts no worker.
    config = tmp_path / "league.toml"
    config.write_text(TINY_LEAGUE.format(jobs="jobs = 40"), encoding="utf-8")
    db = tmp_path / "l.sqlite"
    with ResultStore(db):
        pass
    monkeypatch.setattr(sys, "platform", "win32")
    for given in ([], ["--jobs", "40"]):
        result = runner.invoke(app, ["league", str(config), "--db", str(db), "--show", *given])
        assert "league 'tiny' with this config has no results in" in result.output
        assert _worker_notes(result) == [], result.output


# -- --version: which mahjong checks run --------------------------------------------------------


def _arena_built_in(root: Path, monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """A stand-in ``arena`` package at ``root`` whose C checks were built with ``suffix``."""
    mahjong = root / "arena" / "games" / "mahjong"
    mahjong.mkdir(parents=True)
    (mahjong / f"_speedups{suffix}").write_bytes(b"")
    spec = ModuleSpec("arena", None, is_package=True)
    spec.submodule_search_locations = [str(root / "arena")]
    monkeypatch.setattr(bots.version, "find_spec", lambda name: spec if name == "arena" else None)


@pytest.mark.parametrize("suffix", EXTENSION_SUFFIXES)
def test_c_checks_built_with_any_suffix_python_loads_are_said_to_run(
    suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build may name the module for this Python (".cpython-311-….so"), for the stable ABI
    # (".abi3.so") or plainly (".so", ".pyd"): Python loads each.
    monkeypatch.delitem(sys.modules, bots.version.SPEEDUPS_MODULE, raising=False)
    monkeypatch.delenv(bots.version.PURE_PYTHON_VARIABLE, raising=False)
    _arena_built_in(tmp_path, monkeypatch, suffix)
    assert bots.version.mahjong_checks() == "C"


def test_the_checks_loaded_in_this_process_are_the_ones_said_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Built, but the C module did not load here (built for another Python, say): the checks
    # run in Python, and --version must not say C.
    monkeypatch.delenv(bots.version.PURE_PYTHON_VARIABLE, raising=False)
    _arena_built_in(tmp_path, monkeypatch, EXTENSION_SUFFIXES[0])
    loaded = types.ModuleType(bots.version.SPEEDUPS_MODULE)
    loaded.IMPLEMENTATION = "Python"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, bots.version.SPEEDUPS_MODULE, loaded)
    assert bots.version.mahjong_checks().startswith("Python (")


# -- a gauntlet's workers log where the command logs ---------------------------------------------


def test_a_gauntlets_workers_write_the_log_file_given(tmp_path: Path) -> None:
    # --log-file takes every level: the games played in the workers are in it.
    log = tmp_path / "log.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "--log-file", str(log), "liars-dice", "gauntlet",
         "--bot", "bayes", "--games", "2", "--seed", "1", "--jobs", "2",
         "--opponents", "type1,type2", "--json"],
        capture_output=True,
        timeout=120 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1")),
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    played = {event["match"] for event in events if event.get("event") == "game_over"}
    assert played == {"gauntlet-type1", "gauntlet-type2"}
