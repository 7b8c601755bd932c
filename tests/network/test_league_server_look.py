"""A league on a server looks at the server once before its tables: an admin name or token the
server refuses stops it at once with one message (every table would be refused alike, each after
its own wait), and the bots not connected are named in a warning before their tables wait."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from net_helpers import play_and_read, running_server, ws_url

from arena.leagues.config import load_league
from arena.server.auth import add_token
from arena.server.remote import ADMIN_NAME_ENV, ADMIN_TOKEN_ENV, AdminRefused

DICE = """
name = "look"
seed = "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
game = "liars-dice"
games = 2
start_timeout_s = 0.5
[[bots]]
name = "p1"
[[bots]]
name = "p2"
[[bots]]
name = "p3"
"""


async def test_a_refused_admin_token_stops_the_league_before_any_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ADMIN_NAME_ENV, raising=False)
    monkeypatch.setenv(ADMIN_TOKEN_ENV, "wrong")
    tokens = tmp_path / "tokens.toml"
    add_token(tokens, "admin", admin=True)
    config_file = tmp_path / "look.toml"
    config_file.write_text(DICE, encoding="utf-8")
    async with running_server(tokens=tokens) as server:
        config = load_league(config_file, server=ws_url(server))
        error, keys = await asyncio.to_thread(play_and_read, config, tmp_path / "r.sqlite")
    assert isinstance(error, AdminRefused), error
    assert str(error).startswith("admin admin: auth_failed: unknown token for admin admin")
    assert keys == set()


async def test_bots_not_connected_are_named_before_their_tables_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config_file = tmp_path / "look.toml"
    config_file.write_text(DICE, encoding="utf-8")
    async with running_server() as server:
        config = load_league(config_file, server=ws_url(server))
        with caplog.at_level(logging.WARNING):
            await asyncio.to_thread(play_and_read, config, tmp_path / "r.sqlite")
    logs = [record.msg for record in caplog.records if isinstance(record.msg, dict)]
    (warned,) = [line for line in logs if line["event"] == "league_bots_not_connected"]
    assert warned["bots"] == ["p1", "p2", "p3"] and warned["start_timeout_s"] == 0.5
