"""A bot written only from docs/PROTOCOL.md (plain_client.py, a separate process importing none
of our packages) plays one whole game of each kind against our bots."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from net_helpers import PYTHON, clients, running_server, scaled, wait_until, ws_url

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.server.remote import remote_seats
from bots.registry import make_bot

PLAIN = Path(__file__).with_name("plain_client.py")


def table(game: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """Rules, deal and the opponents (name → strategy) for one game of ``game``."""
    if game == "mahjong":
        from arena.games.mahjong.rules import MahjongRules

        deal = {"round": 0, "hand": 0, "scores": [0, 0, 0, 0]}
        return MahjongRules().to_mapping(), deal, {f"greedy{i}": "greedy" for i in (1, 2, 3)}
    if game == "liars_dice":
        from arena.games.liars_dice.rules import LiarsDiceRules

        return LiarsDiceRules().to_mapping(), {"game_index": 0, "first": 0}, {"bluff": "type3"}
    rules = {"mode": "duel", "digits": 3, "alphabet": "123456789", "max_guesses": 20}
    return rules, {"game_index": 0}, {"solver": "super-comparison"}


@pytest.mark.parametrize("game", ["bulls_cows", "liars_dice", "mahjong"])
async def test_a_client_written_from_the_docs_plays_a_whole_game(game: str) -> None:
    rules, deal, opponents = table(game)
    async with running_server() as server:
        url = ws_url(server)
        plain = await asyncio.create_subprocess_exec(
            PYTHON, str(PLAIN), url, "plain", game, stdout=asyncio.subprocess.PIPE
        )
        try:
            bots = {
                name: make_bot(game, strategy, {}, name=name)
                for name, strategy in opponents.items()
            }
            async with clients(url, game, bots):
                await wait_until(
                    lambda: "plain" in server.hub.lobby.sessions, "the plain client's hello"
                )
                names = ["plain", *opponents]
                recorder = MemoryRecorder()
                async with remote_seats(url, names, game=game) as seats:
                    played = await play_game(
                        game,
                        seats,
                        rules=rules,
                        seed=MatchSeed.from_text(f"plain-{game}"),
                        deal=deal,
                        players=names,
                        deadline_ms=round(scaled(10_000)),
                        recorder=recorder,
                    )
            async with asyncio.timeout(scaled(30)):
                out, _ = await plain.communicate()
        finally:
            if plain.returncode is None:
                plain.kill()
                await plain.wait()
    assert plain.returncode == 0
    summary = json.loads(out)
    assert summary["errors"] == []
    assert summary["answered"] > 0
    assert summary["game_end"]["scores"] == list(played.result.scores)
    assert played.penalties == (0,) * len(names)
    assert not [line for line in recorder.lines if line["type"] == "failure"]
