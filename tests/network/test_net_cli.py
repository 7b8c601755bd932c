"""The command lines (`arena tokens add`, `arena serve`, `arena lobby`) and the MQTT topic tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import aiomqtt
import pytest
from net_helpers import (
    LOOPBACK,
    PYTHON,
    free_port,
    mosquitto,
    running_server,
    scaled,
    subprocess_env,
    ws_url,
)

from arena.server.auth import TokenStore, add_token
from arena.server.remote import RemoteTableError, server_status
from arena.transports import mqtt as server_topics
from bots import adapters as bot_topics

ARENA = str(Path(PYTHON).with_name("arena"))


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARENA, *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=scaled(60),
    )


def test_tokens_add_prints_the_token_once_and_stores_its_hash(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    made = arena("tokens", "add", "g1", "--file", str(tokens))
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token and token not in tokens.read_text(encoding="utf-8")
    assert TokenStore.load(tokens).check_bot("g1", token)
    admin = arena("tokens", "add", "lead", "--admin", "--file", str(tokens))
    assert TokenStore.load(tokens).check_admin("lead", admin.stdout.strip())
    assert TokenStore.load(tokens).check_bot("g1", token), "adding keeps the other tokens"
    bad = arena("tokens", "add", "no/slashes", "--file", str(tokens))
    assert bad.returncode == 2
    assert "a name is" in bad.stderr


def test_tokens_add_refuses_a_name_that_has_a_token_unless_replace(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    first = arena("tokens", "add", "g1", "--file", str(tokens)).stdout.strip()
    again = arena("tokens", "add", "g1", "--file", str(tokens))
    assert again.returncode == 2 and not again.stdout
    assert "already has a token" in again.stderr and "--replace" in again.stderr
    assert TokenStore.load(tokens).check_bot("g1", first), "the refusal changed nothing"
    # The same name as an admin is another entry, not a replacement.
    assert arena("tokens", "add", "g1", "--admin", "--file", str(tokens)).returncode == 0
    replaced = arena("tokens", "add", "g1", "--replace", "--file", str(tokens))
    assert replaced.returncode == 0, replaced.stderr
    store = TokenStore.load(tokens)
    assert store.check_bot("g1", replaced.stdout.strip())
    assert not store.check_bot("g1", first)


def test_the_admin_name_and_its_default_are_documented_where_a_referee_looks() -> None:
    for command in (("lobby", "--help"), ("match", "mahjong", "--help")):
        shown = subprocess.run(
            [ARENA, *command],
            capture_output=True,
            text=True,
            env={**subprocess_env(), "COLUMNS": "300"},
            timeout=scaled(60),
        )
        assert "ARENA_ADMIN_NAME" in shown.stdout and "default 'admin'" in shown.stdout


async def test_a_refused_admin_is_told_where_its_name_comes_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_ADMIN_NAME", raising=False)
    tokens = tmp_path / "tokens.toml"
    token = add_token(tokens, "lead", admin=True)
    async with running_server(tokens=tokens) as server:
        # The token alone: the name defaults to "admin", which has none.
        with pytest.raises(RemoteTableError) as refused:
            await server_status(ws_url(server), token=token)
        assert "ARENA_ADMIN_NAME" in str(refused.value) and "default 'admin'" in str(refused.value)
        assert (await server_status(ws_url(server), admin="lead", token=token)).bots == []


def test_serve_refuses_a_non_loopback_address_without_tokens() -> None:
    # The check comes before any socket is opened: nothing listens on that address.
    refused = arena("serve", "--host", "0.0.0.0", "--port", "0")
    assert refused.returncode == 2
    assert "--tokens" in refused.stderr and "loopback" not in refused.stdout


def test_lobby_says_clearly_when_no_server_answers() -> None:
    shown = arena("lobby", "--server", f"ws://{LOOPBACK}:{free_port()}")
    assert shown.returncode == 2
    assert "cannot reach the server" in shown.stderr


def test_bots_and_server_agree_on_the_topic_tree() -> None:
    adapter = bot_topics.MqttAdapter(LOOPBACK, 1883, "g1")
    adapter.conn = "c0ffee"
    up, down = adapter.topics()
    assert up == server_topics.up_topic("g1", "c0ffee")
    assert down == server_topics.down_topic("g1", "c0ffee")
    assert server_topics.parse_up_topic(up) == ("g1", "c0ffee")
    assert bot_topics.MQTT_TOPIC_ROOT == server_topics.TOPIC_ROOT
    for stray in ("arena/v1/bots/g1/up", "arena/v1/bots/g+1/c/up", "other/v1/bots/a/b/up"):
        assert server_topics.parse_up_topic(stray) is None


async def test_stray_mqtt_messages_leave_no_state(tmp_path: Path) -> None:
    with mosquitto(tmp_path) as port:
        url = f"mqtt://{LOOPBACK}:{port}"
        async with running_server(mqtt=url) as server:
            bridge = server.bridge
            assert bridge is not None
            async with aiomqtt.Client(LOOPBACK, port, identifier="stray") as client:
                await client.subscribe("arena/v1/bots/ghost/c1/down", qos=1)
                await client.publish("arena/v1/bots/ghost/c1/up", b"not json", qos=1)
                async for message in client.messages:
                    assert b"bad_json" in bytes(message.payload)  # type: ignore[arg-type]
                    break
            assert bridge.connections == {}
            assert server.hub.lobby.sessions == {}
