"""`bots run` and `arena serve` stop on a signal where the event loop takes no signal handlers:
Windows, simulated (`windows_signals`).

On Windows no asyncio loop has `add_signal_handler` (it raises `NotImplementedError`), and both
commands used to crash there at start. Each stop signal now reaches the loop through Python's
own handler (`arena.event_loops.stop_signals_handled`): Ctrl-C makes every bot say bye, the
server drains on a first signal and ends at once on a second, and the handlers found before are
back afterwards.

Nothing here asserts on time: every wait is bounded only so that a broken build fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from net_helpers import (
    FAR_DEADLINE_S,
    LOOPBACK,
    duel,
    raw_peer,
    running_server,
    scaled,
    wait_until,
    ws_url,
)

from arena.event_loops import stop_signals_handled
from arena.server.app import ArenaServer, ServerConfig
from arena.server.hub import Limits
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState
from bots import cli as bots_cli
from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot
from tests.windows_loops import WindowsSelectorLoop, no_signal_handlers

CTRL_BREAK = signal.SIGUSR1
"""SIGBREAK (Ctrl-Break, Windows only) is played by SIGUSR1, which nothing else here uses."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, CTRL_BREAK)


def windows_signals(monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> None:
    """``loop`` takes no signal handlers, SIGHUP is gone and SIGBREAK exists."""
    monkeypatch.setattr(loop, "add_signal_handler", no_signal_handlers)
    monkeypatch.setattr(loop, "remove_signal_handler", no_signal_handlers)
    monkeypatch.delattr(signal, "SIGHUP")
    monkeypatch.setattr(signal, "SIGBREAK", CTRL_BREAK, raising=False)


def handlers() -> dict[int, Any]:
    return {number: signal.getsignal(number) for number in STOP_SIGNALS}


def send(number: int, found: dict[int, Any]) -> None:
    """Raise the signal ``number`` in this process, once a handler of the command holds it: the
    one found before would end the test run (SIGINT) or the process (SIGTERM, SIGUSR1)."""
    assert signal.getsignal(number) is not found[number], "no handler of the command"
    signal.raise_signal(number)


# -- bots run ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGBREAK"])
async def test_a_stop_signal_makes_every_bot_say_bye(
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    windows_signals(monkeypatch, asyncio.get_running_loop())
    found = handlers()
    async with running_server() as server:
        url = ws_url(server)
        clients = [
            BotClient(
                {"liars_dice": make_bot("liars_dice", "random-guess", name=player)},
                name=player,
                adapter_factory=functools.partial(adapter_for, url, player),
                backoff=Backoff(first_s=0.05, most_s=0.5),
            )
            for player in ("win-0", "win-1")
        ]
        playing = asyncio.create_task(bots_cli._play(clients))
        try:
            await wait_until(
                lambda: playing.done() or all(client.welcomed.is_set() for client in clients),
                "both welcomes",
            )
            if playing.done():
                playing.result()  # the old code's NotImplementedError, raised here
            send(getattr(signal, name), found)
            async with asyncio.timeout(scaled(30)):
                await playing
        finally:
            for client in clients:
                await client.stop()
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await playing
    left = [entry for entry in structured_logs() if entry.get("event") == "bot_left"]
    assert sorted(entry["bot"] for entry in left) == ["win-0", "win-1"], left
    assert {entry["reason"] for entry in left} == {"the bot's owner stopped it"}
    assert handlers() == found


# -- arena serve ------------------------------------------------------------------------------


@asynccontextmanager
async def serving_until_signalled() -> AsyncIterator[tuple[ArenaServer, asyncio.Task[None]]]:
    """`ArenaServer.run_until_signalled` (a drain that waits for its tables far longer than any
    test), once it listens; stopped at the end if the test has not."""
    limits = Limits(hello_timeout_s=scaled(10), reconnect_grace_s=FAR_DEADLINE_S)
    server = ArenaServer(ServerConfig(host=LOOPBACK, port=0, grace_s=FAR_DEADLINE_S, limits=limits))
    serving = asyncio.create_task(server.run_until_signalled())
    try:
        await wait_until(lambda: serving.done() or server.port != 0, "the server to listen")
        if serving.done():
            serving.result()  # the old code's NotImplementedError, raised here
        yield server, serving
    finally:
        if not serving.done():
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
            await server.stop(0)


async def test_serve_drains_on_a_signal_and_its_bots_are_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    windows_signals(monkeypatch, asyncio.get_running_loop())
    found = handlers()
    async with serving_until_signalled() as (server, serving):
        url = ws_url(server)
        client = BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name="told",
            adapter_factory=lambda: adapter_for(url, "told"),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        running = asyncio.create_task(client.run())
        try:
            await wait_until(client.welcomed.is_set, "the bot's welcome")
            send(signal.SIGINT, found)
            async with asyncio.timeout(scaled(60)):
                await serving  # no table to wait for: the drain ends by itself
                reason = await running
        finally:
            running.cancel()
    assert "shutting down" in reason
    assert handlers() == found


@pytest.mark.parametrize(("first", "second"), [("SIGINT", "SIGINT"), ("SIGBREAK", "SIGTERM")])
async def test_serve_drains_on_a_first_signal_and_ends_on_a_second(
    first: str,
    second: str,
    monkeypatch: pytest.MonkeyPatch,
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    windows_signals(monkeypatch, asyncio.get_running_loop())
    found = handlers()
    async with (
        serving_until_signalled() as (server, serving),
        raw_peer(ws_url(server)) as alice,
        raw_peer(ws_url(server)) as bob,
    ):
        url = ws_url(server)
        for peer, name in ((alice, "alice"), (bob, "bob")):
            await peer.send({"type": "hello", "name": name, "games": ["liars_dice"]})
            assert (await peer.recv())["type"] == "welcome"
        async with remote_seats(url, ["alice", "bob"], game="liars_dice") as seats:
            # Nobody answers: the game waits with a deadline no test reaches, and so does the
            # drain that waits for it.
            game = asyncio.create_task(duel(seats))
            try:
                sessions = server.hub.lobby.sessions
                await wait_until(
                    lambda: all(s.state is SessionState.SEATED for s in sessions.values()),
                    "both seated",
                )
                send(getattr(signal, first), found)
                await wait_until(lambda: server.hub.draining, "the drain")
                assert not serving.done(), "the drain did not wait for the running table"
                send(getattr(signal, second), found)
                async with asyncio.timeout(scaled(60)):
                    await serving
            finally:
                game.cancel()
                with contextlib.suppress(BaseException):
                    await game
    said = [entry["event"] for entry in structured_logs()]
    assert "shutdown_requested" in said and "forced_shutdown" in said
    assert handlers() == found


# -- a loop that Ctrl-C does not wake ---------------------------------------------------------


def test_a_ctrl_c_is_seen_on_a_loop_with_nothing_else_to_wake_it() -> None:
    # An idle bot (between reconnects, or a server that says nothing) has no timer due: the
    # loop would wait for ever with the Ctrl-C unseen (python/cpython#101166).
    found = signal.getsignal(signal.SIGINT)

    async def until_stopped() -> list[int]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, WindowsSelectorLoop)
        seen: list[int] = []
        stopped = asyncio.Event()

        def stop(number: int) -> None:
            seen.append(number)
            stopped.set()

        with stop_signals_handled(loop, [signal.SIGINT], stop):
            # A Ctrl-C must reach a handler of ours, not the default one (KeyboardInterrupt).
            assert signal.getsignal(signal.SIGINT) not in (found, signal.default_int_handler)
            loop.selector.ctrl_c_due = True
            await stopped.wait()
        return seen

    try:
        with asyncio.Runner(loop_factory=WindowsSelectorLoop) as runner:
            assert runner.run(until_stopped()) == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is found
    finally:
        signal.signal(signal.SIGINT, found)
