"""How a ``hello`` is refused (docs/PROTOCOL.md, "Error codes"): ``auth_failed`` only for what no
retry can mend (a wrong token), ``name_in_use`` and ``resume_unknown`` for what a bot recovers
from (the audit's M2), and one code and one handling for a bad name, whatever is wrong with it
(the audit's L4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from net_helpers import raw_peer, running_server, ws_url

from arena.server.auth import add_token


def hello(name: str, **more: object) -> dict[str, object]:
    return {
        "type": "hello",
        "name": name,
        "games": ["liars_dice"],
        "features": ["refusal_codes"],
        **more,
    }


async def test_a_resume_token_of_a_name_that_never_connected_is_resume_unknown() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send(hello("okname4", resume="not-a-token"))
        refusal = await peer.recv()
        assert refusal["code"] == "resume_unknown", refusal
        # There never was a table: the text must not say one closed.
        assert "table has closed" not in refusal["text"]
        assert "without resume" in refusal["text"]
        assert await peer.closed()


async def test_the_resume_token_of_a_session_that_left_the_lobby_is_resume_unknown() -> None:
    async with running_server() as server:
        async with raw_peer(ws_url(server)) as first:
            await first.send(hello("probe"))
            token = (await first.recv())["resume_token"]
        async with raw_peer(ws_url(server)) as again:
            await again.send(hello("probe", resume=token))
            refusal = await again.recv()
            if refusal["type"] == "welcome":
                pytest.fail("the lobby session should be gone with its connection")
            assert refusal["code"] == "resume_unknown", refusal
            assert await again.closed()
        async with raw_peer(ws_url(server)) as fresh:
            await fresh.send(hello("probe"))
            assert (await fresh.recv())["type"] == "welcome"


async def test_a_resume_token_not_of_the_live_session_is_resume_unknown() -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as holder:
        await holder.send(hello("held"))
        assert (await holder.recv())["type"] == "welcome"
        async with raw_peer(ws_url(server)) as other:
            await other.send(hello("held", resume="someone-elses"))
            refusal = await other.recv()
            assert refusal["code"] == "resume_unknown", refusal
            assert await other.closed()
        async with raw_peer(ws_url(server)) as other:
            await other.send(hello("held"))
            refusal = await other.recv()
            assert refusal["code"] == "name_in_use", refusal
            assert "(lobby)" in refusal["text"]
            assert await other.closed()


async def test_a_wrong_token_alone_is_auth_failed(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    token = add_token(tokens, "tb")
    async with running_server(tokens=tokens) as server, raw_peer(ws_url(server)) as holder:
        await holder.send(hello("tb", token=token))
        assert (await holder.recv())["type"] == "welcome"
        # The name is in use, but a wrong token is what no retry mends.
        async with raw_peer(ws_url(server)) as wrong:
            await wrong.send(hello("tb", token="wrong"))
            assert (await wrong.recv())["code"] == "auth_failed"
        async with raw_peer(ws_url(server)) as twin:
            await twin.send(hello("tb", token=token))
            assert (await twin.recv())["code"] == "name_in_use"


@pytest.mark.parametrize(
    "name", ["x" * 65, "bad name!", "", "a/b"], ids=["65", "space", "empty", "slash"]
)
async def test_a_bad_name_is_one_malformed_hello_and_the_connection_stays(name: str) -> None:
    async with running_server() as server, raw_peer(ws_url(server)) as peer:
        await peer.send(hello(name))
        refusal = await peer.recv()
        assert (refusal["type"], refusal["code"]) == ("error", "bad_message"), refusal
        assert refusal["text"].startswith("hello.name:"), refusal
        # As for any malformed hello: a corrected one on the same connection is welcome.
        await peer.send(hello("x" * 64))
        assert (await peer.recv())["type"] == "welcome"
