"""`arena lobby` (and every referee) logging in as admin (CLI audit L10): without
`ARENA_ADMIN_TOKEN` the error says it is not set and how to set it, not "unknown token"; an admin
name no server accepts is refused with the name rule, before connecting."""

from __future__ import annotations

from pathlib import Path

import pytest
from net_helpers import free_port, running_server, ws_url

from arena.server.auth import add_token
from arena.server.remote import ADMIN_NAME_ENV, ADMIN_TOKEN_ENV, RemoteTableError, server_status


@pytest.mark.parametrize("unset", [None, ""], ids=["unset", "empty"])
async def test_no_admin_token_is_named_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unset: str | None
) -> None:
    monkeypatch.delenv(ADMIN_NAME_ENV, raising=False)
    if unset is None:
        monkeypatch.delenv(ADMIN_TOKEN_ENV, raising=False)
    else:
        monkeypatch.setenv(ADMIN_TOKEN_ENV, unset)
    tokens = tmp_path / "tokens.toml"
    add_token(tokens, "admin", admin=True)
    async with running_server(tokens=tokens) as server:
        with pytest.raises(RemoteTableError) as refused:
            await server_status(ws_url(server))
    said = str(refused.value)
    assert said.startswith(f"admin admin: the server wants an admin token, and {ADMIN_TOKEN_ENV}")
    assert "is not set" in said and "arena tokens add NAME --admin" in said
    assert "unknown token" not in said


async def test_a_wrong_admin_token_is_still_called_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ADMIN_NAME_ENV, raising=False)
    tokens = tmp_path / "tokens.toml"
    add_token(tokens, "admin", admin=True)
    async with running_server(tokens=tokens) as server:
        with pytest.raises(RemoteTableError) as refused:
            await server_status(ws_url(server), token="wrong")
    assert "auth_failed: unknown token for admin admin" in str(refused.value)


async def test_a_bad_admin_name_is_refused_with_the_rule_before_connecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ADMIN_NAME_ENV, "bad name")
    # Nothing listens there: the refusal comes before any connection.
    with pytest.raises(RemoteTableError) as refused:
        await server_status(f"ws://127.0.0.1:{free_port()}", token="t")
    assert str(refused.value) == (
        f"bad admin name 'bad name' (from {ADMIN_NAME_ENV}): a name is 1-64 of A-Z a-z 0-9 _ . -"
    )
