"""A bot that says hello without a token to a server that wants one is told it gave none (not
only "unknown token", which sends its owner looking for a wrong one); a wrong token is still
called unknown, and both keep the words `bots run`'s hints look for."""

from __future__ import annotations

from pathlib import Path

from net_helpers import raw_peer, running_server, ws_url

from arena.server.auth import add_token
from bots.cli import TOKEN_REFUSED


async def test_a_missing_token_is_named_as_missing(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    add_token(tokens, "tb")
    hello = {"type": "hello", "name": "tb", "games": ["liars_dice"]}
    async with running_server(tokens=tokens) as server:
        async with raw_peer(ws_url(server)) as bare:
            await bare.send(hello)
            refused = await bare.recv()
        async with raw_peer(ws_url(server)) as wrong:
            await wrong.send({**hello, "token": "wrong"})
            wrongly = await wrong.recv()
    assert refused["code"] == wrongly["code"] == "auth_failed"
    assert refused["text"].startswith(f"{TOKEN_REFUSED} tb: the hello gave none")
    assert "arena tokens add tb" in refused["text"]
    assert wrongly["text"] == f"{TOKEN_REFUSED} tb"
