"""The server's front door over real websockets: hello, auth, bad frames, floods, binding."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from net_helpers import (
    LOOPBACK,
    RawPeer,
    clients,
    play_duel_game,
    raw_peer,
    running_server,
    scaled,
    wait_until,
    ws_url,
)

from arena.referee import PlayedGame
from arena.server.app import ServerConfig, ServerConfigError
from arena.server.auth import TokenStore, add_token, digest
from arena.server.remote import RemoteTableError, remote_seats, server_status
from arena.transports.base import Seat
from bots.registry import make_bot


def hello(name: str, **extra: Any) -> dict[str, Any]:
    return {"type": "hello", "name": name, "games": ["bulls_cows"], **extra}


async def test_hello_gets_a_welcome_and_the_lobby_shows_the_bot() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send(hello("solo"))
        welcome = await peer.recv()
        assert welcome["type"] == "welcome"
        assert welcome["name"] == "solo"
        assert welcome["session"] and welcome["resume_token"]
        status = await server_status(ws_url(server))
        assert [(bot.name, bot.state) for bot in status.bots] == [("solo", "lobby")]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('{"type": "nope"}', "bad_message"),
        ('{"type": "action", "seq": 1}', "bad_message"),
        ('{"v": 2, "type": "bye"}', "unsupported_version"),
        ('{"type": "action", "seq": 1, "action": "guess 123"}', "not_expected"),
        ('{"type": "hello", "name": "again", "games": ["mahjong"]}', "not_expected"),
        ('{"type": "event", "payload": {}}', "bad_message"),
        ("x" * 20_000, "too_large"),
    ],
)
async def test_a_bad_frame_gets_an_error_and_the_connection_stays(frame: str, code: str) -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send(hello("b1"))
        assert (await peer.recv())["type"] == "welcome"
        await peer.send(frame)
        error = await peer.recv()
        assert (error["type"], error["code"]) == ("error", code)
        # Still connected and still the same bot: the next bad frame is answered too.
        await peer.send("{")
        assert (await peer.recv())["code"] == "bad_json"
        assert [bot.name for bot in (await server_status(ws_url(server))).bots] == ["b1"]


async def test_anything_but_hello_first_is_refused_without_closing() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send({"type": "action", "seq": 1, "action": "guess 123"})
        assert (await peer.recv())["code"] == "no_session"
        await peer.send(hello("late-greeter"))
        assert (await peer.recv())["type"] == "welcome"


async def test_a_flood_of_bad_frames_closes_only_that_connection() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as calm:
        await calm.send(hello("calm"))
        assert (await calm.recv())["type"] == "welcome"
        async with raw_peer(ws_url(server)) as noisy:
            await noisy.send(hello("noisy"))
            assert (await noisy.recv())["type"] == "welcome"
            for _ in range(100):
                with contextlib.suppress(Exception):
                    await noisy.send("not json")
            codes = []
            with contextlib.suppress(Exception):
                while True:
                    codes.append((await noisy.recv())["code"])
            assert "flood" in codes
            assert await noisy.closed()
        await wait_until(
            lambda: [b.name for b in server.hub.status().bots] == ["calm"], "noisy to leave"
        )
        await calm.send("{")
        assert (await calm.recv())["code"] == "bad_json"


async def test_a_silent_connection_is_closed_after_the_hello_timeout() -> None:
    from arena.server.hub import Limits

    async with (
        running_server(limits=Limits(hello_timeout_s=0.2)) as server,
        raw_peer(ws_url(server)) as peer,
    ):
        error = await peer.recv()
        assert error["code"] == "not_expected"
        assert await peer.closed()


@pytest.fixture
def tokens(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "tokens.toml"
    issued = {name: add_token(path, name) for name in ("g1", "g2")}
    issued["boss"] = add_token(path, "boss", admin=True)
    return path, issued


def test_tokens_are_stored_hashed_and_checked(tokens: tuple[Path, dict[str, str]]) -> None:
    path, issued = tokens
    text = path.read_text(encoding="utf-8")
    for token in issued.values():
        assert token not in text
        assert digest(token) in text
    store = TokenStore.load(path)
    assert store.check_bot("g1", issued["g1"])
    assert not store.check_bot("g1", issued["g2"])
    assert not store.check_bot("g3", issued["g1"])
    assert not store.check_bot("g1", None)
    assert store.check_admin("boss", issued["boss"])
    assert not store.check_admin("g1", issued["g1"])
    assert path.stat().st_mode & 0o777 == 0o600


async def test_an_unknown_token_gets_auth_failed_and_is_closed(
    tokens: tuple[Path, dict[str, str]],
) -> None:
    path, issued = tokens
    async with running_server(tokens=path) as server:
        async with raw_peer(ws_url(server)) as peer:
            await peer.send(hello("g1", token="wrong"))
            assert (await peer.recv())["code"] == "auth_failed"
            assert await peer.closed()
        async with raw_peer(ws_url(server)) as peer:
            await peer.send(hello("g1", token=issued["g1"]))
            assert (await peer.recv())["type"] == "welcome"
            with pytest.raises(RemoteTableError, match="auth_failed"):
                await server_status(ws_url(server), admin="boss", token="wrong")
            status = await server_status(ws_url(server), admin="boss", token=issued["boss"])
            assert [bot.name for bot in status.bots] == ["g1"]


async def test_a_taken_name_is_refused() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as first:
        await first.send(hello("twin"))
        assert (await first.recv())["type"] == "welcome"
        async with raw_peer(ws_url(server)) as second:
            await second.send(hello("twin", features=["refusal_codes"]))
            refusal = await second.recv()
            # Its own code (a v1 addition): a bot can wait or resume; auth_failed is fatal.
            assert refusal["code"] == "name_in_use"
            assert "already" in refusal["text"]
            assert await second.closed()
        # A bot that did not ask for the addition (written before it, and refusing codes it
        # does not know) gets the code of its time, with the same text.
        async with raw_peer(ws_url(server)) as third:
            await third.send(hello("twin"))
            refusal = await third.recv()
            assert refusal["code"] == "auth_failed" and "already" in refusal["text"]
            assert await third.closed()


def test_no_tokens_means_loopback_only() -> None:
    with pytest.raises(ServerConfigError, match="--tokens"):
        ServerConfig(host="0.0.0.0").token_store()
    assert ServerConfig(host=LOOPBACK).token_store().open


async def test_a_table_waits_for_its_bots_up_to_the_start_timeout() -> None:
    async with running_server() as server:
        url = ws_url(server)
        with pytest.raises(RemoteTableError, match=r"late.*ghost"):
            async with remote_seats(url, ["ghost"], game="bulls_cows", start_timeout_s=0.1):
                pass
        async with raw_peer(url) as peer:

            async def arrive_later() -> None:
                await wait_until(lambda: server.hub.lobby.waiting > 0, "a table waiting for bots")
                await peer.send(hello("tardy"))

            arrival = asyncio.create_task(arrive_later())
            async with remote_seats(
                url, ["tardy"], game="bulls_cows", start_timeout_s=scaled(20)
            ) as seats:
                assert len(seats) == 1
            await arrival
            assert (await peer.recv())["type"] == "welcome"


async def test_a_bot_that_does_not_play_the_game_is_refused_at_once() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send({"type": "hello", "name": "dicer", "games": ["liars_dice"]})
        assert (await peer.recv())["type"] == "welcome"
        with pytest.raises(RemoteTableError, match="does not play bulls_cows"):
            async with remote_seats(
                ws_url(server), ["dicer"], game="bulls_cows", start_timeout_s=scaled(20)
            ):
                pass


async def alice_bob_duel(seats: Sequence[Seat], seed: str) -> PlayedGame:
    """One 1A2B duel between the seats of alice and bob, with a generous deadline."""
    return await play_duel_game(seats, seed, deadline_s=20)


async def _first_request(peer: RawPeer) -> dict[str, Any]:
    return await peer.recv_until("request")


async def test_a_bot_sees_only_its_seat_and_acts_only_for_its_own_request() -> None:
    async with running_server() as server:
        url = ws_url(server)
        async with raw_peer(url) as alice, raw_peer(url) as bob:
            for peer, name in ((alice, "alice"), (bob, "bob")):
                await peer.send(hello(name))
                assert (await peer.recv())["type"] == "welcome"
            async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                referee = asyncio.create_task(alice_bob_duel(seats, "binding"))
                request = await _first_request(alice)
                assert request["seat"] == 0
                seq = request["seq"]
                # Bob has no request pending: he cannot answer Alice's.
                await bob.send({"type": "action", "seq": seq, "action": "guess 123"})
                assert (await bob.recv_until("error"))["code"] == "not_expected"
                # Alice cannot claim another seat: a bad answer, asked again (new seq) at once.
                await alice.send({"type": "action", "seq": seq, "seat": 1, "action": "guess 123"})
                refused = await alice.recv()
                assert (refused["code"], refused["seq"]) == ("bad_message", seq)
                again = await alice.recv()
                assert (again["type"], again["seat"]) == ("request", 0)
                assert again["seq"] != seq
                # Nor answer another request, the old one included.
                for other in (seq, again["seq"] + 7):
                    await alice.send({"type": "action", "seq": other, "action": "guess 123"})
                    assert (await alice.recv())["code"] == "stale_seq"
                await alice.send({"type": "action", "seq": again["seq"], "action": "guess 123"})
                answer_request = await _first_request(bob)
                assert answer_request["seat"] == 1
                referee.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await referee


async def _answer_until_the_end(peer: RawPeer, seen: list[dict[str, Any]]) -> None:
    """Play a duel seat with the first legal action, recording every message, until the game's
    end event (a bot without events never sees it: the test stops that one)."""
    while True:
        message = await peer.recv(scaled(30))
        seen.append(message)
        if message["type"] == "event" and message["payload"]["kind"] == "game_end":
            return
        if message["type"] == "request":
            legal = message.get("legal")
            if legal:
                action = legal[0]
            elif message["hint"].startswith("guess"):
                action = "guess 123"
            else:
                action = "reveal 123"
            await peer.send({"type": "action", "seq": message["seq"], "action": action})


async def test_every_message_a_bot_receives_names_its_own_seat() -> None:
    """Run a whole duel through raw peers that record everything they are sent."""
    async with running_server() as server:
        url = ws_url(server)
        seen: dict[str, list[dict[str, Any]]] = {"alice": [], "bob": []}

        async with raw_peer(url) as alice, raw_peer(url) as bob:
            for peer, name in ((alice, "alice"), (bob, "bob")):
                await peer.send(hello(name))
                assert (await peer.recv())["type"] == "welcome"
            async with remote_seats(url, ["alice", "bob"], game="bulls_cows") as seats:
                players = asyncio.gather(
                    _answer_until_the_end(alice, seen["alice"]),
                    _answer_until_the_end(bob, seen["bob"]),
                )
                await alice_bob_duel(seats, "own-seat")
                await players
    for name, seat in (("alice", 0), ("bob", 1)):
        assert seen[name]
        assert {message.get("seat") for message in seen[name]} == {seat}


@pytest.mark.parametrize("referee", ["remote", "in-server"])
async def test_a_bot_that_declines_events_gets_only_requests(referee: str) -> None:
    async with running_server() as server:
        url = ws_url(server)
        seen: dict[str, list[dict[str, Any]]] = {"alice": [], "bob": []}
        async with raw_peer(url) as alice, raw_peer(url) as bob:
            await alice.send(hello("alice"))
            await bob.send(hello("bob", events=False))
            for peer in (alice, bob):
                assert (await peer.recv())["type"] == "welcome"
            seats_of = (
                remote_seats(url, ["alice", "bob"], game="bulls_cows")
                if referee == "remote"
                else server.hub.local_seats(["alice", "bob"], "bulls_cows")
            )
            async with seats_of as seats:
                if referee == "remote":
                    # Remote seats here (their .events); mypy cannot tie `seats` to `referee`.
                    assert [seat.events for seat in seats] == [True, False]  # type: ignore[union-attr]
                watcher = asyncio.create_task(_answer_until_the_end(alice, seen["alice"]))
                silent = asyncio.create_task(_answer_until_the_end(bob, seen["bob"]))
                played = await alice_bob_duel(seats, "no-events")
                await watcher
                silent.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await silent
    assert played.penalties == (0, 0)
    assert {m["type"] for m in seen["bob"]} == {"request"}
    assert "event" in {m["type"] for m in seen["alice"]}
    assert seen["alice"][-1]["payload"]["kind"] == "game_end"


async def test_our_client_declines_events_only_for_bots_that_ignore_them() -> None:
    """greedy (mahjong) decides from requests alone; the 1A2B guessers track events."""
    async with running_server() as server:
        url = ws_url(server)
        async with (
            clients(url, "mahjong", {"greedy-bot": make_bot("mahjong", "greedy")}),
            clients(url, "bulls_cows", {"guesser": make_bot("bulls_cows", "super-comparison")}),
        ):
            sessions = server.hub.lobby.sessions
            assert sessions["greedy-bot"].wants_events is False
            assert sessions["guesser"].wants_events is True
