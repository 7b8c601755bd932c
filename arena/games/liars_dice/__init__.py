"""Liar's dice, common hand (seed 002): 2–5 seats, hidden dice, bids over all dice, challenges.

The engine is `LiarsDiceGame`; rulesets are `LiarsDiceRules` (see ``configs/rulesets``).
"""

from collections.abc import Mapping
from typing import Any

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


def longest_game(rules: Mapping[str, Any]) -> int:
    """The most decisions a legal game of ``rules`` takes. A round with D dice in play holds at
    most the whole bid ladder (every count up to D with every face: FACES·D bids, each a strict
    raise), at most one re-roll before each bid (a re-roll must be followed by the same seat's
    bid) and one challenge: 2·FACES·D + 1. One round without the ``series`` rule (D = players ×
    dice); with it, a die is lost a round until one seat alone has dice, so the rounds have
    D = players × dice, … down to 2. At most (5 seats × 10 dice, series): 15,337."""
    made = LiarsDiceRules.from_mapping(rules)
    total = made.players * made.dice
    dice_per_round = range(2, total + 1) if made.series else range(total, total + 1)
    return sum(2 * FACES * dice + 1 for dice in dice_per_round)


def max_decisions(rules: Mapping[str, Any]) -> int:
    """The referee's cap (`GameSpec.max_decisions`): twice the longest legal game."""
    return 2 * longest_game(rules)


SPEC = GameSpec(
    name="liars_dice",
    new_game=new_game,
    seats=(2, 3, 4, 5),
    default_rules=LiarsDiceRules().to_mapping(),
    title="Liar's dice (common hand)",
    max_decisions=max_decisions,
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
