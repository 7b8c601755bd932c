"""Liar's dice rules the rest of the suite left unchecked (found by a mutation audit)."""

from __future__ import annotations

from arena.games.liars_dice import CHALLENGE, Bid, LiarsDiceGame, LiarsDiceRules


def test_wild_ones_come_back_in_the_next_round_of_a_series() -> None:
    # docs/RULES.md, liar's dice options: ones are wild "until someone bids ones in the round"
    # (seed 002 §2.2 ext. 1), so a ones bid switches them off for that round only.
    rules = LiarsDiceRules(ones_wild=True, series=True)
    game = LiarsDiceGame.with_dice(rules, [[1, 1, 2, 3, 4], [1, 5, 5, 6, 6]])
    game.apply(0, Bid(2, 1))
    assert not game.ones_wild
    game.apply(1, CHALLENGE)
    assert not game.is_over() and game.round == 1
    assert game.ones_wild
    assert all(game.observation(seat).ones_wild for seat in range(2))
