"""The situation of seed 002 圖 4.12–4.17, shared by the tests of the Bayesian player's imagined
hand (whole numbers and real numbers): the opponent (seat 1) opens "two 3s", we bid "three 5s",
it answers "three 6s"; and opponent models sure of every belief, or of every doubt."""

from __future__ import annotations

from arena.games.liars_dice import Bid
from bots.liars_dice import OpponentModel

BIG = 10**9
"""Counts large enough that the trust n/(n+10) and the learnt probabilities are 1 − 1e-8."""

BIDS = [(1, Bid(2, 3)), (0, Bid(3, 5)), (1, Bid(3, 6))]
HAND = (1, 2, 4, 5, 5)
"""Our dice in the figures' situation."""


def believing_model() -> OpponentModel:
    """Its opening is honest, its answer to our count 3 supports our face and is honest."""
    return OpponentModel(
        opponent="opp",
        opening_lie=[BIG, 0],
        decisions={"3": BIG},
        support={"3": [0, BIG]},
        challenge={"3,1": [BIG, 0]},
        lie={"3,1": [BIG, 0]},
    )


def doubting_model() -> OpponentModel:
    """Its opening lies, its answer to our count 3 does not support our face and lies."""
    return OpponentModel(
        opponent="opp",
        opening_lie=[0, BIG],
        decisions={"3": BIG},
        support={"3": [BIG, 0]},
        challenge={"3,0": [BIG, 0]},
        lie={"3,0": [0, BIG]},
    )
