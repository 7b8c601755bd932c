"""structlog set-up: readable lines on the terminal, JSON lines in a file."""

from __future__ import annotations

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
    anything is changed.
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
            to_file = logging.FileHandler(json_file, encoding="utf-8")
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
