"""Gauntlets made up from win rates, for the tests of the targets' verdicts: no game is played."""

from __future__ import annotations

import random

from arena.bench.liars_dice import Gauntlet
from arena.matches.liars_dice_series import Duel

GAMES = 400


def won(rate: float, key: str = "") -> list[bool]:
    """``rate`` of the games won, at places drawn from ``key``: two bots' duels of one key pair
    win for win as far as both go (the better one wins a superset), while duels of different
    keys (personalities, seeds) win and lose at unrelated game indices, as independent duels
    would (the pooled intervals are clustered by game index)."""
    order = list(range(GAMES))
    random.Random(key).shuffle(order)
    wins = set(order[: round(rate * GAMES)])
    return [n in wins for n in range(GAMES)]


def played(bot: str, seed: str, outcomes: list[list[bool]]) -> Gauntlet:
    """A gauntlet of ``bot`` on ``seed`` whose k-th duel, against type k+1, went ``outcomes[k]``."""
    duels = [Duel(f"type{k + 1}", games) for k, games in enumerate(outcomes)]
    return Gauntlet(bot, GAMES, seed, duels, seconds=1.0, driver="direct")
