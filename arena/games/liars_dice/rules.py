"""Liar's dice rulesets: a checked, immutable value read from a mapping or a TOML file.

Every option is off by default, as in the seed's experiments (two players, five dice each, one
round, no wild ones). An unknown key or a bad value raises `RulesetError` naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.games import rulesets
from arena.games.errors import RulesetError

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_DICE = 10
GAME = "liars_dice"


@dataclass(frozen=True, slots=True)
class LiarsDiceRules:
    players: int = 2
    """Seats at the table (2–5)."""
    dice: int = 5
    """Dice each seat starts with (1–10)."""
    min_open: int = 2
    """Least count an opening bid may claim (the seed: two)."""
    ones_wild: bool = False
    """Ones count as any face until someone bids ones in the round (seed §2.2 extension 1)."""
    series: bool = False
    """Dice-loss series: the loser of a challenge drops a die and a new round starts, until one
    seat alone has dice (seed §2.2 extension 3). Off: one round, the challenge ends the game."""
    reroll: bool = False
    """Re-roll (seed §2.2 extension 2): on its turn a seat may show some dice of its cup (public
    until the round ends) and re-roll the rest, once per turn; it must then bid."""

    def __post_init__(self) -> None:
        rulesets.check_int("players", self.players, MIN_PLAYERS, MAX_PLAYERS)
        rulesets.check_int("dice", self.dice, 1, MAX_DICE)
        rulesets.check_int("min_open", self.min_open, 1, self.players * self.dice)
        rulesets.check_bool("ones_wild", self.ones_wild)
        rulesets.check_bool("series", self.series)
        rulesets.check_bool("reroll", self.reroll)

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any]) -> LiarsDiceRules:
        known = cls.__dataclass_fields__
        for key in rules:
            if key not in known:
                raise RulesetError(
                    f"unknown liar's dice rule {key!r}; known rules: {', '.join(sorted(known))}"
                )
        return cls(**dict(rules))

    def to_mapping(self) -> dict[str, Any]:
        return asdict(self)


def load_ruleset(path: str | Path) -> LiarsDiceRules:
    """Read a ruleset file: optional ``game``/``title``/``description`` and a ``[rules]`` table."""
    path = rulesets.ruleset_path(GAME, path)
    rules = rulesets.rules_table(GAME, path, game_key_required=False)
    try:
        return LiarsDiceRules.from_mapping(rules)
    except RulesetError as exc:
        raise RulesetError(f"{path}: {exc}") from exc
