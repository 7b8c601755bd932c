"""A bot config's own ``seed`` names a stream within the match: it never makes a bot play the
same choices whatever the match seed (a league pairing of two seeded configs repeated its games
under every league seed)."""

from __future__ import annotations

from arena.dealing import MatchSeed
from arena.matches.bot_seeds import bot_options
from arena.matches.bulls_cows import play_series

SEEDED = {"answerer": "evader", "seed": "1"}


async def test_seeded_configs_still_follow_the_match_seed() -> None:
    # Two deterministic guessers against never-conceding evaders always both solve in six:
    # the random guesser's games vary, so another match seed shows in the scores.
    runs = [
        await play_series(
            "optimal", "random", 12, seed, a_config=SEEDED, b_config={**SEEDED, "seed": "2"}
        )
        for seed in ("match-1", "match-2", "match-1")
    ]
    assert runs[0].scores == runs[2].scores, "the same match seed must replay the same games"
    assert runs[0].scores != runs[1].scores, "another match seed must give other games"


def test_a_config_seed_is_a_stream_of_the_match_seed() -> None:
    one, two = MatchSeed.from_text("one"), MatchSeed.from_text("two")
    options = bot_options(one, "a", SEEDED)
    assert options["answerer"] == "evader"
    assert options["seed"] != "1"
    assert options["seed"] != bot_options(two, "a", SEEDED)["seed"]
    assert options["seed"] != bot_options(one, "a", {**SEEDED, "seed": "2"})["seed"]
    assert options["seed"] != bot_options(one, "b", SEEDED)["seed"]
    assert bot_options(one, "a", {})["seed"] == one.derive("bots", "a").hex()
