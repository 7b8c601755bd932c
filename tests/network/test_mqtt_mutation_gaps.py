"""The MQTT transport where a mutation audit found the suite blind (docs/NETWORK.md, "MQTT").

Most tests drive `MqttBridge` against a broker that the test plays (`ScriptedClient`): messages
come in batches, as one read from a socket brings them, and the broker goes away when the test
says so. That makes the orderings that a real broker only sometimes produces happen every time:
a hello and a disconnect notice in one read, a flood's last straw with more messages behind it,
a broker lost while a bot's message is being handled. The rest use the embedded broker or no
broker at all. Nothing waits on the clock: every wait is for a state, with a bound that only
fails a broken build.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiomqtt
import pytest
from amqtt.errors import MQTTError
from amqtt.session import Session
from net_helpers import (
    LOOPBACK,
    free_port,
    mosquitto,
    mqtt_bot,
    next_json,
    running_server,
    scaled,
    wait_until,
)

from arena.server.auth import TokenStore
from arena.server.connection import Role
from arena.server.hub import Hub, Limits
from arena.transports import mqtt, mqtt_broker
from arena.transports.mqtt_server_broker import start_embedded_broker
from arena.transports.mqtt_topics import (
    UP_FILTER,
    MqttConfigError,
    down_topic,
    gone_topic,
    owns_topic,
    parse_bot_topic,
    parse_mqtt_url,
    up_topic,
)

AN_HOUR = 3600.0
STRAY_ACTION = json.dumps({"v": 1, "type": "action", "seq": 1, "action": "x"}).encode()
"""An action with no request pending: the server answers it ``error`` ``not_expected``."""


def hello(name: str) -> bytes:
    return json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]}).encode()


def bye() -> bytes:
    return json.dumps({"v": 1, "type": "bye", "reason": "done"}).encode()


@dataclass(frozen=True)
class Publish:
    topic: str
    message: dict[str, Any]
    qos: int
    retain: bool


LOST = None
"""In a `ScriptedClient`'s queue: the broker goes away."""


class ScriptedClient:
    """The server's MQTT client on a broker the test plays. Messages given to `deliver` together
    reach the bridge in one go (one read); `lose` makes the broker go away. ``held``: publishes
    wait for it (a broker that has not acknowledged them)."""

    pending_calls_threshold = 0

    def __init__(self, held: asyncio.Event | None = None) -> None:
        self.held = held
        self.published: list[Publish] = []
        self.subscribed: list[tuple[str, int]] = []
        self._queue: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()

    def deliver(self, *messages: tuple[str, bytes]) -> None:
        for message in messages:
            self._queue.put_nowait(message)

    def read_all(self) -> bool:
        return self._queue.empty()

    def lose(self) -> None:
        self._queue.put_nowait(LOST)

    async def subscribe(self, topic: str, *, qos: int = 0) -> list[int]:
        self.subscribed.append((topic, qos))
        return [qos]

    async def publish(
        self, topic: str, payload: str, *, qos: int = 0, retain: bool = False
    ) -> None:
        if self.held is not None:
            await self.held.wait()
        self.published.append(Publish(topic, json.loads(payload), qos, retain))

    @property
    def messages(self) -> AsyncIterator[Any]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[Any]:
        while True:
            # A queue with messages in it hands them over without a pause: a batch is one read.
            item = await self._queue.get()
            if item is LOST:
                raise aiomqtt.MqttError("the broker went away")
            topic, payload = item
            yield SimpleNamespace(topic=topic, payload=payload, retain=False)

    def said_to(self, name: str, conn: str) -> list[dict[str, Any]]:
        return [p.message for p in self.published if p.topic == down_topic(name, conn)]


class ScriptedBridge(mqtt.MqttBridge):
    """A bridge whose broker connections are ``clients``, in turn; once they are used up, no
    broker answers."""

    def __init__(self, hub: Hub, clients: Sequence[ScriptedClient], *, embedded: bool) -> None:
        super().__init__(hub, mqtt.BrokerUrl(LOOPBACK, 1883), embedded=embedded)
        self.scripted = list(clients)

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Any:
        if not self.scripted:
            raise aiomqtt.MqttError("no broker answers")
        return self.scripted.pop(0)


def a_hub(**limits: Any) -> Hub:
    # No silence drop and no reconnect grace: only what a test does ends a session.
    options: dict[str, Any] = {"mqtt_silence_s": AN_HOUR, "reconnect_grace_s": 0, **limits}
    return Hub(TokenStore.open_store(), Limits(**options))


@asynccontextmanager
async def serving(
    hub: Hub, *clients: ScriptedClient, embedded: bool = False
) -> AsyncIterator[ScriptedBridge]:
    """``hub``'s bridge, running on ``clients`` (one fresh one if none is given) and subscribed."""
    bridge = ScriptedBridge(hub, clients or [ScriptedClient()], embedded=embedded)
    running = asyncio.create_task(bridge.run())
    try:
        await wait_until(bridge.ready.is_set, "the bridge to subscribe")
        yield bridge
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def handled(bridge: mqtt.MqttBridge) -> None:
    """Until the bridge has read every message delivered to it, handled them, and published
    every answer."""
    client = bridge.client
    assert isinstance(client, ScriptedClient)
    # Reading a message hands it to a worker at once: an empty queue and no worker say that
    # everything read is handled.
    await wait_until(
        lambda: client.read_all() and not bridge._workers, "the bridge to handle its messages"
    )
    assert await bridge.flush()


def kinds(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("code", m["type"]) for m in messages]


# -- topic names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic", "matches"),
    [
        ("arena/v1/bots/b1/c1/up", True),
        ("arena/v1/bots/b1/c1/down", False),
        ("arena/v1/bots/b1/c1/gone", False),
        ("arena/v1/bots/b1/c1/up/more", False),
        ("arena/v1/other", False),
    ],
)
def test_the_servers_subscription_takes_only_up_topics(topic: str, matches: bool) -> None:
    """The server reads the up topics, and not its own down traffic back nor anything else."""
    assert aiomqtt.Topic(topic).matches(UP_FILTER) is matches


def test_a_topic_with_levels_beyond_the_direction_is_no_bots() -> None:
    assert parse_bot_topic("arena/v1/bots/b1/c1/up/more", "up") is None
    assert not owns_topic("b1-c1", "arena/v1/bots/b1/c1/down/#", "down")
    assert not owns_topic("b1-c1", "arena/v1/bots/b1/c1/up/more", "up")


# -- what the bridge publishes ---------------------------------------------------------------


async def test_the_bridge_subscribes_and_publishes_at_qos_1_and_retains_nothing() -> None:
    async with serving(a_hub()) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("q1", "c1"), hello("q1")))
        await handled(bridge)
        assert kinds(client.said_to("q1", "c1")) == ["welcome"]
        assert client.subscribed == [(UP_FILTER, 1)]
        assert [(p.qos, p.retain) for p in client.published] == [(1, False)]


async def test_a_closed_or_aborted_link_publishes_nothing() -> None:
    bridge = mqtt.MqttBridge(a_hub(), mqtt.BrokerUrl(LOOPBACK, 1883))
    client = ScriptedClient()
    bridge.client = client  # type: ignore[assignment]
    closed, aborted = mqtt.MqttLink(bridge, "l1", "c1"), mqtt.MqttLink(bridge, "l2", "c1")
    await closed.close("bye from the bot")
    aborted.abort()
    for link in (closed, aborted):
        assert await link.send('{"v": 1, "type": "ping"}') is False
    await asyncio.sleep(0)
    assert client.published == []


async def test_a_send_while_the_broker_is_away_fails_at_once() -> None:
    """Its session then ends, rather than wait for a message that was never sent."""
    bridge = mqtt.MqttBridge(a_hub(), mqtt.BrokerUrl(LOOPBACK, 1883))
    assert bridge.client is None
    assert await mqtt.MqttLink(bridge, "l1", "c1").send('{"v": 1, "type": "ping"}') is False


async def test_flush_says_whether_the_broker_acknowledged_every_publish() -> None:
    acknowledged = asyncio.Event()
    bridge = mqtt.MqttBridge(a_hub(), mqtt.BrokerUrl(LOOPBACK, 1883))
    bridge.client = ScriptedClient(held=acknowledged)  # type: ignore[assignment]
    assert bridge.publish("arena/v1/bots/f1/c1/down", '{"v": 1, "type": "bye"}')
    # The broker holds the acknowledgement for as long as the test likes: the wait ends unmet.
    assert await bridge.flush(timeout_s=0.05) is False
    acknowledged.set()
    assert await bridge.flush() is True
    # And the bridge keeps nothing of an acknowledged publish.
    await wait_until(lambda: not bridge._publishing, "the publish to be forgotten")


# -- one bot connection's messages -------------------------------------------------------------


async def test_one_connections_messages_are_handled_in_the_order_sent() -> None:
    async with serving(a_hub()) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("o1", "c1"), hello("o1")), (up_topic("o1", "c1"), STRAY_ACTION))
        await handled(bridge)
        assert kinds(client.said_to("o1", "c1")) == ["welcome", "not_expected"]


async def test_messages_beyond_the_waiting_bound_are_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mqtt, "MAX_WAITING_FRAMES", 3)
    async with serving(a_hub()) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        topic = up_topic("w1", "c1")
        client.deliver((topic, hello("w1")), *[(topic, STRAY_ACTION)] * 6)
        await handled(bridge)
        # Three waited (the bound); the other four found it full.
        assert kinds(client.said_to("w1", "c1")) == ["welcome", "not_expected", "not_expected"]


async def test_messages_queued_behind_a_flood_get_no_answer_and_leave_no_trace() -> None:
    async with serving(a_hub(flood_burst=2, flood_per_second=0.1)) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        topic = up_topic("f1", "c1")
        client.deliver((topic, hello("f1")), *[(topic, b"not json")] * 8)
        await handled(bridge)
        said = kinds(client.said_to("f1", "c1"))
        assert "flood" in said and said[-1] == "bye", said
        # More from the closed pair, then a sign that the bridge has read them all.
        client.deliver(*[(topic, b"not json")] * 3, (up_topic("f2", "c1"), hello("f2")))
        await handled(bridge)
        assert kinds(client.said_to("f2", "c1")) == ["welcome"]
        assert kinds(client.said_to("f1", "c1")) == said
        assert ("f1", "c1") not in bridge._heard


async def test_a_connection_that_said_bye_is_forgotten_entirely() -> None:
    async with serving(a_hub()) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("b1", "c1"), hello("b1")), (up_topic("b1", "c1"), bye()))
        await handled(bridge)
        assert kinds(client.said_to("b1", "c1")) == ["welcome", "bye"]
        assert bridge.connections == {} and bridge._heard == {}


async def test_mqtt_never_makes_an_admin() -> None:
    async with serving(a_hub()) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        admin_hello = json.dumps({"v": 1, "type": "admin_hello", "name": "ad"}).encode()
        client.deliver((up_topic("ad", "c1"), admin_hello))
        await handled(bridge)
        said = client.said_to("ad", "c1")
        assert [m["type"] for m in said] == ["error"]
        assert bridge.connections == {}


async def test_a_replaced_connection_is_closed_on_the_hub_too() -> None:
    """A hello on a new topic pair takes the name of a waiting session: the old connection is
    ended, not only forgotten by the bridge."""
    hub = a_hub()
    async with serving(hub) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("rp", "old"), hello("rp")))
        await handled(bridge)
        old = bridge.connections[("rp", "old")]
        client.deliver((up_topic("rp", "new"), hello("rp")))
        await handled(bridge)
        assert kinds(client.said_to("rp", "old")) == ["welcome", "bye"]
        assert kinds(client.said_to("rp", "new")) == ["welcome"]
        assert old.role is Role.CLOSED and old not in hub.connections
        assert list(bridge.connections) == [("rp", "new")]


# -- the embedded broker's disconnect notices ------------------------------------------------


async def test_a_disconnect_in_the_same_read_as_the_hello_ends_the_session() -> None:
    """A bot that says hello and leaves at once: the notice comes while the hello still waits
    to be handled, and must not be lost (the session would stay until the silence limit)."""
    hub = a_hub()
    async with serving(hub, embedded=True) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("h1", "c1"), hello("h1")), (gone_topic("h1", "c1"), b"gone"))
        await handled(bridge)
        assert kinds(client.said_to("h1", "c1")) == ["welcome"]
        assert "h1" not in hub.lobby.sessions
        assert bridge.connections == {}


async def test_a_link_whose_client_is_gone_publishes_nothing() -> None:
    async with serving(a_hub(), embedded=True) as bridge:
        client = bridge.client
        assert isinstance(client, ScriptedClient)
        client.deliver((up_topic("g1", "c1"), hello("g1")))
        await handled(bridge)
        link = bridge.connections[("g1", "c1")].link
        client.deliver((gone_topic("g1", "c1"), b"gone"))
        await handled(bridge)
        assert bridge.connections == {}
        assert await link.send('{"v": 1, "type": "ping"}') is False
        await asyncio.sleep(0)
        assert kinds(client.said_to("g1", "c1")) == ["welcome"]


# -- losing the broker -----------------------------------------------------------------------


async def test_a_lost_broker_ends_every_mqtt_session() -> None:
    hub = a_hub()
    first = ScriptedClient()
    async with serving(hub, first) as bridge:
        first.deliver((up_topic("lb", "c1"), hello("lb")))
        await handled(bridge)
        assert "lb" in hub.lobby.sessions
        first.lose()
        await wait_until(lambda: "lb" not in hub.lobby.sessions, "the session to end")
        assert bridge.connections == {}


async def test_the_tables_close_after_the_bridge_stops_publishing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What closing the tables sends to MQTT bots fails at once: the broker is gone."""
    hub = a_hub()
    seen: list[tuple[bool, bool]] = []
    first = ScriptedClient()
    async with serving(hub, first) as bridge:

        async def close_tables_with_transport(transport: str, reason: str) -> None:
            seen.append((bridge.client is None, bridge.ready.is_set()))

        monkeypatch.setattr(hub, "close_tables_with_transport", close_tables_with_transport)
        first.lose()
        await wait_until(lambda: bool(seen), "the tables to be closed")
        assert seen[0] == (True, False)


class StuckBridge(ScriptedBridge):
    """A bridge whose handling of the message ``stuck`` never ends (a write to a peer that
    reads nothing): it notes when that handling is cancelled."""

    def __init__(self, hub: Hub, clients: Sequence[ScriptedClient]) -> None:
        super().__init__(hub, clients, embedded=False)
        self.stuck = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def _handle(self, key: tuple[str, str], payload: bytes | None) -> None:
        if payload != b"stuck":
            await super()._handle(key, payload)
            return
        self.stuck.set()
        try:
            await asyncio.Event().wait()
        finally:
            self.cancelled.set()


async def test_a_lost_broker_stops_the_bridges_busy_workers() -> None:
    first = ScriptedClient()
    bridge = StuckBridge(a_hub(), [first])
    running = asyncio.create_task(bridge.run())
    try:
        await wait_until(bridge.ready.is_set, "the bridge to subscribe")
        first.deliver((up_topic("s1", "c1"), b"stuck"))
        await wait_until(bridge.stuck.is_set, "the handling to start")
        first.lose()
        await wait_until(bridge.cancelled.is_set, "the stuck handling to be cancelled")
        assert bridge._workers == {}
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


class Stop(Exception):
    """Ends a loop of the bridge's from a patched ``asyncio.sleep``."""


async def record_sleeps(monkeypatch: pytest.MonkeyPatch, loop: Any, count: int) -> list[float]:
    """The first ``count`` delays that ``loop`` (a coroutine of the bridge's) sleeps for; no
    time passes."""
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)
        if len(delays) >= count:
            raise Stop

    with monkeypatch.context() as patch:
        patch.setattr(asyncio, "sleep", sleep)
        with pytest.raises(Stop):
            await loop
    return delays


async def test_reconnect_delays_double_up_to_five_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    bridge = ScriptedBridge(a_hub(), [], embedded=False)
    delays = await record_sleeps(monkeypatch, bridge.run(), 8)
    assert delays == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0])


@pytest.mark.parametrize(("limit_s", "period_s"), [(0.4, 0.1), (60.0, 5.0), (3600.0, 5.0)])
async def test_the_silence_watch_looks_at_least_every_five_seconds(
    monkeypatch: pytest.MonkeyPatch, limit_s: float, period_s: float
) -> None:
    """A silent bot is dropped at most a quarter of the limit (and at most 5 s) late."""
    bridge = mqtt.MqttBridge(a_hub(mqtt_silence_s=limit_s), mqtt.BrokerUrl(LOOPBACK, 1883))
    delays = await record_sleeps(monkeypatch, bridge._watch(), 1)
    assert delays == [period_s]


# -- the embedded broker ---------------------------------------------------------------------


@pytest.mark.parametrize("url", ["mqtts://{host}:{port}", "mqtt://user:secret@{host}:{port}"])
async def test_no_embedded_broker_stands_in_for_a_url_with_tls_or_a_login(url: str) -> None:
    """Whoever wrote TLS or a login expects a broker that checks them, not an open one."""
    broker_url = parse_mqtt_url(url.format(host=LOOPBACK, port=free_port()))
    try:
        broker, _login = await start_embedded_broker(broker_url)
    except MqttConfigError as refused:
        assert "only started for a URL without them" in str(refused)
        return
    await broker.shutdown()
    pytest.fail(f"an embedded broker stood in for {broker_url}")


async def test_the_embedded_broker_keeps_nothing_for_a_bot_that_is_away() -> None:
    """A bot's client with a persistent session leaves; what is published for it meanwhile is
    not kept (a dead bot costs the broker no memory) nor handed to it when it comes back."""
    port = free_port()
    async with (
        running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as server,
        aiomqtt.Client(LOOPBACK, port, identifier="pw-c1") as witness,
    ):
        broker, bridge = server.broker, server.bridge
        assert broker is not None and bridge is not None
        await witness.subscribe(down_topic("pw", "c1"), qos=1)
        options: dict[str, Any] = {"identifier": "pa-c1", "clean_session": False}
        async with aiomqtt.Client(LOOPBACK, port, **options) as bot:
            await bot.subscribe(down_topic("pa", "c1"), qos=1)
        await wait_until(lambda: not broker.client_connected("pa-c1"), "the bot to be away")
        assert bridge.publish(down_topic("pa", "c1"), '{"v": 1, "type": "bye"}')
        # The broker delivers in order: once the witness has its message, the broker has
        # dealt with the one for the absent bot.
        assert bridge.publish(down_topic("pw", "c1"), '{"v": 1, "type": "bye"}')
        assert await next_json(witness) is not None
        async with aiomqtt.Client(LOOPBACK, port, **options) as back:
            assert await next_json(back, 1) is None


async def test_a_connect_that_fails_midway_leaves_its_client_id_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    adopt = mqtt_broker.ArenaBroker._adopt_session
    failures: list[str] = []

    async def fail_once(self: mqtt_broker.ArenaBroker, session: Any, handler: Any) -> Any:
        if session.client_id == "af-c1" and not failures:
            failures.append(session.client_id)
            raise MQTTError("the session could not be set up")
        return await adopt(self, session, handler)

    monkeypatch.setattr(mqtt_broker.ArenaBroker, "_adopt_session", fail_once)
    port = free_port()
    async with running_server(mqtt=f"mqtt://{LOOPBACK}:{port}") as server:
        assert server.broker is not None
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client(LOOPBACK, port, identifier="af-c1", timeout=scaled(1)):
                pass
        assert failures == ["af-c1"]
        async with aiomqtt.Client(LOOPBACK, port, identifier="af-c1") as bot:
            await bot.subscribe(down_topic("af", "c1"), qos=1)
            await bot.publish(up_topic("af", "c1"), hello("af"), qos=1)
            welcome = await next_json(bot)
            assert welcome is not None and welcome["type"] == "welcome"


def test_the_subscription_table_is_walked_over_a_snapshot() -> None:
    """amqtt awaits inside its walks of the table: a subscribe or a disconnect meanwhile must
    change neither the walk nor the subscriber list it is delivering to."""
    first, second = Session(), Session()
    table = mqtt_broker.SnapshotSubscriptions({"a": [(first, 1)], "b": [(second, 1)]})
    walked = []
    for topic in table:
        table.pop("b", None)
        table["c"] = []
        walked.append(topic)
    assert walked == ["a", "b"]
    for topic, subscribers in table.items():
        if topic == "a":
            subscribers.append((second, 1))
    assert table["a"] == [(first, 1)]


# -- a bug found by the audit (fixed) --------------------------------------------------------------


async def test_a_retained_hello_opens_no_session(tmp_path: Path) -> None:
    """A broker replays a retained message to every new subscriber, long after its bot is gone:
    a hello kept so must not seat a ghost (it would play on fallbacks until the silence limit)."""
    stale = {"v": 1, "type": "hello", "name": "rt", "games": ["liars_dice"]}
    with mosquitto(tmp_path) as port:
        async with aiomqtt.Client(LOOPBACK, port, identifier="rt-c1") as gone_bot:
            await gone_bot.publish(up_topic("rt", "c1"), json.dumps(stale), qos=1, retain=True)
        async with (
            running_server(
                mqtt=f"mqtt://{LOOPBACK}:{port}", limits=Limits(hello_timeout_s=scaled(10))
            ) as server,
            mqtt_bot(port, "live", "c1") as live,
        ):
            bridge = server.bridge
            assert bridge is not None
            # The retained message came with the subscription, before this hello.
            assert (await live.hello())["type"] == "welcome"
            await wait_until(lambda: not bridge._workers, "the bridge to handle its messages")
            assert list(server.hub.lobby.sessions) == ["live"]
