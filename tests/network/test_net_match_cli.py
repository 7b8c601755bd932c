"""`arena match … --server URL`: the same figures as the same match played in-process."""

from __future__ import annotations

import asyncio

from net_helpers import (
    ARENA,
    clients,
    run_arena,
    running_server,
    scaled,
    subprocess_env,
    without_names,
    ws_url,
)

from arena.dealing import MatchSeed
from bots.registry import make_bot


def bot_seed(match_seed: str, *parts: str) -> str:
    """The seed in-process bots get: derived from the match seed, never the seed itself."""
    return MatchSeed.from_text(match_seed).derive("bots", *parts).hex()


# A match on a server takes only a secret seed (64 hex digits): a text seed could be guessed
# from its commitment.
SEED_5 = "5" * 64
SEED_8 = "8" * 64
MATCH = ["match", "mahjong", "--games", "4", "--seed", SEED_5, "--json"]


async def test_match_over_the_server_equals_the_in_process_match() -> None:
    # On a server every seat is asked on each claim by default (competition-server), so the
    # same decisions come in-process under that ruleset.
    local = await run_arena(
        *MATCH, "--bots", "greedy,greedy,greedy,greedy", "--ruleset", "competition-server"
    )
    async with running_server() as server:
        bots = {f"g{k}": make_bot("mahjong", "greedy", name=f"g{k}") for k in range(1, 5)}
        async with clients(ws_url(server), "mahjong", bots):
            remote = await run_arena(*MATCH, "--server", ws_url(server), "--bots", "g1,g2,g3,g4")
    assert [p["bot"] for p in remote["players"]] == ["g1", "g2", "g3", "g4"]
    assert without_names(remote["players"]) == without_names(local["players"])
    assert remote["decisions"] == local["decisions"]


async def test_server_with_the_ab_layout_is_refused_clearly() -> None:
    process = await asyncio.create_subprocess_exec(
        ARENA,
        *MATCH,
        "--server",
        "ws://127.0.0.1:9",
        "--bots",
        "a,b",
        "--layout",
        "ab",
        stderr=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        env=subprocess_env(),
    )
    _, err = await asyncio.wait_for(process.communicate(), timeout=scaled(60))
    assert process.returncode == 2
    assert "--server plays the rotate layout" in err.decode()


async def test_1a2b_series_over_the_server_equals_the_in_process_series() -> None:
    series = ["match", "bulls-cows", "--games", "6", "--seed", SEED_5, "--json"]
    local = await run_arena(*series, "--a", "optimal", "--b", "super-comparison")
    async with running_server() as server:
        # The in-process series seeds bot A and bot B from seeds derived from the match seed.
        bots = {
            "p1": make_bot("bulls_cows", "optimal", {"seed": bot_seed(SEED_5, "a")}, name="p1"),
            "p2": make_bot(
                "bulls_cows", "super-comparison", {"seed": bot_seed(SEED_5, "b")}, name="p2"
            ),
        }
        async with clients(ws_url(server), "bulls_cows", bots):
            remote = await run_arena(*series, "--server", ws_url(server), "--a", "p1", "--b", "p2")
    for key in ("games", "draws", "reasons", "score_diff_mean"):
        assert remote[key] == local[key], key
    for key in ("wins", "penalties"):
        assert list(remote[key].values()) == list(local[key].values()), key


async def test_liars_dice_match_over_the_server_equals_the_in_process_match() -> None:
    match = ["match", "liars-dice", "--games", "20", "--seed", SEED_5, "--json"]
    local = await run_arena(*match, "--a", "bayes", "--b", "random-guess")
    async with running_server() as server:
        # Same names and seeds as the in-process match, so the bots draw the same streams.
        bots = {
            name: make_bot("liars_dice", name, {"seed": bot_seed(SEED_5, side)}, name=name)
            for name, side in (("bayes", "a"), ("random-guess", "b"))
        }
        async with clients(ws_url(server), "liars_dice", bots):
            remote = await run_arena(
                *match, "--server", ws_url(server), "--a", "bayes", "--b", "random-guess"
            )
    assert {k: v for k, v in remote.items() if k != "seconds"} == {
        k: v for k, v in local.items() if k != "seconds"
    }


async def test_a_liars_dice_table_over_the_server_equals_the_in_process_table() -> None:
    names = ("bayes", "probability", "type23")
    table = ["match", "liars-dice", "--games", "12", "--seed", SEED_8, "--json"]
    table += ["--bots", ",".join(names)]
    local = await run_arena(*table)
    async with running_server() as server:
        bots = {
            name: make_bot("liars_dice", name, {"seed": bot_seed(SEED_8, name)}, name=name)
            for name in names
        }
        async with clients(ws_url(server), "liars_dice", bots):
            remote = await run_arena(*table, "--server", ws_url(server))
    assert remote["results"] == local["results"]
    assert remote["decisions"] == local["decisions"]
