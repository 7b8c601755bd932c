"""Where a mutation audit of the MQTT work of commit dd149a3 found the suite blind
(docs/NETWORK.md, "MQTT": "Two servers on one broker", "Names", "Writing an MQTT client";
docs/PROTOCOL.md, "Error codes").

The presence check runs against a broker the test plays (`PresenceBroker`): it keeps retained
messages and hands a subscriber what it publishes, as Mosquitto does, and can refuse the servers'
topics or never acknowledge a publish, which a real broker does only when misconfigured or
unwell. The rest drive the bridge, the hub or the bot's adapter directly, or use Mosquitto.
Nothing waits on the clock: every wait is for a state, with a bound that only fails a broken
build.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiomqtt
import pytest
import test_mqtt_mutation_gaps as gaps
import test_mqtt_retained_stays_out as retained
from net_helpers import (
    ARENA,
    LOOPBACK,
    free_port,
    mosquitto,
    scaled,
    subprocess_env,
    wait_until,
)
from test_mqtt_broker_lost_resume import refused
from test_mqtt_two_servers import marker
from test_net_mutation_gaps import Peer
from test_server_sessions_mutation_gaps import match_start

from arena.server.auth import TokenStore, digest
from arena.server.hub import Hub, Limits
from arena.server.sessions import SessionState
from arena.transports import mqtt
from arena.transports.mqtt_topics import (
    PRESENCE_TOPIC,
    SERVER_FILTER,
    down_topic,
    gone_topic,
    up_topic,
)
from bots import adapters
from protocol.messages import Bye

Logs = Callable[[], list[dict[str, Any]]]

OTHER = {
    "type": "arena_server",
    "instance": "other",
    "pid": 4242,
    "host": "h2",
    "started": "t",
}
"""Another arena server's presence marker."""


def events(logs: Logs, event: str) -> list[dict[str, Any]]:
    return [entry for entry in logs() if entry.get("event") == event]


def hello(name: str, **fields: Any) -> bytes:
    said = {"v": 1, "type": "hello", "name": name, "games": ["liars_dice"], **fields}
    return json.dumps(said).encode()


# -- a broker the test plays ------------------------------------------------------------------


LOST = None
"""In a `PresenceBroker`'s queue: the broker goes away."""


class PresenceBroker:
    """The server's MQTT client on a broker the test plays, for the presence check: retained
    messages are kept (an empty one clears its topic) and replayed, flagged, to a subscription
    to `SERVER_FILTER`; what the client publishes on the servers' topics comes back to it,
    unflagged. ``refuse``: the subscription to `SERVER_FILTER` is refused. ``hang``: no publish
    is ever acknowledged."""

    pending_calls_threshold = 0

    def __init__(self, retained: dict[str, bytes] | None = None, *, refuse: bool = False) -> None:
        self.retained = dict(retained or {})
        self.refuse = refuse
        self.hang = False
        self.published: list[tuple[str, bytes, bool]] = []
        self._reading_servers = False
        self._queue: asyncio.Queue[SimpleNamespace | None] = asyncio.Queue()

    def _deliver(self, topic: str, payload: bytes, retain: bool) -> None:
        self._queue.put_nowait(SimpleNamespace(topic=topic, payload=payload, retain=retain))

    def deliver(self, topic: str, payload: bytes) -> None:
        """Someone else publishes on ``topic`` (a subscription of the server's matches it)."""
        self._deliver(topic, payload, False)

    def lose(self) -> None:
        self._queue.put_nowait(LOST)

    def read_all(self) -> bool:
        return self._queue.empty()

    async def subscribe(self, topic: str, *, qos: int = 0) -> list[int]:
        if topic == SERVER_FILTER:
            if self.refuse:
                return [0x80]
            self._reading_servers = True
            for held, payload in self.retained.items():
                self._deliver(held, payload, True)
        return [qos]

    async def publish(
        self, topic: str, payload: str | bytes, *, qos: int = 0, retain: bool = False
    ) -> None:
        if self.hang:
            await asyncio.Event().wait()
        data = payload.encode() if isinstance(payload, str) else bytes(payload)
        self.published.append((topic, data, retain))
        if retain:
            if data:
                self.retained[topic] = data
            else:
                self.retained.pop(topic, None)
        if topic.startswith("arena/v1/server/") and self._reading_servers:
            self._deliver(topic, data, False)

    @property
    def messages(self) -> AsyncIterator[Any]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[Any]:
        while True:
            item = await self._queue.get()
            if item is LOST:
                raise aiomqtt.MqttError("the broker went away")
            yield item

    def marker(self) -> dict[str, Any] | None:
        held = self.retained.get(PRESENCE_TOPIC)
        return None if held is None else json.loads(held)

    def said_to(self, name: str, conn: str) -> list[dict[str, Any]]:
        return [json.loads(p) for t, p, _r in self.published if t == down_topic(name, conn)]


class PresenceBridge(mqtt.MqttBridge):
    """A bridge that checks for other servers, on the brokers ``brokers`` in turn (as
    `ArenaServer` makes it); once they are used up, no broker answers."""

    def __init__(
        self, hub: Hub, brokers: Sequence[PresenceBroker], *, takeover: bool = False
    ) -> None:
        super().__init__(hub, mqtt.BrokerUrl(LOOPBACK, 1883), announce=True, takeover=takeover)
        self.brokers = list(brokers)

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Any:
        if not self.brokers:
            raise aiomqtt.MqttError("no broker answers")
        return self.brokers.pop(0)


def a_hub() -> Hub:
    return Hub(TokenStore.open_store(), Limits(mqtt_silence_s=3600.0, reconnect_grace_s=0))


@asynccontextmanager
async def serving(bridge: PresenceBridge) -> AsyncIterator[PresenceBridge]:
    running = asyncio.create_task(bridge.run())
    try:
        await wait_until(lambda: bridge.ready.is_set() or running.done(), "the bridge to start")
        if running.done():
            running.result()  # raises why it did not start
        yield bridge
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


# -- the presence check -----------------------------------------------------------------------


@pytest.mark.parametrize("held", [b"not json", b"[1, 2]", b"\xff\xfe"])
async def test_an_unreadable_marker_stops_the_start_and_says_so(held: bytes) -> None:
    """A marker no arena server would write is still someone's: the start is refused, and the
    error says the marker could not be read (rather than name a pid and host it does not
    have)."""
    broker = PresenceBroker({PRESENCE_TOPIC: held})
    with pytest.raises(mqtt.MqttConfigError) as refusal:
        async with serving(PresenceBridge(a_hub(), [broker])):
            pass
    text = str(refusal.value)
    assert "another arena server (its marker unreadable)" in text, text
    assert "--mqtt-takeover" in text, text
    assert broker.retained[PRESENCE_TOPIC] == held, "a refused start leaves the marker alone"


async def test_a_marker_cleared_while_serving_is_nobody(structured_logs: Logs) -> None:
    """Another server's clean stop (or its will) publishes an empty marker: that is no second
    server, and this one still clears its own marker when it stops."""
    broker = PresenceBroker()
    async with serving(PresenceBridge(a_hub(), [broker])) as bridge:
        assert broker.marker() is not None
        broker.deliver(PRESENCE_TOPIC, b"")
        # Handled in order: once the bot has its welcome, the empty marker has been read.
        broker.deliver(up_topic("b1", "c1"), hello("b1"))
        await wait_until(lambda: bool(broker.said_to("b1", "c1")), "the welcome")
        assert events(structured_logs, "mqtt_another_server") == []
        await bridge.withdraw()
        assert (PRESENCE_TOPIC, b"", True) in broker.published


async def test_a_takeover_is_for_the_start_only(structured_logs: Logs) -> None:
    """``--mqtt-takeover`` replaces a marker left behind when the server starts. Should it lose
    its broker later and find another server's marker on coming back, another server started
    meanwhile: that one's marker stays, and the clash is logged as an error."""
    first = PresenceBroker()
    second = PresenceBroker({PRESENCE_TOPIC: json.dumps(OTHER).encode()})
    async with serving(PresenceBridge(a_hub(), [first, second], takeover=True)) as bridge:
        first.lose()

        def answered() -> bool:
            return bool(
                events(structured_logs, "mqtt_another_server")
                or events(structured_logs, "mqtt_server_takeover")
            )

        await wait_until(answered, "the check on the broker it came back to")
        assert events(structured_logs, "mqtt_server_takeover") == []
        (clash,) = events(structured_logs, "mqtt_another_server")
        assert clash["level"] == "error" and "pid 4242 on host 'h2'" in clash["error"], clash
        assert second.marker() == OTHER
        assert not bridge.ready.is_set()


async def test_a_broker_that_refuses_the_servers_topics_is_not_checked_once(
    structured_logs: Logs,
) -> None:
    """The check is skipped at once, with one warning, and nothing is published there."""
    broker = PresenceBroker(refuse=True)
    async with serving(PresenceBridge(a_hub(), [broker])):
        pass
    (unchecked,) = events(structured_logs, "mqtt_presence_unchecked")
    assert unchecked["why"] == "the broker refused the subscription", unchecked
    assert [t for t, _p, _r in broker.published if t.startswith("arena/v1/server/")] == []


async def test_a_broker_that_never_acknowledges_the_clear_does_not_hold_up_the_stop(
    structured_logs: Logs,
) -> None:
    """The clear gives up after its timeout with a warning, rather than fail the stop."""
    broker = PresenceBroker()
    async with serving(PresenceBridge(a_hub(), [broker])) as bridge:
        broker.hang = True
        await bridge.withdraw(timeout_s=0.01)
    (kept,) = events(structured_logs, "mqtt_presence_not_cleared")
    assert "TimeoutError" in kept["error"], kept
    held = broker.marker()
    assert held is not None and held["instance"] == bridge.instance, "the marker stays"


async def test_arena_serve_mqtt_takeover_starts_over_a_marker_left_behind(
    tmp_path: Path,
) -> None:
    """The command-line option reaches the server: ``arena serve --mqtt-takeover`` starts where
    a dead server's marker is held, and holds its own instead."""
    stale = {**OTHER, "pid": 1}
    with mosquitto(tmp_path) as port:
        async with aiomqtt.Client(LOOPBACK, port) as client:
            await client.publish(PRESENCE_TOPIC, json.dumps(stale), qos=1, retain=True)
        process = await asyncio.create_subprocess_exec(
            ARENA,
            "serve",
            "--host",
            LOOPBACK,
            "--port",
            str(free_port()),
            "--log-level",
            "warning",
            "--mqtt",
            f"mqtt://{LOOPBACK}:{port}",
            "--mqtt-takeover",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=subprocess_env(),
        )
        try:

            async def settled() -> bool:
                if process.returncode is not None:
                    return True
                held = await marker(port)
                return held is not None and held["pid"] == process.pid

            await wait_until(settled, "the server to start or to give up", seconds=30)
            assert process.returncode is None, await process.stderr.read()  # type: ignore[union-attr]
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()


# -- topics that name no bot ------------------------------------------------------------------


def a_bridge(*, embedded: bool = False) -> mqtt.MqttBridge:
    return mqtt.MqttBridge(a_hub(), mqtt.BrokerUrl(LOOPBACK, 1883), embedded=embedded)


async def test_a_name_too_long_is_logged_cut_at_the_rules_64(
    structured_logs: Logs,
) -> None:
    """docs/NETWORK.md, "Names": the rule allows 64 characters; the line shows that many."""
    a_bridge()._dispatch(f"arena/v1/bots/{'a' * 65}/c1/up", b"{}")
    (ignored,) = events(structured_logs, "mqtt_topic_ignored")
    assert ignored["name"] == "a" * 64 + "…", ignored


async def test_a_name_of_64_is_logged_whole(structured_logs: Logs) -> None:
    """A name the rule allows, on a topic whose ``<conn>`` breaks it: shown whole, and the
    ``<conn>`` blamed."""
    a_bridge()._dispatch(f"arena/v1/bots/{'a' * 64}/bad conn/up", b"{}")
    (ignored,) = events(structured_logs, "mqtt_topic_ignored")
    assert ignored["name"] == "a" * 64, ignored
    assert ignored["problem"].startswith("<conn> breaks the bot-name rule"), ignored


async def test_the_disconnect_of_a_client_that_never_said_hello_is_no_ignored_topic(
    structured_logs: Logs,
) -> None:
    """On the embedded broker, every bot client's end is told to the server; one that never
    said hello (or whose session is gone) has nothing to close, and its notice names a bot all
    the same: no ``mqtt_topic_ignored`` (which says a topic breaks the bot-name rule)."""
    bridge = a_bridge(embedded=True)
    bridge._dispatch(gone_topic("b1", "c1"), b"gone")
    assert events(structured_logs, "mqtt_topic_ignored") == []
    assert bridge._workers == {}


# -- why a session ended, said to a bot that comes back ------------------------------------------


BROKER_LOST = "the server lost its MQTT broker"
REFEREE_LEFT = "its referee in the server left the table"
"""Why `Hub.local_seats` closes its table."""


async def test_a_bot_waiting_in_the_lobby_when_the_broker_is_lost_is_told_so() -> None:
    """Not "the bot left the lobby": the server dropped it, through no fault of its own."""
    hub = gaps.a_hub()
    client = gaps.ScriptedClient()
    async with gaps.serving(hub, client) as bridge:
        client.deliver((up_topic("b1", "c1"), hello("b1")))
        await gaps.handled(bridge)
        token = str(client.said_to("b1", "c1")[0]["resume_token"])
        client.lose()
        await wait_until(lambda: "b1" not in hub.lobby.sessions, "b1's session to end")
    text = await refused(hub, token)
    assert f"the server dropped the bot's connection ({BROKER_LOST})" in text, text
    assert "left the lobby" not in text, text


async def test_the_broker_loss_that_stopped_a_match_is_said_once() -> None:
    """The loss stopped the match and dropped the connection: one cause, said once."""
    hub = gaps.a_hub()
    client = gaps.ScriptedClient()
    async with gaps.serving(hub, client) as bridge:
        client.deliver((up_topic("b1", "c1"), hello("b1")))
        await gaps.handled(bridge)
        token = str(client.said_to("b1", "c1")[0]["resume_token"])
        async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
            await seat.send(match_start("m7"))
            client.lose()
            await wait_until(lambda: "b1" not in hub.lobby.sessions, "b1's session to end")
    text = await refused(hub, token)
    assert f"{BROKER_LOST}: it stopped match m7" in text, text
    assert text.count(BROKER_LOST) == 1, text


async def ws_bot(hub: Hub, name: str = "b1", **fields: Any) -> tuple[Peer, str]:
    """A bot welcomed over a websocket, and its resume token."""
    bot = Peer(hub)
    await bot.say(hello(name, **fields).decode())
    assert bot.link.types() == ["welcome"], bot.link.frames
    return bot, str(bot.link.frames[0]["resume_token"])


async def test_a_bot_whose_match_was_stopped_and_then_left_is_told_both() -> None:
    """Its connection closed on its own (the server gives no reason): the match first, then
    that."""
    hub = gaps.a_hub()
    bot, token = await ws_bot(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m7"))
    await bot.conn.lost()
    text = await refused(hub, token)
    assert f"match m7 was stopped ({REFEREE_LEFT}), and then the bot's connection closed" in text, (
        text
    )


async def test_a_table_closed_before_any_match_began_stopped_no_match() -> None:
    """A table that closes between matches stopped nothing: a bot that then leaves is told only
    that it left."""
    hub = gaps.a_hub()
    bot, token = await ws_bot(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)):
        pass
    await bot.conn.lost()
    text = await refused(hub, token)
    assert "the bot left the lobby (its connection closed)" in text, text
    assert "match None" not in text and "stopped" not in text, text


async def test_an_absent_bot_is_told_why_its_match_was_stopped() -> None:
    """Away when its table closed: the reason the table gave comes with the match."""
    hub = Hub(TokenStore.open_store(), Limits(mqtt_silence_s=3600.0, reconnect_grace_s=3600.0))
    bot, token = await ws_bot(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m7"))
        await bot.conn.lost()
    text = await refused(hub, token)
    assert f"before the end of match m7, while the bot was away ({REFEREE_LEFT})" in text, text


# -- a hello on a connection that has a session -------------------------------------------------


async def test_a_hello_naming_another_bot_is_not_welcomed_even_with_the_token() -> None:
    """A welcome again is for the bot the connection's session is: a hello under another name
    is refused, resume token or not."""
    hub = gaps.a_hub()
    bot, token = await ws_bot(hub)
    await bot.say(hello("b2", resume=token).decode())
    assert bot.link.types() == ["welcome", "error"], bot.link.frames
    assert bot.link.frames[1]["code"] == "not_expected"
    assert list(hub.lobby.sessions) == ["b1"]


async def test_a_hello_with_the_resume_token_but_a_wrong_token_is_not_welcomed() -> None:
    """On a server with tokens, a hello is welcomed again only with a token it accepts, as the
    first one was."""
    hub = Hub(TokenStore(bots={"b1": digest("bot-secret")}))
    bot, resume = await ws_bot(hub, token="bot-secret")
    await bot.say(hello("b1", token="not-the-secret", resume=resume).decode())
    assert bot.link.types() == ["welcome", "error"], bot.link.frames
    assert bot.link.frames[1]["code"] == "not_expected"


async def test_a_late_hello_on_a_connection_taken_over_does_not_take_the_seat_back() -> None:
    """A bot resumed on a new connection; a hello that the old one had sent meanwhile, handled
    before its close is, must leave the seat with the new connection."""
    hub = Hub(TokenStore.open_store(), Limits(mqtt_silence_s=3600.0, reconnect_grace_s=3600.0))
    old, token = await ws_bot(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)):
        new = Peer(hub)
        await new.say(hello("b1", resume=token).decode())
        assert new.link.types() == ["welcome"], new.link.frames
        assert old.link.closed
        await old.say(hello("b1").decode())
        session = hub.lobby.sessions["b1"]
        assert session.link is new.link
        assert not new.link.closed and new.link.types() == ["welcome"], new.link.frames


async def test_a_seated_bot_closed_for_flood_by_repeated_hellos_is_away() -> None:
    """The hello that goes over the flood limit closes the topic pair: the seated bot is away
    (its seat waits out the grace), and that hello does not hand the seat back to the closed
    pair."""
    hub = Hub(
        TokenStore.open_store(),
        Limits(
            mqtt_silence_s=3600.0,
            reconnect_grace_s=3600.0,
            flood_burst=2,
            flood_per_second=1e-9,
        ),
    )
    bridge = mqtt.MqttBridge(hub, mqtt.BrokerUrl(LOOPBACK, 1883))
    broker = PresenceBroker()
    bridge.client = broker  # type: ignore[assignment]
    key = ("b1", "c1")
    await bridge._handle(key, hello("b1"))
    assert await bridge.flush()
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)):
        for _ in range(3):
            await bridge._handle(key, hello("b1"))
        assert await bridge.flush()
        said = [m.get("code", m["type"]) for m in broker.said_to("b1", "c1")]
        assert said == ["welcome", "welcome", "welcome", "flood", "bye"], said
        session = hub.lobby.sessions["b1"]
        assert session.state is SessionState.ABSENT and session.link is None


async def test_an_open_table_waiting_for_its_bots_when_the_drain_begins_gets_shutting_down() -> (
    None
):
    """As one asked for during the drain (docs/PROTOCOL.md, ``shutting_down``)."""
    hub = gaps.a_hub()
    admin = Peer(hub)
    await admin.say({"type": "admin_hello", "name": "ref"})
    await admin.say({"type": "open_table", "game": "liars_dice", "bots": ["b1"]})
    await wait_until(lambda: hub.lobby.waiting == 1, "the table to wait for b1")
    await hub.begin_drain()
    await wait_until(lambda: "error" in admin.link.types(), "the refusal")
    assert admin.link.last("error")["code"] == "shutting_down"


# -- the embedded broker's retained messages ------------------------------------------------------


async def test_a_retained_message_the_broker_holds_for_a_bot_reaches_it_once() -> None:
    """The topic ACL keeps a retained message from anyone it does not let read it, not from the
    bot whose down topic it is: that one gets it, once, flagged retained."""
    async with retained.embedded_server() as (server, port):
        down = retained.topic("victim", "c2", "down")
        await server.broker.retain_message(None, down, b'{"v": 1, "type": "bye"}', 1)
        seen = await retained.a_later_client_sees(port)
    assert [(t, flag) for t, flag, _p in seen] == [(down, True), (down, False)], seen


# -- the bot's MQTT client ---------------------------------------------------------------------


def message(topic: str, payload: dict[str, Any], *, retain: bool = False) -> SimpleNamespace:
    return SimpleNamespace(topic=topic, payload=json.dumps(payload).encode(), retain=retain)


def adapter_reading(*messages: SimpleNamespace) -> adapters.MqttAdapter:
    """b1's adapter, connection c1, whose broker delivers ``messages``."""

    async def delivered() -> AsyncIterator[SimpleNamespace]:
        for item in messages:
            yield item

    adapter = adapters.MqttAdapter(LOOPBACK, 1883, "b1")
    adapter.conn = "c1"
    adapter._client = SimpleNamespace(messages=delivered())  # type: ignore[assignment]
    return adapter


OWN_DOWN = "arena/v1/bots/b1/c1/down"
FOREIGN = "arena/v1/bots/b1/c9/down"


@pytest.mark.parametrize(
    ("first", "why", "where"),
    [
        (
            message(FOREIGN, {"v": 1, "type": "bye"}),
            "not this connection's down topic",
            "another topic",
        ),
        (
            message(OWN_DOWN, {"v": 1, "type": "bye"}, retain=True),
            "retained",
            "this connection's down topic",
        ),
    ],
)
async def test_the_client_reads_the_server_only_and_says_so_once(
    structured_logs: Logs, first: SimpleNamespace, why: str, where: str
) -> None:
    """Another topic's message, or a retained one, is not the server speaking: skipped, with
    one line for the first (why, and never the topic itself, which names a connection)."""
    adapter = adapter_reading(
        first,
        message(FOREIGN, {"v": 1, "type": "bye", "reason": "foreign"}),
        message(OWN_DOWN, {"v": 1, "type": "bye", "reason": "planted"}, retain=True),
        message(OWN_DOWN, {"v": 1, "type": "bye", "reason": "the server's"}),
    )
    said = await adapter.receive()
    assert said == Bye(reason="the server's")
    (ignored,) = events(structured_logs, "mqtt_message_ignored")
    assert (ignored["why"], ignored["topic"]) == (why, where), ignored
    assert "arena/v1/bots" not in json.dumps(ignored), ignored


async def test_each_connection_of_the_client_says_once_what_it_skips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, structured_logs: Logs
) -> None:
    """A retained message planted on each connection's down topic (Mosquitto replays it at the
    subscription): one line per connection, not one per process."""
    conns = iter(["c1", "c2"])
    monkeypatch.setattr(adapters, "secrets", SimpleNamespace(token_hex=lambda _n: next(conns)))
    with mosquitto(tmp_path) as port:
        adapter = adapters.MqttAdapter(LOOPBACK, port, "b1")
        async with aiomqtt.Client(LOOPBACK, port) as server:
            for conn in ("c1", "c2"):
                down = down_topic("b1", conn)
                await server.publish(down, b'{"v": 1, "type": "bye"}', qos=1, retain=True)
                await adapter.connect()
                try:
                    await server.publish(down, b'{"v": 1, "type": "bye", "reason": "live"}', qos=1)
                    assert await adapter.receive() == Bye(reason="live")
                finally:
                    await adapter.close()
    assert len(events(structured_logs, "mqtt_message_ignored")) == 2
