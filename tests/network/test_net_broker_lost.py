"""The server loses its MQTT broker: the matches of its MQTT bots stop, as when the server stops.

Every bot behind the broker is cut off at once, through no fault of its own. Played on, each of
their requests would be a fallback for as long as the outage lasts, and the match would end as a
normal result full of penalties (the audit's broker restart: exit 0, hundreds of penalties; a
league stored it). `Hub.close_tables_with_transport` closes those tables instead: their referees
stop with `ServerLost`, nothing is reported or stored, and a league plays the match again on its
next run. Tables of websocket bots alone play on.

Nothing races the clock: a `HoldingBot` holds its answer until the test has closed the tables,
so they always close in the middle of a game, at a chosen request.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from net_helpers import (
    LOOPBACK,
    clients,
    mosquitto,
    mosquitto_process,
    play_and_read,
    play_duel_game,
    running_server,
    scaled,
    wait_until,
    ws_url,
)
from test_net_server_lost import LEAGUE, HoldingBot, held, start_held_match

from arena.errors import ServerLost
from arena.leagues.config import load_league
from arena.leagues.runner import LeagueIncompleteError
from arena.records import JsonlRecorder, read_lines
from arena.server.auth import TokenStore
from arena.server.hub import Hub
from arena.server.remote import remote_seats
from arena.server.sessions import SessionState
from arena.transports import mqtt
from bots.registry import make_bot

REASON = "the server lost its MQTT broker"


@pytest.fixture(scope="module")
def broker_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with mosquitto(tmp_path_factory.mktemp("mosquitto")) as port:
        yield port


def mqtt_url(port: int) -> str:
    return f"mqtt://{LOOPBACK}:{port}"


async def test_the_tables_of_mqtt_bots_stop_and_the_others_play_on(
    broker_port: int, tmp_path: Path
) -> None:
    # Table 1: alice over MQTT, bob over websockets (holding in its third game). Table 2: two
    # websocket bots (dave holding in its second game), which the broker's loss does not touch.
    bob = HoldingBot(make_bot("bulls_cows", "frequency", {}, name="bob"), after_games=2)
    dave = HoldingBot(make_bot("bulls_cows", "frequency", {}, name="dave"), after_games=1)
    record = tmp_path / "mixed.jsonl"
    async with running_server(mqtt=mqtt_url(broker_port)) as server:
        url = ws_url(server)
        over_mqtt = {"alice": make_bot("bulls_cows", "super-comparison", {}, name="alice")}
        over_ws = {
            "bob": bob,
            "carol": make_bot("bulls_cows", "super-comparison", {}, name="carol"),
            "dave": dave,
        }
        async with (
            clients(mqtt_url(broker_port), "bulls_cows", over_mqtt),
            clients(url, "bulls_cows", over_ws),
        ):
            recorder = JsonlRecorder(record)
            finished = {"mixed": 0, "websocket": 0}

            async def match(names: list[str], key: str, games: int) -> None:
                async with remote_seats(url, names, game="bulls_cows") as seats:
                    for k in range(games):
                        await play_duel_game(
                            seats,
                            key,
                            k,
                            deadline_s=scaled(60),
                            recorder=recorder if key == "mixed" else None,
                        )
                        finished[key] += 1

            mixed = asyncio.create_task(match(["alice", "bob"], "mixed", 40))
            websocket_only = asyncio.create_task(match(["carol", "dave"], "websocket", 3))
            try:
                await held(bob)
                await held(dave)
                closed = await server.hub.close_tables_with_transport("mqtt", REASON)
                assert len(closed) == 1
                assert server.hub.lobby.sessions["alice"].binding is None
                assert [table.bots for table in server.hub.status().tables] == [["carol", "dave"]]
            finally:
                bob.release.set()
                dave.release.set()
            async with asyncio.timeout(scaled(60)):
                with pytest.raises(ServerLost) as lost:
                    await mixed
                await websocket_only
            recorder.close()
            # The bots of the closed table are free for the next one, the MQTT one included.
            await wait_until(
                lambda: (
                    server.hub.lobby.sessions["alice"].state is SessionState.LOBBY
                    and server.hub.lobby.sessions["bob"].state is SessionState.LOBBY
                ),
                "alice and bob back in the lobby",
            )
    assert lost.value.reason == REASON
    assert lost.value.games == finished["mixed"] == 2
    assert finished["websocket"] == 3, "the websocket table played to its end"
    lines = read_lines(record)
    assert len([line for line in lines if line["type"] == "result"]) == 2
    # Nothing was played in the cut-off bot's place, and nobody was penalised.
    assert not [line for line in lines if line["type"] == "failure"]
    assert not [line for line in lines if line.get("fallback")]


async def test_a_league_match_cut_by_the_broker_is_not_stored_and_a_rerun_plays_it(
    broker_port: int, tmp_path: Path
) -> None:
    config_file = tmp_path / "league.toml"
    config_file.write_text(
        LEAGUE.format(name="broker", games=20, deadline=round(scaled(60_000))), encoding="utf-8"
    )
    db, records = tmp_path / "r.sqlite", tmp_path / "records"
    ra = HoldingBot(make_bot("liars_dice", "random-guess", {"seed": "a"}, name="ra"), after_games=2)
    bots = {"ra": ra, "rb": make_bot("liars_dice", "random-guess", {"seed": "b"}, name="rb")}
    async with (
        running_server(mqtt=mqtt_url(broker_port)) as server,
        clients(mqtt_url(broker_port), "liars_dice", bots),
    ):
        config = load_league(config_file, server=ws_url(server), records=records)
        league = asyncio.create_task(asyncio.to_thread(play_and_read, config, db))
        try:
            await held(ra)
            assert len(await server.hub.close_tables_with_transport("mqtt", REASON)) == 1
        finally:
            ra.release.set()
        async with asyncio.timeout(scaled(60)):
            error, stored = await league
        assert stored == set(), "the match cut short is not stored"
        assert isinstance(error, LeagueIncompleteError)
        assert "1 of 1 matches could not be played" in str(error)
        assert f"ra vs rb: lost the connection to the server after 2 games ({REASON})" in str(error)
        assert list(records.glob("*")) == [], "no partial record is left for the match"

        # The same bots, still connected, are back in the lobby: a rerun plays the match.
        async with asyncio.timeout(scaled(120)):
            error, stored = await asyncio.to_thread(play_and_read, config, db)
    assert error is None
    assert stored == {"ra vs rb"}


async def test_arena_match_says_in_one_line_that_the_broker_was_lost(broker_port: int) -> None:
    ra = HoldingBot(make_bot("liars_dice", "random-guess", {"seed": "a"}, name="ra"), after_games=2)
    bots = {"ra": ra, "rb": make_bot("liars_dice", "random-guess", {"seed": "b"}, name="rb")}
    async with (
        running_server(mqtt=mqtt_url(broker_port)) as server,
        clients(mqtt_url(broker_port), "liars_dice", bots),
    ):
        url = ws_url(server)
        match = await start_held_match(url)
        try:
            await held(ra)
            assert len(await server.hub.close_tables_with_transport("mqtt", REASON)) == 1
        finally:
            ra.release.set()
        out, err = await asyncio.wait_for(match.communicate(), timeout=scaled(60))
    text = err.decode()
    assert match.returncode == 2, text
    assert "Traceback" not in text
    assert out == b"", "no standings for a match that was not played"
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text
    assert re.search(
        rf"lost the connection to the server at {re.escape(url)} after 2 games of the match "
        rf"\({REASON}\); the match was stopped",
        errors[0],
    ), errors[0]


async def test_killing_the_broker_stops_the_match(tmp_path: Path) -> None:
    """The whole path: the broker dies mid-game, the bridge notices, the referee stops."""
    with mosquitto_process(tmp_path) as (port, broker):
        alice = HoldingBot(
            make_bot("bulls_cows", "super-comparison", {}, name="alice"), after_games=1
        )
        bots = {"alice": alice, "bob": make_bot("bulls_cows", "frequency", {}, name="bob")}

        async def answering() -> bool:
            try:
                _reader, writer = await asyncio.open_connection(LOOPBACK, port)
            except OSError:
                return False
            writer.close()
            return True

        await wait_until(answering, "mosquitto to listen")
        async with (
            running_server(mqtt=mqtt_url(port)) as server,
            clients(mqtt_url(port), "bulls_cows", bots),
        ):
            url = ws_url(server)

            async def match() -> None:
                async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                    for k in range(40):
                        await play_duel_game(seats, "broker", k, deadline_s=scaled(60))

            playing = asyncio.create_task(match())
            try:
                await held(alice)
                broker.kill()
                async with asyncio.timeout(scaled(30)):
                    with pytest.raises(ServerLost) as lost:
                        await playing
            finally:
                alice.release.set()
                playing.cancel()
    assert lost.value.reason == REASON
    assert lost.value.games == 1


class LosingBroker:
    """The server's client of a broker that accepts it, then goes away (a restart)."""

    pending_calls_threshold = 0

    async def subscribe(self, *_args: Any, **_options: Any) -> list[int]:
        return [1]

    @property
    def messages(self) -> AsyncIterator[Any]:
        return self._lost()

    async def _lost(self) -> AsyncIterator[Any]:
        raise aiomqtt.MqttError("the broker went away")
        yield  # an async generator, never reached


class RestartingBroker(mqtt.MqttBridge):
    """A bridge whose broker serves, is lost, refuses the certificate once (swapped while it
    restarted), then accepts again."""

    def __init__(self, first: str) -> None:
        super().__init__(Hub(TokenStore.open_store()), mqtt.BrokerUrl(LOOPBACK, 8883, tls=True))
        self.steps = [first, "refuse", "serve"]
        self.served_again = asyncio.Event()

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Any:
        step = self.steps.pop(0) if self.steps else "serve"
        if step == "refuse":
            raise self._fatal("mqtt_tls_failed", "the broker's certificate is not trusted")
        if self._was_ready and step == "serve":
            self.served_again.set()
        return LosingBroker()


async def test_a_refusal_ends_the_bridge_at_first_but_is_retried_once_it_has_served() -> None:
    with pytest.raises(mqtt.MqttConfigError, match="not trusted"):
        await RestartingBroker("refuse").run()
    bridge = RestartingBroker("serve")
    running = asyncio.create_task(bridge.run())
    try:
        async with asyncio.timeout(scaled(10)):
            await bridge.served_again.wait()
        assert not running.done()
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
