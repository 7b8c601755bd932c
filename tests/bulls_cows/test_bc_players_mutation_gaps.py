"""1A2B player rules the rest of the suite left unchecked (found by a mutation audit of the
guessers, answerers and search of seed 004 and docs/STRATEGIES.md)."""

from __future__ import annotations

import numpy as np

from arena.dealing import MatchSeed
from arena.games.bulls_cows import code_space
from bots.bulls_cows import EvaderAnswerer
from bots.bulls_cows.guessers import consistent, entropy_scores, partition_counts
from bots.bulls_cows.search import RolloutSearch

SEED = MatchSeed.from_text("bc-mutation-gaps")


def test_the_evaders_reveal_is_a_random_code_of_what_is_left() -> None:
    """保護範圍法 has no secret: at the end it "reveals a random code of what is left", so the
    code shown after the same answers varies, and always matches them."""
    space = code_space()
    answered = [(space.index["123"], space.encode(0, 0))]
    left = set(consistent(space, answered).tolist())
    assert len(left) == 120  # three of 4–9, in order
    evader = EvaderAnswerer(SEED.stream("reveal"))
    revealed = [evader.reveal(space, answered) for _ in range(60)]
    assert set(revealed) <= left
    assert len(set(revealed)) > 20


def test_rollout_penalises_only_secrets_left_after_max_depth_guesses() -> None:
    """RolloutSearch: secrets left unsolved after ``max_depth`` guesses cost ``penalty`` each; a
    secret found by guess number ``max_depth`` costs its guess alone."""
    space = code_space()

    def greedy(secrets: np.ndarray) -> np.ndarray:
        return entropy_scores(partition_counts(space, None, secrets))

    search = RolloutSearch(space, greedy, max_depth=7, penalty=1000)
    one = np.array([space.index["123"]], dtype=np.int64)
    assert search.greedy_cost(one, 7) == 1
    assert search.greedy_cost(one, 8) == 1 + 1000
