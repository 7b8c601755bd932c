"""Game-by-game results of a strategy against type21, shared by the tests that check a switch
leaves random-guess's draws untouched (whole numbers and real numbers)."""

from __future__ import annotations

from arena.dealing import MatchSeed
from arena.matches.liars_dice_series import make_ld_bot, play_duel
from bots.liars_dice import LiarsDiceBot, RandomGuess


def type21_outcomes(strategy: RandomGuess, seed_text: str, games: int = 300) -> list[bool]:
    """``strategy`` (seat 0, bot stream seed "7") against a fresh type21 on ``seed_text``."""
    bot = LiarsDiceBot("player", strategy, "7")
    opponent = make_ld_bot("type21")
    seed = MatchSeed.from_text(seed_text)
    return play_duel(bot, opponent, games, seed, match_id="n", driver="direct").outcomes
