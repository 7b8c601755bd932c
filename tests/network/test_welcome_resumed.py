"""``welcome.resumed`` (v1 addition ``resumed``): a bot restarted without its resume token, that a
server with tokens gives its seat back by its token, learns from the welcome that it resumed
(`bots run` logged ``resumed=False`` for it, judging by a resume token it never had); a bot that
did not ask gets no such field (it would refuse an unknown one)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from net_helpers import QuietLink, ScriptedAdapter

from arena.server.auth import TokenStore, add_token
from arena.server.lobby import Admitted, Lobby
from bots.client import BotClient
from bots.registry import make_bot
from protocol.codec import encode
from protocol.messages import FEATURES, Bye, Hello, Welcome


async def seated_then_gone(lobby: Lobby, hello: Hello) -> Admitted:
    first = await lobby.admit(hello, link := QuietLink())
    assert isinstance(first, Admitted) and not first.resumed
    first.session.seat_at("t1", 0)
    await first.session.link_lost(link)
    return first


@pytest.mark.parametrize("asks", [True, False], ids=["asks", "does not ask"])
async def test_a_bot_given_back_its_seat_by_its_token_is_told_it_resumed(
    tmp_path: Path, asks: bool
) -> None:
    tokens = tmp_path / "tokens.toml"
    token = add_token(tokens, "rb")
    lobby = Lobby(TokenStore.load(tokens))
    features = ["resumed"] if asks else None
    hello = Hello(name="rb", games=["liars_dice"], token=token, features=features)
    first = await seated_then_gone(lobby, hello)
    assert first.welcome().resumed is (False if asks else None)
    again = await lobby.admit(hello, QuietLink())  # no resume token: a restarted process
    assert isinstance(again, Admitted) and again.resumed and again.session is first.session
    welcome = again.welcome()
    assert welcome.resumed is (True if asks else None)
    assert ('"resumed"' in encode(welcome)) is asks


def resumes_after(welcome: Welcome) -> int:
    """How many resumes a `BotClient` with no resume token counts after ``welcome``."""
    client = BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", {}, "rb")},
        name="rb",
        adapter_factory=lambda: ScriptedAdapter([welcome, Bye(reason="done")], []),
    )
    assert asyncio.run(client.run()) == "done"
    return client.resumes


def test_the_client_takes_the_servers_word_and_asks_for_it() -> None:
    assert "resumed" in FEATURES
    told = Welcome(name="rb", session="s-2", resume_token="never-seen", resumed=True)
    assert resumes_after(told) == 1
    # A server that does not say (older, or asked without the feature): judged by the token.
    assert resumes_after(Welcome(name="rb", session="s-2", resume_token="never-seen")) == 0
