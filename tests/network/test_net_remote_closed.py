"""A server that closes the referee's connection while a table is being opened: a clean error.

A server in a hard shutdown closes every connection, a new one too, at whatever step the
referee is: about to say ``admin_hello``, ``open_table`` or ``attach``. The library's own
``ConnectionClosed`` then came out of the send as a traceback, which the league runner re-raised
as a bug (the audit's SIGTERM twice mid-league). It is a table that cannot open: `RemoteTableError`,
a match among those that could not be played, one ``error:`` line from ``arena match``.

The stand-in server closes the connection at the chosen step, and the referee waits until it has
seen the close before its next send: the close always wins the race it can lose in real life.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from net_helpers import LOOPBACK, scaled
from typer.testing import CliRunner
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.server import ServerConnection, serve

import arena.server.remote as remote
from arena.cli.main import app
from arena.server.remote import RemoteTableError, remote_seats, server_status
from arena.server.wire import (
    AdminAny,
    AdminWelcome,
    SeatTicket,
    TableClosed,
    TableOpened,
    encode_admin,
)
from arena.store import ResultStore

SHUTTING_DOWN = "the server is shutting down now"
STEPS = ("admin_hello", "open_table", "attach")


class ClosingServer:
    """Answers as `arena serve` does until ``step``, then closes the connection the referee is
    about to send on (1001, as a stopping server does)."""

    def __init__(self, step: str) -> None:
        self.step = step
        self._count = itertools.count(1)

    async def handler(self, ws: ServerConnection) -> None:
        number = next(self._count)
        if self.step == "admin_hello" or (self.step == "attach" and number > 1):
            await ws.close(1001, SHUTTING_DOWN)
            return
        hello = json.loads(await ws.recv())
        await ws.send(encode_admin(AdminWelcome(name=hello["name"], session="c1")))
        if self.step in ("open_table", "status"):
            await ws.close(1001, SHUTTING_DOWN)
            return
        request = json.loads(await ws.recv())
        seats = [
            SeatTicket(slot=slot, bot=bot, key=f"k{slot}")
            for slot, bot in enumerate(request["bots"])
        ]
        await ws.send(encode_admin(TableOpened(table="t1", seats=seats)))
        async for frame in ws:
            if json.loads(frame).get("type") == "close_table":
                await ws.send(encode_admin(TableClosed(table="t1", reason="closed by its admin")))


@contextmanager
def closing_server(step: str) -> Iterator[str]:
    """A `ClosingServer` on a free loopback port, in its own thread (a CLI invoked in-process
    runs its own event loop); yields its URL."""
    started = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        state["loop"], state["stop"] = asyncio.get_running_loop(), asyncio.Event()
        async with serve(ClosingServer(step).handler, LOOPBACK, 0) as server:
            state["port"] = next(iter(server.sockets)).getsockname()[1]
            started.set()
            await state["stop"].wait()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert started.wait(scaled(10)), "the stand-in server did not start"
    try:
        yield f"ws://{LOOPBACK}:{state['port']}"
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(scaled(10))


@pytest.fixture
def close_seen_at(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The referee waits, at the step set as ``["at"]``, until the server's close has arrived:
    without it its send could still go out, and the close would only be met by the next
    receive (the path that was already handled)."""
    real_connect, real_reply = remote._connect, remote._reply
    connections = itertools.count(1)
    step = {"at": ""}

    async def connect(url: str) -> ClientConnection:
        connection = await real_connect(url)
        number = next(connections)
        if (step["at"], number) in (("admin_hello", 1), ("attach", 2)):
            await connection.wait_closed()
        return connection

    async def reply(connection: ClientConnection, timeout_s: float) -> AdminAny:
        answer = await real_reply(connection, timeout_s)
        if step["at"] in ("open_table", "status") and isinstance(answer, AdminWelcome):
            await connection.wait_closed()
        return answer

    monkeypatch.setattr(remote, "_connect", connect)
    monkeypatch.setattr(remote, "_reply", reply)
    return step


@pytest.mark.parametrize("step", STEPS)
async def test_opening_a_table_on_a_closing_server_is_a_remote_table_error(
    close_seen_at: dict[str, str], step: str
) -> None:
    close_seen_at["at"] = step
    with (
        closing_server(step) as url,
        pytest.raises(RemoteTableError, match="the server closed the connection"),
    ):
        async with asyncio.timeout(scaled(30)), remote_seats(url, ["ra", "rb"], game="liars_dice"):
            pytest.fail("no table opens on a server that closed the connection")


async def test_status_from_a_closing_server_is_a_remote_table_error(
    close_seen_at: dict[str, str],
) -> None:
    close_seen_at["at"] = "status"
    with (
        closing_server("status") as url,
        pytest.raises(RemoteTableError, match="the server closed the connection"),
    ):
        async with asyncio.timeout(scaled(30)):
            await server_status(url)


@pytest.mark.parametrize("step", STEPS)
def test_arena_match_on_a_closing_server_says_one_line(
    close_seen_at: dict[str, str], step: str
) -> None:
    close_seen_at["at"] = step
    with closing_server(step) as url:
        result = CliRunner().invoke(
            app,
            ["match", "liars-dice", "--a", "ra", "--b", "rb", "--games", "2", "--server", url],
        )
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0] == f"error: the server closed the connection: {SHUTTING_DOWN}"


LEAGUE = """
name = "closing"
game = "liars-dice"
seed = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
games = 2
[[bots]]
name = "ra"
[[bots]]
name = "rb"
"""


@pytest.mark.parametrize("step", STEPS)
def test_a_league_on_a_closing_server_reports_the_match_not_played(
    close_seen_at: dict[str, str], step: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    close_seen_at["at"] = step

    async def no_status(url: str) -> None:
        # The league's look at the server before its tables is a connection of its own, which
        # the stand-in's and the fixture's connection counts leave out.
        raise RemoteTableError("no status here")

    monkeypatch.setattr(remote, "server_status", no_status)
    config = tmp_path / "league.toml"
    config.write_text(LEAGUE, encoding="utf-8")
    db = tmp_path / "r.sqlite"
    with closing_server(step) as url:
        result = CliRunner().invoke(
            app, ["league", str(config), "--db", str(db), "--server", url, "--json"]
        )
    assert result.exit_code != 0, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert "1 of 1 matches could not be played (run again to retry)" in errors[0]
    assert f"ra vs rb: the server closed the connection: {SHUTTING_DOWN}" in errors[0]
    with ResultStore(db) as store:
        assert [store.matches(league) for league in store.leagues()] in ([], [[]])
