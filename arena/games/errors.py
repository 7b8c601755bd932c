"""The engines' exception tree.

As in python-chess, a text that cannot be read as an action (`InvalidActionError`) is kept apart
from a well-formed action that the rules forbid now (`IllegalActionError`); the referee maps each
to its own protocol error code.
"""

from arena.errors import ArenaError


class GameError(ArenaError, ValueError):
    """Root of every error raised by a rules engine."""


class InvalidActionError(GameError):
    """The action text is malformed: it does not name any action of this game."""


class IllegalActionError(GameError):
    """The action is well formed but not legal for this seat in this state."""


class NotYourTurnError(IllegalActionError):
    """The seat is not among those whose decision is due."""


class RulesetError(GameError):
    """A ruleset has an unknown key or a bad value; the message names the key."""


class DecisionCapError(GameError):
    """A game was not over after its `GameSpec.max_decisions` decisions, more than any legal
    game takes: its engine never ends (a bug of the engine, never a bot's fault), and the
    referee stops the match with this error."""
