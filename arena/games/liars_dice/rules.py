"""Liar's dice rulesets: a checked, immutable value read from a mapping or a TOML file.

Every option is off by default, as in the seed's experiments (two players, five dice each, one
round, no wild ones). An unknown key or a bad value raises `RulesetError` naming the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.games.errors import RulesetError

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_DICE = 10
_META_KEYS = frozenset({"game", "title", "description"})


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

    def __post_init__(self) -> None:
        _check_int("players", self.players, MIN_PLAYERS, MAX_PLAYERS)
        _check_int("dice", self.dice, 1, MAX_DICE)
        _check_int("min_open", self.min_open, 1, self.players * self.dice)
        _check_bool("ones_wild", self.ones_wild)
        _check_bool("series", self.series)

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


def _check_int(key: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(f"rule {key!r} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise RulesetError(f"rule {key!r} must be between {low} and {high}, got {value}")


def _check_bool(key: str, value: object) -> None:
    if not isinstance(value, bool):
        raise RulesetError(f"rule {key!r} must be true or false, got {value!r}")


def load_ruleset(path: str | Path) -> LiarsDiceRules:
    """Read a ruleset file: optional ``game``/``title``/``description`` and a ``[rules]`` table."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{path}: not valid TOML: {exc}") from exc
    game = data.get("game", "liars_dice")
    if game != "liars_dice":
        raise RulesetError(f"{path}: key 'game' is {game!r}, not 'liars_dice'")
    for key in data:
        if key != "rules" and key not in _META_KEYS:
            raise RulesetError(f"{path}: unknown key {key!r}; put rules under [rules]")
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise RulesetError(f"{path}: key 'rules' must be a table")
    try:
        return LiarsDiceRules.from_mapping(rules)
    except RulesetError as exc:
        raise RulesetError(f"{path}: {exc}") from exc
