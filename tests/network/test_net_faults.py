"""Faults: a bot process killed mid-match, a dropped connection, a server shut down mid-match.

The referee runs in the test; a seat wrapper can hold the game still (in `send`, where no deadline
runs) while the test kills or restarts a process, so every step happens at a chosen point of the
match instead of racing it.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    PYTHON,
    clients,
    free_port,
    mosquitto,
    play_duel_game,
    running_server,
    scaled,
    server_process,
    subprocess_env,
    wait_until,
    ws_url,
)

from arena.matches.mahjong import MatchSpec, play_match
from arena.records import JsonlRecorder, read_lines
from arena.replay import check_record
from arena.server.remote import RemoteTableError, remote_seats
from arena.server.sessions import SessionState
from arena.transports.base import Seat
from bots.registry import make_bot
from protocol.messages import Action, Error, Event, Request

BOTS_SCRIPT = str(Path(PYTHON).with_name("bots"))
KILL_AFTER = 5
"""The victim is killed right after its fifth decision."""


class GatedSeat:
    """Passes everything through; `send` waits while the gate is shut (no deadline runs there)."""

    def __init__(self, seat: Seat, gate: asyncio.Event) -> None:
        self.seat = seat
        self.gate = gate

    async def send(self, message: Event | Error) -> None:
        await self.gate.wait()
        await self.seat.send(message)

    async def ask(self, request: Request) -> Action:
        return await self.seat.ask(request)


class WatchingRecorder(JsonlRecorder):
    """A JSONL record that calls ``watch(line, player)`` for each line (player of a decision)."""

    def __init__(self, path: Path, watch: Callable[[dict[str, Any], str | None], None]) -> None:
        super().__init__(path)
        self.watch = watch
        self.players: list[str] = []

    def write(self, line: dict[str, Any]) -> None:
        super().write(line)
        if line["type"] == "header":
            self.players = list(line["players"])
        player = self.players[line["seat"]] if line["type"] == "decision" else None
        self.watch(line, player)


def decisions_of(lines: Sequence[dict[str, Any]], player: str) -> list[dict[str, Any]]:
    found, players = [], []
    for line in lines:
        if line["type"] == "header":
            players = line["players"]
        elif line["type"] == "decision" and players[line["seat"]] == player:
            found.append(line)
    return found


def every_game_replays(path: Path) -> bool:
    return check_record(path).ok


async def spawn_bot(url: str, name: str, resume: Path, log: Path, *more: str) -> Any:
    return await asyncio.create_subprocess_exec(
        BOTS_SCRIPT,
        "run",
        "greedy",
        "--game",
        "mahjong",
        "--name",
        name,
        "--url",
        url,
        "--resume-file",
        str(resume),
        "--log-level",
        "info",
        *more,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
        env=subprocess_env(),
    )


@asynccontextmanager
async def server_for(transport: str, tmp: Path) -> AsyncIterator[tuple[Any, str]]:
    """A server and the URL its bots use, over ``transport``; a bot that drops is answered for
    at once (no reconnect grace: tests/network/test_net_reconnect_grace.py has that)."""
    if transport == "websocket":
        async with running_server(reconnect_grace_s=0) as server:
            yield server, ws_url(server)
    else:
        with mosquitto(tmp) as port:
            mqtt = f"mqtt://{LOOPBACK}:{port}"
            async with running_server(mqtt=mqtt, reconnect_grace_s=0) as server:
                yield server, mqtt


@pytest.mark.parametrize("transport", ["websocket", "mqtt"])
async def test_a_killed_bot_falls_back_then_resumes_mid_match(
    transport: str, tmp_path: Path
) -> None:
    gate = asyncio.Event()
    gate.set()
    killed, fell_back = asyncio.Event(), asyncio.Event()
    resume, log = tmp_path / "victim.resume", tmp_path / "victim.log"
    victim: list[Any] = []
    seen = 0

    def watch(line: dict[str, Any], player: str | None) -> None:
        # Runs inside the referee: the gate shuts before the next message goes out.
        nonlocal seen
        if player != "victim":
            return
        seen += 1
        if not killed.is_set() and seen == KILL_AFTER:
            gate.clear()
            victim[0].send_signal(signal.SIGKILL)
            killed.set()
        elif killed.is_set() and line.get("fallback") and not fell_back.is_set():
            gate.clear()
            fell_back.set()

    record = tmp_path / "match.jsonl"
    async with server_for(transport, tmp_path) as (server, url):
        victim.append(await spawn_bot(url, "victim", resume, log))
        others = {f"g{i}": make_bot("mahjong", "greedy", {}, name=f"g{i}") for i in (1, 2, 3)}
        async with clients(url, "mahjong", others):
            await wait_until(lambda: "victim" in server.hub.lobby.sessions, "the victim's hello")
            names = ["victim", "g1", "g2", "g3"]
            spec = MatchSpec(("greedy",) * 4, "killed", games=8, deadline_ms=round(scaled(10_000)))
            async with remote_seats(ws_url(server), names, game="mahjong") as seats:
                recorder = WatchingRecorder(record, watch)
                match = asyncio.create_task(
                    play_match(
                        spec,
                        seats=[GatedSeat(seat, gate) for seat in seats],
                        names=names,
                        recorder=recorder,
                    )
                )
                session = server.hub.lobby.sessions["victim"]
                await wait_until(killed.is_set, "the kill")
                await wait_until(lambda: session.state is SessionState.ABSENT, "the drop")
                gate.set()
                await wait_until(fell_back.is_set, "a fallback for the victim")
                victim.append(await spawn_bot(url, "victim", resume, log))
                await wait_until(lambda: session.state is SessionState.SEATED, "the resume")
                gate.set()
                result = await match
                recorder.close()
        # Its owner stops the resumed bot: it says bye and exits cleanly.
        victim[1].send_signal(signal.SIGTERM)
        async with asyncio.timeout(scaled(20)):
            assert await victim[1].wait() == 0
    lines = read_lines(record)
    mine = decisions_of(lines, "victim")
    fallbacks = [n for n, line in enumerate(mine) if line.get("fallback")]
    assert fallbacks and fallbacks[0] == KILL_AFTER
    assert not mine[-1].get("fallback"), "after the resume the victim plays for itself again"
    assert any(not line.get("fallback") for line in mine[fallbacks[-1] + 1 :])
    assert result.hands == spec.games
    assert sum(player.points for player in result.programs) == 0
    assert len([line for line in lines if line["type"] == "result"]) == spec.games
    assert every_game_replays(record)
    text = log.read_text(encoding="utf-8")
    assert "resumed=True" in text
    assert victim[0].returncode == -signal.SIGKILL


async def test_a_dropped_connection_is_resumed_by_the_client(tmp_path: Path) -> None:
    gate = asyncio.Event()
    gate.set()
    dropped = asyncio.Event()

    def watch(line: dict[str, Any], player: str | None) -> None:
        if player == "alice" and not dropped.is_set():
            gate.clear()
            dropped.set()

    record = tmp_path / "series.jsonl"
    async with running_server() as server:
        url = ws_url(server)
        bots = {
            "alice": make_bot("bulls_cows", "super-comparison", {}, name="alice"),
            "bob": make_bot("bulls_cows", "random", {}, name="bob"),
        }
        async with clients(url, "bulls_cows", bots) as running:
            recorder = WatchingRecorder(record, watch)
            async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                gated = [GatedSeat(seat, gate) for seat in seats]

                async def series() -> list[tuple[float, ...]]:
                    scores = []
                    for k in range(3):
                        played = await play_duel_game(gated, "drop", k, recorder=recorder)
                        scores.append(played.result.scores)
                    return scores

                task = asyncio.create_task(series())
                await wait_until(dropped.is_set, "alice's first decision")
                session = server.hub.lobby.sessions["alice"]
                link = session.link
                assert link is not None
                await link.close("a network fault, simulated")
                await wait_until(lambda: running["alice"].resumes == 1, "alice's resume")
                gate.set()
                scores = await task
                recorder.close()
    assert len(scores) == 3
    assert running["alice"].welcomes == 2
    assert every_game_replays(record)


async def test_sigterm_lets_running_tables_finish_then_stops(tmp_path: Path) -> None:
    port = free_port()
    url = f"ws://{LOOPBACK}:{port}"
    record = tmp_path / "series.jsonl"
    async with server_process(port) as process:
        signalled = asyncio.Event()

        def watch(line: dict[str, Any], player: str | None) -> None:
            if line["type"] == "result" and not signalled.is_set():
                process.send_signal(signal.SIGTERM)
                signalled.set()

        bots = {
            "alice": make_bot("bulls_cows", "super-comparison", {}, name="alice"),
            "bob": make_bot("bulls_cows", "frequency", {}, name="bob"),
        }
        async with clients(url, "bulls_cows", bots) as running:
            recorder = WatchingRecorder(record, watch)
            async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                for k in range(4):
                    await play_duel_game(seats, "drain", k, recorder=recorder)
                    if k == 1:
                        with pytest.raises(RemoteTableError, match="shutting down"):
                            async with remote_seats(url, ["alice"], game="bulls_cows"):
                                pass
            recorder.close()
            async with asyncio.timeout(scaled(30)):
                assert await process.wait() == 0
            assert all(client.welcomes == 1 for client in running.values())
    lines = read_lines(record)
    assert signalled.is_set()
    assert len([line for line in lines if line["type"] == "result"]) == 4
    assert not [line for line in lines if line["type"] == "failure"]


def test_the_bots_cli_lists_and_refuses_a_bad_url() -> None:
    listed = subprocess.run(
        [BOTS_SCRIPT, "list"], capture_output=True, text=True, env=subprocess_env(), check=True
    )
    assert "mahjong:" in listed.stdout and "greedy" in listed.stdout
    refused = subprocess.run(
        [BOTS_SCRIPT, "run", "greedy", "--url", "http://nowhere"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
    )
    assert refused.returncode == 2
    assert "ws://HOST:PORT" in refused.stderr
