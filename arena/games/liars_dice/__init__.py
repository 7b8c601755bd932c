"""Liar's dice, common hand (seed 002): 2–5 seats, hidden dice, bids over all dice, challenges.

The engine is `LiarsDiceGame`; rulesets are `LiarsDiceRules` (see ``configs/rulesets``).
"""

from arena.games.base import GameSpec
from arena.games.liars_dice.actions import (
    CHALLENGE,
    FACES,
    Bid,
    Challenge,
    LiarsDiceAction,
    Reroll,
    broken_bid_rule,
    face_counts,
    matching,
    parse_action,
    raises_after,
)
from arena.games.liars_dice.engine import LiarsDiceGame, new_game
from arena.games.liars_dice.rules import LiarsDiceRules, load_ruleset

SPEC = GameSpec(
    name="liars_dice",
    new_game=new_game,
    seats=(2, 3, 4, 5),
    default_rules=LiarsDiceRules().to_mapping(),
    title="Liar's dice (common hand)",
    action_grammar=(
        "bid 3x5 — a bid: at least 3 of all dice on the table show 5; a raise is a higher count, "
        "or the same count with a higher face",
        "challenge — call the standing bid a lie; all dice are revealed",
        "reroll 66 — re-roll rule only: show two 6s of your cup to everyone (they stay out) and "
        "re-roll the rest, then bid; 'reroll -' shows none and re-rolls the whole cup",
    ),
)

__all__ = [
    "CHALLENGE",
    "FACES",
    "SPEC",
    "Bid",
    "Challenge",
    "LiarsDiceAction",
    "LiarsDiceGame",
    "LiarsDiceRules",
    "Reroll",
    "broken_bid_rule",
    "face_counts",
    "load_ruleset",
    "matching",
    "new_game",
    "parse_action",
    "raises_after",
]
