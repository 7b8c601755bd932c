"""Files the commands read (audit M6, L7): a path the user may not read is the command's own one
`error:` line, not click's usage box (and `verify --json` still prints its JSON error object); a
path only written (a log file) need not be readable; a record that is no regular file (a FIFO,
standard input) is read, and an existing path is never reported as missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
READER = "nobody"
ARENA = [sys.executable, "-c", "from arena.cli.main import main; main()"]
"""The arena command in a fresh interpreter (reading a real standard input)."""
WAIT_S = 120.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
LEAGUE = 'name = "tiny"\ngame = "liars-dice"\n[[bots]]\nname = "a"\n[[bots]]\nname = "b"\n'


@pytest.fixture
def record(tmp_path: Path) -> Path:
    """A small finished record (a 1A2B duel of two games)."""
    args = ["match", "bulls-cows", "--a", "random", "--b", "random", "--games", "2", "--seed", "s"]
    played = runner.invoke(app, [*args, "--record", str(tmp_path)])
    assert played.exit_code == 0, played.output
    (written,) = tmp_path.glob("bulls-cows-s-*.jsonl")
    return written


# -- L7: records that are no regular file -----------------------------------------------------


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_a_record_is_read_from_a_fifo(tmp_path: Path, record: Path, command: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = record.read_bytes()

    def feed() -> None:
        try:
            with fifo.open("wb") as pipe:
                pipe.write(text)
        except BrokenPipeError:
            pass  # the command did not read it all: its result says so

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = runner.invoke(app, [command, str(fifo)])
    # A writer still waiting for a reader (the command refused the FIFO) is released.
    release = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.close(release)
    writer.join(WAIT_S)
    assert result.exit_code == 0, result.output
    assert "2 games ok" in result.output if command == "verify" else "reveal" in result.output


def piped(args: list[str], text: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a fresh interpreter, ``text`` on its standard input."""
    return subprocess.run(
        [*ARENA, *args], input=text, capture_output=True, text=True, timeout=WAIT_S, check=False
    )


def test_a_record_is_read_from_standard_input(tmp_path: Path, record: Path) -> None:
    shown = piped(["verify", "-"], record.read_text(encoding="utf-8"))
    assert shown.returncode == 0, shown.stderr
    assert "2 games ok" in shown.stdout


def test_replaying_one_game_of_a_piped_record_points_to_verify_from_standard_input(
    record: Path,
) -> None:
    text = record.read_text(encoding="utf-8")
    game = json.loads(text.splitlines()[1])["game"]
    shown = piped(["replay", "-", "--game", game], text)
    assert shown.returncode == 0, shown.stderr
    last = shown.stdout.strip().splitlines()[-1]
    assert "`arena verify -` on the same record runs them" in last
    assert "/dev/stdin" not in shown.stdout


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        ("verify", "not json\n", "(standard input):1: not JSON"),
        ("replay", "not json\n", "(standard input):1: not JSON"),
        ("verify", "", "(standard input): empty record"),
    ],
)
def test_standard_input_is_named_as_such_not_as_dev_stdin(
    command: str, text: str, message: str
) -> None:
    shown = piped([command, "-"], text)
    assert shown.returncode == 2
    assert shown.stderr.startswith(f"error: {message}"), shown.stderr
    assert "/dev/stdin" not in shown.stderr


@pytest.mark.parametrize("json_output", [False, True])
@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_is_refused_by_name_not_called_missing_nor_read(
    json_output: bool, device: str
) -> None:
    # /dev/zero would be read until memory ran out.
    result = runner.invoke(app, ["verify", *(["--json"] if json_output else []), device])
    assert result.exit_code == 2
    message = f"{device} is a device or socket, not a file"
    assert result.stderr.strip() == f"error: {message}"
    if json_output:
        assert json.loads(result.stdout)["error"] == message


# -- M6: paths the user may not read ----------------------------------------------------------

AS_READER = """
import os, sys
uid, gid = int(sys.argv[1]), int(sys.argv[2])
import json
from typer.testing import CliRunner
import arena.cli.main, bots.cli
import arena.cli.liars_dice, arena.cli.mahjong_match, arena.cli.liars_dice_gauntlet
# What rendering an error needs, loaded while the interpreter's own files are still readable
# (they may lie where the reader cannot go, such as /root).
CliRunner().invoke(arena.cli.main.app, ["verify", "--no-such-option"])
if uid >= 0:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    assert os.geteuid() == uid
results = []
for program, *args in json.loads(sys.argv[3]):
    app = arena.cli.main.app if program == "arena" else bots.cli.app
    result = CliRunner().invoke(app, args)
    results.append([result.exit_code, result.stdout, result.stderr])
print(json.dumps(results))
"""

SHORT = ["--games", "4", "--seed", "x"]
LIARS_DICE = ["arena", "match", "liars-dice", "--a", "random-guess", "--b", "bayes", *SHORT]
MAHJONG = ["arena", "match", "mahjong", "--bots", "greedy,random", "--layout", "ab", *SHORT]
UNREADABLE = {
    "verify": (["arena", "verify", "unread.jsonl"], "unread.jsonl"),
    "replay": (["arena", "replay", "unread.jsonl"], "unread.jsonl"),
    "league": (["arena", "league", "unread.toml", "--db", "x.sqlite"], "unread.toml"),
    "match --config-b": (
        [*LIARS_DICE, "--config-b", "unread.toml"],
        "unread.toml",
    ),
    "mahjong --config-a": (
        [*MAHJONG, "--config-a", "unread.toml"],
        "unread.toml",
    ),
    "gauntlet --config": (
        ["arena", "liars-dice", "gauntlet", "--games", "1", "--config", "unread.toml"],
        "unread.toml",
    ),
    "model file": (["arena", "liars-dice", "model", "unread.toml", "--json"], "unread.toml"),
    "model directory": (["arena", "liars-dice", "model", "unreaddir", "--json"], "unreaddir"),
    "bots run --config": (
        ["bots", "run", "random", "--url", "http://x", "--config", "unread.toml"],
        "unread.toml",
    ),
}


@pytest.fixture(scope="module")
def reader() -> tuple[int, int]:
    """Whom the permission bits stop: this user, or for root (whom they do not stop, as in a
    CI container) the user nobody, which the child process becomes after its imports."""
    if os.geteuid() != 0:
        return -1, -1
    import pwd  # POSIX only, as root is

    try:
        user = pwd.getpwnam(READER)
    except KeyError:
        pytest.skip(f"running as root, and no user {READER!r} to read as")
    return user.pw_uid, user.pw_gid


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory the reader can enter: not under pytest's tmp_path, which only its owner
    can enter."""
    base = Path(tempfile.mkdtemp(prefix="arena-unreadable-"))
    base.chmod(0o777)
    yield base
    for path in [base, *base.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(base)


def run_as_reader(
    reader: tuple[int, int], directory: Path, commands: list[list[str]]
) -> list[tuple[int, str, str]]:
    uid, gid = reader
    shown = subprocess.run(
        [sys.executable, "-c", AS_READER, str(uid), str(gid), json.dumps(commands)],
        cwd=directory,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "300"},
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    return [(code, stdout, stderr) for code, stdout, stderr in json.loads(shown.stdout)]


def test_unreadable_paths_get_one_line_from_the_command(
    reader: tuple[int, int], shared: Path, record: Path
) -> None:
    shutil.copy(record, shared / "unread.jsonl")
    (shared / "unread.toml").write_text(LEAGUE, encoding="utf-8")
    (shared / "unreaddir").mkdir()
    for name in ("unread.jsonl", "unread.toml", "unreaddir"):
        (shared / name).chmod(0)
    commands = [command for command, _ in UNREADABLE.values()]
    commands.append(["arena", "verify", "--json", "unread.jsonl"])
    results = run_as_reader(reader, shared, commands)
    for (name, (_, path)), (code, stdout, stderr) in zip(UNREADABLE.items(), results, strict=False):
        assert code == 2, (name, stdout, stderr)
        assert "Usage:" not in stderr and "Traceback" not in stderr, (name, stderr)
        (line,) = stderr.strip().splitlines()
        assert line.startswith("error: ") and path in line and "Permission denied" in line, name
    code, stdout, stderr = results[-1]
    assert code == 2 and json.loads(stdout) == {
        "record": "unread.jsonl",
        "ok": False,
        "error": "unread.jsonl: cannot read: Permission denied",
    }


def test_a_log_file_only_written_need_not_be_readable(
    reader: tuple[int, int], shared: Path
) -> None:
    log = shared / "write-only.log"
    log.touch()
    if reader[0] >= 0:
        os.chown(log, *reader)
    log.chmod(0o200)
    ((code, _, stderr), (arena_code, _, arena_stderr)) = run_as_reader(
        reader,
        shared,
        [
            ["bots", "run", "random", "--url", "http://x", "--log-json", log.name],
            ["arena", "--log-file", log.name, "protocol", "schema"],
        ],
    )
    assert (arena_code, arena_stderr) == (0, "")
    # Past the log file (opened for writing), to the next check: the URL.
    assert code == 2
    assert stderr.strip() == (
        "error: 'http://x': expected ws://HOST:PORT, wss://HOST:PORT or "
        "mqtt[s]://[USER:PASSWORD@]HOST:PORT"
    )
