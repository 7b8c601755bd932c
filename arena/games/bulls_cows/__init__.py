"""1A2B (Bulls and Cows), seed 004: codes of distinct symbols, feedback xAyB, solve and duel.

Action grammar: ``guess 123``, ``answer 1A2B``, ``reveal 123``. Rules: ``mode`` (solve | duel),
``digits``, ``alphabet``, ``max_guesses``. Deal: ``{"secret_index": i}`` names the solve-mode
secret outright (used to play every secret once); any other keys label the seeded stream
``bulls_cows/<key>/<value>/…/secret`` the secret is drawn from.
"""

from collections.abc import Mapping
from typing import Any

from arena.dealing import MatchSeed
from arena.games.base import GameSpec
from arena.games.bulls_cows.codes import CodeSpace, code_space, feedback_of
from arena.games.bulls_cows.engine import (
    DEFAULT_MAX_GUESSES,
    GAME_NAME,
    Answer,
    BullsCowsAction,
    BullsCowsGame,
    BullsCowsRules,
    Guess,
    Phase,
    Reveal,
)


def new_game(rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]) -> BullsCowsGame:
    return BullsCowsGame(rules, seed, deal)


SPEC = GameSpec(
    name=GAME_NAME,
    new_game=new_game,
    seats=(1, 2),
    default_rules={
        "mode": "solve",
        "digits": 3,
        "alphabet": "123456789",
        "max_guesses": DEFAULT_MAX_GUESSES,
    },
    title="1A2B (Bulls and Cows)",
    action_grammar=(
        "guess 123 — guess a code (n distinct symbols of the alphabet)",
        "answer 1A2B — answer the opponent's pending guess (duel; any answer that leaves a code "
        "consistent with all your answers)",
        "reveal 123 — show your code at the end of a duel (it must match every answer you gave)",
    ),
)

__all__ = [
    "SPEC",
    "Answer",
    "BullsCowsAction",
    "BullsCowsGame",
    "BullsCowsRules",
    "CodeSpace",
    "Guess",
    "Phase",
    "Reveal",
    "code_space",
    "feedback_of",
    "new_game",
]
