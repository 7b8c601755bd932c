"""Gaps a mutation audit of the referee's side of a server table found: what `remote_seats` and
`play_on_server` ask the server for (the start timeout, the label), and how long the referee
waits for a table that is still gathering its bots."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest
from net_helpers import LOOPBACK, raw_peer, running_server, scaled, ws_url
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.server import ServerConnection, serve

import arena.server.remote as remote
from arena.server.app import ArenaServer
from arena.server.remote import RemoteTableError, play_on_server, remote_seats
from arena.server.sessions import BotSession
from arena.server.wire import AdminAny
from arena.transports.base import Seat
from protocol.messages import Error


def record_reserve_timeouts(server: ArenaServer) -> list[float]:
    """The start timeout (seconds) of every table the server is asked to open, as it reads it."""
    seen: list[float] = []
    real_reserve = server.hub.lobby.reserve

    async def reserve(
        names: Sequence[str], game: str, timeout_s: float
    ) -> list[BotSession] | Error:
        seen.append(timeout_s)
        return await real_reserve(names, game, timeout_s)

    server.hub.lobby.reserve = reserve  # type: ignore[method-assign]
    return seen


@pytest.mark.parametrize("entry", ["remote_seats", "play_on_server"])
async def test_the_start_timeout_and_label_reach_the_server_as_given(entry: str) -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send({"type": "hello", "name": "solo", "games": ["bulls_cows"]})
        assert (await peer.recv())["type"] == "welcome"
        timeouts = record_reserve_timeouts(server)
        labels: list[str] = []

        async def look(seats: Sequence[Seat]) -> int:
            labels.extend(table.label for table in server.hub.status().tables)
            return len(seats)

        start_timeout_s = scaled(37.5)
        async with asyncio.timeout(scaled(30)):
            if entry == "remote_seats":
                async with remote_seats(
                    ws_url(server),
                    ["solo"],
                    game="bulls_cows",
                    start_timeout_s=start_timeout_s,
                    label="round 3",
                ) as seats:
                    await look(seats)
            else:
                seated = await play_on_server(
                    ws_url(server),
                    ["solo"],
                    "bulls_cows",
                    look,
                    start_timeout_s=start_timeout_s,
                    label="round 3",
                )
                assert seated == 1
        assert timeouts == [pytest.approx(start_timeout_s)]
        assert labels == ["round 3"]


async def test_the_referee_waits_for_a_table_as_long_as_the_server_may_gather_its_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server answers ``open_table`` only once the bots are there (up to the start
    timeout): the referee must wait for that answer at least the start timeout, not the
    reply timeout alone."""
    waits: list[tuple[float, str]] = []
    real_reply = remote._reply

    async def reply(connection: ClientConnection, timeout_s: float) -> AdminAny:
        answer = await real_reply(connection, timeout_s)
        waits.append((timeout_s, answer.type))
        return answer

    monkeypatch.setattr(remote, "_reply", reply)
    start_timeout_s = remote.REPLY_TIMEOUT_S * 6
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send({"type": "hello", "name": "solo", "games": ["bulls_cows"]})
        assert (await peer.recv())["type"] == "welcome"
        async with (
            asyncio.timeout(scaled(30)),
            remote_seats(
                ws_url(server), ["solo"], game="bulls_cows", start_timeout_s=start_timeout_s
            ),
        ):
            pass
    [opened_within] = [timeout_s for timeout_s, kind in waits if kind == "table_opened"]
    assert opened_within >= start_timeout_s


async def test_a_server_that_drops_without_a_close_frame_is_a_remote_table_error() -> None:
    """A connection cut with no close frame (a killed server, a network cut) has no reason to
    quote: still `RemoteTableError`, never the library's exception or an attribute error."""

    async def cut_after_hello(ws: ServerConnection) -> None:
        await ws.recv()
        ws.transport.abort()

    async with serve(cut_after_hello, LOOPBACK, 0) as stand_in:
        port = next(iter(stand_in.sockets)).getsockname()[1]
        with pytest.raises(RemoteTableError, match="the connection to the server dropped"):
            async with (
                asyncio.timeout(scaled(30)),
                remote_seats(f"ws://{LOOPBACK}:{port}", ["solo"], game="bulls_cows"),
            ):
                pytest.fail("no table opens on a server that dropped the connection")


class Replies:
    """A referee's control connection as `remote._reply` reads it: one frame, or none ever."""

    def __init__(self, frame: str | None) -> None:
        self.frame = frame

    async def recv(self) -> str:
        if self.frame is None:
            await asyncio.Event().wait()  # a server that never answers
        assert self.frame is not None
        return self.frame


@pytest.mark.parametrize(
    ("frame", "told"),
    [
        (None, "the server did not answer within 0 s"),
        ("not json", "unreadable reply from the server: not JSON"),
        ('{"type": "chat"}', "unreadable reply from the server: type: no message has type"),
    ],
)
async def test_a_reply_that_does_not_come_or_cannot_be_read_is_a_remote_table_error(
    frame: str | None, told: str
) -> None:
    connection: Any = Replies(frame)
    with pytest.raises(RemoteTableError, match=f"^{re.escape(told)}"):
        await remote._reply(connection, 0.05)


@pytest.mark.parametrize("url", ["ws://127.0.0.1:8765", "wss://arena.example.org", "wss://h:443/x"])
def test_server_urls_of_either_scheme_are_taken(url: str) -> None:
    remote.check_server_url(url)  # no RemoteTableError


@pytest.mark.parametrize("url", ["http://h:1", "ws://:8765", "ws://h:99999", "h:8765"])
def test_server_urls_no_connection_could_reach_are_refused(url: str) -> None:
    with pytest.raises(RemoteTableError, match="bad server URL"):
        remote.check_server_url(url)
