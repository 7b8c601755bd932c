"""A resume token is a secret: the lobby compares it in constant time, as the token store and the
seat keys are, and a hello's resume of any text is refused without an error."""

from __future__ import annotations

import secrets

import pytest
from net_helpers import QuietLink

from arena.server.auth import TokenStore
from arena.server.lobby import Admitted, Lobby
from protocol.messages import Error, ErrorCode, Hello


async def test_the_resume_token_is_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[tuple[object, object]] = []
    constant_time = secrets.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return constant_time(a, b)

    monkeypatch.setattr(secrets, "compare_digest", spy)
    lobby = Lobby(TokenStore.open_store())
    first = await lobby.admit(Hello(name="b1", games=["bulls_cows"]), QuietLink())
    assert isinstance(first, Admitted) and not first.resumed
    token = first.session.resume_token

    # A non-ASCII guess is simply wrong (compare_digest refuses such a str: compared as bytes).
    wrong = await lobby.admit(
        Hello(name="b1", games=["bulls_cows"], resume="ü" + token[1:]), QuietLink()
    )
    assert isinstance(wrong, Error) and wrong.code is ErrorCode.RESUME_UNKNOWN
    again = await lobby.admit(Hello(name="b1", games=["bulls_cows"], resume=token), QuietLink())
    assert isinstance(again, Admitted) and again.resumed and again.session is first.session
    assert compared == [
        (("ü" + token[1:]).encode(), token.encode()),
        (token.encode(), token.encode()),
    ]
