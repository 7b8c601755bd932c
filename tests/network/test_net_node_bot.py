"""The JavaScript example bot for bot authors (docs/examples/node_bot.js, a Node process with
nothing of this project) plays liar's dice and 1A2B duels on a server against our bots, and
leaves on the server's bye."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from net_helpers import REPO, clients, running_server, scaled, wait_until, ws_url

from arena.matches.bulls_cows import SeriesReport, play_series
from arena.matches.liars_dice_series import MatchReport, run_match
from arena.records import MemoryRecorder
from arena.server.remote import remote_seats
from bots.registry import make_bot

NODE_BOT = REPO / "docs" / "examples" / "node_bot.js"
NAME = "jsbot"
DICE_GAMES = 30
DUEL_GAMES = 6


def node_with_websocket() -> str:
    """The node binary, if it has a built-in WebSocket (Node 20 with the flag); else skip."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the example bot needs Node 20 or later")
    probe = subprocess.run(
        [
            node,
            "--experimental-websocket",
            "-e",
            "if (typeof WebSocket !== 'function') process.exit(1)",
        ],
        capture_output=True,
        timeout=scaled(30),
    )
    if probe.returncode != 0:
        pytest.skip(f"{node} has no built-in WebSocket (needs Node 20+ --experimental-websocket)")
    return node


async def start_node_bot(node: str, url: str, log: Path) -> asyncio.subprocess.Process:
    """The example bot on the server at ``url``, its output in ``log``."""
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(
            node,
            "--experimental-websocket",
            str(NODE_BOT),
            "--url",
            url,
            "--name",
            NAME,
            "--games",
            "liars_dice,bulls_cows",
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def failures_and_fallbacks(recorder: MemoryRecorder) -> list[dict[str, object]]:
    """The record's failed answers (late, malformed, illegal: each re-asked) and the decisions
    the referee played for a seat."""
    return [
        line for line in recorder.lines if line["type"] == "failure" or line.get("fallback") is True
    ]


async def play_dice(url: str, deadline_ms: int, recorder: MemoryRecorder) -> MatchReport:
    """A liar's dice match of the node bot (A) against random-guess."""
    opponent = {"rg": make_bot("liars_dice", "random-guess", {}, name="rg")}
    async with (
        clients(url, "liars_dice", opponent),
        remote_seats(url, [NAME, "rg"], game="liars_dice") as seats,
    ):
        return await run_match(
            NAME,
            "rg",
            DICE_GAMES,
            "node-bot-dice",
            seats=(seats[0], seats[1]),
            recorder=recorder,
            deadline_ms=deadline_ms,
        )


async def play_duels(url: str, deadline_ms: int, recorder: MemoryRecorder) -> SeriesReport:
    """1A2B duels of the node bot (A) against super-comparison."""
    opponent = {"sc": make_bot("bulls_cows", "super-comparison", {}, name="sc")}
    async with (
        clients(url, "bulls_cows", opponent),
        remote_seats(url, [NAME, "sc"], game="bulls_cows") as seats,
    ):
        return await play_series(
            NAME,
            "sc",
            DUEL_GAMES,
            "node-bot-duels",
            seats=(seats[0], seats[1]),
            recorder=recorder,
            deadline_ms=deadline_ms,
        )


async def test_the_node_example_bot_plays_dice_and_duels(tmp_path: Path) -> None:
    node = node_with_websocket()
    log = tmp_path / "node_bot.log"
    dice_record, duel_record = MemoryRecorder(), MemoryRecorder()
    bot: asyncio.subprocess.Process | None = None
    try:
        async with running_server() as server:
            url = ws_url(server)
            bot = await start_node_bot(node, url, log)
            await wait_until(lambda: NAME in server.hub.lobby.sessions, "the node bot's hello")
            deadline_ms = round(scaled(10_000))
            try:
                async with asyncio.timeout(scaled(90)):
                    dice = await play_dice(url, deadline_ms, dice_record)
                    duels = await play_duels(url, deadline_ms, duel_record)
            except TimeoutError:
                pytest.fail(f"the games did not end; the node bot said:\n{log.read_text()}")
        # The server has stopped, saying bye to every bot: the example leaves on it.
        async with asyncio.timeout(scaled(15)):
            exit_code = await bot.wait()
    finally:
        if bot is not None and bot.returncode is None:
            bot.kill()
            await bot.wait()
    bot_output = log.read_text()
    print(f"liar's dice: {dice.to_json()}\n1A2B: {duels.to_json()}\n{bot_output}")
    assert exit_code == 0, bot_output
    assert "] error " not in bot_output, bot_output  # the server never had to correct it
    assert len(dice.a_won) == DICE_GAMES, bot_output
    assert dice.penalties == [0, 0], bot_output
    assert failures_and_fallbacks(dice_record) == [], bot_output
    # A sensible player beats one that bids at random well over a third of the time.
    assert dice.wins_a >= DICE_GAMES / 4, bot_output
    assert len(duels.scores) == DUEL_GAMES, bot_output
    assert duels.penalties == [0, 0], bot_output
    assert failures_and_fallbacks(duel_record) == [], bot_output
    # Honest answers, and a reveal of the code it answered with: never a breach.
    assert not {"breach", "both_breached"} & set(duels.reasons), bot_output
