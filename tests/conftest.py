"""Shared test set-up: quiet logs (warnings only) so test output stays readable."""

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# The engine conformance suite is a helper module the game tests import, so pytest would not
# rewrite its asserts (a failure would show a bare AssertionError): register it under both of
# the names the tests import it by, before any test module imports it.
pytest.register_assert_rewrite("conformance", "tests.conformance")

from arena.logs import configure_logging, logging_settings  # noqa: E402

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


@pytest.fixture
def structured_logs(caplog: pytest.LogCaptureFixture) -> Callable[[], list[dict[str, Any]]]:
    """The structured log entries of this test so far (its ``caplog``, read as dicts).

    structlog's ``capture_logs`` sees nothing from a module's logger once that logger has been
    used in the session (loggers are cached on first use), so a test using it passes alone and
    fails after another test that happened to log through the same module."""
    caplog.set_level(logging.DEBUG)

    def entries() -> list[dict[str, Any]]:
        return [record.msg for record in caplog.records if isinstance(record.msg, dict)]

    return entries
