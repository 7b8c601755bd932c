"""A small valid observation, for tests that need a request of some game and not a game's."""

from __future__ import annotations

from protocol.games.bulls_cows import BullsCowsObservation


def solve_observation(seat: int) -> BullsCowsObservation:
    """A 1A2B observation of ``seat`` before its first guess (4 digits of 0-9, solve mode)."""
    return BullsCowsObservation(
        mode="solve",
        digits=4,
        alphabet="0123456789",
        seat=seat,
        max_guesses=10,
        phase="guess",
        to_act=[seat],
        guesses=[],
        answers=[],
    )
