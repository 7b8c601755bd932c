"""Liar's dice players: random-guess (seed 002 §4.2), random-guess with the Bayesian opponent
model (§4.3), the 32 test personalities (§5.1, ``type1``…``type32``) and a probability-only
baseline. Strategies are pure classes; `LiarsDiceBot` wraps one as a `Bot`."""

from bots.liars_dice.bayes import Bayes
from bots.liars_dice.bot import BOTS, ConfigError, LiarsDiceBot, describe_options
from bots.liars_dice.opponent_model import ModelError, OpponentModel, load_model
from bots.liars_dice.personality import (
    GROUPS,
    PERSONALITIES,
    Personality,
    Probability,
    Traits,
    group_members,
)
from bots.liars_dice.random_guess import RandomGuess
from bots.liars_dice.strategy import Strategy
from bots.liars_dice.view import TableView

__all__ = [
    "BOTS",
    "GROUPS",
    "PERSONALITIES",
    "Bayes",
    "ConfigError",
    "LiarsDiceBot",
    "ModelError",
    "OpponentModel",
    "Personality",
    "Probability",
    "RandomGuess",
    "Strategy",
    "TableView",
    "Traits",
    "describe_options",
    "group_members",
    "load_model",
]
