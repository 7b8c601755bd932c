"""``arena bench network``: what the network costs a match, measured side by side in one run.

One mahjong match (384 hands by default, four bots of one strategy) is played:

1. in-process (the baseline; played again after the network runs, the faster kept);
2. over websockets: an ``arena serve`` process, four ``bots run`` processes, and the referee in
   this process reaching them through ``remote_seats`` — what ``arena match … --server`` does, so
   every message crosses two hops (referee → server → bot);
3. the same with the referee inside the server process (`Hub.local_seats`): one hop;
4. and 5. the same two over MQTT, through a Mosquitto broker this command starts (skipped, and
   said so, when the ``mosquitto`` binary is missing);
6. and 7. with ``--mqtt-broker embedded`` (or ``both``: 4. to 7.), the same two over MQTT through
   the embedded broker (amqtt) that the server starts on a free loopback port, as ``arena serve
   --mqtt mqtt://127.0.0.1:PORT`` does when nothing answers there: in the ``arena serve`` process
   for two hops, in this process (beside the server and the referee) for one.

Every network run must give exactly the in-process result; its wall time is reported as a ratio
to the in-process time, and each decision's round trip (request sent → action back, bot thinking
included) is recorded. Then 16 tables of four bots (64 connections, from four processes) play at
once through one server: all must finish, and the round trip's p99 is reported.

``--think-ms X`` makes every bot of the timed match (greedy only) spend X ms of CPU on each
decision, in-process and over the network alike: the same games, at the decision cost of a
slower strategy (DESIGN §6 states its ratios for Seofon_v2 bots, about 3 ms a decision).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import math
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from arena.bench.network_report import failures, judge, render_rows
from arena.cli.common import at_least
from arena.matches.mahjong import MatchResult, MatchSpec, build_bots, play_match
from arena.server.app import ArenaServer, ServerConfig
from arena.server.remote import RemoteTableError, remote_seats, server_status
from arena.transports.base import Seat
from bots.mahjong.greedy import MAX_THINK_MS
from protocol.messages import Action, Error, Event, Request

LOOPBACK = "127.0.0.1"
MQTT_BROKERS = ("mosquitto", "embedded", "both")
"""``--mqtt-broker``: which broker the MQTT runs go through (``both``: each in turn)."""
START_TIMEOUT_S = 60.0
NO_IN_SERVER_MQTT_ON_WINDOWS = (
    "; its in-server run skipped on Windows, where the MQTT client needs the selector event loop "
    "and that loop cannot start the bots' processes"
)


class TimedSeat:
    """A `Seat` that records each request's round trip, in milliseconds."""

    def __init__(self, seat: Seat, samples: list[float]) -> None:
        self.seat = seat
        self.samples = samples

    async def send(self, message: Event | Error) -> None:
        await self.seat.send(message)

    async def ask(self, request: Request) -> Action:
        started = time.perf_counter()
        try:
            return await self.seat.ask(request)
        finally:
            self.samples.append((time.perf_counter() - started) * 1000)


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    """The samples' median, 90th and 99th percentiles and largest, in numpy's definition
    (`numpy.percentile`'s default: linear between the order statistics), as the 1A2B bench's
    decision latencies are: one definition across the benches. (Until the statistics review
    this took the sample at rank ⌊q·n⌋, one sample too high when q·n is whole: the median of
    1 … 100 came out 51.)"""
    if not samples:
        return {}
    import numpy as np

    data = np.asarray(samples, dtype=np.float64)

    def at(q: float) -> float:
        return round(float(np.percentile(data, 100 * q)), 3)

    return {"n": len(data), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": at(1.0)}


@dataclass
class Run:
    label: str
    wall_s: float
    result: dict[str, Any]
    rtt_ms: list[float] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return int(self.result["decisions"])

    def to_json(self, baseline: Run | None) -> dict[str, Any]:
        data: dict[str, Any] = {"wall_s": round(self.wall_s, 3), "decisions": self.decisions}
        if baseline is not None:
            data["ratio"] = round(self.wall_s / baseline.wall_s, 3)
            data["same_result"] = self.result == baseline.result
        if self.rtt_ms:
            data["rtt_ms"] = percentiles(self.rtt_ms)
        return data


def _figures(result: MatchResult) -> dict[str, Any]:
    """What must not change with the transport: every figure but the bots' names."""
    players = [{k: v for k, v in p.to_json().items() if k != "bot"} for p in result.programs]
    return {"players": players, "decisions": result.decisions, "hands": result.hands}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
    return port


def _python(*args: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; from {args[0]} import main; sys.exit(main())"]


async def _spawn(argv: list[str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


async def _stop(processes: Sequence[asyncio.subprocess.Process]) -> None:
    for process in processes:
        if process.returncode is None:
            process.terminate()
    for process in processes:
        try:
            async with asyncio.timeout(20):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


async def _wait_for_bots(url: str, names: Sequence[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        with contextlib.suppress(RemoteTableError):
            status = await server_status(url)
            if set(names) <= {bot.name for bot in status.bots if bot.state == "lobby"}:
                return
        if time.monotonic() > deadline:
            raise RemoteTableError(f"bots {', '.join(names)} did not connect to {url}")
        await asyncio.sleep(0.1)


async def _until_listening(
    port: int, what: str, timeout_s: float, process: asyncio.subprocess.Process | None = None
) -> None:
    """Wait until something accepts connections on the loopback ``port`` (``process``, when
    given, must not have ended meanwhile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        with socket.socket() as probe:
            if probe.connect_ex((LOOPBACK, port)) == 0:
                return
        if time.monotonic() > deadline or (process is not None and process.returncode is not None):
            raise RuntimeError(f"{what} did not start")
        await asyncio.sleep(0.05)


@asynccontextmanager
async def mosquitto() -> AsyncIterator[str | None]:
    """``mqtt://…`` of a Mosquitto broker on a free loopback port, or None without the binary."""
    binary = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
    )
    if binary is None:
        yield None
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "mosquitto.conf"
        # Mosquitto leaves Nagle's algorithm on unless told: small messages would wait for ACKs.
        config.write_text(
            f"listener {port} {LOOPBACK}\nallow_anonymous true\npersistence false\n"
            "set_tcp_nodelay true\n",
            encoding="utf-8",
        )
        broker = await _spawn([binary, "-c", str(config)])
        try:
            await _until_listening(port, "mosquitto", 10, broker)
            yield f"mqtt://{LOOPBACK}:{port}"
        finally:
            await _stop([broker])


@asynccontextmanager
async def bot_processes(
    url: str,
    strategy: str,
    prefix: str,
    count: int,
    copies: int = 1,
    config: Path | None = None,
) -> AsyncIterator[list[str]]:
    """``count`` ``bots run`` processes of ``copies`` connections each (with the strategy
    ``config`` file when given); yields the bot names."""
    names: list[str] = []
    processes = []
    for k in range(count):
        argv = [*_python("bots.cli"), "run", strategy, "--game", "mahjong"]
        if config is not None:
            argv += ["--config", str(config)]
        argv += ["--name", f"{prefix}{k}", "--url", url, "--log-level", "warning"]
        if copies > 1:
            argv += ["--copies", str(copies)]
            names += [f"{prefix}{k}-{i}" for i in range(copies)]
        else:
            names.append(f"{prefix}{k}")
        processes.append(await _spawn(argv))
    try:
        yield names
    finally:
        await _stop(processes)


@asynccontextmanager
async def server_process(mqtt: str | None) -> AsyncIterator[str]:
    port = free_port()
    argv = [*_python("arena.cli.main"), "serve", "--host", LOOPBACK, "--port", str(port)]
    argv += ["--log-level", "warning", "--grace", "0"]
    if mqtt is not None:
        argv += ["--mqtt", mqtt]
    process = await _spawn(argv)
    url = f"ws://{LOOPBACK}:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                await server_status(url)
                break
            except RemoteTableError:
                if process.returncode is not None or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        if mqtt is not None:
            # An embedded broker starts after the websocket listener: the bots need it up.
            broker_port = int(mqtt.rsplit(":", 1)[1])
            await _until_listening(broker_port, "the MQTT broker", START_TIMEOUT_S, process)
        yield url
    finally:
        await _stop([process])


async def _timed_match(spec: MatchSpec, seats: Sequence[Seat], names: Sequence[str]) -> Run:
    samples: list[float] = []
    timed = [TimedSeat(seat, samples) for seat in seats]
    started = time.perf_counter()
    result = await play_match(spec, seats=timed, names=names)
    return Run("", time.perf_counter() - started, _figures(result), samples)


def _options_file(options: dict[str, Any]) -> Path | None:
    """The bots' options as a strategy config for ``bots run --config`` (None when empty)."""
    if not options:
        return None
    handle, name = tempfile.mkstemp(prefix="bench-bot-", suffix=".toml")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.writelines(f"{key} = {value!r}\n" for key, value in options.items())
    return Path(name)


async def run_inprocess(spec: MatchSpec, options: dict[str, Any]) -> Run:
    bots = build_bots(spec, options)
    started = time.perf_counter()
    result = await play_match(spec, bots=bots)
    return Run("in-process", time.perf_counter() - started, _figures(result))


async def run_two_hops(
    spec: MatchSpec, mqtt: str | None, label: str, config: Path | None = None
) -> Run:
    """Referee here, server and bots in their own processes (``arena match --server``)."""
    async with (
        server_process(mqtt) as url,
        bot_processes(mqtt or url, spec.bots[0], f"{label}-", 4, config=config) as names,
    ):
        await _wait_for_bots(url, names)
        async with remote_seats(url, names, game="mahjong") as seats:
            run = await _timed_match(spec, seats, names)
    run.label = label
    return run


async def run_one_hop(
    spec: MatchSpec, mqtt: str | None, label: str, config: Path | None = None
) -> Run:
    """Referee inside the server process, bots in their own processes."""
    server = ArenaServer(ServerConfig(host=LOOPBACK, port=0, mqtt=mqtt, grace_s=0))
    await server.start()
    try:
        url = f"ws://{LOOPBACK}:{server.port}"
        bots = bot_processes(mqtt or url, spec.bots[0], f"{label}-", 4, config=config)
        async with bots as names:
            await _wait_for_bots(url, names)
            async with server.hub.local_seats(names, "mahjong") as seats:
                run = await _timed_match(spec, seats, names)
    finally:
        await server.stop()
    run.label = label
    return run


async def run_tables(strategy: str, tables: int, hands: int, seed: str) -> dict[str, Any]:
    """``tables`` tables of four at once through one server process; bots from four processes."""
    samples: list[float] = []
    async with server_process(None) as url, bot_processes(url, strategy, "t", 4, tables) as names:
        await _wait_for_bots(url, names)

        async def table(t: int) -> bool:
            members = [f"t{k}-{t}" for k in range(4)]
            spec = MatchSpec((strategy,) * 4, f"{seed}/table{t}", hands)
            async with remote_seats(url, members, game="mahjong", label=f"table {t}") as seats:
                result = await play_match(
                    spec, seats=[TimedSeat(s, samples) for s in seats], names=members
                )
            return result.hands == hands

        started = time.perf_counter()
        finished = await asyncio.gather(*(table(t) for t in range(tables)))
        wall = time.perf_counter() - started
    return {
        "tables": tables,
        "connections": len(names),
        "hands_each": hands,
        "finished": sum(finished),
        "wall_s": round(wall, 3),
        "rtt_ms": percentiles(samples),
    }


async def run_all(
    games: int,
    strategy: str,
    seed: str,
    tables: int,
    table_hands: int,
    with_mqtt: bool,
    think_ms: float = 0.0,
    say: Callable[[str], None] | None = None,
    mqtt_broker: str = "mosquitto",
) -> dict[str, Any]:
    """Every run of the bench; ``say`` gets a line as each run starts and ends (progress).
    ``mqtt_broker`` (one of `MQTT_BROKERS`) chooses the MQTT runs' broker when ``with_mqtt``."""
    if mqtt_broker not in MQTT_BROKERS:
        raise ValueError(f"mqtt_broker must be one of {', '.join(MQTT_BROKERS)}: {mqtt_broker!r}")
    spec = MatchSpec((strategy,) * 4, seed, games)
    options: dict[str, Any] = {"think_ms": think_ms} if think_ms else {}
    config = _options_file(options)

    async def step(label: str, run: Awaitable[Run]) -> Run:
        if say is not None:
            say(f"{label}: {games} hands …")
        done = await run
        if say is not None:
            say(f"{label}: {done.wall_s:.2f} s")
        return done

    try:
        first = await step("in-process", run_inprocess(spec, options))
        runs = [
            await step("websocket", run_two_hops(spec, None, "websocket", config)),
            await step(
                "websocket-in-server", run_one_hop(spec, None, "websocket-in-server", config)
            ),
        ]
        mqtt_note = embedded_note = "skipped (--no-mqtt)"
        # The in-server rows run the server's MQTT client on this process's loop (`run_one_hop`).
        in_server_mqtt = sys.platform != "win32"
        in_server_note = "" if in_server_mqtt else NO_IN_SERVER_MQTT_ON_WINDOWS
        if with_mqtt:
            mqtt_note = embedded_note = f"not run (--mqtt-broker {mqtt_broker})"
        if with_mqtt and mqtt_broker != "embedded":
            mqtt_note = "skipped: the mosquitto binary is missing"
            async with mosquitto() as broker:
                if broker is not None:
                    runs.append(await step("mqtt", run_two_hops(spec, broker, "mqtt", config)))
                    if in_server_mqtt:
                        runs.append(
                            await step(
                                "mqtt-in-server",
                                run_one_hop(spec, broker, "mqtt-in-server", config),
                            )
                        )
                    mqtt_note = "Mosquitto " + _mosquitto_version() + in_server_note
        if with_mqtt and mqtt_broker != "mosquitto":
            # The server starts the embedded broker itself, nothing answering on a fresh port.
            embedded_runs = [("mqtt-embedded", run_two_hops)]
            if in_server_mqtt:
                embedded_runs.append(("mqtt-embedded-in-server", run_one_hop))
            for label, play in embedded_runs:
                url = f"mqtt://{LOOPBACK}:{free_port()}"
                runs.append(await step(label, play(spec, url, label, config)))
            embedded_note = (
                f"amqtt {importlib.metadata.version('amqtt')}, in the server process"
                + in_server_note
            )
        # The baseline is played again after the network runs and the faster of the two is
        # kept: on a shared machine one slow baseline would flatter every ratio.
        again = await step("in-process again", run_inprocess(spec, options))
    finally:
        if config is not None:
            config.unlink(missing_ok=True)
    baseline = min(first, again, key=lambda run: run.wall_s)
    report: dict[str, Any] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "match": {"hands": games, "bots": strategy, "seed": seed, "think_ms": think_ms},
        "in-process": {
            **baseline.to_json(None),
            "runs_s": [round(first.wall_s, 3), round(again.wall_s, 3)],
        },
        "mqtt_broker": mqtt_note,
        "mqtt_embedded_broker": embedded_note,
    }
    for run in runs:
        report[run.label] = run.to_json(baseline)
    if tables:
        if say is not None:
            say(f"{tables} tables × {table_hands} hands at once …")
        report["tables"] = await run_tables(strategy, tables, table_hands, seed)
    report["targets"] = judge(report)
    report["failures"] = failures(report)
    return report


def _mosquitto_version() -> str:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([binary, "-h"], capture_output=True, text=True, timeout=5).stdout
        first = out.splitlines()[0] if out else ""
        return first.split("version")[-1].strip().split()[0] if "version" in first else first
    return "?"


def bench_network(
    games: int = typer.Option(384, callback=at_least(1), help="hands of the timed match"),
    bot: str = typer.Option("greedy", help="mahjong strategy of all four bots (`bots list`)"),
    seed: str = typer.Option("bench", help="match seed text"),
    tables: int = typer.Option(
        16, callback=at_least(0), help="tables at once in the concurrency run (0: skip)"
    ),
    table_hands: int = typer.Option(
        8, callback=at_least(1), help="hands per table in the concurrency run"
    ),
    mqtt: bool = typer.Option(True, help="also run over MQTT (--mqtt-broker says through what)"),
    mqtt_broker: str = typer.Option(
        "mosquitto",
        "--mqtt-broker",
        help="the MQTT runs' broker: mosquitto (started here; needs the binary), embedded (the "
        "server's own, amqtt, on a free loopback port) or both",
    ),
    think_ms: float = typer.Option(
        0.0,
        "--think-ms",
        callback=at_least(0.0),
        help="CPU ms every bot spends per decision in the timed match (greedy only): the cost "
        "of a slower strategy, same games",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """A mahjong match in-process, over websockets and over MQTT, and many tables at once."""
    from arena.cli.common import fail, interrupt_exits, print_json
    from bots.registry import bot_names

    known = bot_names("mahjong")
    if bot not in known:
        fail(f"--bot: no mahjong bot named {bot!r}; known: {', '.join(known)}")
    if not math.isfinite(think_ms) or not 0 <= think_ms <= MAX_THINK_MS:
        fail(
            f"--think-ms must be a number of milliseconds from 0 to {MAX_THINK_MS}, got {think_ms}"
        )
    if think_ms and bot != "greedy":
        fail("--think-ms works with the greedy bot only")
    if mqtt_broker not in MQTT_BROKERS:
        fail(f"--mqtt-broker must be one of {', '.join(MQTT_BROKERS)}, got {mqtt_broker!r}")
    if not mqtt and mqtt_broker != "mosquitto":
        fail(f"--no-mqtt runs nothing over MQTT: --mqtt-broker {mqtt_broker} would not be used")

    def say(line: str) -> None:
        typer.echo(f"  … {line}", err=True)

    with interrupt_exits(None):
        report = asyncio.run(
            run_all(
                games, bot, seed, tables, table_hands, mqtt, think_ms, say, mqtt_broker=mqtt_broker
            )
        )
    if json_output:
        print_json(report)
        _fail_if_wrong(report)
        return
    thinking = f" thinking {think_ms:g} ms a decision" if think_ms else ""
    typer.echo(f"{report['machine']}; {games} hands, four {bot} bots{thinking}, seed {seed!r}")
    for line in render_rows(report):
        typer.echo(line)
    _fail_if_wrong(report)


def _fail_if_wrong(report: dict[str, Any]) -> None:
    """A wrong run exits 1 with one error line (after the figures, which show where)."""
    from arena.cli.common import fail

    if report["failures"]:
        fail("; ".join(report["failures"]), code=1)
