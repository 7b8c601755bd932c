"""On Windows a command that speaks MQTT runs on the selector event loop (`arena.event_loops`).

Windows' default event loop (Proactor) has no `add_reader` / `add_writer`, which the MQTT client
needs: `bots run --url mqtt://…` retried for ever ("Operation timed out") and `arena serve
--mqtt` gave up at start, neither saying why. Now `bots run` over MQTT and `arena serve --mqtt`
run on the selector loop, each on a loop of its own; every other command keeps the default one,
the only loop there that can start subprocesses. `arena bench network`, which needs both in one
process, leaves its in-server MQTT runs out on Windows and says so.

Windows is simulated (`windows_default_loop`): ``sys.platform`` is ``win32`` and asyncio's
default loop has no readers or writers. A server the commands talk to runs in a thread, on
Linux's own loop. Nothing here asserts on time: every wait is bounded only so that a broken build
fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from net_helpers import LOOPBACK, free_port, scaled
from typer.testing import CliRunner

from arena.bench import network
from arena.bench.network import Run, run_all
from arena.bench.network_report import render_rows
from arena.cli.main import app as arena_app
from arena.event_loops import run_command
from arena.matches.mahjong import MatchSpec
from arena.server.app import ArenaServer, ServerConfig
from arena.server.hub import Limits
from arena.server.remote import RemoteTableError, server_status
from bots import cli as bots_cli
from bots.adapters import adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot
from tests.windows_loops import ProactorLikeLoop

RESULT = {"players": [{"score": 1}], "decisions": 10, "hands": 4}
"""What every made-up run of the bench played: the same, so that nothing counts as wrong."""
LINUX_LOOP: Callable[[], asyncio.AbstractEventLoop] = asyncio.SelectorEventLoop
"""Linux's own loop, for what runs beside the simulated Windows (a server in a thread)."""


def default_loop_without_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop made without a factory (`asyncio.run`'s) is a `ProactorLikeLoop`."""
    monkeypatch.setattr(asyncio.get_event_loop_policy(), "_loop_factory", ProactorLikeLoop)


def windows_default_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    default_loop_without_readers(monkeypatch)


async def takes_readers() -> bool:
    """Whether the running loop can watch a socket as the MQTT client does."""
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    with ours, theirs:
        try:
            loop.add_reader(ours, lambda: None)
        except NotImplementedError:
            return False
        loop.remove_reader(ours)
        return True


def test_on_windows_only_a_command_that_speaks_mqtt_gets_the_selector_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    windows_default_loop(monkeypatch)
    assert run_command(takes_readers(), speaks_mqtt=True)
    # The default loop stays for the rest: on Windows the only one that starts subprocesses.
    assert not run_command(takes_readers(), speaks_mqtt=False)


def test_elsewhere_a_command_that_speaks_mqtt_keeps_the_default_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default_loop_without_readers(monkeypatch)  # only to see which loop ran: Linux's has readers
    assert not run_command(takes_readers(), speaks_mqtt=True)


# -- the commands, each against a server in a thread ------------------------------------------


def in_a_thread(
    work: Callable[[threading.Event], Coroutine[Any, Any, None]],
) -> contextlib.AbstractContextManager[None]:
    """Run ``work(done)`` on Linux's loop in a thread for the block; ``done`` is set when the
    block ends (the command under test has returned), and an error of ``work`` is raised after
    the block."""

    @contextlib.contextmanager
    def running() -> Iterator[None]:
        done = threading.Event()
        failed: list[BaseException] = []

        def target() -> None:
            try:
                with asyncio.Runner(loop_factory=LINUX_LOOP) as runner:
                    runner.run(work(done))
            except BaseException as exc:
                failed.append(exc)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(scaled(60))
        assert not thread.is_alive(), "the thread beside the command did not end"
        if failed:
            raise failed[0]

    return running()


async def until(predicate: Callable[[], bool], done: threading.Event, seconds: float) -> bool:
    """Wait until ``predicate`` holds (True), or ``done`` is set or the bound is out (False)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + scaled(seconds)
    while not predicate():
        if done.is_set() or loop.time() > end:
            return False
        await asyncio.sleep(0.02)
    return True


def test_bots_run_over_mqtt_plays_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    mqtt_url = f"mqtt://{LOOPBACK}:{free_port()}"
    listening = threading.Event()
    seen: list[bool] = []

    async def serve(done: threading.Event) -> None:
        server = ArenaServer(
            ServerConfig(
                host=LOOPBACK, port=0, mqtt=mqtt_url, limits=Limits(hello_timeout_s=scaled(10))
            )
        )
        await server.start()
        listening.set()
        try:
            sessions = server.hub.lobby.sessions
            seen.append(await until(lambda: "win-mqtt" in sessions, done, 60))
        finally:
            await server.stop(0)  # tells the bot bye, which ends `bots run`

    real_play = bots_cli._play

    async def play_at_most_a_while(clients: list[BotClient]) -> list[str]:
        # The old code never connected: it would have retried for ever.
        async with asyncio.timeout(scaled(60)):
            return await real_play(clients)

    monkeypatch.setattr(bots_cli, "_play", play_at_most_a_while)
    with in_a_thread(serve):
        assert listening.wait(scaled(60)), "the server did not start"
        windows_default_loop(monkeypatch)
        shown = CliRunner().invoke(
            bots_cli.app,
            [
                *("run", "random-guess", "--game", "liars-dice", "--url", mqtt_url),
                *("--name", "win-mqtt", "--log-level", "warning"),
            ],
        )
    if shown.exception is not None and not isinstance(shown.exception, SystemExit):
        raise shown.exception
    assert seen == [True], "the bot never reached the server"
    assert shown.exit_code == 0, shown.output
    assert "win-mqtt: the server is shutting down" in shown.output


@contextlib.contextmanager
def stray_ctrl_c_harmless() -> Iterator[None]:
    """A Ctrl-C that comes once the command has put back the handler it found (the server gave
    up before it came) lands in a handler of the test's, not in a `KeyboardInterrupt`."""
    found = signal.signal(signal.SIGINT, lambda _number, _frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, found)


def test_serve_with_mqtt_serves_a_bot_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    port, broker = free_port(), free_port()
    mqtt_url = f"mqtt://{LOOPBACK}:{broker}"
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    reasons: list[str] = []

    async def listens() -> bool:
        with contextlib.suppress(RemoteTableError):
            await server_status(f"ws://{LOOPBACK}:{port}")
            return True
        return False

    async def bot_then_stop(done: threading.Event) -> None:
        while not await listens():
            if done.is_set():
                return  # the server gave up: the command's exit tells why
            await asyncio.sleep(0.05)
        # It listens, so its signal handlers are in place (they come before the start).
        client = BotClient(
            {"liars_dice": make_bot("liars_dice", "random-guess")},
            name="win-bot",
            adapter_factory=lambda: adapter_for(mqtt_url, "win-bot"),
            backoff=Backoff(first_s=0.05, most_s=0.5),
        )
        running = asyncio.create_task(client.run())
        try:
            welcomed = await until(client.welcomed.is_set, done, 60)
            signal.pthread_kill(main_thread, signal.SIGINT)  # Ctrl-C: the server drains
            if not welcomed:  # the old code: the server's MQTT side never came up
                reasons.append("never welcomed")
                return
            async with asyncio.timeout(scaled(60)):
                reasons.append(await running)
        finally:
            await client.stop()
            running.cancel()
            with contextlib.suppress(BaseException):
                await running

    windows_default_loop(monkeypatch)
    with stray_ctrl_c_harmless(), in_a_thread(bot_then_stop):
        shown = CliRunner().invoke(
            arena_app,
            [
                *("serve", "--host", LOOPBACK, "--port", str(port), "--mqtt", mqtt_url),
                *("--grace", "0", "--log-level", "warning"),
            ],
        )
    if shown.exception is not None and not isinstance(shown.exception, SystemExit):
        raise shown.exception
    assert shown.exit_code == 0, shown.output
    assert len(reasons) == 1 and "shutting down" in reasons[0], reasons


# -- arena bench network ----------------------------------------------------------------------


async def test_bench_network_on_windows_leaves_out_the_in_server_mqtt_runs_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    played: list[str] = []

    async def inprocess(spec: MatchSpec, options: dict[str, Any]) -> Run:
        return Run("in-process", 1.0, dict(RESULT))

    async def network_run(
        spec: MatchSpec, mqtt: str | None, label: str, config: Path | None = None
    ) -> Run:
        played.append(label)
        return Run(label, 2.0, dict(RESULT), [1.0])

    @asynccontextmanager
    async def mosquitto() -> AsyncIterator[str | None]:
        yield "mqtt://127.0.0.1:1883"

    monkeypatch.setattr(network, "run_inprocess", inprocess)
    monkeypatch.setattr(network, "run_two_hops", network_run)
    monkeypatch.setattr(network, "run_one_hop", network_run)
    monkeypatch.setattr(network, "mosquitto", mosquitto)
    monkeypatch.setattr(network, "_mosquitto_version", lambda: "2.0.18")
    monkeypatch.setattr(sys, "platform", "win32")
    report = await run_all(4, "greedy", "s", 0, 1, True, mqtt_broker="both")
    assert played == ["websocket", "websocket-in-server", "mqtt", "mqtt-embedded"]
    lines = render_rows(report)
    for broker in ("mqtt broker: Mosquitto 2.0.18", "embedded mqtt broker: amqtt"):
        [line] = [line for line in lines if line.strip().startswith(broker)]
        assert "in-server run skipped on Windows" in line and "selector event loop" in line
