"""Seeded, verifiable randomness shared by every game (walls, dice, secrets, deals).

``arena.dealing.audit`` (the dealer audit, its report in ``arena.dealing.audit_report``) and
``arena.dealing.batch`` (the numpy bridge dealer) are imported on their own: they pull in numpy,
scipy and the mahjong analysis, which a game engine dealing a wall does not need.
"""

from arena.dealing.bridge import BridgeDeal, deal_bridge
from arena.dealing.commit import check_reveal, commitment, verify_commitment
from arena.dealing.deals import draw_code, roll_dice, shuffled_wall
from arena.dealing.streams import (
    DEALING_VERSION,
    BlockHasher,
    DealingError,
    MatchSeed,
    RandomStream,
    block_message,
    label,
    random_seed,
)

__all__ = [
    "DEALING_VERSION",
    "BlockHasher",
    "BridgeDeal",
    "DealingError",
    "MatchSeed",
    "RandomStream",
    "block_message",
    "check_reveal",
    "commitment",
    "deal_bridge",
    "draw_code",
    "label",
    "random_seed",
    "roll_dice",
    "shuffled_wall",
    "verify_commitment",
]
