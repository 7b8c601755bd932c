"""Ctrl-C stops a league (or a match) played in one process: at once, exit 130, the finished
matches stored and resumable, no partial record left behind.

Under ``asyncio.run`` Ctrl-C cancels the running task. In-process bots are CPU-bound and answer
without ever suspending, which Python 3.11's ``asyncio.wait_for`` turned into a cancellation it
swallowed; the referee's ``_ask_once`` must let it through while keeping its deadlines.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import PlayedGame, TimeBank, play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Request
from tests.leagues.test_league_runner import THREE_DICE_BOTS

SOLVE = {"mode": "solve", "digits": 3, "alphabet": "123456789"}
# Timeouts scale on slow machines: ARENA_TEST_TIMEOUT_SCALE=4 gives four times as long.
SCALE = float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))
WAIT_S = 60.0 * SCALE
"""How long the subprocess tests wait for a step before they give up (a loaded machine is slow;
a correct run takes a few seconds)."""


class CancellingBot(Bot):
    """Answers at once, without suspending, as a CPU-bound bot does; while "thinking" on its
    first request it cancels ``target`` — a Ctrl-C arriving mid-thought."""

    def __init__(self) -> None:
        super().__init__("cancelling")
        self.target: asyncio.Task[PlayedGame] | None = None
        self.asked = 0

    async def act(self, request: Request) -> str:
        self.asked += 1
        if self.asked == 1 and self.target is not None:
            self.target.cancel()
        return "guess 456"  # not the secret: the game would go on


class SleepingBot(Bot):
    """Waits ``seconds`` (suspending) before every answer."""

    def __init__(self, seconds: float) -> None:
        super().__init__("sleeper")
        self.seconds = seconds
        self.asked = 0

    async def act(self, request: Request) -> str:
        self.asked += 1
        await asyncio.sleep(self.seconds)
        return "guess 456"


def solve_game(
    bot: Bot,
    *,
    deadline_ms: int = 10_000,
    bank: TimeBank | None = None,
    recorder: MemoryRecorder | None = None,
) -> asyncio.Task[PlayedGame]:
    """A 1A2B solve game of ``bot``, running as a task of its own (as under asyncio.run)."""
    return asyncio.create_task(
        play_game(
            "bulls_cows",
            [InProcessSeat(bot)],
            rules={**SOLVE, "max_guesses": 2},
            seed=MatchSeed.from_text("interrupt"),
            deal={"secret_index": 503},  # 987: neither the bots' guesses nor the fallbacks
            players=[bot.name],
            deadline_ms=deadline_ms,
            recorder=recorder,
            time_bank=bank,
        )
    )


@pytest.mark.parametrize("bank_ms", [None, 1_000.0])
async def test_a_cancelled_game_stops_though_the_bot_answered_at_once(
    bank_ms: float | None,
) -> None:
    bot = CancellingBot()
    bank = None if bank_ms is None else TimeBank({bot.name: bank_ms})
    game = solve_game(bot, bank=bank)
    bot.target = game
    with pytest.raises(asyncio.CancelledError):
        await game
    assert bot.asked == 1, "the game went on after it was cancelled"


async def test_a_bot_that_waits_past_deadline_and_bank_is_late_and_falls_back() -> None:
    deadline_ms = int(50 * SCALE)
    bot = SleepingBot(seconds=30.0)
    bank = TimeBank({bot.name: 50.0 * SCALE})
    recorder = MemoryRecorder()
    started = time.monotonic()
    played = await solve_game(bot, deadline_ms=deadline_ms, bank=bank, recorder=recorder)
    assert time.monotonic() - started < 10 * SCALE, "the deadline did not stop the wait"
    failures = [line for line in recorder.lines if line["type"] == "failure"]
    # Each overrun the bank cannot cover empties it and plays the fallback at once (no re-ask):
    # the first decision waits deadline + bank, the second (bank empty) the deadline alone.
    assert [f["text"] for f in failures] == [
        f"no action within {deadline_ms + 50 * SCALE:.0f} ms",
        f"no action within {deadline_ms:.0f} ms",
    ]
    assert {f["code"] for f in failures} == {"late"}
    assert bank.left(bot.name) == 0.0
    assert played.penalties == (2,)
    assert bot.asked == 2


# -- the command, as a user runs it: a subprocess sent SIGINT -----------------------------------

DICE = (
    """
name = "dice-stop"
game = "liars-dice"
games = 3000
"""
    + THREE_DICE_BOTS
)

MAHJONG = """
name = "mj-stop"
game = "mahjong"
games = 100000
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""

# The child restores Python's own SIGINT handler: a shell or CI runner may start tests with
# SIGINT ignored (a background job), which a child would inherit and then never stop.
CLI = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from arena.cli.main import main; main()"
)


def start_league(tmp_path: Path, text: str, *args: str) -> tuple[subprocess.Popen[str], Path]:
    config = tmp_path / "league.toml"
    config.write_text(text, encoding="utf-8")
    db = tmp_path / "r.sqlite"
    command = [sys.executable, "-c", CLI, "league", str(config), "--db", str(db)]
    command += ["--records", str(tmp_path / "records"), *args]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return process, db


def wait_until(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the league ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no {what} within {WAIT_S:.0f} s")
        time.sleep(0.02)


def playing(records: Path, index: int) -> Callable[[], bool]:
    """Whether match ``index``'s partial record has games in it: the match is being played,
    inside ``asyncio.run``, when the signal comes."""

    def check() -> bool:
        return any(part.stat().st_size > 0 for part in records.glob(f"*-{index:03d}-*.part"))

    return check


def interrupt(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    try:
        _out, err = process.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("Ctrl-C did not stop the league")
    return process.returncode, err


def stored(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT key, record FROM matches ORDER BY idx").fetchall()


def test_ctrl_c_stops_a_one_process_league_after_its_finished_matches(tmp_path: Path) -> None:
    records = tmp_path / "records"
    process, db = start_league(tmp_path, DICE, "--jobs", "1")
    wait_until(playing(records, 1), process, "second match")
    code, err = interrupt(process)
    assert code == 130, err
    assert "interrupted: finished matches are stored" in err
    assert "Traceback" not in err
    (first,) = stored(db)  # the second match was under way: it is not stored
    assert first[0] == "random-guess vs probability"
    # Only the stored match's record remains, complete; the interrupted one left nothing.
    assert sorted(records.iterdir()) == [Path(first[1])]
    assert Path(first[1]).read_text(encoding="utf-8").count('"type":"result"') == 3000

    # The same command again plays only the rest.
    process, db = start_league(tmp_path, DICE, "--jobs", "1", "--json")
    out, err = process.communicate(timeout=WAIT_S * 3)
    assert process.returncode == 0, err
    result = json.loads(out)
    assert (result["matches_resumed"], result["matches_played"]) == (1, 2)
    assert [key for key, _record in stored(db)] == [
        "random-guess vs probability",
        "random-guess vs type5",
        "probability vs type5",
    ]


def test_ctrl_c_stops_the_last_match_of_a_two_bot_league(tmp_path: Path) -> None:
    # Two bots make one match: it is played in this process whatever --jobs says.
    records = tmp_path / "records"
    process, db = start_league(tmp_path, MAHJONG, "--jobs", "2")
    wait_until(playing(records, 0), process, "first hands")
    code, err = interrupt(process)
    assert code == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert stored(db) == []
    assert list(records.iterdir()) == []
