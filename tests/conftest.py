"""Shared test set-up: quiet logs (warnings only) so test output stays readable."""

from arena.logs import configure_logging

configure_logging("warning")
