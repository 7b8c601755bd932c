"""Gaps a mutation audit of the session-end and resume code found (arena/server/journal.py,
frames.py, sessions.py, lobby.py, tables.py, hub.py; arena/transports/websocket.py; bots/client.py):
what a resumed bot is sent (docs/NETWORK.md, "Drops, reconnects and resume"), what a bot that
comes back too late or says ``bye`` is told, and what a stopping client says."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    KeptLink,
    ScriptedAdapter,
    running_server,
    scaled,
    wait_until,
)
from wire_samples import solve_observation

from arena.server.auth import TokenStore
from arena.server.connection import Connection
from arena.server.frames import Frame
from arena.server.hub import Hub, Limits
from arena.server.links import MQTT_TRANSPORT
from arena.server.local import LocalSeat
from arena.server.sessions import SessionState
from arena.transports.base import SeatFailure
from arena.transports.websocket import CLOSE_REASON_BYTES, clip_close_reason
from bots.adapters import AdapterClosed, ClientMessage, MqttAdapter, ServerMessage
from bots.base import Bot
from bots.client import Backoff, BotClient
from protocol.games.common import GameEnd, GameStart, MatchEnd, MatchStart
from protocol.messages import Bye, Error, ErrorCode, Event, Request, Welcome

HELLO = {"type": "hello", "name": "b1", "games": ["liars_dice"], "features": ["refusal_codes"]}


def match_start(match: str = "m1") -> Event:
    start = MatchStart(game_kind="liars_dice", players=["b1"], games=2, seed_commitment=match)
    return Event(match=match, seat=0, payload=start)


def game_start(game: str, match: str | None = "m1") -> Event:
    start = GameStart(game_kind="liars_dice", seat=0, players=["b1"])
    return Event(match=match, game=game, seat=0, payload=start)


def game_end(game: str, match: str | None = "m1") -> Event:
    end = GameEnd(scores=[1.0], winners=[0], reason="test")
    return Event(match=match, game=game, seat=0, payload=end)


def match_end(match: str = "m1") -> Event:
    return Event(match=match, seat=0, payload=MatchEnd(seed="00", totals=[1.0]))


def request(seq: int, game: str, match: str | None = "m1") -> Frame:
    """A request as the session reads it (its text need only be JSON for the test's link)."""
    said = {"v": 1, "type": "request", "match": match, "game": game, "seq": seq}
    return Frame(json.dumps(said), "request", seq, 0, match, game)


def told(frames: list[dict[str, Any]]) -> list[str]:
    """What a bot was sent: an event by its payload's kind (and match), else by its type."""
    return [
        f"{frame['payload']['kind']}:{frame.get('match')}"
        if frame["type"] == "event"
        else frame["type"]
        for frame in frames
    ]


async def welcome(hub: Hub, **hello: Any) -> tuple[Connection, KeptLink]:
    link = KeptLink()
    conn = hub.connection(link, timed=False)
    await conn.feed(json.dumps({**HELLO, **hello}))
    assert link.types() == ["welcome"], link.frames
    return conn, link


class Resumed(KeptLink):
    """A resumed bot's link, and its connection."""

    conn: Connection


async def resume(hub: Hub, **hello: Any) -> Resumed:
    """Resume b1 on a new link (its old one already lost): what it is sent."""
    link = Resumed()
    link.conn = hub.connection(link, timed=False)
    token = hub.lobby.sessions["b1"].resume_token
    await link.conn.feed(json.dumps({**HELLO, **hello, "resume": token}))
    return link


@asynccontextmanager
async def seated(
    journal_cap: int = 1000, grace_s: float = 600
) -> AsyncIterator[tuple[Hub, Connection, LocalSeat]]:
    """Bot b1 (taking events) at a table of the server's own referee; by default a grace that
    no test waits out, so a request stays held for the resume."""
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=grace_s, journal_cap=journal_cap))
    conn, _link = await welcome(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        yield hub, conn, seat


# -- the journal a resumed bot is sent ----------------------------------------------------------


async def test_a_bot_away_across_two_matches_gets_the_end_of_the_first_then_the_second() -> None:
    async with seated() as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        await seat.send(game_end("g0"))
        await seat.send(match_end("m1"))
        await seat.send(match_start("m2"))
        await seat.send(game_start("g0", "m2"))
        await seat.to_bot(request(1, "g0", "m2"))
        link = await resume(hub)
    assert told(link.frames) == [
        "welcome",
        "match_start:m1",
        "game_start:m1",
        "game_end:m1",
        "match_end:m1",
        "match_start:m2",
        "game_start:m2",
        "request",
    ]


async def test_a_match_that_starts_while_the_bot_is_connected_starts_its_journal_again() -> None:
    async with seated() as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await seat.send(game_end("g0"))
        await seat.send(match_end("m1"))
        await seat.send(match_start("m2"))
        await conn.lost()
        link = await resume(hub)
    assert told(link.frames) == ["welcome", "match_start:m2"]


async def test_an_overflowing_journal_drops_its_oldest_half_and_says_how_many() -> None:
    async with seated(journal_cap=5) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        for index in range(4):  # the journal: match_start, game_start, then 4 game ends
            await seat.send(game_end(f"e{index}"))
        await seat.to_bot(request(1, "e3"))
        link = await resume(hub)
    # At the cap (5) the sixth event made room: of the 4 after the match_start, the oldest 2
    # went (the game_start, e0), so match_start, e1, e2, then e3.
    assert link.types()[:2] == ["welcome", "error"]
    assert link.frames[1]["text"] == "2 oldest events of your absence were dropped"
    assert [frame.get("game") for frame in link.frames[2:]] == [None, "e1", "e2", "e3", "e3"]
    assert told(link.frames[2:3]) == ["match_start:m1"]


async def test_a_journal_at_its_cap_drops_nothing() -> None:
    async with seated(journal_cap=4) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        await seat.send(game_end("g0"))
        await seat.send(game_end("g1"))
        link = await resume(hub)
    assert told(link.frames) == [
        "welcome",
        "match_start:m1",
        "game_start:m1",
        "game_end:m1",
        "game_end:m1",
    ]


async def test_a_match_start_that_came_while_away_stays_at_the_head_when_room_is_made() -> None:
    async with seated(journal_cap=6) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        await seat.send(game_end("g0"))
        await seat.send(match_end("m1"))
        await seat.send(match_start("m2"))
        for game in ("g0", "g1"):
            await seat.send(game_start(game, "m2"))
            await seat.send(game_end(game, "m2"))
        await seat.send(match_end("m2"))
        link = await resume(hub)
    # Room was made twice; the second time m2's match_start was among the oldest half, and is
    # put back at the head: it is not counted as dropped.
    assert link.types()[:2] == ["welcome", "error"]
    assert link.frames[1]["text"] == "5 oldest events of your absence were dropped"
    assert told(link.frames[2:]) == [
        "match_start:m2",
        "game_end:m2",
        "game_start:m2",
        "game_end:m2",
        "match_end:m2",
    ]
    assert [frame.get("game") for frame in link.frames[3:6]] == ["g0", "g1", "g1"]


async def test_after_a_resume_the_next_game_starts_a_journal_without_a_stale_count() -> None:
    async with seated(journal_cap=4) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        for index in range(4):
            await seat.send(game_end(f"g{index}"))
        link = await resume(hub)
        back = link.conn
        assert "dropped" in link.frames[1]["text"]
        await seat.send(game_start("g5"))  # connected again: the journal starts again
        await back.lost()
        link = await resume(hub)
    assert told(link.frames) == ["welcome", "match_start:m1", "game_start:m1"]


async def test_a_resume_without_events_after_an_overflow_gets_no_notice_either() -> None:
    async with seated(journal_cap=4) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        for index in range(4):
            await seat.send(game_end(f"g{index}"))
        await seat.to_bot(request(1, "g3"))
        link = await resume(hub, events=False)
    assert link.types() == ["welcome", "request"], link.frames


async def test_a_new_table_without_a_match_start_replays_none_of_an_earlier_match() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600))
    conn, _link = await welcome(hub)
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await seat.send(game_end("g0"))
        await seat.send(match_end("m1"))
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(game_start("g0", None))  # a lone game: no match_start
        await conn.lost()
        link = await resume(hub)
    assert told(link.frames) == ["welcome", "game_start:None"]


async def test_a_match_that_starts_after_a_resume_carries_no_stale_drop_count() -> None:
    async with seated(journal_cap=4) as (hub, conn, seat):
        await seat.send(match_start("m1"))
        await seat.send(game_start("g0"))
        await conn.lost()
        for index in range(4):
            await seat.send(game_end(f"g{index}"))
        back = await resume(hub)
        assert "dropped" in back.frames[1]["text"]
        await seat.send(match_end("m1"))
        await seat.send(match_start("m2"))  # seen by the bot, connected: nothing is missing
        await back.conn.lost()
        link = await resume(hub)
    assert told(link.frames) == ["welcome", "match_start:m2"]


# -- how a session ended, told to a bot that comes back too late ------------------------------


async def refused(hub: Hub, token: str, transport: str = "websocket") -> str:
    """The text of the ``resume_unknown`` a hello of b1 resuming ``token`` is answered."""
    link = KeptLink(transport)
    await hub.connection(link, timed=False).feed(json.dumps({**HELLO, "resume": token}))
    assert link.types() == ["error"] and link.frames[0]["code"] == "resume_unknown", link.frames
    return str(link.frames[0]["text"])


async def test_a_token_of_an_earlier_session_is_told_that_it_ended_and_why() -> None:
    hub = Hub(TokenStore.open_store())
    conn, link = await welcome(hub)
    old = str(link.frames[0]["resume_token"])
    await conn.lost()
    await welcome(hub)  # b1 again, a new session under the name
    text = await refused(hub, old)
    assert "it named an earlier session of the bot, which has ended" in text, text
    assert "(the bot left the lobby (its connection closed))" in text, text


async def test_a_bot_whose_mqtt_session_was_taken_over_in_the_lobby_is_told_so() -> None:
    hub = Hub(TokenStore.open_store())
    first = KeptLink(MQTT_TRANSPORT)
    await hub.connection(first, timed=False).feed(json.dumps(HELLO))
    old = str(first.frames[0]["resume_token"])
    second = KeptLink(MQTT_TRANSPORT)
    await hub.connection(second, timed=False).feed(json.dumps(HELLO))
    assert second.types() == ["welcome"] and first.types() == ["welcome", "bye"]
    text = await refused(hub, old)  # over a websocket: no takeover
    assert "another connection took the name in the lobby" in text, text


async def test_a_bot_away_when_a_later_table_closes_is_not_told_of_an_earlier_match() -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=600))
    conn, link = await welcome(hub)
    token = str(link.frames[0]["resume_token"])
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m7"))
        await seat.send(match_end("m7"))
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)):
        await conn.lost()  # away while this table, with no match yet, closes
    text = await refused(hub, token)
    assert "its table closed while the bot was away" in text, text
    assert "m7" not in text, text


def grace_over(logs: Callable[[], list[dict[str, Any]]], count: int = 1) -> Callable[[], bool]:
    def over() -> bool:
        return sum(entry.get("event") == "reconnect_grace_over" for entry in logs()) >= count

    return over


async def test_a_bot_back_after_its_grace_ran_out_is_told_so(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=0.01))
    conn, link = await welcome(hub)
    token = str(link.frames[0]["resume_token"])
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m7"))
        await conn.lost()
        await wait_until(grace_over(structured_logs), "the reconnect grace to run out")
    text = await refused(hub, token)
    assert "after its reconnect grace had run out" in text, text


async def test_a_grace_that_ran_out_before_a_resume_is_not_blamed_for_a_later_absence(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    hub = Hub(TokenStore.open_store(), Limits(reconnect_grace_s=0.25))
    conn, link = await welcome(hub)
    token = str(link.frames[0]["resume_token"])
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m7"))
        await conn.lost()
        await wait_until(grace_over(structured_logs), "the reconnect grace to run out")
        back = await resume(hub)
        assert back.types()[0] == "welcome"
        await back.conn.lost()  # away again; the table closes at once, well within the grace
    text = await refused(hub, token)
    assert "its table closed before the end of match m7, while the bot was away" in text, text
    assert "grace" not in text, text


async def test_a_closing_table_tells_a_bot_of_a_draining_server_that_no_table_will_seat_it() -> (
    None
):
    hub = Hub(TokenStore.open_store())
    _conn, link = await welcome(hub, features=["match_aborted", "refusal_codes"])
    async with hub.local_seats(["b1"], "liars_dice", start_timeout_s=scaled(10)) as (seat,):
        await seat.send(match_start("m1"))
        hub.lobby.draining = True  # what a drain sets; the table closes while it goes on
    notice = link.last("error")
    assert notice["code"] == "match_aborted", link.frames
    assert "no new table will seat you" in notice["text"], notice
    assert "shutting down" in notice["text"], notice


# -- a bot's bye ---------------------------------------------------------------------------


async def test_a_request_after_a_bots_bye_is_played_for_as_a_bot_that_has_left() -> None:
    async with seated() as (_hub, conn, seat):
        await seat.send(match_start("m1"))
        await conn.feed(json.dumps({"type": "bye", "reason": "lunch"}))
        asked = Request(
            match="m1", game="g0", seat=0, seq=1, deadline_ms=1000, observation=solve_observation(0)
        )
        with pytest.raises(SeatFailure) as failure:
            await seat.ask(asked)
    assert "bot b1 has left" in failure.value.text, failure.value.text


async def test_a_bye_on_a_connection_a_resume_took_over_leaves_the_session_seated() -> None:
    async with seated() as (hub, conn, _seat):
        back = await resume(hub)  # the old connection is still open
        assert back.types() == ["welcome"]
        await conn.feed(json.dumps({"type": "bye", "reason": "old process"}))
        session = hub.lobby.sessions["b1"]
        assert session.state is SessionState.SEATED
        assert session.link is back


# -- the client: stopping, and a match_start seen again --------------------------------------


class Kinds(Bot):
    """Keeps the kinds of the events it is handed."""

    def __init__(self) -> None:
        super().__init__("kinds")
        self.seen: list[str] = []

    async def on_event(self, event: Event) -> None:
        self.seen.append(f"{event.payload.kind}:{event.match}")

    async def act(self, request: Request) -> str:
        raise AssertionError("no request in this test")


WELCOME = Welcome(name="b1", session="s1", resume_token="r1")


def events_seen(scripts: list[list[ServerMessage]], wanted: int) -> list[str]:
    """The events a bot of a client is handed over connections said by ``scripts``."""
    bot = Kinds()
    made = iter(scripts)
    client = BotClient(
        {"liars_dice": bot},
        name="b1",
        adapter_factory=lambda: ScriptedAdapter(next(made, []), []),
        backoff=Backoff(first_s=0.001, most_s=0.01),
    )

    async def run() -> None:
        runner = asyncio.create_task(client.run())
        try:
            async with asyncio.timeout(scaled(10)):
                while len(bot.seen) < wanted:
                    await asyncio.sleep(0.01)
        finally:
            await client.stop()
            runner.cancel()

    asyncio.run(run())
    return bot.seen


def dice_start(match: str, commitment: str) -> Event:
    start = MatchStart(game_kind="liars_dice", players=["b1"], games=2, seed_commitment=commitment)
    return Event(match=match, seat=0, payload=start)


def test_a_new_match_under_an_earlier_ones_id_is_handed_to_the_bot() -> None:
    # A restarted server numbers its matches again: same id, another seed commitment.
    seen = events_seen(
        [[WELCOME, dice_start("m1", "aa")], [WELCOME, dice_start("m1", "bb")]], wanted=2
    )
    assert seen == ["match_start:m1", "match_start:m1"]


def test_a_match_played_again_after_it_was_aborted_is_handed_to_the_bot() -> None:
    aborted = Error(code=ErrorCode.MATCH_ABORTED, match="m1", text="stopped")
    seen = events_seen([[WELCOME, dice_start("m1", "aa"), aborted, dice_start("m1", "aa")]], 2)
    assert seen == ["match_start:m1", "match_start:m1"]


class ScriptedMqtt(MqttAdapter):
    """An MQTT adapter with no broker: it welcomes the bot, then waits; what the client says is
    kept in ``sent``."""

    def __init__(self, sent: list[ClientMessage]) -> None:
        super().__init__("127.0.0.1", 1883, "b1")
        self.sent = sent
        self.gone = asyncio.Event()
        self.script: list[ServerMessage] = [WELCOME]

    async def connect(self) -> None:
        return None

    async def send(self, message: ClientMessage) -> None:
        self.sent.append(message)

    async def receive(self) -> ServerMessage:
        if self.script:
            return self.script.pop(0)
        await self.gone.wait()
        raise AdapterClosed("closed")

    async def close(self) -> None:
        self.gone.set()


def test_an_mqtt_client_with_a_resume_file_still_says_bye_when_stopped(tmp_path: Path) -> None:
    """Over MQTT a bye is what discards the connection's will: without it a broker's server
    keeps the session until its silence limit (a resume file changes that over a websocket
    only, where a bye gives the seat up)."""
    sent: list[ClientMessage] = []
    client = BotClient(
        {"liars_dice": Kinds()},
        name="b1",
        adapter_factory=lambda: ScriptedMqtt(sent),
        resume_file=tmp_path / "b1.resume",
    )

    async def run() -> None:
        runner = asyncio.create_task(client.run())
        try:
            async with asyncio.timeout(scaled(10)):
                await client.welcomed.wait()
        finally:
            await client.stop("stopped by its owner")
            runner.cancel()

    asyncio.run(run())
    assert [message for message in sent if isinstance(message, Bye)] == [
        Bye(reason="stopped by its owner")
    ]


# -- what the server reads of a referee's frame ------------------------------------------------


def frame_of(**fields: Any) -> Frame:
    read = Frame.read(json.dumps({"v": 1, **fields}))
    assert read is not None
    return read


def test_a_frame_read_takes_no_boolean_for_a_number() -> None:
    read = frame_of(type="request", seq=True, seat=False, match="m1", game="g0")
    assert (read.seq, read.seat, read.match, read.game) == (None, None, "m1", "g0")


def test_only_a_match_start_says_how_many_games_its_match_has() -> None:
    start = {"kind": "match_start", "games": 3}
    assert frame_of(type="event", match="m1", payload=start).match_games == 3
    other = {"kind": "game_start", "games": 3}
    assert frame_of(type="event", match="m1", payload=other).match_games is None
    boolean = {"kind": "match_start", "games": True}
    assert frame_of(type="event", match="m1", payload=boolean).match_games is None


async def test_a_local_tables_status_counts_the_games_of_its_match() -> None:
    async with seated() as (hub, _conn, seat):
        await seat.send(match_start("m1"))  # a match of 2 games
        await seat.send(game_start("g0"))
        (table,) = hub.status().tables
    assert (table.match_games, table.games_begun) == (2, 1)


# -- a websocket close frame's reason ---------------------------------------------------------


def test_a_reason_cut_just_before_a_space_keeps_its_last_whole_word() -> None:
    word = "x" * (CLOSE_REASON_BYTES - 6)
    assert clip_close_reason(f"ab {word} and more") == f"ab {word}…"


def test_a_reason_cut_after_a_comma_drops_it() -> None:
    word = "x" * (CLOSE_REASON_BYTES - 7)
    assert clip_close_reason(f"ab {word}, and more") == f"ab {word}…"


def test_a_reason_of_lines_is_cut_at_the_end_of_a_line() -> None:
    clipped = clip_close_reason("abcdefgh\n" * 30)
    assert clipped.endswith("\nabcdefgh…"), clipped
    assert len(clipped.encode("utf-8")) <= CLOSE_REASON_BYTES


def test_a_long_word_after_a_leading_space_is_cut_within_it() -> None:
    assert clip_close_reason(" " + "y" * 500) == " " + "y" * (CLOSE_REASON_BYTES - 4) + "…"


def test_a_lone_surrogate_in_a_reason_is_carried_as_a_question_mark() -> None:
    """JSON lets a bot's ``bye`` reason hold one; a close frame needs valid UTF-8."""
    assert clip_close_reason("lunch \ud800") == "lunch ?"
    clipped = clip_close_reason("\ud800 " * 100)
    assert clipped.endswith("…") and set(clipped[:-1]) <= {"?", " "}


def test_a_frame_read_knows_a_game_start_from_a_match_start() -> None:
    """A remote referee's ``game_start`` starts a connected bot's journal again; its
    ``match_start`` becomes the journal's head."""
    game = frame_of(type="event", match="m1", game="g0", payload={"kind": "game_start"})
    assert (game.game_start, game.payload_kind) == (True, "game_start")
    match = frame_of(type="event", match="m1", payload={"kind": "match_start", "games": 2})
    assert (match.game_start, match.payload_kind) == (False, "match_start")


def test_a_frame_nested_too_deep_to_read_is_no_frame() -> None:
    deep = '{"type": "event", "payload": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert Frame.read(deep) is None
    assert Frame.read("[1, 2]") is None


# -- a stopping server -------------------------------------------------------------------------


class SlowToClose(KeptLink):
    """A link whose close waits until the test lets it finish (a peer slow to answer the close
    frame); an abort does not end that wait either."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def close(self, reason: str) -> None:
        await self.gate.wait()
        self.closed = True


async def settle() -> None:
    """Let every task that can run, run (no clock involved)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_second_close_all_waits_for_the_first_and_its_end_does_not_cut_it_short() -> None:
    """A drain that ends while a forced shutdown closes everything (or the reverse): one
    ``bye`` per bot, and the first close goes on when the second's caller gives up."""
    hub = Hub(TokenStore.open_store())
    link = SlowToClose()
    await hub.connection(link, timed=False).feed(json.dumps(HELLO))
    first = asyncio.create_task(hub.close_all("the server is shutting down"))
    await settle()
    assert link.types() == ["welcome", "bye"]  # said; the close is under way
    second = asyncio.create_task(hub.close_all("the server is shutting down now", limit_s=0))
    await settle()
    second.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await second
    link.gate.set()
    async with asyncio.timeout(scaled(10)):
        await first  # not cancelled with the second
    assert link.types() == ["welcome", "bye"]
    assert hub.connections == set()


async def test_a_failed_handshake_is_logged_with_what_was_wrong_with_the_request(
    structured_logs: Callable[[], list[dict[str, Any]]],
) -> None:
    def failures() -> list[dict[str, Any]]:
        return [entry for entry in structured_logs() if entry.get("event") == "handshake_failed"]

    async with running_server() as server:
        reader, writer = await asyncio.open_connection(LOOPBACK, server.port)
        try:
            writer.write(b"\x16\x03\x01 not HTTP at all\r\n\r\n")  # a TLS hello, say
            await writer.drain()
            async with asyncio.timeout(scaled(10)):
                await reader.read()
        finally:
            writer.close()
        await wait_until(lambda: bool(failures()), "the log line")
    (entry,) = failures()
    assert "did not receive a valid HTTP request" in entry["reason"], entry
    assert "(unsupported protocol; expected HTTP/1.1" in entry["reason"], entry
