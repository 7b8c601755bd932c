"""The command lines (`arena tokens add`, `arena serve`, `arena lobby`, `bots list|run`) and the
MQTT topic tree."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

import aiomqtt
import pytest
import typer
from net_helpers import (
    LOOPBACK,
    PYTHON,
    REPO,
    arena_command,
    bots_run_copies,
    free_port,
    mosquitto,
    running_server,
    scaled,
    subprocess_env,
    wait_until,
    ws_url,
)
from typer.testing import CliRunner

from arena.server.auth import TokenStore, add_token
from arena.server.remote import RemoteTableError, server_status
from arena.transports import mqtt as server_topics
from bots import adapters as bot_topics
from bots import cli as bots_cli
from bots.client import ClientRefused
from bots.registry import bot_names, read_config

ARENA = str(Path(PYTHON).with_name("arena"))
BOTS = str(Path(PYTHON).with_name("bots"))
SHIPPED_CONFIGS = sorted((REPO / "configs" / "bots").glob("*/*.toml"))


def test_tokens_add_prints_the_token_once_and_stores_its_hash(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    made = arena_command("tokens", "add", "g1", "--file", str(tokens))
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token and token not in tokens.read_text(encoding="utf-8")
    assert TokenStore.load(tokens).check_bot("g1", token)
    admin = arena_command("tokens", "add", "lead", "--admin", "--file", str(tokens))
    assert TokenStore.load(tokens).check_admin("lead", admin.stdout.strip())
    assert TokenStore.load(tokens).check_bot("g1", token), "adding keeps the other tokens"
    bad = arena_command("tokens", "add", "no/slashes", "--file", str(tokens))
    assert bad.returncode == 2
    assert "a name is" in bad.stderr


def test_tokens_add_refuses_a_name_that_has_a_token_unless_replace(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    first = arena_command("tokens", "add", "g1", "--file", str(tokens)).stdout.strip()
    again = arena_command("tokens", "add", "g1", "--file", str(tokens))
    assert again.returncode == 2 and not again.stdout
    assert "already has a token" in again.stderr and "--replace" in again.stderr
    assert TokenStore.load(tokens).check_bot("g1", first), "the refusal changed nothing"
    # The same name as an admin is another entry, not a replacement.
    assert arena_command("tokens", "add", "g1", "--admin", "--file", str(tokens)).returncode == 0
    replaced = arena_command("tokens", "add", "g1", "--replace", "--file", str(tokens))
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
    refused = arena_command("serve", "--host", "0.0.0.0", "--port", "0")
    assert refused.returncode == 2
    assert "--tokens" in refused.stderr and "loopback" not in refused.stdout


def test_lobby_says_clearly_when_no_server_answers() -> None:
    shown = arena_command("lobby", "--server", f"ws://{LOOPBACK}:{free_port()}")
    assert shown.returncode == 2
    assert "cannot reach the server" in shown.stderr


WS_EXPECTED = "expected ws://HOST:PORT or wss://HOST:PORT"
BOT_EXPECTED = "expected ws://HOST:PORT, wss://HOST:PORT or mqtt[s]://[USER:PASSWORD@]HOST:PORT"


def bots(*args: str) -> subprocess.CompletedProcess[str]:
    """``bots`` in a child process: a URL it kept retrying would hit the timeout and fail."""
    return subprocess.run(
        [BOTS, *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=scaled(60),
    )


def error_lines(shown: subprocess.CompletedProcess[str]) -> list[str]:
    """The ``error:`` lines of a failed command, which must have printed no traceback."""
    assert shown.returncode == 2, shown.stderr
    assert "Traceback" not in shown.stderr
    return [line for line in shown.stderr.splitlines() if line.startswith("error:")]


@pytest.mark.parametrize("port", ["99999", "-5", "65536"])
def test_serve_refuses_a_port_out_of_range_in_one_line(port: str) -> None:
    shown = arena_command("serve", "--port", port)
    assert shown.stderr == f"error: --port must lie between 0 and 65535, got {port}\n"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ws://127.0.0.1:99999", "Port out of range 0-65535; "),
        ("ws://[::1", "Invalid IPv6 URL; "),
        ("ws://", "no host; "),
        ("http://127.0.0.1:8765", ""),
    ],
)
def test_lobby_refuses_a_bad_server_url_in_one_line(url: str, why: str) -> None:
    shown = arena_command("lobby", "--server", url)
    assert shown.stderr == f"error: bad server URL {url!r}: {why}{WS_EXPECTED}\n"


@pytest.mark.parametrize(
    "command",
    [
        ["match", "mahjong", "--bots", "greedy,greedy,greedy,greedy", "--games", "4"],
        ["match", "liars-dice", "--a", "bayes", "--b", "random-guess", "--games", "4"],
        ["match", "bulls-cows", "--a", "optimal", "--b", "optimal", "--games", "2"],
        ["league", "configs/leagues/liars-dice.toml"],
    ],
)
def test_every_server_command_refuses_a_bad_url_before_anything_else(command: list[str]) -> None:
    url = "ws://127.0.0.1:99999"
    shown = arena_command(*command, "--server", url)
    assert shown.returncode == 2
    # nothing before the error: no seed line, no progress bar
    assert shown.stdout == ""
    assert shown.stderr == (
        f"error: bad server URL {url!r}: Port out of range 0-65535; {WS_EXPECTED}\n"
    )


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ws://127.0.0.1:99999", "Port out of range 0-65535; "),
        ("wss://[::1", "Invalid IPv6 URL; "),
        # Without a host it used to reconnect for ever.
        ("ws://", "no host; "),
        ("wss://:8765", "no host; "),
        ("mqtt://127.0.0.1:99999", "Port out of range 0-65535; "),
        ("mqtt://", "no host; "),
        ("tcp://127.0.0.1:8765", ""),
    ],
)
def test_bots_run_refuses_a_bad_url_in_one_line(url: str, why: str) -> None:
    shown = bots("run", "greedy", "--url", url)
    assert error_lines(shown) == [f"error: {url!r}: {why}{BOT_EXPECTED}"]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("mqtt://127.0.0.1:99999", "Port out of range 0-65535; "),
        ("mqtt://[::1", "Invalid IPv6 URL; "),
        ("mqtt://", ""),
    ],
)
def test_serve_refuses_a_bad_mqtt_url_in_one_line(url: str, why: str) -> None:
    shown = arena_command("serve", "--port", "0", "--mqtt", url)
    # Refused before anything listens: no log line precedes the error.
    assert shown.stderr == f"error: {url!r}: {why}expected mqtt[s]://[USER:PASSWORD@]HOST[:PORT]\n"


def test_serve_help_says_what_the_embedded_broker_protects() -> None:
    shown = arena_command("serve", "--help")
    text = " ".join(shown.stdout.replace("│", " ").split())
    assert "only the topic pair its client id <name>-<conn> names" in text


def test_bots_and_server_agree_on_the_topic_tree() -> None:
    adapter = bot_topics.MqttAdapter(LOOPBACK, 1883, "g1")
    adapter.conn = "c0ffee"
    up, down = adapter.topics()
    assert up == server_topics.up_topic("g1", "c0ffee")
    assert down == server_topics.down_topic("g1", "c0ffee")
    assert adapter.client_id() == server_topics.bot_client_id("g1", "c0ffee")
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
                    assert b"bad_json" in bytes(message.payload)
                    break
            assert bridge.connections == {}
            assert server.hub.lobby.sessions == {}


# ----------------------------------------------------------------------------- bots run / list


def _strategy_of(path: Path, game: str) -> str:
    """The bot a shipped config is for: its ``strategy`` key (1A2B), else the longest bot name
    its file name starts with (``random-guess-odds.toml`` → ``random-guess``)."""
    named, _ = read_config(path)
    if named is not None:
        return named
    fits = [n for n in bot_names(game) if path.stem == n or path.stem.startswith(f"{n}-")]
    assert fits, f"{path.name}: no {game} bot of that name"
    return max(fits, key=len)


def test_configs_are_shipped_for_both_games() -> None:
    assert {path.parent.name for path in SHIPPED_CONFIGS} >= {"bulls_cows", "liars_dice"}


@pytest.mark.parametrize(
    "path", SHIPPED_CONFIGS, ids=lambda path: f"{path.parent.name}/{path.name}"
)
def test_bots_run_loads_every_shipped_config(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The configs a league or `arena match` takes (1A2B ones name their bot in a `strategy` key)
    # load as `bots run`'s --config and build the bot, without connecting anywhere.
    monkeypatch.chdir(tmp_path)  # a config's relative paths (tables_dir) stay in here
    game = path.parent.name
    strategy = _strategy_of(path, game)
    settings = bots_cli.load_settings(strategy, path)
    assert "strategy" not in settings
    built = bots_cli.build_bots(strategy, game, settings, f"{strategy}-t")
    assert list(built) == [game]
    # Without --game it plays every game that has the strategy, the config included.
    assert game in bots_cli.build_bots(strategy, None, settings, f"{strategy}-t")


def test_bots_run_refuses_a_config_of_another_strategy() -> None:
    config = REPO / "configs" / "bots" / "bulls_cows" / "optimal-evader.toml"
    with pytest.raises(typer.Exit) as refused:
        bots_cli.load_settings("entropy", config)
    assert refused.value.exit_code == 2
    shown = CliRunner().invoke(
        bots_cli.app, ["run", "entropy", "--url", f"ws://{LOOPBACK}:1", "--config", str(config)]
    )
    assert shown.exit_code == 2
    lines = shown.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "'optimal'" in lines[0] and "'entropy'" in lines[0]


def test_bots_run_refuses_an_unreadable_config_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("strategy = \n", encoding="utf-8")
    odd = tmp_path / "odd.toml"
    odd.write_text("strategy = 3\n", encoding="utf-8")
    missing = tmp_path / "missing.toml"
    for config, said in (
        (bad, "not valid TOML"),
        (odd, "strategy must be"),
        (missing, "cannot read bot config"),
    ):
        shown = CliRunner().invoke(
            bots_cli.app, ["run", "greedy", "--url", f"ws://{LOOPBACK}:1", "--config", str(config)]
        )
        assert shown.exit_code == 2
        assert shown.output.startswith("error: ") and said in shown.output
        assert len(shown.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("typed", "wire", "strategy"),
    [
        ("bulls-cows", "bulls_cows", "random"),
        ("bulls_cows", "bulls_cows", "random"),
        ("liars-dice", "liars_dice", "random-guess"),
        ("liars_dice", "liars_dice", "random-guess"),
    ],
)
def test_bots_takes_a_game_as_arena_spells_it(typed: str, wire: str, strategy: str) -> None:
    listed = CliRunner().invoke(bots_cli.app, ["list", "--game", typed])
    assert listed.exit_code == 0, listed.output
    spelled = wire.replace("_", "-")
    assert listed.output.startswith(f"{spelled} ({wire}): ") and strategy in listed.output
    assert list(bots_cli.build_bots(strategy, typed, {}, "r")) == [wire]
    # A strategy the game lacks is named as such, not as an unknown game.
    shown = CliRunner().invoke(
        bots_cli.app, ["run", "nosuch", "--game", typed, "--url", f"ws://{LOOPBACK}:1"]
    )
    assert shown.exit_code == 2 and "unknown game" not in shown.output
    assert f"no {wire} bot named 'nosuch'" in shown.output


def test_bots_names_the_games_when_one_is_unknown() -> None:
    shown = CliRunner().invoke(bots_cli.app, ["list", "--game", "chess"])
    assert shown.exit_code == 2
    assert "unknown game 'chess'" in shown.output and "liars-dice" in shown.output


def test_each_copy_takes_its_own_token() -> None:
    players = ["tb-0", "tb-1"]
    assert bots_cli.token_env("tb-0") == "ARENA_BOT_TOKEN_TB_0"
    assert bots_cli.copy_tokens(players, ["a", "b"], {}) == ["a", "b"]
    assert bots_cli.copy_tokens(players, ["s"], {}) == ["s", "s"]
    assert bots_cli.copy_tokens(players, ["s"], {"ARENA_BOT_TOKEN_TB_1": "b"}) == ["s", "b"]
    assert bots_cli.copy_tokens(players, [], {"ARENA_BOT_TOKEN_TB_0": "a"}) == ["a", None]
    with pytest.raises(typer.Exit):
        bots_cli.copy_tokens(players, ["a", "b", "c"], {})
    refused = ClientRefused("auth_failed: unknown token for bot tb-1")
    hint = bots_cli.refusal_hint(refused, players, ["s", "s"])
    assert "--copies" in hint and "arena tokens add tb-0" in hint and "ARENA_BOT_TOKEN_TB_0" in hint
    assert "--copies" not in bots_cli.refusal_hint(refused, players, ["a", "b"])


@pytest.mark.parametrize("copies", ["0", "-1", "257"])
def test_a_bad_number_of_copies_is_a_one_line_error(copies: str) -> None:
    shown = CliRunner().invoke(
        bots_cli.app, ["run", "greedy", "--url", f"ws://{LOOPBACK}:1", "--copies", copies]
    )
    assert shown.exit_code == 2
    assert shown.output == f"error: --copies must be from 1 to 256, got {copies}\n"


def test_copies_and_tokens_are_documented_in_the_help() -> None:
    shown = CliRunner().invoke(bots_cli.app, ["run", "--help"], env={"COLUMNS": "300"})
    assert "its own token" in shown.output and "ARENA_BOT_TOKEN_<NAME>" in shown.output


async def test_copies_sharing_a_token_are_refused_with_the_reason_and_own_tokens_play(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens.toml"
    own = [add_token(tokens, f"tb-{i}") for i in range(2)]
    admin = add_token(tokens, "lead", admin=True)

    async def bots_run(*more: str, env: dict[str, str] | None = None) -> asyncio.subprocess.Process:
        return await bots_run_copies(url, "tb", *more, env=env)

    async with running_server(tokens=tokens) as server:
        url = ws_url(server)
        shared = await bots_run("--token", own[0])
        _, err = await asyncio.wait_for(shared.communicate(), timeout=scaled(60))
        assert shared.returncode == 2
        said = err.decode()
        assert "auth_failed" in said and "--copies" in said and "arena tokens add tb-0" in said

        async def both_in_lobby() -> bool:
            status = await server_status(url, admin="lead", token=admin)
            return {bot.name for bot in status.bots} == {"tb-0", "tb-1"}

        for more, env in (
            (("--token", own[0], "--token", own[1]), None),
            ((), {"ARENA_BOT_TOKEN_TB_0": own[0], "ARENA_BOT_TOKEN_TB_1": own[1]}),
        ):
            process = await bots_run(*more, env=env)
            try:
                await wait_until(both_in_lobby, "both copies to connect", seconds=60)
            finally:
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.communicate(), timeout=scaled(60))
            assert process.returncode == 0

            async def lobby_empty() -> bool:
                return not (await server_status(url, admin="lead", token=admin)).bots

            await wait_until(lobby_empty, "the copies to leave", seconds=30)


@pytest.mark.parametrize(
    ("more", "named"),
    [
        (["--name", "bad name!"], "'bad name!'"),
        (["--name", "x" * 64, "--copies", "2"], f"'{'x' * 64}-0'"),
    ],
)
def test_bots_run_refuses_a_bad_name_before_connecting(more: list[str], named: str) -> None:
    """A name the server would refuse as a malformed hello is one error line, not a hello (a
    copy's ``-0`` counts: 64 characters and ``-0`` are 66)."""
    shown = bots("run", "greedy", "--game", "mahjong", "--url", f"ws://{LOOPBACK}:1", *more)
    [line] = error_lines(shown)
    assert line.startswith(f"error: {named}") and "is no valid bot name: 1-64 of" in line, line


def test_a_name_in_use_is_told_apart_by_its_code() -> None:
    """`name_in_use` (a v1 addition) gets the hints `auth_failed` with the same text got."""
    lobby = ClientRefused("name_in_use: bot c-0 already has a session (lobby); send hello.resume")
    hint = bots_cli.refusal_hint(lobby, ["c-0"], [None])
    assert "stop that bot" in hint and "another --name" in hint and "tokens add" not in hint
    seated = ClientRefused("name_in_use: bot c-0 already has a session (seated); send …")
    hint = bots_cli.refusal_hint(seated, ["c-0"], [None])
    assert "--resume-file" in hint and "another --name" in hint
