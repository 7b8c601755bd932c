"""`arena match mahjong --server URL`: the same `players` figures as the in-process match."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from net_helpers import PYTHON, clients, running_server, scaled, subprocess_env, ws_url

from bots.registry import make_bot

ARENA = str(Path(PYTHON).with_name("arena"))
MATCH = ["match", "mahjong", "--games", "4", "--seed", "5", "--json"]


async def run_arena(*args: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        ARENA,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=scaled(120))
    assert process.returncode == 0, err.decode()
    data: dict[str, Any] = json.loads(out)
    return data


def without_names(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in p.items() if k != "bot"} for p in players]


async def test_match_over_the_server_equals_the_in_process_match() -> None:
    local = await run_arena(*MATCH, "--bots", "greedy,greedy,greedy,greedy")
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
