"""A contributor's walkthrough (adding a game): a bot of a game the client's protocol models do
not know (a game added to the bot registry but not to `protocol.messages.GameName`) made
`bots run` die with a pydantic ``literal_error`` traceback when it said hello. It is one
``error:`` line naming the unknown game, exit status 2 as the other client errors."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from bots import cli as bots_cli
from bots.adapters import ServerAdapter
from bots.base import Bot
from protocol.messages import Request


class Quiet(Bot):
    async def act(self, request: Request) -> str:
        raise AssertionError("never asked")


class Connects(ServerAdapter):
    """A link that opens and sends nothing: the hello is all that matters here."""

    sent: ClassVar[list[Any]] = []

    async def connect(self) -> None:
        pass

    async def send(self, message: Any) -> None:
        self.sent.append(message)

    async def receive(self) -> Any:
        raise AssertionError("no hello was sent, so no answer is awaited")

    async def close(self) -> None:
        pass


def test_a_bot_of_a_game_the_protocol_does_not_know_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bots_cli, "build_bots", lambda *_args: {"tic_tac_toe": Quiet("q")})
    monkeypatch.setattr(bots_cli, "adapter_for", lambda *_args: Connects())
    shown = CliRunner().invoke(
        bots_cli.app, ["run", "greedy", "--game", "mahjong", "--url", "ws://127.0.0.1:1"]
    )
    assert shown.exception is None or isinstance(shown.exception, SystemExit), repr(shown.exception)
    assert shown.exit_code == 2
    (line,) = shown.output.strip().splitlines()
    assert line.startswith("error: the protocol does not know the game 'tic_tac_toe'"), line
    assert "protocol.messages.GameName" in line
    assert Connects.sent == []
