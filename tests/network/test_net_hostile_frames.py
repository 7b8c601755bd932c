"""What the server counts against a connection, and what it answers (docs/NETWORK.md,
"Robustness"; docs/PROTOCOL.md): bad frames are answered and counted towards the flood limit —
JSON nested too deeply included, and frames that set off a server fault — while the late answers
of a slow but honest bot are answered and not counted. Also: an admin closes only its own tables,
and the logs never show an MQTT bot's connection id."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, cast

import pytest
from net_helpers import QuietLink, RawPeer, raw_peer, running_server, scaled, wait_until, ws_url

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.server.connection import Connection
from arena.server.hub import Limits
from arena.server.sessions import BotSession, Frame, SessionState
from arena.transports.mqtt import MqttBridge, MqttLink
from protocol.messages import Action, ErrorCode

DEEP = "[" * 5000 + "]" * 5000
"""10 KiB: under a bot's 16 KiB frame limit, far deeper than the JSON parser's recursion."""
GAMES = 8
"""Liar's dice games the slow bot plays: each gives it one or two late answers."""
STRICT = Limits(hello_timeout_s=scaled(10), flood_burst=3, flood_per_second=0.0)
"""Four bad frames close a connection, however slowly they come: counting is then exact."""


def hello(name: str) -> dict[str, Any]:
    return {"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]}


async def replies(peer: RawPeer) -> list[str]:
    """The codes of every error until the connection closes."""
    codes: list[str] = []
    with contextlib.suppress(Exception):
        while True:
            message = await peer.recv()
            if message["type"] == "error":
                codes.append(message["code"])
    return codes


async def test_json_nested_too_deeply_is_bad_json_and_counts_towards_the_flood() -> None:
    """Audit r01: each such frame was a server fault (``internal``, a traceback in the log,
    `internal_errors` + 1) and never counted: 200 of them left the connection open."""
    async with running_server(limits=STRICT) as server, raw_peer(ws_url(server)) as peer:
        await peer.send(DEEP)  # the first frame: before hello
        assert (await peer.recv())["code"] == "bad_json"
        await peer.send(hello("nest"))
        assert (await peer.recv())["type"] == "welcome"
        for _ in range(3):
            await peer.send('{"v":1,"type":"action","seq":1,"action":' + DEEP + "}")
        codes = await replies(peer)
        assert codes == ["bad_json", "bad_json", "bad_json", "flood"]
        assert await peer.closed()
        assert server.hub.internal_errors == 0


async def test_frames_that_set_off_a_server_fault_count_towards_the_flood(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last guard answers ``internal`` for a server bug; a peer that sends the frame again
    and again must not cost a traceback each for ever."""

    async def broken(self: Connection, raw: str | bytes) -> None:
        raise RuntimeError("a server bug")

    async with running_server(limits=STRICT) as server, raw_peer(ws_url(server)) as peer:
        monkeypatch.setattr(Connection, "_bot_frame", broken)
        for _ in range(6):
            with contextlib.suppress(Exception):
                await peer.send(hello("buggy"))
        assert await replies(peer) == ["internal"] * 4 + ["flood"]
        assert await peer.closed()
        assert server.hub.internal_errors == 4


# -- late answers ----------------------------------------------------------------------------


class Sink:
    def __init__(self) -> None:
        self.answers: list[Action] = []

    async def answer(self, action: Action) -> None:
        self.answers.append(action)

    async def fail(self, seq: int, text: str, code: ErrorCode = ErrorCode.LATE) -> None:
        pass

    async def detach(self, reason: str) -> None:
        pass


def request(seq: int) -> Frame:
    return Frame(text="{}", kind="request", seq=seq, seat=0, match="m", game="g0")


def given_up(seq: int) -> Frame:
    """The referee's ``error`` for request ``seq``: it no longer waits for an answer."""
    return Frame(text="{}", kind="error", seq=seq, seat=0, match="m", game="g0")


async def test_only_the_first_answer_to_a_request_sent_is_a_late_one() -> None:
    session = BotSession("slow", ["liars_dice"], QuietLink())
    session.seat_at("t", 0)
    assert session.binding is not None
    session.binding.sink = sink = Sink()
    await session.to_bot(request(1))
    await session.to_bot(given_up(1))
    late = await session.from_bot(Action(seq=1, action="x"))
    assert late is not None and late.late and late.error.code is ErrorCode.NOT_EXPECTED
    again = await session.from_bot(Action(seq=1, action="x"))
    assert again is not None and not again.late, "a second answer to it is a bad frame"
    await session.to_bot(request(2))
    never_sent = await session.from_bot(Action(seq=7, action="x"))
    assert never_sent is not None and not never_sent.late
    assert never_sent.error.code is ErrorCode.STALE_SEQ
    other_game = await session.from_bot(Action(seq=1, game="g9", action="x"))
    assert other_game is not None and not other_game.late
    await session.to_bot(given_up(2))
    await session.to_bot(request(3))
    stale = await session.from_bot(Action(seq=2, action="x"))
    assert stale is not None and stale.late and stale.error.code is ErrorCode.STALE_SEQ
    assert await session.from_bot(Action(seq=3, action="x")) is None
    assert [a.seq for a in sink.answers] == [3]
    session.unseat()
    session.seat_at("t2", 0)
    session.binding.sink = Sink()
    after = await session.from_bot(Action(seq=3, action="x"))
    assert after is not None and not after.late, "a new table numbers its requests afresh"


async def answer_when_given_up(peer: RawPeer, told: list[str]) -> None:
    """A slow bot: answers each request only once the referee has given up on it (its
    ``error`` ``late``), every time — the lateness does not depend on the machine's speed."""
    asked: dict[int, dict[str, Any]] = {}
    while True:
        message = await peer.recv(scaled(120))
        if message["type"] == "request":
            asked[message["seq"]] = message
        elif message["type"] == "error":
            told.append(message["code"])
            old = asked.pop(message.get("seq", -1), None)
            if message["code"] == "late" and old is not None:
                legal = old.get("legal") or ["challenge"]
                await peer.send({"v": 1, "type": "action", "seq": old["seq"], "action": legal[0]})


async def answer_at_once(peer: RawPeer) -> None:
    while True:
        message = await peer.recv(scaled(120))
        if message["type"] == "request":
            legal = message.get("legal") or ["challenge"]
            await peer.send({"v": 1, "type": "action", "seq": message["seq"], "action": legal[0]})


async def test_a_slow_bots_late_answers_are_answered_but_never_close_it() -> None:
    """Audit r07: an honest bot answering just after each deadline was closed as a ``flood``
    (its late answers, ``stale_seq`` / ``not_expected``, were counted as bad frames), although
    PROTOCOL.md says a bad message never closes the connection by itself and the referee had
    already penalised it. With a flood limit of 3 and no refill, four counted frames would
    close it; it sends far more late answers and stays. Answers to requests never sent still
    count."""
    told: list[str] = []
    recorder = MemoryRecorder()
    async with (
        running_server(limits=STRICT) as server,
        raw_peer(ws_url(server)) as slow,
        raw_peer(ws_url(server)) as prompt,
    ):
        for peer, name in ((slow, "slow"), (prompt, "prompt")):
            await peer.send(hello(name))
            assert (await peer.recv())["type"] == "welcome"
        helpers = [
            asyncio.create_task(answer_when_given_up(slow, told)),
            asyncio.create_task(answer_at_once(prompt)),
        ]
        try:
            async with server.hub.local_seats(["slow", "prompt"], "liars_dice") as seats:
                for index in range(GAMES):
                    await play_game(
                        "liars_dice",
                        list(seats),
                        rules={},
                        seed=MatchSeed.from_text("slow"),
                        deal={"game_index": index, "first": index % 2},
                        players=["slow", "prompt"],
                        match_id="slow",
                        game_id=f"g{index}",
                        deadline_ms=round(scaled(0.3) * 1000),
                        recorder=recorder,
                        reveal=False,
                    )
                # The referee's errors were the last thing the bot read: its last late answers
                # may still be on their way.
                await wait_until(
                    lambda: (
                        told.count("late") == told.count("stale_seq") + told.count("not_expected")
                    ),
                    "an answer to every late answer",
                )
        finally:
            for task in helpers:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        assert "flood" not in told, told
        refused = told.count("stale_seq") + told.count("not_expected")
        assert refused > 4, told
        assert server.hub.lobby.sessions["slow"].state is SessionState.LOBBY
        # A frame answering nothing the bot was asked still counts: four of them close it.
        for _ in range(4):
            await slow.send({"v": 1, "type": "action", "seq": 999, "action": "challenge"})
        assert await replies(slow) == ["not_expected"] * 4 + ["flood"]


# -- admin -----------------------------------------------------------------------------------


async def test_an_admin_cannot_close_a_table_it_did_not_open() -> None:
    """Audit r10 item i: another admin connection's close_table got ``table_closed`` for a table
    that played on. It gets ``not_expected``, and the table stays."""
    async with running_server() as server:
        url = ws_url(server)
        async with (
            raw_peer(url) as alice,
            raw_peer(url) as bob,
            raw_peer(url) as owner,
            raw_peer(url) as other,
        ):
            for peer, name in ((alice, "alice"), (bob, "bob")):
                await peer.send(hello(name))
                assert (await peer.recv())["type"] == "welcome"
            for peer in (owner, other):
                await peer.send({"v": 1, "type": "admin_hello", "name": "admin"})
                assert (await peer.recv())["type"] == "admin_welcome"
            await owner.send(
                {"v": 1, "type": "open_table", "game": "liars_dice", "bots": ["alice", "bob"]}
            )
            table = (await owner.recv_until("table_opened"))["table"]
            await other.send({"v": 1, "type": "close_table", "table": table})
            refused = await other.recv()
            assert (refused["type"], refused.get("code")) == ("error", "not_expected")
            assert [t.table for t in server.hub.status().tables] == [table]
            await owner.send({"v": 1, "type": "close_table", "table": table})
            assert (await owner.recv_until("table_closed"))["table"] == table
            assert server.hub.status().tables == []


async def test_a_table_for_a_bad_bot_name_is_refused_with_the_name_cut_short() -> None:
    """An admin's open_table names its bots unbounded: a bad one is refused in words, echoed
    escaped and cut to 70 characters, not whole."""
    async with running_server() as server, raw_peer(ws_url(server)) as owner:
        await owner.send({"v": 1, "type": "admin_hello", "name": "admin"})
        assert (await owner.recv())["type"] == "admin_welcome"
        huge = "bad\n" + "x" * 10_000
        await owner.send(
            {"v": 1, "type": "open_table", "game": "liars_dice", "bots": ["alice", huge]}
        )
        refused = await owner.recv_until("error")
        assert refused["code"] == "bad_message"
        assert refused["text"] == (
            "bots: a bot name is 1 to 64 of the characters A-Z a-z 0-9 _ . - (got "
            + repr(huge[:67] + "...")
            + ")"
        )
        assert server.hub.status().tables == []


# -- MQTT ------------------------------------------------------------------------------------


def test_an_mqtt_bots_connection_id_is_not_in_its_peer_label() -> None:
    """Privacy audit: ``peer`` is logged (at info) for every connection; on the embedded broker
    the connection id ``<conn>`` is what grants a client its topics, so the label carries a
    short hash of it instead: connections stay apart in the logs, and nobody can take one over
    from them."""
    bridge = cast(MqttBridge, None)
    label = MqttLink(bridge, "g1", "Secret-Conn_42").peer
    assert label.startswith("mqtt:g1/")
    assert "Secret-Conn_42" not in label and "secret" not in label.lower()
    assert label == MqttLink(bridge, "g1", "Secret-Conn_42").peer
    assert label != MqttLink(bridge, "g1", "Secret-Conn_43").peer
