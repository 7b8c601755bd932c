"""In a mahjong league a bot that makes random choices plays a stream derived from the match seed
(as in `arena match` and `bots run`), never one seeded by its public name alone; and a league
with such bots has a fingerprint of its own, since its games changed when that came in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import arena.leagues.config as league_config
import arena.leagues.play as play
from arena.dealing import MatchSeed
from arena.leagues.config import load_league
from arena.leagues.play import plan_matches, play_league_match
from arena.matches.bot_seeds import bot_options
from tests.leagues.test_league_secret_seed import write

LEAGUE = """
name = "seeded"
game = "mahjong"
games = 4
jobs = 1
seed = "open"
layout = "ab"
[[bots]]
name = "random"
[[bots]]
name = "greedy"
"""


async def test_league_random_bots_play_seeds_derived_from_the_match_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_league(write(tmp_path, LEAGUE))
    (plan,) = plan_matches(config)
    built: list[tuple[str, dict[str, Any], str]] = []
    make_bot = play.make_bot

    def spy(game: str, strategy: str, options: dict[str, Any], *, name: str) -> Any:
        built.append((strategy, dict(options), name))
        return make_bot(game, strategy, options, name=name)

    monkeypatch.setattr(play, "make_bot", spy)
    outcome = await play_league_match(config, plan)
    assert len(outcome.games) == 4
    randoms = [(options, name) for strategy, options, name in built if strategy == "random"]
    assert len(randoms) == 2
    match_seed = MatchSeed.from_text(plan.seed)
    for options, name in randoms:
        assert options["seed"] == bot_options(match_seed, name, {})["seed"]
        assert name not in options["seed"]
    assert all("seed" not in options for strategy, options, _ in built if strategy == "greedy")


def test_a_mahjong_league_with_seeded_bots_gets_a_fingerprint_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_league(write(tmp_path, LEAGUE))
    derived = config.fingerprint()
    # Were random a bot without a seed, the league would fingerprint as it did before.
    monkeypatch.setattr(league_config, "UNSEEDED", league_config.UNSEEDED | {("mahjong", "random")})
    assert config.fingerprint() != derived


def test_a_server_league_keeps_its_fingerprint(tmp_path: Path) -> None:
    # Its names are connected bots, which seed themselves: their games did not change.
    server_league = f"""
name = "remote"
game = "mahjong"
games = 4
seed = "{"ab" * 32}"
server = "ws://127.0.0.1:8765"
[[bots]]
name = "g1"
[[bots]]
name = "g2"
[[bots]]
name = "g3"
[[bots]]
name = "g4"
"""
    config = load_league(write(tmp_path, server_league))
    # What the release before derived mahjong bot seeds (867ebb0) gives for this league: a
    # half-played server league stored then must resume, not start again.
    assert config.fingerprint() == (
        "9908cbb3104327bd64acf6c61d6ebac98e14860de0abba4cd03d0677eb522497"
    )
