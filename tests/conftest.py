"""Shared test set-up: quiet logs (warnings only) so test output stays readable."""

from collections.abc import Iterator

import pytest

from arena.logs import configure_logging, logging_settings

QUIET = ("warning", None)

configure_logging(*QUIET)


@pytest.fixture(autouse=True)
def _quiet_logs_again() -> Iterator[None]:
    """A command run in-process (`arena serve`, `bots run`) sets its own log level, info by
    default; put the quiet one back after the test, or a server thread of a later test logs
    at info onto the terminal between two tests."""
    yield
    if logging_settings() != QUIET:
        configure_logging(*QUIET)
