"""The greedy bot's think_ms is bounded: its thinking is a busy loop that holds the event loop,
so an in-process referee could never stop an endless one (inf hung a league for ever)."""

from __future__ import annotations

import math

import pytest

from bots.mahjong import greedy
from bots.mahjong.greedy import GreedyBot

BOUND = 60_000
"""The documented bound (the module's MAX_THINK_MS)."""


@pytest.mark.parametrize("think_ms", [math.inf, -math.inf, math.nan, BOUND + 1, 1e300, 10**400])
def test_a_think_time_that_is_not_finite_or_beyond_the_bound_is_refused(think_ms: float) -> None:
    with pytest.raises(ValueError, match=f"from 0 to {BOUND}, got"):
        GreedyBot("g", {"think_ms": think_ms})


def test_the_bound_itself_is_allowed_and_documented() -> None:
    assert getattr(greedy, "MAX_THINK_MS", None) == BOUND
    assert GreedyBot("g", {"think_ms": BOUND}).think_s == 60.0
    assert GreedyBot("g", {"think_ms": 0}).think_s == 0.0
    assert "at most 60 000" in (greedy.__doc__ or "")
