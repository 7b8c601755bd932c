"""Fuzzing the server: random and mutated frames on bot and admin connections, while a real table
plays beside them. The server must answer or close, never fail, and the table must finish with
exactly the in-process result.

The server and its table run in a thread with their own event loop for the whole module, so
hypothesis can throw many examples at one live server; each example is one connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_helpers import clients, play_duel_game, running_server, scaled, ws_url
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from arena.server.app import ArenaServer
from arena.server.remote import remote_seats
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot

GAMES = 12


def duel_bots() -> dict[str, Any]:
    return {
        "alice": make_bot("bulls_cows", "super-comparison", {"seed": "a"}, name="alice"),
        "bob": make_bot("bulls_cows", "random", {"seed": "b"}, name="bob"),
    }


async def series(seats: Any, pace: asyncio.Event | None = None) -> list[Any]:
    results = []
    for k in range(GAMES):
        if pace is not None:
            # The table plays while the fuzzer works; it only waits for the fuzzer to start.
            await pace.wait()
        played = await play_duel_game(seats, "fuzz", k, deadline_s=20)
        results.append((played.result.scores, played.penalties))
    return results


@dataclass
class Live:
    url: str = ""
    server: ArenaServer | None = None
    loop: asyncio.AbstractEventLoop | None = None
    results: Future[list[Any]] = field(default_factory=Future)
    started: asyncio.Event | None = None
    stop: asyncio.Event | None = None


def _serve(live: Live, ready: threading.Event) -> None:
    async def main() -> None:
        live.loop = asyncio.get_running_loop()
        live.started, live.stop = asyncio.Event(), asyncio.Event()
        async with running_server() as server:
            live.server, live.url = server, ws_url(server)
            async with clients(live.url, "bulls_cows", duel_bots()):
                ready.set()
                try:
                    async with remote_seats(live.url, ["alice", "bob"], game="bulls_cows") as seats:
                        live.results.set_result(await series(seats, live.started))
                except Exception as exc:
                    live.results.set_exception(exc)
                await live.stop.wait()

    asyncio.run(main())


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    state, ready = Live(), threading.Event()
    thread = threading.Thread(target=_serve, args=(state, ready), daemon=True)
    thread.start()
    assert ready.wait(scaled(30)), "the live server did not start"
    yield state
    if state.loop is not None and state.stop is not None:
        state.loop.call_soon_threadsafe(state.stop.set)
    thread.join(scaled(30))


FIELDS = [
    "v",
    "name",
    "token",
    "games",
    "resume",
    "seq",
    "seat",
    "action",
    "match",
    "game",
    "table",
    "slot",
    "key",
    "bots",
    "start_timeout_ms",
    "payload",
    "reason",
]
TYPES = [
    "hello",
    "action",
    "bye",
    "event",
    "request",
    "welcome",
    "error",
    "admin_hello",
    "open_table",
    "attach",
    "close_table",
    "status",
    "nope",
]
json_leaf = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=30)
json_value = st.recursive(
    json_leaf | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={name: json_value for name in FIELDS},
)
REPLIES = {"welcome", "error", "bye", "admin_welcome", "status_report", "table_closed"} | {
    "table_opened",
    "attached",
}
valid_starts = st.sampled_from(
    [
        {"type": "hello", "name": "fuzzer", "games": ["bulls_cows"]},
        {"type": "hello", "name": "alice", "games": ["bulls_cows"]},
        {"type": "admin_hello", "name": "fuzz-admin"},
        {"type": "attach", "table": "00000000", "slot": 0, "key": "guess"},
    ]
)
frame = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    json_value.map(json.dumps),
    message_like.map(json.dumps),
    st.just("x" * 20_000),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(start=valid_starts, frames=st.lists(frame, max_size=25))
def test_random_frames_get_answers_or_a_close_never_a_failure(
    live: Live, start: dict[str, Any], frames: list[str | bytes]
) -> None:
    assert live.loop is not None and live.started is not None
    live.loop.call_soon_threadsafe(live.started.set)
    with (
        contextlib.suppress(ConnectionClosed, OSError, InvalidHandshake),
        connect(live.url, open_timeout=scaled(10), close_timeout=1) as ws,
    ):
        ws.send(json.dumps(start))
        for item in frames:
            ws.send(item)
        ws.send(json.dumps({"type": "bye", "reason": "done"}))
        while True:
            reply = json.loads(ws.recv(timeout=scaled(5)))
            assert isinstance(reply, dict)
            assert reply["type"] in REPLIES
            if reply["type"] == "error":
                assert reply["code"] != "internal", reply
    assert live.server is not None
    assert live.server.hub.internal_errors == 0


def test_the_table_beside_the_fuzzer_finished_exactly_as_in_process(live: Live) -> None:
    assert live.loop is not None and live.started is not None
    live.loop.call_soon_threadsafe(live.started.set)
    network = live.results.result(timeout=scaled(120))
    expected = asyncio.run(series([InProcessSeat(bot) for bot in duel_bots().values()]))
    assert network == expected
    assert live.server is not None
    assert live.server.hub.internal_errors == 0
    status = live.server.hub.status()
    assert {bot.name for bot in status.bots} >= {"alice", "bob"}
