"""``arena serve``: the server's life — listen, bridge MQTT, drain on a signal, close.

Shutdown (SIGINT/SIGTERM): the first signal starts a drain — no new tables or bots, running
tables play on to their end (bots may still resume) — for at most ``grace_s`` seconds; a second
signal, or the grace running out, closes every connection at once. A referee whose seat
connections close stops its match (`arena.errors.ServerLost`): nothing is played in the bots'
place (docs/NETWORK.md, "A referee that loses the server").
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from websockets.asyncio.server import Server

from arena.errors import ArenaError
from arena.event_loops import signals_named, stop_signals_handled
from arena.server.auth import TokenStore, is_loopback
from arena.server.hub import Hub, Limits
from arena.transports.mqtt import (
    DEFAULT_PORT,
    UP_FILTER,
    BrokerUrl,
    MqttBridge,
    MqttConfigError,
    bot_client_id,
    parse_mqtt_url,
)
from arena.transports.mqtt_server_broker import BrokerLogin, broker_reachable, start_embedded_broker
from arena.transports.websocket import serve_websockets

log = structlog.get_logger(__name__)

EMBEDDED = "embedded"
BYE_DELIVERY_TIMEOUT_S = 2.0
"""How long a stopping server's embedded broker may take to deliver the bots' byes."""
MQTT_START_S = 10.0
"""How long the server's start waits for its MQTT client to connect and subscribe, retrying."""
MQTT_FIRST_TRY_S = 25.0
"""At most this long in all, the start waits for the first try to end: a peer that takes the
connection but never answers MQTT is given up by the MQTT client only after its own 10 s, and
the error should say why it failed, not only that it did."""
FORCED_CLOSE_S = 2.0
"""After a second signal, how long connections get to take their ``bye`` and close frame before
they are aborted: a peer that reads has them in milliseconds, one that does not never will."""


def websocket_url(host: str, port: int) -> str:
    """The URL a bot or referee connects to: ``ws://HOST:PORT``, an IPv6 address in brackets
    (``ws://[::1]:8765``), as every URL parser wants it."""
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"


class ServerConfigError(ArenaError, ValueError):
    """A server set-up that would be unsafe or cannot work; the message says how to fix it."""


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    mqtt: str | None = None
    """``mqtt://HOST:PORT`` of a broker (an embedded one is started there if none answers), or
    ``embedded`` for an embedded broker on 127.0.0.1:1883; None: websockets only."""
    tokens: Path | None = None
    grace_s: float | None = 300.0
    """How long a drain waits for running tables; None waits for ever."""
    ping_interval_s: float | None = 20.0
    limits: Limits = field(default_factory=Limits)
    mqtt_takeover: bool = False
    """Start even when the broker holds another arena server's presence marker (a server that
    died without its broker noticing): docs/NETWORK.md, "Two servers on one broker"."""

    def token_store(self) -> TokenStore:
        if self.tokens is not None:
            return TokenStore.load(self.tokens)
        if not is_loopback(self.host):
            raise ServerConfigError(
                f"refusing to serve on {self.host} without --tokens: any program that can reach "
                "it could play as any bot. Create tokens with `arena tokens add NAME` (and "
                "`arena tokens add NAME --admin`) and pass --tokens FILE, or bind to 127.0.0.1."
            )
        return TokenStore.open_store()


_SERVER_STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")
"""What stops `arena serve`, of those the platform has (no SIGHUP on Windows; SIGBREAK, Ctrl-Break,
only there): each starts the drain, and a second (of any of them) forces the end. SIGHUP is
handled here, not left to `arena.cli.stopping.stop_like_ctrl_c`, whose handler ignores a repeated
SIGHUP so that a command's own clean-up is never cut short."""


def _ignored(number: int) -> bool:
    return signal.getsignal(number) is signal.SIG_IGN


class ArenaServer:
    """One server: `start`, then `stop` (or `run_until_signalled`)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.hub = Hub(config.token_store(), config.limits)
        self.websocket: Server | None = None
        self.bridge: MqttBridge | None = None
        self.broker: Any = None
        self.port = config.port
        self.mqtt_address = self._mqtt_address(config.mqtt)
        """The broker's address (and login), None without MQTT; read here so that a bad --mqtt
        URL is refused before anything listens."""
        self._bridge_task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """Where bots and referees connect (the port the server got, once started)."""
        return websocket_url(self.config.host, self.port)

    @staticmethod
    def _mqtt_address(url: str | None) -> BrokerUrl | None:
        if url is None:
            return None
        if url == EMBEDDED:
            return BrokerUrl("127.0.0.1", DEFAULT_PORT)
        return parse_mqtt_url(url)

    async def start(self) -> None:
        config = self.config
        self.websocket = await serve_websockets(
            self.hub, config.host, config.port, ping_interval_s=config.ping_interval_s
        )
        self.port = next(iter(self.websocket.sockets)).getsockname()[1]
        if self.mqtt_address is not None:
            try:
                await self._start_mqtt(self.mqtt_address)
            except BaseException:
                await self.stop()
                raise
        # Said once the broker has taken the server too: logged before, it announced a server
        # that a refused login then stopped. (The port is bound first all the same, so a port
        # in use fails before an embedded broker is started, and port 0 has its number.)
        log.info("listening", url=self.url, open=self.hub.tokens.open)

    async def _start_mqtt(self, broker: BrokerUrl) -> None:
        host, port = broker.host, broker.port
        login: BrokerLogin | None = None
        if self.config.mqtt == EMBEDDED or not await broker_reachable(host, port):
            if not is_loopback(host):
                raise ServerConfigError(
                    f"no MQTT broker answers at {host}:{port}, and an embedded broker (no "
                    "authentication) is only started on a loopback address"
                )
            self.broker, login = await start_embedded_broker(broker)
            log.info(
                "embedded_broker",
                address=f"{host}:{port}",
                acl="each client only the topic pair its client id <name>-<conn> names",
            )
        self.bridge = bridge = MqttBridge(
            self.hub,
            broker,
            login,
            embedded=self.broker is not None,
            announce=True,
            takeover=self.config.mqtt_takeover,
        )
        self._bridge_task = task = asyncio.create_task(bridge.run())
        ready = asyncio.create_task(bridge.ready.wait())
        loop = asyncio.get_running_loop()
        give_up = loop.time() + MQTT_FIRST_TRY_S
        try:
            # The bridge ends only on a broker that refuses it; otherwise it retries until ready.
            done, _pending = await asyncio.wait(
                {task, ready}, timeout=MQTT_START_S, return_when=asyncio.FIRST_COMPLETED
            )
            while not done and bridge.last_error is None and bridge.client is None:
                # The first try is still connecting: its end gives the reason (the MQTT client
                # sets no event for it, hence the short waits).
                if loop.time() >= give_up:
                    break
                done, _pending = await asyncio.wait(
                    {task, ready}, timeout=0.05, return_when=asyncio.FIRST_COMPLETED
                )
        finally:
            ready.cancel()
        if task in done:
            task.result()
        if ready not in done:
            raise ServerConfigError(self._mqtt_not_ready(bridge, host, port))

    @staticmethod
    def _mqtt_not_ready(bridge: MqttBridge, host: str, port: int) -> str:
        """Why the bridge is not serving after `MQTT_START_S`, in one line."""
        where = f"{host}:{port}"
        if bridge.client is not None and bridge.last_error is None:
            return (
                f"the MQTT broker at {where} took the server's connection but did not confirm "
                f"its subscription to {UP_FILTER} within {MQTT_START_S:g} s"
            )
        why = bridge.last_error or f"no answer within {MQTT_FIRST_TRY_S:g} s"
        return (
            f"cannot connect to an MQTT broker at {where} (the last try: {why}): is that the "
            "address of an MQTT broker, and does it answer?"
        )

    async def stop(self, grace_s: float | None = 0.0) -> None:
        """Drain for up to ``grace_s`` (0: at once), then close everything."""
        await self.hub.begin_drain()
        if grace_s != 0 and self.hub.tables:
            finished = await self.hub.wait_idle(grace_s)
            if not finished:
                log.warning("grace_expired", tables=len(self.hub.tables))
        # The embedded broker's clients that are bots of ours: each gets its bye below.
        bot_clients = (
            {bot_client_id(*key) for key in self.bridge.connections}
            if self.bridge is not None and self.broker is not None
            else set()
        )
        await self.hub.close_all("the server is shutting down")
        if self.websocket is not None:
            self.websocket.close()
            await self.websocket.wait_closed()
        if self.bridge is not None:
            # Every bye is still in flight: disconnecting now would lose those not yet handed
            # to the broker, and their bots would wait for ever.
            await self.bridge.flush()
            # The next server on this broker may start: this one's marker goes.
            await self.bridge.withdraw()
        if self.broker is not None and bot_clients:
            await self._wait_bots_gone(bot_clients)
        if self._bridge_task is not None:
            self._bridge_task.cancel()
            # A bridge the broker refused has ended with that error, already logged (and raised
            # by start() when it happened there).
            with contextlib.suppress(asyncio.CancelledError, MqttConfigError):
                await self._bridge_task
        if self.broker is not None:
            await self.broker.shutdown()
        log.info("stopped")

    async def _wait_bots_gone(
        self, clients: set[str], timeout_s: float = BYE_DELIVERY_TIMEOUT_S
    ) -> None:
        """Wait (at most ``timeout_s``) until none of the embedded broker's ``clients`` is
        connected: a bot disconnects once it has its ``bye``. The broker's acknowledgement
        (`MqttBridge.flush`) only says that it holds the message; a broker shut down while
        still delivering it drops it, and that bot would reconnect for ever."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        while True:
            sessions = self.broker.sessions
            connected = [
                client
                for client in clients
                if client in sessions and sessions[client][0].transitions.state == "connected"
            ]
            if not connected:
                return
            if loop.time() >= end:
                log.warning("mqtt_bots_still_connected", bots=len(connected), waited_s=timeout_s)
                return
            await asyncio.sleep(0.02)

    async def run_until_signalled(self) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP (or Ctrl-Break, on Windows); drain; a second
        signal (or the grace) forces the end. SIGHUP stays ignored when the process was started
        ignoring it (``nohup``); SIGINT and SIGTERM are always handled (a script's background
        job starts with SIGINT ignored, and ``kill -INT`` must still stop it; `arena serve`
        takes it from its first import on, `arena.cli.stopping.hold_an_ignored_sigint`, so a
        stop sent before this runs ends the start-up instead). The handlers found before are
        put back when the server is done."""
        loop = asyncio.get_running_loop()
        signals = asyncio.Queue[int]()
        handled = [
            number
            for number in signals_named(*_SERVER_STOP_SIGNALS)
            if number != getattr(signal, "SIGHUP", None) or not _ignored(number)
        ]
        with stop_signals_handled(loop, handled, signals.put_nowait):
            await self.start()
            await signals.get()
            log.info("shutdown_requested", tables=len(self.hub.tables))
            drain = asyncio.create_task(self.stop(self.config.grace_s))
            forced = asyncio.create_task(signals.get())
            done, _pending = await asyncio.wait(
                {drain, forced}, return_when=asyncio.FIRST_COMPLETED
            )
            if forced in done:
                log.warning("forced_shutdown", tables=len(self.hub.tables))
                await self.hub.close_all("the server is shutting down now", limit_s=FORCED_CLOSE_S)
                await drain
            else:
                forced.cancel()
