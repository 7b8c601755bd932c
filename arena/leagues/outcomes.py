"""What a league's matches are and what they leave: the plan of a match, each game's scores,
the match's outcome. Plain data, shared by the player (`arena.leagues.play`), the results store
(`arena.store`) and the standings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """One match of the league: its bots (A first), its key and its seed."""

    index: int
    bots: tuple[str, ...]
    seed: str

    @property
    def key(self) -> str:
        return " vs ".join(self.bots)


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One game's score per bot. ``unit`` groups games that are not independent (the four hands
    of a mahjong round share a wall); the error bars treat units as the observations."""

    index: int
    unit: int
    scores: dict[str, float]


@dataclass(slots=True)
class MatchOutcome:
    plan: MatchPlan
    games: list[GameOutcome]
    summary: dict[str, Any]
    """The match format's own report (`arena match … --json`)."""
    seconds: float
    record: str | None = None
    penalties: dict[str, int] = field(default_factory=dict)
    partial_record: str | None = None
    """While a match played in a worker process waits to be stored: the partial record that
    becomes ``record`` then (`arena.leagues.play.finish_record`); never stored."""
