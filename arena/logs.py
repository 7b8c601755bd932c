"""structlog set-up: readable lines on the terminal, JSON lines in a file."""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path
from typing import Any

import structlog

from arena.files import why_not_written

_settings: tuple[str, Path | None] = ("warning", None)
_installed: list[logging.Handler] = []
"""The root logger's handlers the last `configure_logging` made."""

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
"""The levels a ``--log-level`` option takes (any case)."""


class LogSetupError(ValueError):
    """Logging cannot be set up as asked: an unknown level, or a JSON log file that cannot be
    written. The message is one line for a command's ``error:``."""


def check_log_level(level: str) -> str:
    """``level`` in lower case, if it is one of `LOG_LEVELS`; a CLI checks it while parsing its
    options, before it does anything."""
    lowered = level.lower()
    if lowered not in LOG_LEVELS:
        raise LogSetupError(f"unknown log level {level!r}; levels: {', '.join(LOG_LEVELS)}")
    return lowered


class _CurrentStderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a line is logged, not the stream it was when
    logging was set up: that one may have been replaced and closed since (a test runner's
    capture, a CLI invoked in-process), and writing to it fails with "I/O operation on closed
    file"."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


class _LogFileHandler(logging.FileHandler):
    """The JSON log file, given up at its first failed write (a full disk, an I/O error): one
    ``warning:`` line on stderr names the file and the error, then nothing more is written to
    it. The stock handler prints a ``--- Logging error ---`` traceback for every line logged
    after that, thousands of them in a league, and the terminal drowns.

    The command goes on: a log is not the results (a league's database, a match's record), and
    stopping a league hours in, or a server with bots at its tables, for want of a log would
    lose more than the log. Those writes are the ones that must not be lost, and they report
    their own failures."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")
        self.path = path
        self.given_up = False

    def emit(self, record: logging.LogRecord) -> None:
        # Not even an attempt: the stock handler would reopen the file it closed.
        if not self.given_up:
            super().emit(record)

    def flush(self) -> None:
        if self.given_up:
            return
        try:
            super().flush()
        except OSError as exc:
            # A flush outside `emit` (at exit, or when the logging is set up again).
            self._give_up(exc)

    def handleError(self, record: logging.LogRecord) -> None:
        failure = sys.exc_info()[1]
        if not isinstance(failure, OSError):
            # A record that cannot be formatted is a bug to see, with its traceback.
            super().handleError(record)
            return
        self._give_up(failure)

    def _give_up(self, failure: OSError) -> None:
        if self.given_up:
            return
        self.given_up = True
        why = failure.strerror or str(failure) or type(failure).__name__
        # Straight to stderr, not through logging: this handler is inside a write of its own,
        # and the console's level (warning by default, error if asked) must not hide it. A
        # stderr that fails too (closed, a pipe gone) must not turn a log line into a crash.
        with contextlib.suppress(OSError, ValueError):
            print(
                f"warning: cannot write the log file {self.path} ({why}): logging to it stops; "
                "the run goes on",
                file=sys.stderr,
                flush=True,
            )
        stream, self.stream = self.stream, None
        if stream is not None:
            # Closing flushes what is still buffered, and fails as the write did.
            with contextlib.suppress(OSError):
                stream.close()


def _traceback_without_locals(colors: bool) -> structlog.dev.RichTracebackFormatter:
    """Rich's traceback as structlog prints it by default, but without each frame's local
    variables: a server frame holds bots' ``Hello`` messages (their tokens), resume tokens and
    MQTT connection ids (which grant a bot's topics on the embedded broker), and a log file or
    terminal is read by more people than those secrets are meant for."""
    return structlog.dev.RichTracebackFormatter(
        color_system="truecolor" if colors else None, show_locals=False
    )


def logging_settings() -> tuple[str, Path | None]:
    """The last `configure_logging` arguments, for worker processes to repeat."""
    return _settings


def configure_logging(level: str = "warning", json_file: Path | None = None) -> None:
    """Console output is for people (stderr, key=value); ``json_file`` gets one JSON per line.

    Context bound with ``structlog.contextvars`` (match, game, seat) appears in both. An
    unknown level or a ``json_file`` that cannot be written raises `LogSetupError` before
    anything is changed. A ``json_file`` that fails a write later (a full disk) is given up
    with one ``warning:`` line on stderr (`_LogFileHandler`), once in each process that logs
    to it (a league's workers each have their own).
    """
    global _settings, _installed
    numeric = logging.getLevelNamesMapping()[check_log_level(level).upper()]
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    handlers: list[logging.Handler] = []
    console = _CurrentStderrHandler()
    console.setLevel(numeric)
    colors = sys.stderr.isatty()
    console.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processor=structlog.dev.ConsoleRenderer(
                colors=colors, exception_formatter=_traceback_without_locals(colors)
            ),
            foreign_pre_chain=shared,
        )
    )
    handlers.append(console)
    if json_file is not None:
        try:
            json_file.parent.mkdir(parents=True, exist_ok=True)
            to_file = _LogFileHandler(json_file)
        except OSError as exc:
            raise LogSetupError(
                f"cannot write JSON logs to {json_file}: {why_not_written(json_file, exc)}"
            ) from None
        to_file.setLevel(logging.DEBUG)
        to_file.setFormatter(
            structlog.stdlib.ProcessorFormatter(
                processors=[
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    # Without it an exception's line holds ``"exc_info": true`` and no traceback.
                    structlog.processors.ExceptionRenderer(
                        structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
                    ),
                    structlog.processors.JSONRenderer(),
                ],
                foreign_pre_chain=shared,
            )
        )
        handlers.append(to_file)
    _settings = (level, json_file)
    root = logging.getLogger()
    root.handlers = handlers
    # Closed, else each reconfiguration would leak the last JSON file's descriptor. Only the
    # handlers made here: others on the root logger (a test runner's) belong to their owners.
    for replaced in _installed:
        replaced.close()
    _installed = handlers
    root.setLevel(logging.DEBUG if json_file is not None else numeric)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
