"""The server stops mid-match: the referee stops too (`ServerLost`), it does not play on.

A referee reaches its bots through seat connections to the server. The server answers for a bot
that is gone (``error`` ``late``: the referee plays the fallback), so a seat connection that
closes means that the server (or the table) is gone. Playing on with every seat on fallbacks
would make up the rest of the match: `arena match --server` would print standings for it and a
league would store it as played (the audit saw 2,328 of 3,000 games of a stored league match
decided by fallbacks on both seats).

Nothing here races the clock: one bot holds its answer (`HoldingBot`) until the test has stopped
the server, so the server always goes while a game is in progress, at a chosen request.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path

import pytest
from net_helpers import (
    ARENA,
    LOOPBACK,
    clients,
    free_port,
    play_and_read,
    play_duel_game,
    running_server,
    scaled,
    server_process,
    signal_twice,
    subprocess_env,
    ws_url,
)

from arena.errors import ArenaError, ServerLost
from arena.leagues.config import load_league
from arena.leagues.runner import LeagueIncompleteError
from arena.records import JsonlRecorder, read_lines
from arena.server.remote import remote_seats
from bots.base import Bot
from bots.registry import make_bot
from protocol.games.common import GameEnd
from protocol.messages import Error, Event, Request


class HoldingBot(Bot):
    """Plays as ``inner``, but answers its first request after ``after_games`` games have
    ended (so in the middle of the next game) only once ``release`` is set; ``held`` is set
    when it starts holding."""

    def __init__(self, inner: Bot, after_games: int) -> None:
        super().__init__(inner.name)
        self.games = inner.games
        self.inner = inner
        self.after_games = after_games
        self.ended = 0
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def on_event(self, event: Event) -> None:
        if isinstance(event.payload, GameEnd):
            self.ended += 1
        await self.inner.on_event(event)

    async def on_error(self, error: Error) -> None:
        await self.inner.on_error(error)

    async def act(self, request: Request) -> str:
        if self.ended == self.after_games and not self.held.is_set():
            self.held.set()
            await self.release.wait()
        return await self.inner.act(request)


async def held(bot: HoldingBot) -> None:
    async with asyncio.timeout(scaled(60)):
        await bot.held.wait()


async def start_held_match(url: str, *options: str) -> asyncio.subprocess.Process:
    """`arena match` of ``ra`` against ``rb`` (200 games of liar's dice, a long deadline) on the
    server at ``url``, with its output piped: a test holds ``ra`` and cuts the server away."""
    return await asyncio.create_subprocess_exec(
        ARENA,
        *("match", "liars-dice", "--a", "ra", "--b", "rb", "--games", "200"),
        *("--seed", "5" * 64, "--deadline-ms", str(round(scaled(60_000)))),
        *options,
        *("--server", url, "--json"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )


def test_server_lost_is_an_arena_error_and_says_how_many_games() -> None:
    lost = ServerLost("the server is shutting down", 3)
    assert isinstance(lost, ArenaError)
    assert (lost.games, lost.reason) == (3, "the server is shutting down")
    assert (
        str(lost) == "lost the connection to the server after 3 games (the server is shutting down)"
    )


async def test_a_server_stopped_mid_game_stops_the_match(tmp_path: Path) -> None:
    record = tmp_path / "duel.jsonl"
    bob = HoldingBot(make_bot("bulls_cows", "frequency", {}, name="bob"), after_games=3)
    bots = {"alice": make_bot("bulls_cows", "super-comparison", {}, name="alice"), "bob": bob}
    finished = 0
    async with running_server() as server:
        url = ws_url(server)
        async with clients(url, "bulls_cows", bots):
            recorder = JsonlRecorder(record)

            async def match() -> None:
                nonlocal finished
                async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                    for k in range(40):
                        await play_duel_game(
                            seats, "lost", k, deadline_s=scaled(60), recorder=recorder
                        )
                        finished += 1

            playing = asyncio.create_task(match())
            try:
                await held(bob)
                await server.stop()  # closes every connection, as a second SIGINT does
            finally:
                bob.release.set()
            async with asyncio.timeout(scaled(30)):
                with pytest.raises(ServerLost) as lost:
                    await playing
            recorder.close()
    assert finished == 3
    assert lost.value.games == finished, "the games that ended before the server went"
    assert "shutting down" in lost.value.reason
    lines = read_lines(record)
    assert len([line for line in lines if line["type"] == "result"]) == finished
    # No seat was penalised for the server's going: nothing is played in its place.
    assert not [line for line in lines if line["type"] == "failure"]
    assert not [line for line in lines if line.get("fallback")]


async def test_arena_match_exits_with_one_line_when_the_server_is_interrupted(
    tmp_path: Path,
) -> None:
    port = free_port()
    url = f"ws://{LOOPBACK}:{port}"
    records = tmp_path / "records"
    ra = HoldingBot(make_bot("liars_dice", "random-guess", {"seed": "a"}, name="ra"), after_games=2)
    bots = {"ra": ra, "rb": make_bot("liars_dice", "random-guess", {"seed": "b"}, name="rb")}
    # --grace 0: the first SIGINT closes every connection at once (a drain would let the
    # table finish instead).
    async with server_process(port, "--grace", "0") as server, clients(url, "liars_dice", bots):
        match = await start_held_match(url, "--record", str(records))
        try:
            await held(ra)
            server.send_signal(signal.SIGINT)
            async with asyncio.timeout(scaled(30)):
                assert await server.wait() == 0
        finally:
            ra.release.set()
        out, err = await asyncio.wait_for(match.communicate(), timeout=scaled(60))
    text = err.decode()
    assert match.returncode == 2, text
    assert "Traceback" not in text
    assert out == b"", "no standings for a match that was not played"
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text
    found = re.search(r"lost the connection to the server at (\S+) after (\d+) games?", errors[0])
    assert found is not None, errors[0]
    assert found.group(1) == url
    (path,) = records.iterdir()
    assert str(path) in text, "the record is named"
    results = [line for line in read_lines(path) if line["type"] == "result"]
    assert len(results) == int(found.group(2)) == 2, "the games that ended before the server went"


LEAGUE = """
name = "{name}"
game = "liars-dice"
seed = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
games = {games}
deadline_ms = {deadline}
[[bots]]
name = "ra"
[[bots]]
name = "rb"
"""


async def test_a_league_match_cut_by_the_server_is_not_stored_and_a_rerun_plays_it(
    tmp_path: Path,
) -> None:
    config_file = tmp_path / "league.toml"
    config_file.write_text(
        LEAGUE.format(name="lost", games=40, deadline=round(scaled(60_000))), encoding="utf-8"
    )
    db, records = tmp_path / "r.sqlite", tmp_path / "records"
    ra = HoldingBot(make_bot("liars_dice", "random-guess", {"seed": "a"}, name="ra"), after_games=2)
    bots = {"ra": ra, "rb": make_bot("liars_dice", "random-guess", {"seed": "b"}, name="rb")}
    async with running_server() as server, clients(ws_url(server), "liars_dice", bots):
        league = asyncio.create_task(
            asyncio.to_thread(
                play_and_read, load_league(config_file, server=ws_url(server), records=records), db
            )
        )
        try:
            await held(ra)
            await server.stop()
        finally:
            ra.release.set()
        async with asyncio.timeout(scaled(60)):
            error, stored = await league
    assert stored == set(), "the match cut short is not stored"
    assert isinstance(error, LeagueIncompleteError)
    assert "ra vs rb" in str(error) and "lost the connection to the server" in str(error)
    assert error.run is not None and not error.run.complete
    assert list(records.glob("*")) == [], "no partial record is left for the match"

    # Run again on a server: the match is played (from its first game) and stored.
    again = {
        name: make_bot("liars_dice", "random-guess", {"seed": seed}, name=name)
        for name, seed in (("ra", "a"), ("rb", "b"))
    }
    async with running_server() as server, clients(ws_url(server), "liars_dice", again):
        config = load_league(config_file, server=ws_url(server), records=records)
        error, stored = await asyncio.to_thread(play_and_read, config, db)
    assert error is None
    assert stored == {"ra vs rb"}


async def test_a_second_signal_closes_at_once_and_the_referee_stops(tmp_path: Path) -> None:
    """SIGTERM starts a drain (the table could finish); a second one closes everything at once:
    the referee's match stops with `ServerLost`, and the server's log names where each bot was
    cut off."""
    port = free_port()
    url = f"ws://{LOOPBACK}:{port}"
    logs = tmp_path / "server.jsonl"
    bob = HoldingBot(make_bot("bulls_cows", "frequency", {}, name="bob"), after_games=1)
    bots = {"alice": make_bot("bulls_cows", "super-comparison", {}, name="alice"), "bob": bob}
    finished = 0
    async with (
        server_process(port, "--log-json", str(logs)) as server,
        clients(url, "bulls_cows", bots),
    ):

        async def match() -> None:
            nonlocal finished
            async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                for k in range(40):
                    await play_duel_game(seats, "force", k, deadline_s=scaled(60))
                    finished += 1

        playing = asyncio.create_task(match())
        try:
            await held(bob)
            await signal_twice(server, url, signal.SIGTERM)
            async with asyncio.timeout(scaled(30)):
                await server.wait()
        finally:
            bob.release.set()
        async with asyncio.timeout(scaled(30)):
            with pytest.raises(ServerLost, match="shutting down now") as lost:
                await playing
    assert lost.value.games == finished == 1
    entries = [json.loads(text) for text in logs.read_text(encoding="utf-8").splitlines()]
    released = [entry for entry in entries if entry.get("event") == "seat_released"]
    assert {entry["bot"] for entry in released} == {"alice", "bob"}
    assert all({"match", "game", "seat", "table", "session"} <= set(e) for e in released)
