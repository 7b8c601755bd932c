"""A league's progress line gives each match's time in tenths, and under a tenth in two
significant digits, so that a fast match does not read as taking no time at all."""

from __future__ import annotations

import pytest

from arena.cli.league import _seconds_text


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(12.34, "12.3"), (0.1, "0.1"), (0.0312, "0.031"), (0.004, "0.004"), (0.0, "0")],
)
def test_a_match_time_is_never_shown_as_zero_unless_it_is(seconds: float, shown: str) -> None:
    assert _seconds_text(seconds) == shown
