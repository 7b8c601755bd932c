"""Seeded, verifiable randomness shared by every game (walls, dice, secrets, deals)."""

from arena.dealing.deals import draw_code, roll_dice, shuffled_wall
from arena.dealing.streams import (
    DEALING_VERSION,
    DealingError,
    MatchSeed,
    RandomStream,
    label,
    random_seed,
)

__all__ = [
    "DEALING_VERSION",
    "DealingError",
    "MatchSeed",
    "RandomStream",
    "draw_code",
    "label",
    "random_seed",
    "roll_dice",
    "shuffled_wall",
]
