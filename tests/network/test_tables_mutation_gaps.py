"""Gaps a mutation audit of the server's tables (`arena/server/tables.py`) found: how an attach
is refused, what a table that is closing still does for its seat connections, and what a seat
connection is told when its frame or its bot fails. Also two of the referee's side of a table
(`arena/server/remote.py`): replies other than the expected one, and which admin credentials win."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any

import pytest
from net_helpers import (
    FAR_DEADLINE_S,
    LOOPBACK,
    TABLE_BOTS,
    attach,
    open_table,
    raw_peer,
    running_server,
    scaled,
    wait_until,
    ws_url,
)
from websockets.asyncio.server import ServerConnection, serve

from arena.server.hub import Limits
from arena.server.remote import (
    ADMIN_NAME_ENV,
    ADMIN_TOKEN_ENV,
    RemoteTableError,
    admin_credentials,
    remote_seats,
)
from arena.server.tables import TableState


def request_for(seat: int, seq: int) -> dict[str, Any]:
    return {
        "v": 1,
        "type": "request",
        "match": "m",
        "game": "g0",
        "seat": seat,
        "seq": seq,
        "deadline_ms": round(FAR_DEADLINE_S * 1000),
        "legal": ["challenge"],
    }


async def test_attach_refusals_name_their_cause_and_close_the_connection() -> None:
    async with running_server() as server, open_table(server) as (_admin, _bots, opened):
        url = ws_url(server)
        keys = [seat["key"] for seat in opened["seats"]]
        async with raw_peer(url) as wrong_key:
            refused = await attach(wrong_key, opened, 0, keys[1])
            assert (refused["type"], refused["code"]) == ("error", "auth_failed"), refused
            assert await wrong_key.closed()
        async with raw_peer(url) as no_such_slot:
            refused = await attach(no_such_slot, opened, len(keys), keys[0])
            assert (refused["type"], refused["code"]) == ("error", "auth_failed"), refused
            assert await no_such_slot.closed()
        async with raw_peer(url) as first, raw_peer(url) as second:
            assert (await attach(first, opened, 0, keys[0]))["type"] == "attached"
            refused = await attach(second, opened, 0, keys[0])
            assert (refused["type"], refused["code"]) == ("error", "not_expected"), refused
            assert "already attached" in refused["text"]
            assert await second.closed()


async def test_a_closing_table_relays_until_its_seats_leave_and_takes_no_new_seat() -> None:
    """An admin's close_table gives the open seat connections the detach grace to finish
    relaying (here far longer than the test may wait): the table is closed to new attaches at
    once, yet still carries a frame to its bot, and is gone as soon as its last seat
    connection leaves, without waiting out the grace."""
    limits = Limits(hello_timeout_s=scaled(10), detach_grace_s=scaled(FAR_DEADLINE_S))
    async with (
        running_server(limits=limits) as server,
        open_table(server) as (admin, bots, opened),
    ):
        url = ws_url(server)
        keys = [seat["key"] for seat in opened["seats"]]
        async with raw_peer(url) as seat:
            assert (await attach(seat, opened, 0, keys[0]))["type"] == "attached"
            await admin.send({"v": 1, "type": "close_table", "table": opened["table"]})
            table = server.hub.tables[opened["table"]]
            await wait_until(lambda: table.state is TableState.CLOSED, "the table to close")
            async with raw_peer(url) as latecomer:
                refused = await attach(latecomer, opened, 1, keys[1])
                assert (refused["type"], refused["code"]) == ("error", "not_expected"), refused
                assert "closed" in refused["text"]
            await seat.send(request_for(0, 1))
            asked = await bots["alice"].recv_until("request")
            assert asked["seq"] == 1
        closed = await admin.recv_until("table_closed")
        assert closed["table"] == opened["table"]
        assert opened["table"] not in server.hub.tables


async def test_a_bot_freed_by_a_table_is_handed_at_once_to_a_table_waiting_for_it() -> None:
    """A table waiting (with a start timeout far beyond the test) for a seated bot gets it as
    soon as the bot is freed: by its seat connection leaving, while the rest of its table plays
    on, or by its table closing (with no detach grace: Bob's seat connection is still open)."""
    limits = Limits(hello_timeout_s=scaled(10), detach_grace_s=0)
    async with (
        running_server(limits=limits) as server,
        open_table(server) as (admin, bots, opened),
        raw_peer(ws_url(server)) as waiter,
    ):
        url = ws_url(server)
        await waiter.send({"v": 1, "type": "admin_hello", "name": "waiter"})
        assert (await waiter.recv())["type"] == "admin_welcome"
        keys = [seat["key"] for seat in opened["seats"]]
        async with raw_peer(url) as bob_seat:
            async with raw_peer(url) as alice_seat:
                assert (await attach(alice_seat, opened, 0, keys[0]))["type"] == "attached"
                assert (await attach(bob_seat, opened, 1, keys[1]))["type"] == "attached"
                for name in TABLE_BOTS:
                    await waiter.send(
                        {
                            "v": 1,
                            "type": "open_table",
                            "game": "liars_dice",
                            "bots": [name],
                            "start_timeout_ms": round(FAR_DEADLINE_S * 1000),
                        }
                    )
                await wait_until(lambda: server.hub.lobby.waiting == 2, "both tables to wait")
            # Alice's seat connection left: she is free, Bob still plays at his table.
            for_alice = await waiter.recv_until("table_opened")
            assert [seat["bot"] for seat in for_alice["seats"]] == ["alice"]
            assert opened["table"] in server.hub.tables
            await bob_seat.send(request_for(1, 1))
            assert (await bots["bob"].recv_until("request"))["seq"] == 1
            await admin.send({"v": 1, "type": "close_table", "table": opened["table"]})
            for_bob = await waiter.recv_until("table_opened")
            assert [seat["bot"] for seat in for_bob["seats"]] == ["bob"]


async def test_bots_freed_by_closing_their_table_go_at_once_to_a_table_waiting_for_them() -> None:
    """The same for a table closed before any seat connection attached: only the close
    frees its bots."""
    async with (
        running_server() as server,
        open_table(server) as (admin, _bots, opened),
        raw_peer(ws_url(server)) as waiter,
    ):
        await waiter.send({"v": 1, "type": "admin_hello", "name": "waiter"})
        assert (await waiter.recv())["type"] == "admin_welcome"
        await waiter.send(
            {
                "v": 1,
                "type": "open_table",
                "game": "liars_dice",
                "bots": list(TABLE_BOTS),
                "start_timeout_ms": round(FAR_DEADLINE_S * 1000),
            }
        )
        await wait_until(lambda: server.hub.lobby.waiting == 1, "the second table to wait")
        await admin.send({"v": 1, "type": "close_table", "table": opened["table"]})
        reopened = await waiter.recv_until("table_opened")
        assert [seat["bot"] for seat in reopened["seats"]] == list(TABLE_BOTS)


async def test_a_seat_frame_that_is_not_a_json_object_is_answered_bad_json() -> None:
    async with (
        running_server() as server,
        open_table(server) as (_admin, bots, opened),
        raw_peer(ws_url(server)) as seat,
    ):
        assert (await attach(seat, opened, 0, opened["seats"][0]["key"]))["type"] == "attached"
        for garbage in ("not json", "[1, 2]"):
            await seat.send(garbage)
            said = await seat.recv()
            assert (said["type"], said["code"]) == ("error", "bad_json"), said
        # The seat connection is still usable after it.
        await seat.send(request_for(0, 1))
        assert (await bots["alice"].recv_until("request"))["seq"] == 1


async def test_a_request_whose_bot_is_gone_is_failed_as_late() -> None:
    """The protocol's ``late`` is what a referee plays a fallback for; another code would make
    the referee fail the seat as if the bot had answered badly."""
    async with (
        running_server(reconnect_grace_s=0) as server,
        open_table(server) as (_admin, bots, opened),
        raw_peer(ws_url(server)) as seat,
    ):
        assert (await attach(seat, opened, 0, opened["seats"][0]["key"]))["type"] == "attached"
        await seat.send(request_for(0, 1))
        assert (await bots["alice"].recv_until("request"))["seq"] == 1
        await bots["alice"].connection.close()
        said = await seat.recv_until("error")
        assert (said["code"], said["seq"]) == ("late", 1), said


def stand_in_server(replies: Mapping[str, dict[str, Any]]) -> Any:
    """A websocket handler answering each frame by its type from ``replies``, as a server
    would have (``v`` added)."""

    async def answer(ws: ServerConnection) -> None:
        async for frame in ws:
            said = json.loads(frame)
            await ws.send(json.dumps({"v": 1, **replies[said["type"]]}))

    return answer


SEAT_TICKET = {"slot": 0, "bot": "solo", "key": "k" * 22}
WELCOME = {"type": "admin_welcome", "name": "admin", "session": "s1"}


@pytest.mark.parametrize(
    ("replies", "told"),
    [
        (
            {
                "admin_hello": WELCOME,
                "open_table": {"type": "bye", "reason": "the server is shutting down"},
            },
            "opening a bulls_cows table for solo: the server said bye",
        ),
        (
            {
                "admin_hello": WELCOME,
                "open_table": {"type": "table_opened", "table": "t1", "seats": [SEAT_TICKET]},
                "attach": {"type": "error", "code": "auth_failed", "text": "no such table"},
            },
            "attaching slot 0: auth_failed: no such table",
        ),
    ],
    ids=["open_table", "attach"],
)
async def test_a_refusal_other_than_the_expected_reply_is_a_remote_table_error(
    replies: Mapping[str, dict[str, Any]], told: str
) -> None:
    """(`arena/server/remote.py`) A referee's open_table answered with a bye, or its attach
    with an error: `RemoteTableError` saying so, never an attribute error."""
    async with serve(stand_in_server(replies), LOOPBACK, 0) as stand_in:
        port = next(iter(stand_in.sockets)).getsockname()[1]
        with pytest.raises(RemoteTableError, match=f"^{re.escape(told)}"):
            async with (
                asyncio.timeout(scaled(30)),
                remote_seats(f"ws://{LOOPBACK}:{port}", ["solo"], game="bulls_cows"),
            ):
                pytest.fail("no table opens on a server that refused it")


def test_explicit_admin_credentials_win_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(`arena/server/remote.py`) ``--admin``/``--admin-token`` given on the command line beat
    ``ARENA_ADMIN_NAME``/``ARENA_ADMIN_TOKEN``; the environment fills in only what is not given."""
    monkeypatch.setenv(ADMIN_NAME_ENV, "from-env")
    monkeypatch.setenv(ADMIN_TOKEN_ENV, "env-token")
    assert admin_credentials("given", "given-token") == ("given", "given-token")
    assert admin_credentials(None, None) == ("from-env", "env-token")


async def test_a_released_slot_cannot_be_attached_again_to_take_its_bot_elsewhere() -> None:
    """A seat connection that left freed its bot, which may sit at another table now: the old
    key must not attach that slot again and take the bot's answers from its new table."""
    async with running_server() as server, open_table(server) as (admin, bots, opened):
        url = ws_url(server)
        old_key = opened["seats"][0]["key"]
        async with raw_peer(url) as seat:
            assert (await attach(seat, opened, 0, old_key))["type"] == "attached"
        alice = server.hub.lobby.sessions["alice"]
        await wait_until(lambda: alice.binding is None, "alice freed by her seat's leaving")
        await admin.send({"v": 1, "type": "open_table", "game": "liars_dice", "bots": ["alice"]})
        second = await admin.recv_until("table_opened")
        async with raw_peer(url) as new_seat, raw_peer(url) as stale:
            new_key = second["seats"][0]["key"]
            assert (await attach(new_seat, second, 0, new_key))["type"] == "attached"
            refused = await attach(stale, opened, 0, old_key)
            assert (refused["type"], refused["code"]) == ("error", "not_expected"), refused
            assert "released" in refused["text"]
            # Alice's answers still go to her new table's seat connection.
            await new_seat.send(request_for(0, 1) | {"match": "m2"})
            asked = await bots["alice"].recv_until("request")
            await bots["alice"].send(
                {"v": 1, "type": "action", "seq": asked["seq"], "action": "challenge"}
            )
            relayed = await new_seat.recv_until("action")
            assert relayed["action"] == "challenge"
