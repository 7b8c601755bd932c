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


def longest_game(rules: Mapping[str, Any]) -> int:
    """The most decisions a legal game of ``rules`` takes: a solve game is at most
    ``max_guesses`` guesses; in a duel each seat guesses at most ``max_guesses`` times, every
    guess answered by the other (4 decisions a round), then both reveal: 4·max_guesses + 2."""
    made = BullsCowsRules.from_mapping(rules)
    return made.max_guesses if made.seats == 1 else 4 * made.max_guesses + 2


def max_decisions(rules: Mapping[str, Any]) -> int:
    """The referee's cap (`GameSpec.max_decisions`): twice the longest legal game."""
    return 2 * longest_game(rules)


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
    max_decisions=max_decisions,
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
