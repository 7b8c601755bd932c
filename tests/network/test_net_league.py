"""`arena league FILE --server URL`: a league's matches as tables of connected bots, with the
games of the same league played in-process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from net_helpers import (
    clients,
    play_and_read,
    run_arena,
    running_server,
    without_names,
    ws_url,
)

from arena.leagues.config import load_league
from arena.leagues.runner import LeagueIncompleteError
from bots.registry import make_bot

MAHJONG_ON_SERVER = """
name = "table"
game = "mahjong"
games = 4
seed = "5555555555555555555555555555555555555555555555555555555555555555"
[[bots]]
name = "g1"
[[bots]]
name = "g2"
[[bots]]
name = "g3"
[[bots]]
name = "g4"
"""


async def test_a_league_on_a_server_gives_the_in_process_games(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(MAHJONG_ON_SERVER, encoding="utf-8")
    local_config = tmp_path / "local.toml"
    local_config.write_text(
        MAHJONG_ON_SERVER.replace('name = "g', 'bot = "greedy"\nname = "g').replace(
            'game = "mahjong"', 'game = "mahjong"\nlayout = "rotate"'
        ),
        encoding="utf-8",
    )
    db = str(tmp_path / "r.sqlite")
    local = await run_arena("league", str(local_config), "--db", db, "--json")
    async with running_server() as server:
        bots = {f"g{k}": make_bot("mahjong", "greedy", name=f"g{k}") for k in range(1, 5)}
        async with clients(ws_url(server), "mahjong", bots):
            remote = await run_arena(
                "league", str(config), "--db", db, "--server", ws_url(server), "--json"
            )
    assert remote["matches_played"] == 1
    (match,) = remote["matches"]
    (local_match,) = local["matches"]
    assert match["match"] == local_match["match"] == "g1 vs g2 vs g3 vs g4"
    players = match["summary"]["players"]
    assert without_names(players) == without_names(local_match["summary"]["players"])
    assert remote["standings"] == local["standings"]


DICE_ON_SERVER = """
name = "dice"
seed = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
game = "liars-dice"
games = 12
jobs = 2
[[bots]]
name = "p1"
[[bots]]
name = "p2"
[[bots]]
name = "p3"
[[bots]]
name = "p4"
"""


async def test_disjoint_pairings_play_at_once_and_every_match_is_stored(tmp_path: Path) -> None:
    config = tmp_path / "dice.toml"
    config.write_text(DICE_ON_SERVER, encoding="utf-8")
    db = str(tmp_path / "r.sqlite")
    async with running_server() as server:
        # The probability baseline is deterministic, so the results do not depend on which
        # tables ran together.
        bots = {f"p{k}": make_bot("liars_dice", "probability", name=f"p{k}") for k in range(1, 5)}
        async with clients(ws_url(server), "liars_dice", bots):
            both = await run_arena(
                "league", str(config), "--db", db, "--server", ws_url(server), "--json"
            )
            # Into another file: a --restart here would deal every match from a fresh seed
            # (the bots have seen the first deals), so the results would differ.
            alone = await run_arena(
                "league",
                str(config),
                "--db",
                str(tmp_path / "alone.sqlite"),
                "--server",
                ws_url(server),
                "--jobs",
                "1",
                "--json",
            )
    assert both["matches_played"] == alone["matches_played"] == 6
    assert both["standings"] == alone["standings"]
    assert sum(row["score"] for row in both["standings"]) == 6 * 12


async def test_matches_whose_bots_never_come_are_reported_and_the_rest_stored(
    tmp_path: Path,
) -> None:
    config_file = tmp_path / "dice.toml"
    config_file.write_text(
        DICE_ON_SERVER.replace("jobs = 2", "start_timeout_s = 2.0"), encoding="utf-8"
    )
    async with running_server() as server:
        config = load_league(config_file, server=ws_url(server))
        # p4 never connects: its three matches fail, the other three are played and stored.
        bots = {f"p{k}": make_bot("liars_dice", "probability", name=f"p{k}") for k in range(1, 4)}
        async with clients(ws_url(server), "liars_dice", bots):
            error, keys = await asyncio.to_thread(play_and_read, config, tmp_path / "r.sqlite")
    assert keys == {"p1 vs p2", "p1 vs p3", "p2 vs p3"}
    assert isinstance(error, LeagueIncompleteError)
    assert error.run is not None
    assert (error.run.played, len(error.run.outcomes), error.run.complete) == (3, 3, False)
    message = str(error)
    assert message.startswith("3 of 6 matches could not be played")
    assert "p1 vs p4" in message and "p4" in message
