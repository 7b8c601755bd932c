"""A JSON log file whose writes fail (a full disk) is given up with one ``warning:`` line, and the
command goes on: before, every line logged after the first failure printed a ``--- Logging
error ---`` traceback (1,812 of them, 123,000 lines, in a 15-match league), and the run ended
with exit 0 and no word that the log was missing.

``/dev/full`` fails every write with ENOSPC (Linux); a stream that fails with EIO stands in for
it elsewhere. Nothing here asserts on time: the waits are bounded only so that a broken build
fails."""

from __future__ import annotations

import asyncio
import errno
import logging
import signal
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from arena.cli.main import app
from arena.logs import configure_logging
from tests.network.net_helpers import ARENA, LOOPBACK, scaled, subprocess_env

FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full here")

DICE = """
name = "dice"
game = "liars-dice"
games = 2
jobs = 1
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


def warning_for(path: Path, why: str) -> str:
    return (
        f"warning: cannot write the log file {path} ({why}): logging to it stops; the run goes on"
    )


class FailingStream:
    """A file whose every write fails, as a disk that went bad does."""

    def write(self, _text: str) -> int:
        raise OSError(errno.EIO, "Input/output error")

    def flush(self) -> None:
        raise OSError(errno.EIO, "Input/output error")

    def close(self) -> None:
        raise OSError(errno.EIO, "Input/output error")


def _file_handler() -> Any:
    (handler,) = [h for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
    return handler


def test_a_failing_write_is_one_warning_line_naming_the_file_and_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_file = tmp_path / "arena.jsonl"
    configure_logging("warning", log_file)
    _file_handler().stream = FailingStream()
    log = structlog.get_logger("arena.test")
    for number in range(50):
        log.info("line", number=number)
    err = capsys.readouterr().err
    assert err.splitlines() == [warning_for(log_file, "Input/output error")]
    # Set up again (as each command does), the given-up file is closed without a word.
    configure_logging("warning", None)
    assert capsys.readouterr().err == ""


def test_a_record_that_cannot_be_formatted_is_still_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a failed write gives the file up: a bad record is a bug to see, and the next line
    is written."""
    log_file = tmp_path / "arena.jsonl"
    configure_logging("warning", log_file)
    logging.getLogger("arena.test").info("%d apples", "no number")
    logging.getLogger("arena.test").info("written")
    err = capsys.readouterr().err
    assert "--- Logging error ---" in err and "warning: cannot write" not in err
    configure_logging("warning", None)
    assert '"event": "written"' in log_file.read_text(encoding="utf-8")


@needs_dev_full
def test_a_league_logging_to_a_full_disk_warns_once_and_keeps_its_results(
    tmp_path: Path,
) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(DICE, encoding="utf-8")
    db = tmp_path / "results.sqlite"
    result = CliRunner().invoke(
        app, ["--log-file", str(FULL), "league", str(config), "--db", str(db), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "Logging error" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [warning_for(FULL, "No space left on device")]
    assert f"results: {db}" in result.stdout


@needs_dev_full
async def test_serve_logging_to_a_full_disk_warns_once_and_serves(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        *(ARENA, "serve", "--host", LOOPBACK, "--port", "0", "--log-json", str(FULL)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )
    try:
        assert process.stderr is not None
        seen: list[str] = []
        while not any("listening" in line for line in seen):
            line = await asyncio.wait_for(process.stderr.readline(), timeout=scaled(30))
            assert line, f"serve ended before listening: {seen}"
            seen.append(line.decode())
        process.send_signal(signal.SIGTERM)
        _out, rest = await asyncio.wait_for(process.communicate(), timeout=scaled(60))
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    err = "".join(seen) + rest.decode()
    assert process.returncode == 0, err
    assert "Logging error" not in err
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        warning_for(FULL, "No space left on device")
    ]
    assert "stopped" in err
