"""The JSON log file given up at its first failed write (`arena.logs._LogFileHandler`): what a
mutation audit of the day's code found untested. A failure at a flush of its own (when the
logging is set up again), a stderr that fails too, and an error that carries only its text."""

from __future__ import annotations

import errno
import io
import logging
from pathlib import Path
from typing import Any

import pytest
import structlog

from arena.logs import configure_logging


class FailingStream:
    """A file whose every write, flush and close fails with ``error``."""

    def __init__(self, error: OSError) -> None:
        self.error = error

    def write(self, _text: str) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error

    def close(self) -> None:
        raise self.error


def _file_handler() -> Any:
    (handler,) = [h for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
    return handler


def warning_for(path: Path, why: str) -> str:
    return (
        f"warning: cannot write the log file {path} ({why}): logging to it stops; the run goes on"
    )


def test_a_log_file_that_fails_when_the_logging_is_set_up_again_is_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing logged since the disk went bad: the failure comes at the flush of closing, and
    # is one warning line, not an error out of the command's set-up.
    log_file = tmp_path / "arena.jsonl"
    configure_logging("warning", log_file)
    _file_handler().stream = FailingStream(OSError(errno.EIO, "Input/output error"))
    configure_logging("warning", None)
    assert capsys.readouterr().err.splitlines() == [warning_for(log_file, "Input/output error")]


def test_a_failing_log_file_with_a_closed_stderr_does_not_stop_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nowhere to say that the log is given up (a terminal gone, a pipe closed): the command's
    # log lines still return, rather than raise out of whatever the command was doing.
    log_file = tmp_path / "arena.jsonl"
    configure_logging("warning", log_file)
    _file_handler().stream = FailingStream(OSError(errno.ENOSPC, "No space left on device"))
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stderr", closed)
    log = structlog.get_logger("arena.test")
    log.info("first")  # below the console's level: only the file would have it
    log.info("second")
    monkeypatch.undo()
    configure_logging("warning", None)


def test_a_failure_with_only_a_text_is_named_by_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Not every OSError has an errno's words (a file system's own error, a wrapper's): its text
    # says what went wrong, not the bare class name.
    log_file = tmp_path / "arena.jsonl"
    configure_logging("warning", log_file)
    _file_handler().stream = FailingStream(OSError("quota of the log volume exceeded"))
    structlog.get_logger("arena.test").info("line")
    assert capsys.readouterr().err.splitlines() == [
        warning_for(log_file, "quota of the log volume exceeded")
    ]
    configure_logging("warning", None)
