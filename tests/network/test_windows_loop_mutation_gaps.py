"""What a mutation audit of the Windows event loop and stop-signal code (`arena.event_loops`, its
uses by `bots run`, `arena serve` and `ArenaServer.run_until_signalled`) found no test for.

Windows is simulated as in `test_windows_loop` and `test_windows_stop_signals`: a loop whose
`add_signal_handler` raises `NotImplementedError`, ``sys.platform`` set to ``win32``, and a
selector whose wait a Ctrl-C does not cut short. Nothing here asserts on time: every wait is
bounded only so that a broken build fails.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from net_helpers import FAR_DEADLINE_S, LOOPBACK, scaled, wait_until
from typer.testing import CliRunner

from arena import event_loops
from arena.cli.main import app as arena_app
from arena.event_loops import is_mqtt_url, run_command, stop_signals_handled
from arena.server.app import ArenaServer, ServerConfig
from arena.server.hub import Limits
from bots import cli as bots_cli
from bots.client import BotClient
from tests.windows_loops import ProactorLikeLoop, WindowsSelectorLoop, no_signal_handlers


def without_signal_handlers(
    monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop
) -> None:
    monkeypatch.setattr(loop, "add_signal_handler", no_signal_handlers)
    monkeypatch.setattr(loop, "remove_signal_handler", no_signal_handlers)


def windows_default_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sys.platform`` is ``win32``, and a loop made without a factory is a `ProactorLikeLoop`."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(asyncio.get_event_loop_policy(), "_loop_factory", ProactorLikeLoop)


def a_handler_of_the_test(_number: int, _frame: FrameType | None) -> None:
    """What handled a signal before the command (as `arena`'s `stop_like_ctrl_c` does)."""


# -- the loop a command runs on ---------------------------------------------------------------


def test_mqtts_counts_as_mqtt_for_the_loop_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bots run --url mqtts://…`` (MQTT over TLS) needs the selector loop on Windows as much as
    mqtt:// does: on the default one the client never connects."""
    assert is_mqtt_url("mqtts://broker.example:8883")
    assert is_mqtt_url("MQTTS://broker.example:8883")
    assert not is_mqtt_url("wss://arena.example:443")
    windows_default_loop(monkeypatch)

    async def loop_kind() -> type:
        return type(asyncio.get_running_loop())

    chosen = run_command(loop_kind(), speaks_mqtt=is_mqtt_url("mqtts://b:8883"))
    assert chosen is not ProactorLikeLoop


def test_serve_without_mqtt_keeps_windows_default_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena serve` over websockets alone keeps Windows' default loop: the selector loop
    watches at most 512 sockets, too few for a server's bots."""
    loops: list[type] = []

    async def record_the_loop(self: ArenaServer) -> None:
        loops.append(type(asyncio.get_running_loop()))

    monkeypatch.setattr(ArenaServer, "run_until_signalled", record_the_loop)
    windows_default_loop(monkeypatch)
    for mqtt in ([], ["--mqtt", f"mqtt://{LOOPBACK}:1"]):
        shown = CliRunner().invoke(
            arena_app,
            ["serve", "--host", LOOPBACK, "--port", "0", *mqtt, "--log-level", "warning"],
        )
        assert shown.exit_code == 0, shown.output
    websocket_only, with_mqtt = loops
    assert websocket_only is ProactorLikeLoop
    assert with_mqtt is not ProactorLikeLoop


def test_bots_run_over_websockets_keeps_windows_default_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a command that speaks MQTT gets the selector loop (`arena.event_loops`)."""
    loops: list[type] = []

    async def record_the_loop(clients: list[BotClient]) -> list[str]:
        loops.append(type(asyncio.get_running_loop()))
        return ["stopped" for _ in clients]

    monkeypatch.setattr(bots_cli, "_play", record_the_loop)
    windows_default_loop(monkeypatch)
    for url in (f"ws://{LOOPBACK}:1", f"mqtt://{LOOPBACK}:1"):
        shown = CliRunner().invoke(
            bots_cli.app,
            ["run", "random-guess", "--game", "liars-dice", "--url", url, "--log-level", "warning"],
        )
        assert shown.exit_code == 0, shown.output
    over_websockets, over_mqtt = loops
    assert over_websockets is ProactorLikeLoop
    assert over_mqtt is not ProactorLikeLoop


# -- the handlers found before ----------------------------------------------------------------


def test_the_handler_found_before_is_back_after_the_block_and_after_the_loop_closes() -> None:
    """Where the loop takes signal handlers (Linux), the handler found before the block is back
    once it ends, and stays once the loop is closed: `arena serve` under `arena`'s
    `stop_like_ctrl_c` must not be left with SIGTERM's or SIGHUP's default action (death)."""
    found = signal.signal(signal.SIGUSR1, a_handler_of_the_test)
    during: list[object] = []
    try:

        async def block() -> object:
            # Any iterable of numbers, one that can be read once included.
            numbers = (number for number in [signal.SIGUSR1])
            with stop_signals_handled(asyncio.get_running_loop(), numbers, during.append):
                assert signal.getsignal(signal.SIGUSR1) is not a_handler_of_the_test
                signal.raise_signal(signal.SIGUSR1)
                await wait_until(lambda: bool(during), "the handler of the block")
            return signal.getsignal(signal.SIGUSR1)

        with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
            assert runner.run(block()) is a_handler_of_the_test
        assert signal.getsignal(signal.SIGUSR1) is a_handler_of_the_test
        assert during == [signal.SIGUSR1]
    finally:
        signal.signal(signal.SIGUSR1, found)


# -- Python's handler, passing the signal on to the loop --------------------------------------


async def test_the_handler_runs_in_the_loop_with_the_signals_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no loop takes signal handlers (Windows), the handler runs as a loop callback once
    Python's signal handler has returned, never inside the code the signal interrupted (the
    loop's own bookkeeping, maybe), and is told which signal came."""
    loop = asyncio.get_running_loop()
    without_signal_handlers(monkeypatch, loop)
    found = signal.getsignal(signal.SIGUSR1)
    raised = False
    calls: list[tuple[int, bool]] = []
    called = asyncio.Event()

    def handler(number: int) -> None:
        calls.append((number, raised))
        called.set()

    with stop_signals_handled(loop, [signal.SIGUSR1], handler):
        assert signal.getsignal(signal.SIGUSR1) is not found  # SIG_DFL would end the test run
        signal.raise_signal(signal.SIGUSR1)  # Python runs its handler before this returns
        raised = True
        async with asyncio.timeout(scaled(30)):
            await called.wait()
    assert calls == [(signal.SIGUSR1, True)]
    assert signal.getsignal(signal.SIGUSR1) is found


async def test_the_waker_stops_with_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop is woken (for a Ctrl-C that Windows' select() does not see) only while the block
    runs: a loop that outlives it is not kept busy for ever."""
    loop = asyncio.get_running_loop()
    without_signal_handlers(monkeypatch, loop)
    monkeypatch.setattr(event_loops, "WAKE_EVERY_S", 0)  # every turn of the loop
    wakes: list[None] = []
    again = event_loops._Waker._again

    def counted(self: event_loops._Waker) -> None:
        wakes.append(None)
        again(self)

    monkeypatch.setattr(event_loops._Waker, "_again", counted)
    found = signal.getsignal(signal.SIGUSR1)
    with stop_signals_handled(loop, [signal.SIGUSR1], lambda _number: None):
        for _ in range(1000):  # a wake on every turn: 3 come long before the bound
            if len(wakes) >= 3:
                break
            await asyncio.sleep(0)
        assert len(wakes) >= 3, "the waker does not wake the loop again and again"
    woken = len(wakes)
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(wakes) == woken
    assert signal.getsignal(signal.SIGUSR1) is found


def test_a_ctrl_c_after_the_first_wake_is_still_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waker wakes the loop again and again, not once: a Ctrl-C that comes to an idle bot
    long after its start is seen too (python/cpython#101166)."""
    monkeypatch.setattr(event_loops, "WAKE_EVERY_S", 0.01)
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
            # The first wake is due before this sleep ends (timers run in order): it has come
            # and gone when the Ctrl-C does.
            await asyncio.sleep(0.05)
            loop.selector.ctrl_c_due = True
            await stopped.wait()
        return seen

    try:
        with asyncio.Runner(loop_factory=WindowsSelectorLoop) as runner:
            assert runner.run(until_stopped()) == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is found
    finally:
        signal.signal(signal.SIGINT, found)


# -- arena serve under nohup ------------------------------------------------------------------


async def test_serve_started_under_nohup_keeps_ignoring_sighup(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    """A server started with SIGHUP ignored (``nohup arena serve &``) outlives the terminal that
    started it: a SIGHUP neither drains it nor counts as the second signal that forces its end.
    SIGINT still stops it."""
    found = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        limits = Limits(hello_timeout_s=scaled(10), reconnect_grace_s=FAR_DEADLINE_S)
        server = ArenaServer(
            ServerConfig(host=LOOPBACK, port=0, grace_s=FAR_DEADLINE_S, limits=limits)
        )
        serving = asyncio.create_task(server.run_until_signalled())
        try:
            await wait_until(lambda: serving.done() or server.port != 0, "the server to listen")
            assert not serving.done()
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            signal.raise_signal(signal.SIGHUP)
            signal.raise_signal(signal.SIGINT)  # no table: the drain ends by itself
            async with asyncio.timeout(scaled(60)):
                await serving
        finally:
            if not serving.done():
                serving.cancel()
                await asyncio.gather(serving, return_exceptions=True)
                await server.stop(0)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, found)
    said = [entry["event"] for entry in structured_logs()]
    assert said.count("shutdown_requested") == 1
    assert "forced_shutdown" not in said
