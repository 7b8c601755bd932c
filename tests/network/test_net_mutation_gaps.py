"""The server's trust boundary, checked where a mutation audit found the suite blind: who a peer
is (tokens, resume, admin), what a bot may see (only its own seat's frames, no events when it
declined them) and what it may send (only answers to its own pending request).

Each test drives the `Hub` in process through links that keep what the server sends, as a
transport would feed it: no sockets, no timing. The rules are those of docs/NETWORK.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from net_helpers import KeptLink, raw_peer, running_server, wait_until, ws_url
from wire_samples import solve_observation

from arena.server import links
from arena.server.auth import TokenStore, digest
from arena.server.connection import Connection
from arena.server.hub import Hub
from arena.server.links import MQTT_TRANSPORT, FloodGuard
from arena.server.lobby import Admitted, Lobby
from arena.server.sessions import SessionState
from arena.server.tables import Table
from protocol.codec import MAX_MESSAGE_BYTES, encode
from protocol.games.bulls_cows import GuessMade
from protocol.messages import Error, ErrorCode, Event, Hello, Request

GAME = "bulls_cows"


class Peer:
    """One connection of the hub and the link that sees what it is sent."""

    def __init__(self, hub: Hub, *, transport: str = "websocket", name: str | None = None) -> None:
        self.link = KeptLink(transport)
        self.conn: Connection = hub.connection(
            self.link, admin=transport != MQTT_TRANSPORT, timed=False, name=name
        )

    async def say(self, frame: dict[str, Any] | str) -> None:
        await self.conn.feed(frame if isinstance(frame, str) else json.dumps(frame))


def hello(name: str, **fields: Any) -> dict[str, Any]:
    return {"type": "hello", "name": name, "games": [GAME], **fields}


def request(seq: int, seat: int = 0, bank_ms: int | None = None) -> str:
    observation = solve_observation(seat)
    return encode(
        Request(
            match="m1",
            game="g1",
            seat=seat,
            seq=seq,
            deadline_ms=60_000,
            bank_ms=bank_ms,
            observation=observation,
        )
    )


def guess_event(seat: int = 0) -> str:
    return encode(
        Event(match="m1", game="g1", seat=seat, payload=GuessMade(seat=1, guess="1234", number=1))
    )


async def welcomed(hub: Hub, name: str, **fields: Any) -> Peer:
    bot = Peer(hub)
    await bot.say(hello(name, **fields))
    assert bot.link.types() == ["welcome"], bot.link.frames
    return bot


async def open_table(hub: Hub, names: list[str]) -> tuple[Peer, dict[str, Any]]:
    """An admin connection and its ``table_opened`` for ``names`` (all in the lobby)."""
    admin = Peer(hub)
    await admin.say({"type": "admin_hello", "name": "ref"})
    assert admin.link.types() == ["admin_welcome"]
    await admin.say({"type": "open_table", "game": GAME, "bots": names})
    await wait_until(lambda: "table_opened" in admin.link.types(), "table_opened")
    return admin, admin.link.last("table_opened")


async def attached(hub: Hub, opened: dict[str, Any], slot: int) -> Peer:
    seat = Peer(hub)
    key = opened["seats"][slot]["key"]
    await seat.say({"type": "attach", "table": opened["table"], "slot": slot, "key": key})
    assert seat.link.types() == ["attached"], seat.link.frames
    return seat


# -- who a peer is ---------------------------------------------------------------------------


async def test_no_admin_token_in_the_tokens_file_means_no_admin_gets_in() -> None:
    """A tokens file with bots only: every admin_hello is refused, with or without a token
    (docs/NETWORK.md: both name and token must match an [admins] entry)."""
    hub = Hub(TokenStore(bots={"b1": digest("bot-secret")}))
    for token in (None, "", "bot-secret"):
        admin = Peer(hub)
        await admin.say({"type": "admin_hello", "name": "admin", "token": token})
        assert admin.link.types() == ["error"]
        assert admin.link.frames[0]["code"] == ErrorCode.AUTH_FAILED
        assert admin.link.closed


async def test_a_connection_over_mqtt_never_becomes_an_admin_or_a_seat() -> None:
    """Over MQTT a peer speaks only the bot protocol: ``admin_hello`` and ``attach`` there are
    messages a bot does not send, refused like any other, and no table opens from them."""
    hub = Hub(TokenStore.open_store())
    await welcomed(hub, "b1")
    admin = Peer(hub, transport=MQTT_TRANSPORT, name="ref")
    await admin.say({"type": "admin_hello", "name": "ref"})
    assert "admin_welcome" not in admin.link.types()
    assert admin.link.types()[:1] == ["error"]
    await admin.say({"type": "open_table", "game": GAME, "bots": ["b1"]})
    assert "table_opened" not in admin.link.types()
    assert not hub.tables
    assert hub.lobby.sessions["b1"].state is SessionState.LOBBY


async def test_without_tokens_an_absent_seat_is_taken_back_only_with_its_resume_token() -> None:
    """Without --tokens a name proves nothing: a hello without ``resume`` for a seated bot that
    is away gets ``name_in_use``, and the seat stays for the bot's resume token."""
    lobby = Lobby(TokenStore.open_store())
    first_link = KeptLink()
    first = await lobby.admit(Hello(name="b1", games=[GAME]), first_link)
    assert isinstance(first, Admitted)
    session = first.session
    session.seat_at("t1", 0)
    await lobby.link_lost(session, first_link)
    assert session.state is SessionState.ABSENT

    intruder = await lobby.admit(Hello(name="b1", games=[GAME]), KeptLink())
    assert isinstance(intruder, Error) and intruder.code is ErrorCode.NAME_IN_USE
    back = await lobby.admit(
        Hello(name="b1", games=[GAME], resume=session.resume_token), KeptLink()
    )
    assert isinstance(back, Admitted) and back.resumed and back.session is session


async def test_a_draining_server_keeps_a_waiting_mqtt_bot_that_a_new_hello_names() -> None:
    """While the server shuts down no bot is admitted; a hello that is refused for that must
    not first push out the bot waiting in the lobby under its name."""
    lobby = Lobby(TokenStore.open_store())
    old_link = KeptLink(MQTT_TRANSPORT)
    waiting = await lobby.admit(Hello(name="b1", games=[GAME]), old_link)
    assert isinstance(waiting, Admitted)
    lobby.draining = True

    refused = await lobby.admit(Hello(name="b1", games=[GAME]), KeptLink(MQTT_TRANSPORT))
    # (`not_expected` for a bot that did not ask for `shutting_down`: the hub's mapping.)
    assert isinstance(refused, Error) and refused.code is ErrorCode.SHUTTING_DOWN
    assert waiting.session.state is SessionState.LOBBY
    assert lobby.sessions["b1"] is waiting.session
    assert not old_link.closed and "bye" not in old_link.types()


async def test_an_old_connection_closing_after_a_resume_leaves_the_seat_alone() -> None:
    """A resumed bot's previous connection is closed by the server; its end, reported after
    the resume, is not this session's loss: the bot stays seated and gets its requests."""
    hub = Hub(TokenStore.open_store())
    old = await welcomed(hub, "b1")
    token = old.link.frames[0]["resume_token"]
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)

    new = Peer(hub)
    await new.say(hello("b1", resume=token))
    assert new.link.types()[:1] == ["welcome"]
    assert old.link.closed
    await old.conn.lost()  # as the old socket's handler reports, after the resume

    session = hub.lobby.sessions["b1"]
    assert session.state is SessionState.SEATED
    await seat.say(request(1))
    assert new.link.types()[-1] == "request"
    assert seat.link.types() == ["attached"]  # no "late" for an absent bot


# -- what a bot may see ----------------------------------------------------------------------


async def test_a_bot_that_declined_events_gets_none_even_from_a_referee_that_sends_them() -> None:
    """``attached.events`` false says the server drops the bot's events: a referee need not
    send them, and one that does still reaches the bot with its requests only."""
    hub = Hub(TokenStore.open_store())
    bot = await welcomed(hub, "b1", events=False)
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    assert seat.link.frames[0]["events"] is False

    await seat.say(guess_event())
    await seat.say(request(1))
    assert bot.link.types() == ["welcome", "request"]


async def test_a_table_takes_a_bot_once() -> None:
    """One bot, one seat: a table naming a bot twice is refused, and the bot stays in the
    lobby."""
    hub = Hub(TokenStore.open_store())
    await welcomed(hub, "b1")
    admin = Peer(hub)
    await admin.say({"type": "admin_hello", "name": "ref"})
    await admin.say({"type": "open_table", "game": GAME, "bots": ["b1", "b1"]})
    await wait_until(lambda: len(admin.link.frames) > 1, "the answer to open_table")
    assert admin.link.types() == ["admin_welcome", "error"]
    assert admin.link.frames[1]["code"] == ErrorCode.BAD_MESSAGE
    assert not hub.tables
    assert hub.lobby.sessions["b1"].state is SessionState.LOBBY


async def test_a_slot_is_attached_only_with_its_whole_key() -> None:
    """A seat connection reads the bot's requests and answers for it: the key is a secret, so
    any other text, a prefix of it (the empty one included) too, gets ``auth_failed``."""
    hub = Hub(TokenStore.open_store())
    await welcomed(hub, "b1")
    _admin, opened = await open_table(hub, ["b1"])
    key = opened["seats"][0]["key"]
    for guess in ("", key[:1], key[:-1], key + "x"):
        intruder = Peer(hub)
        await intruder.say({"type": "attach", "table": opened["table"], "slot": 0, "key": guess})
        assert intruder.link.types() == ["error"], guess
        assert intruder.link.frames[0]["code"] == ErrorCode.AUTH_FAILED
        assert intruder.link.closed
    assert not hub.tables[opened["table"]].sinks


async def test_a_slot_is_attached_once() -> None:
    """A second attach to a slot, even with its key, is refused: the bot's answers keep going
    to the first seat connection."""
    hub = Hub(TokenStore.open_store())
    bot = await welcomed(hub, "b1")
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    key = opened["seats"][0]["key"]
    second = Peer(hub)
    await second.say({"type": "attach", "table": opened["table"], "slot": 0, "key": key})
    assert second.link.types() == ["error"]
    assert second.link.frames[0]["code"] == ErrorCode.NOT_EXPECTED

    await seat.say(request(1))
    await bot.say({"type": "action", "seq": 1, "action": "0123"})
    assert seat.link.types() == ["attached", "action"]
    assert second.link.types() == ["error"]


async def test_a_closed_table_takes_no_seat_connection() -> None:
    """Closing a table waits for its seat connections to finish (the admin's grace): in that
    window, a table that is closing accepts no new attach, right key or not."""
    lobby = Lobby(TokenStore.open_store())
    admitted = await lobby.admit(Hello(name="b1", games=[GAME]), KeptLink())
    assert isinstance(admitted, Admitted)
    table = Table(GAME, [admitted.session], "", "c0")
    await table.close(lobby, "closed by its admin")
    refused = table.attach(0, table.keys[0], KeptLink())
    assert isinstance(refused, Error) and refused.code is ErrorCode.NOT_EXPECTED
    assert not table.sinks


# -- what a bot may send ---------------------------------------------------------------------


async def test_a_malformed_action_for_another_seq_is_not_an_answer_to_the_pending_one() -> None:
    """A malformed action whose ``seq`` is another request's is the bot's bad frame, answered
    to the bot; the pending request stays pending and the referee hears nothing of it."""
    hub = Hub(TokenStore.open_store())
    bot = await welcomed(hub, "b1")
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    await seat.say(request(3))
    assert bot.link.types()[-1] == "request"

    await bot.say({"type": "action", "seq": 2, "action": ""})
    assert bot.link.types()[-1] == "error"
    assert bot.link.frames[-1]["code"] == ErrorCode.BAD_MESSAGE
    assert seat.link.types() == ["attached"]

    await bot.say({"type": "action", "seq": 3, "action": "0123"})
    assert seat.link.types() == ["attached", "action"]
    assert seat.link.frames[-1]["seq"] == 3


async def test_the_referee_gets_the_answer_in_the_seat_its_request_named() -> None:
    """A bot may leave ``match``, ``game`` and ``seat`` out of its action (only ``seq`` is
    echoed): the referee's seat connection gets them from the request the action answers."""
    hub = Hub(TokenStore.open_store())
    bot = await welcomed(hub, "b1")
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    await seat.say(request(4, seat=1))
    await bot.say({"type": "action", "seq": 4, "action": "0123"})
    action = seat.link.last("action")
    assert (action["match"], action["game"], action["seat"], action["seq"]) == ("m1", "g1", 1, 4)
    assert action["action"] == "0123"


async def test_a_resumed_bot_gets_only_the_additions_its_new_hello_asks_for() -> None:
    """``hello.features`` says what this bot understands: a bot that comes back (say, an
    older build restarted with the resume file) without ``bank_ms`` gets requests without it."""
    hub = Hub(TokenStore.open_store())
    first = await welcomed(hub, "b1", features=["bank_ms"])
    token = first.link.frames[0]["resume_token"]
    _admin, opened = await open_table(hub, ["b1"])
    seat = await attached(hub, opened, 0)
    await seat.say(request(1, bank_ms=5_000))
    assert first.link.last("request")["bank_ms"] == 5_000

    again = Peer(hub)
    await again.say(hello("b1", resume=token))
    assert again.link.types()[:1] == ["welcome"]
    await seat.say(request(2, bank_ms=4_000))
    latest = again.link.last("request")
    assert latest["seq"] == 2 and "bank_ms" not in latest


async def test_an_admin_that_drops_takes_its_tables_with_it() -> None:
    """A table lives until the admin connection that opened it closes it or drops: then its
    bots are back in the lobby, free for the next table."""
    hub = Hub(TokenStore.open_store())
    await welcomed(hub, "b1")
    admin, opened = await open_table(hub, ["b1"])
    assert opened["table"] in hub.tables
    await admin.conn.lost()
    assert not hub.tables
    assert hub.lobby.sessions["b1"].state is SessionState.LOBBY


def test_the_flood_allowance_never_grows_past_its_burst(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/NETWORK.md: 20 bad frames at once, then 2 per second. However long a peer was
    quiet, it may send 20 at once, not more (the clock is the guard's own, set by hand)."""
    clock = [1000.0]
    monkeypatch.setattr(links.time, "monotonic", lambda: clock[0])
    guard = FloodGuard(burst=20, per_second=2.0)
    clock[0] += 3600.0
    assert [guard.strike() for _ in range(20)] == [False] * 20
    assert guard.strike()


async def test_a_frame_past_the_transports_limit_closes_the_websocket() -> None:
    """docs/NETWORK.md, Robustness: any frame over 1 MiB (+4 KiB) makes the websocket library
    close the connection (1009); only smaller ones get the hub's ``too_large``."""
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send("x" * (MAX_MESSAGE_BYTES + 4096 + 1))
        assert await peer.closed()
        assert peer.connection.close_code == 1009
