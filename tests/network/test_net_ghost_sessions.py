"""An MQTT bot that leaves without ``bye`` (a clean DISCONNECT discards its will) must not leave
a ghost session behind: the audit's H1 saw a restarted bot refused for a minute, and a table
opened meanwhile seat the dead session and play its whole match on fallbacks.

* With the embedded broker the server hears of every bot client's disconnect from the broker,
  after the client's last message, and treats it as a websocket's close.
* With any broker, a ``hello`` on a new topic pair takes the name from a session of that name
  waiting in the lobby over MQTT (with the same token, where tokens are in use); a seated
  session, or a websocket one, is still refused (``name_in_use``).

The server's silence limit is set to an hour here: nothing but the behaviour under test can end
a session during a test."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    PYTHON,
    MqttBot,
    free_port,
    mosquitto,
    mqtt_bot,
    raw_peer,
    running_server,
    scaled,
    subprocess_env,
    wait_until,
    ws_url,
)

from arena.dealing import MatchSeed
from arena.referee import play_game
from arena.server.app import ArenaServer
from arena.server.auth import add_token
from arena.server.hub import Limits
from arena.server.sessions import SessionState
from arena.transports.base import Seat
from protocol.messages import Action, Error, Event, Request

AN_HOUR = 3600.0


@asynccontextmanager
async def embedded_server(**options: Any) -> AsyncIterator[tuple[ArenaServer, int]]:
    port = free_port()
    async with running_server(
        mqtt=f"mqtt://{LOOPBACK}:{port}",
        limits=Limits(hello_timeout_s=scaled(10), mqtt_silence_s=AN_HOUR, reconnect_grace_s=0),
        **options,
    ) as server:
        assert server.broker is not None, "no broker should answer on a fresh port"
        yield server, port


@pytest.fixture(scope="module")
def broker_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with mosquitto(tmp_path_factory.mktemp("mosquitto")) as port:
        yield port


def mosquitto_server(port: int, **options: Any) -> Any:
    return running_server(
        mqtt=f"mqtt://{LOOPBACK}:{port}",
        limits=Limits(hello_timeout_s=scaled(10), mqtt_silence_s=AN_HOUR, reconnect_grace_s=0),
        **options,
    )


# -- the embedded broker tells the server -----------------------------------------------------


async def test_a_bot_that_leaves_without_bye_frees_its_name_at_once() -> None:
    async with embedded_server() as (server, port):
        async with mqtt_bot(port, "ghx", "c1") as bot:
            assert (await bot.hello())["type"] == "welcome"
        # A clean DISCONNECT without bye: no will is published, the bot is silent.
        await wait_until(
            lambda: "ghx" not in server.hub.lobby.sessions, "the server to forget the bot"
        )
        # The restarted bot is welcome at once (it used to get "already has a session").
        async with mqtt_bot(port, "ghx", "c2") as again:
            welcome = await again.hello()
            assert welcome["type"] == "welcome", welcome


async def test_a_seated_bot_that_leaves_without_bye_turns_absent_at_once() -> None:
    async with embedded_server() as (server, port):
        stack = contextlib.AsyncExitStack()
        bot = await stack.enter_async_context(mqtt_bot(port, "ghs", "c1"))
        try:
            assert (await bot.hello())["type"] == "welcome"
            async with server.hub.local_seats(["ghs"], "liars_dice"):
                session = server.hub.lobby.sessions["ghs"]
                assert session.state is SessionState.SEATED
                await stack.aclose()
                # As a websocket's close: its fallbacks are played at once from now on.
                await wait_until(lambda: session.state is SessionState.ABSENT, "the absence")
        finally:
            await stack.aclose()


class Watched:
    """A referee's seat that keeps what each ask ended with."""

    def __init__(self, inner: Seat) -> None:
        self.inner = inner
        self.outcomes: list[Action | Exception] = []

    async def send(self, message: Event | Error) -> None:
        await self.inner.send(message)

    async def ask(self, request: Request) -> Action:
        try:
            action = await self.inner.ask(request)
        except Exception as exc:
            self.outcomes.append(exc)
            raise
        self.outcomes.append(action)
        return action


async def test_the_last_answer_before_a_disconnect_still_counts() -> None:
    """The broker's notice comes after everything the client sent: an action published just
    before leaving is the bot's answer, not lost to its absence."""
    async with embedded_server() as (server, port), raw_peer(ws_url(server)) as bob:
        await bob.send({"type": "hello", "name": "bob", "games": ["liars_dice"]})
        assert (await bob.recv())["type"] == "welcome"
        stack = contextlib.AsyncExitStack()
        quitter = await stack.enter_async_context(mqtt_bot(port, "quitter", "c1"))
        try:
            assert (await quitter.hello())["type"] == "welcome"
            async with server.hub.local_seats(["quitter", "bob"], "liars_dice") as seats:
                watched = Watched(seats[0])
                game = asyncio.create_task(
                    play_game(
                        "liars_dice",
                        [watched, seats[1]],
                        rules={},
                        seed=MatchSeed.from_text("ghost"),
                        deal={"game_index": 0, "first": 0},
                        players=["quitter", "bob"],
                        game_id="g0",
                        deadline_ms=round(scaled(AN_HOUR * 1000)),
                    )
                )
                bob_plays = asyncio.create_task(play_along(bob))
                try:
                    request = await recv_until(quitter, "request")
                    chosen = next(a for a in request["legal"] if a != "challenge")
                    await quitter.send(
                        {"v": 1, "type": "action", "seq": request["seq"], "action": chosen}
                    )
                    await stack.aclose()  # straight after the answer's PUBACK
                    async with asyncio.timeout(scaled(30)):
                        await game
                finally:
                    bob_plays.cancel()
                    game.cancel()
                    with contextlib.suppress(BaseException):
                        await bob_plays
            first = watched.outcomes[0]
            assert isinstance(first, Action) and first.action == chosen, first
            # After it the bot was known gone: every later request failed at once.
            assert all(not isinstance(o, Action) for o in watched.outcomes[1:])
        finally:
            await stack.aclose()


async def recv_until(bot: MqttBot, wanted: str) -> dict[str, Any]:
    while True:
        message = await bot.recv()
        if message["type"] == wanted:
            return message


async def play_along(peer: Any) -> None:
    while True:
        message = await peer.recv(30)
        if message["type"] == "request":
            legal = message["legal"]
            action = next((a for a in legal if a != "challenge"), legal[0])
            await peer.send({"type": "action", "seq": message["seq"], "action": action})


# -- any broker: a new topic pair takes the name from a waiting MQTT session -----------------


async def test_a_hello_on_a_new_topic_pair_replaces_a_waiting_mqtt_session(
    broker_port: int,
) -> None:
    async with (
        mosquitto_server(broker_port) as server,
        mqtt_bot(broker_port, "rp", "old") as ghost,
        mqtt_bot(broker_port, "rp", "new") as restarted,
    ):
        assert (await ghost.hello())["type"] == "welcome"
        ghost_session = server.hub.lobby.sessions["rp"]
        welcome = await restarted.hello()
        assert welcome["type"] == "welcome", welcome
        bye = await ghost.recv()
        assert bye == {"v": 1, "type": "bye", "reason": "replaced by a new connection"}
        session = server.hub.lobby.sessions["rp"]
        assert session is not ghost_session and session.state is SessionState.LOBBY
        assert welcome["session"] == session.session_id
        # The old pair is closed: it speaks for nobody.
        await ghost.send({"v": 1, "type": "ping"})
        assert (await ghost.recv())["code"] == "no_session"
        assert [bot.name for bot in server.hub.status().bots] == ["rp"]


async def test_a_replacing_hello_needs_the_same_token(broker_port: int, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    token = add_token(tokens, "tk")
    async with (
        mosquitto_server(broker_port, tokens=tokens) as server,
        mqtt_bot(broker_port, "tk", "old") as ghost,
        mqtt_bot(broker_port, "tk", "bad") as impostor,
        mqtt_bot(broker_port, "tk", "new") as restarted,
    ):
        assert (await ghost.hello(token))["type"] == "welcome"
        ghost_session = server.hub.lobby.sessions["tk"]
        refusal = await impostor.hello("not-the-token")
        assert refusal["code"] == "auth_failed"
        assert server.hub.lobby.sessions["tk"] is ghost_session
        assert (await restarted.hello(token))["type"] == "welcome"
        assert (await ghost.recv())["type"] == "bye"
        assert server.hub.lobby.sessions["tk"] is not ghost_session


async def test_a_seated_mqtt_session_is_not_replaced(broker_port: int) -> None:
    async with (
        mosquitto_server(broker_port) as server,
        mqtt_bot(broker_port, "st", "old") as seated,
        mqtt_bot(broker_port, "st", "new") as newcomer,
    ):
        assert (await seated.hello())["type"] == "welcome"
        async with server.hub.local_seats(["st"], "liars_dice"):
            session = server.hub.lobby.sessions["st"]
            refusal = await newcomer.hello()
            assert refusal["code"] == "name_in_use", refusal
            assert "(seated)" in refusal["text"]
            assert session.state is SessionState.SEATED
            assert server.hub.lobby.sessions["st"] is session


async def test_a_websocket_session_is_not_replaced_over_mqtt(broker_port: int) -> None:
    async with (
        mosquitto_server(broker_port) as server,
        raw_peer(ws_url(server)) as holder,
        mqtt_bot(broker_port, "wsb", "c1") as newcomer,
    ):
        await holder.send({"type": "hello", "name": "wsb", "games": ["liars_dice"]})
        assert (await holder.recv())["type"] == "welcome"
        refusal = await newcomer.hello()
        assert refusal["code"] == "name_in_use", refusal
        assert server.hub.lobby.sessions["wsb"].transport == "websocket"


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
async def test_bots_run_says_bye_over_mqtt_when_stopped(
    broker_port: int, signal_number: int
) -> None:
    """On another broker than the embedded one, only the bot's bye says at once that it left."""
    url = f"mqtt://{LOOPBACK}:{broker_port}"
    async with mosquitto_server(broker_port) as server:
        process = await asyncio.create_subprocess_exec(
            str(Path(PYTHON).with_name("bots")),
            *("run", "random-guess", "--game", "liars-dice", "--name", "leaver"),
            *("--url", url, "--log-level", "warning"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=subprocess_env(),
        )
        try:
            await wait_until(lambda: "leaver" in server.hub.lobby.sessions, "the bot's hello")
            process.send_signal(signal_number)
            async with asyncio.timeout(scaled(30)):
                assert await process.wait() == 0
            await wait_until(lambda: "leaver" not in server.hub.lobby.sessions, "its bye")
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
