"""SIGTERM and SIGHUP on the network side (records audit, H1): `arena match --server` stopped by
SIGTERM still writes its record's reveal line and shows its fresh seed, as Ctrl-C does; `arena
serve` drains on SIGHUP as it does on SIGTERM and Ctrl-C (its bots are told bye), where SIGHUP
used to kill it outright.

Nothing here asserts on time: every wait is bounded only so that a broken build fails.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from net_helpers import (
    ARENA,
    clients,
    free_port,
    running_server,
    scaled,
    server_process,
    signal_twice,
    subprocess_env,
    wait_until,
    ws_url,
)

from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot
from tests.stopped_match import assert_stopped_cleanly


async def match_under_way(records: Path, *args: str) -> asyncio.subprocess.Process:
    """``arena match … --record records`` (``args``: the rest) in a child process, once its
    first game is in the record; killed if that never comes."""
    process = await asyncio.create_subprocess_exec(
        ARENA,
        "match",
        *args,
        "--record",
        str(records),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )

    def a_game_finished() -> bool:
        return any('"type":"result"' in path.read_text("utf-8") for path in records.glob("*.jsonl"))

    try:
        await wait_until(a_game_finished, "a finished game", seconds=90)
    except BaseException:
        process.kill()
        raise
    return process


async def test_sigterm_stops_a_server_match_as_ctrl_c_does(tmp_path: Path) -> None:
    records = tmp_path / "records"
    async with running_server() as server:
        url = ws_url(server)
        bots = {f"g{k}": make_bot("mahjong", "greedy", name=f"g{k}") for k in range(1, 5)}
        async with clients(url, "mahjong", bots):
            seats = ("--server", url, "--bots", "g1,g2,g3,g4", "--games", "384")
            process = await match_under_way(records, "mahjong", *seats)
            process.send_signal(signal.SIGTERM)
            _out, raw = await asyncio.wait_for(process.communicate(), timeout=scaled(90))
    assert process.returncode is not None
    assert_stopped_cleanly(process.returncode, raw.decode(), signal.SIGTERM, records)


async def test_serve_drains_on_sighup_as_on_sigterm() -> None:
    port = free_port()
    async with server_process(port) as process:
        url = f"ws://127.0.0.1:{port}"
        client = BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name="hup",
            adapter_factory=lambda: adapter_for(url, "hup"),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        runner = asyncio.create_task(client.run())
        try:
            await wait_until(client.welcomed.is_set, "the bot's welcome")
            process.send_signal(signal.SIGHUP)
            async with asyncio.timeout(scaled(60)):
                reason = await runner
                assert await process.wait() == 0
        finally:
            runner.cancel()
    assert "shutting down" in reason


async def test_a_second_sighup_ends_the_drain_at_once(tmp_path: Path) -> None:
    # The drain waits for running tables up to --grace (300 s here); a second signal, SIGHUP as
    # well as SIGTERM or Ctrl-C, closes them at once (it used to be ignored).
    records = tmp_path / "records"
    port = free_port()
    async with server_process(port, "--grace", "300") as server:
        url = f"ws://127.0.0.1:{port}"
        bots = {name: make_bot("liars_dice", "random-guess", name=name) for name in ("x", "y")}
        async with clients(url, "liars_dice", bots):
            duel = ("--server", url, "--a", "x", "--b", "y", "--games", "1000000")
            match = await match_under_way(records, "liars-dice", *duel)
            try:
                await signal_twice(server, url, signal.SIGHUP)
                async with asyncio.timeout(scaled(60)):
                    await server.wait()
                    _out, raw = await match.communicate()
            finally:
                if match.returncode is None:
                    match.kill()
    assert match.returncode == 2, raw.decode()
    assert "shutting down" in raw.decode()


async def test_serve_started_in_the_background_still_stops_on_sigint() -> None:
    # A script's `arena serve &` starts with SIGINT ignored (the shell's rule for background
    # jobs); the server must still drain on `kill -INT`, as NETWORK.md's quick start does.
    async with server_process(free_port(), ignoring_sigint=True) as process:
        process.send_signal(signal.SIGINT)
        async with asyncio.timeout(scaled(60)):
            assert await process.wait() == 0
