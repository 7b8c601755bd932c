"""MQTT through a broker that wants a login, or TLS (docs/NETWORK.md, "MQTT"): the URL's user
and password reach the broker on both sides, the documented Mosquitto ACL keeps bots apart, and
what cannot work (a refused login or subscription, no server on the broker) is one clear error
instead of a retry loop or a wait for ever — never showing the password."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import ssl
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiomqtt
import pytest
from net_helpers import (
    DUEL,
    LOOPBACK,
    PYTHON,
    REPO,
    mosquitto_process,
    running_server,
    scaled,
    subprocess_env,
    wait_until,
)

from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.referee import play_game
from arena.transports.mqtt import parse_mqtt_url, redact_url
from bots.adapters import AdapterRefused, MqttAdapter, adapter_for
from bots.client import Backoff, BotClient
from bots.registry import make_bot

SERVER_PASSWORD = "s3:cr@t/%x"
"""Every character a URL's user info must percent-encode."""
PASSWORDS = {"arena-server": SERVER_PASSWORD, "g1": "g1-pw", "g2": "g2-pw"}


def documented_acl() -> str:
    """The Mosquitto acl_file docs/NETWORK.md recommends, as printed there."""
    text = (REPO / "docs" / "NETWORK.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", text, flags=re.S)
    acl = [block for block in blocks if "pattern read" in block]
    assert len(acl) == 1, "docs/NETWORK.md should show one acl_file"
    return acl[0]


def url(user: str, port: int, password: str | None = None, scheme: str = "mqtt") -> str:
    secret = PASSWORDS[user] if password is None else password
    return f"{scheme}://{quote(user, safe='')}:{quote(secret, safe='')}@{LOOPBACK}:{port}"


@contextlib.contextmanager
def broker(config: str) -> Iterator[int]:
    """Mosquitto on a free loopback port with ``config``; yields the port."""
    with tempfile.TemporaryDirectory() as made, mosquitto_process(Path(made), config) as started:
        yield started[0]


@pytest.fixture(scope="module")
def locked_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """Mosquitto with no anonymous clients, a password per user and the documented ACL."""
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        pytest.skip("mosquitto_passwd is not installed (it comes with mosquitto)")
    folder = tmp_path_factory.mktemp("locked")
    passwords = folder / "passwd"
    passwords.touch(mode=0o600)
    for user, password in PASSWORDS.items():
        subprocess.run([tool, "-b", str(passwords), user, password], check=True)
    acl = folder / "acl"
    acl.write_text(documented_acl(), encoding="utf-8")
    config = f"allow_anonymous false\npassword_file {passwords}\nacl_file {acl}"
    with broker(config) as port:
        yield port


def bot_client(name: str, bot_url: str, game: str = "bulls_cows") -> BotClient:
    return BotClient(
        {game: make_bot(game, "optimal" if game == "bulls_cows" else "random-guess")},
        name=name,
        adapter_factory=lambda: adapter_for(bot_url, name),
        backoff=Backoff(first_s=0.05, most_s=0.5),
    )


@asynccontextmanager
async def playing(clients: list[BotClient]) -> AsyncIterator[None]:
    runners = [asyncio.create_task(client.run()) for client in clients]
    try:
        for client in clients:
            await wait_until(client.welcomed.is_set, f"the welcome of {client.name}")
        yield
    finally:
        for client in clients:
            await client.stop()
        for runner in runners:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner


async def topics_read(client: aiomqtt.Client, seconds: float) -> set[str]:
    """The topics of the messages ``client`` receives within ``seconds`` (scaled)."""
    topics = set()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(scaled(seconds)):
            async for message in client.messages:
                topics.add(str(message.topic))
    return topics


async def test_the_documented_acl_plays_and_keeps_bots_apart(locked_broker: int) -> None:
    port = locked_broker
    g1, g2 = bot_client("g1", url("g1", port)), bot_client("g2", url("g2", port))
    async with (
        running_server(mqtt=url("arena-server", port)) as server,
        playing([g1, g2]),
        aiomqtt.Client(
            LOOPBACK, port, identifier="g2-spy", username="g2", password=PASSWORDS["g2"]
        ) as spy,
    ):
        assert server.broker is None, "the server must use the broker, not start its own"
        adapter = g1._adapter
        assert isinstance(adapter, MqttAdapter)
        g1_up, g1_down = adapter.topics()
        for stolen in (g1_down, "arena/v1/bots/g1/+/down", "arena/v1/bots/+/+/down", "#"):
            # Mosquitto may grant a wildcard and then deliver nothing through it.
            await spy.subscribe(stolen, qos=1)
        async with server.hub.local_seats(["g1", "g2"], "bulls_cows") as seats:
            played = await play_game(
                "bulls_cows",
                seats,
                rules=DUEL,
                seed=MatchSeed.from_text("acl"),
                deal={"game_index": 0},
                players=["g1", "g2"],
                deadline_ms=round(scaled(10_000)),
            )
        assert g1.decisions > 0 and g2.decisions > 0
        assert played.decisions > 0 and played.penalties == (0, 0)
        # Its wildcards bring g2's user its own bot's messages, and nothing of g1's.
        read = await topics_read(spy, 1)
        assert read and all(t.startswith("arena/v1/bots/g2/") for t in read), read
        # A bye on g1's up topic would end its session, were it delivered.
        bye = {"v": 1, "type": "bye", "reason": "from g2's user"}
        await spy.publish(g1_up, json.dumps(bye), qos=1)
        await spy.publish(f"arena/v1/bots/g1/{'f' * 12}/up", json.dumps(bye), qos=1)
        await asyncio.sleep(scaled(1))
        assert sorted(b.name for b in server.hub.status().bots) == ["g1", "g2"]
        assert g1.welcomes == 1


def run_command(*args: str) -> subprocess.CompletedProcess[str]:
    """A command in a child process; one that retried for ever would hit the timeout."""
    return subprocess.run(
        list(args), capture_output=True, text=True, env=subprocess_env(), timeout=scaled(60)
    )


def command(name: str) -> str:
    return str(Path(PYTHON).with_name(name))


REFUSED = "refused the login (not authorized): check the user and password in the URL"


def test_a_refused_login_is_one_clear_error_on_each_side(locked_broker: int) -> None:
    port = locked_broker
    wrong = "wrong-Pa55"
    serve = run_command(
        command("arena"), "serve", "--port", "0", "--mqtt", url("arena-server", port, wrong)
    )
    assert serve.returncode == 2, serve.stderr
    errors = [line for line in serve.stderr.splitlines() if "error" in line]
    assert errors == [f"error: the MQTT broker at {LOOPBACK}:{port} {REFUSED}"], serve.stderr
    bot = run_command(command("bots"), "run", "greedy", "--url", url("g1", port, wrong))
    assert bot.returncode == 2, bot.stderr
    assert bot.stderr.splitlines()[-1] == f"error: the MQTT broker at {LOOPBACK}:{port} {REFUSED}"
    for shown in (serve, bot):
        assert wrong not in shown.stdout + shown.stderr
        assert "Traceback" not in shown.stderr
        assert "subscription" not in shown.stderr


def test_a_bot_the_acl_keeps_from_its_topics_stops_with_a_clear_error(locked_broker: int) -> None:
    """User g1 running a bot named g3: the ACL keeps it from g3's topics. Mosquitto 2.0 grants
    the subscription anyway and delivers nothing; the hello goes nowhere either."""
    async_welcome = "no welcome from the server within 10 s: is `arena serve --mqtt` running on"
    shown = run_command(
        command("bots"), "run", "greedy", "--name", "g3", "--url", url("g1", locked_broker)
    )
    assert shown.returncode == 2, shown.stderr
    last = shown.stderr.splitlines()[-1]
    assert last.startswith("error: ") and "arena/v1/bots/g3/+/" in last
    assert "refused the subscription" in last or async_welcome in last, last
    assert PASSWORDS["g1"] not in shown.stderr


async def test_a_refused_subscription_stops_the_bot_at_once(
    locked_broker: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broker that answers the SUBACK with a failure (the embedded one, and others than
    Mosquitto 2.0 for a topic the ACL denies)."""

    async def refused(*_args: object, **_kwargs: object) -> list[int]:
        return [0x80]

    monkeypatch.setattr(aiomqtt.Client, "subscribe", refused)
    client = bot_client("g3", url("g1", locked_broker))
    async with asyncio.timeout(scaled(30)):
        with pytest.raises(AdapterRefused) as stopped:
            await client.run()
    text = str(stopped.value)
    assert text.startswith(f"the MQTT broker at {LOOPBACK}:{locked_broker} refused the subscr")
    assert "arena/v1/bots/g3/" in text and "ACL" in text and "'g1'" in text


async def test_no_welcome_is_a_clear_error(tmp_path: Path) -> None:
    """A broker with no `arena serve` on it: the hello goes nowhere."""
    with broker("allow_anonymous true") as port:
        client = bot_client("g1", f"mqtt://{LOOPBACK}:{port}")
        client.welcome_timeout_s = scaled(0.5)
        async with asyncio.timeout(scaled(30)):
            with pytest.raises(AdapterRefused, match=r"no welcome from the server within"):
                await client.run()


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a certificate for 127.0.0.1 signed by it: (ca, certificate, key)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    ca_key, ca, key, request, cert = (
        folder / n for n in ("ca.key", "ca.crt", "server.key", "server.csr", "server.crt")
    )
    extensions = folder / "server.ext"
    extensions.write_text(
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        "authorityKeyIdentifier=keyid,issuer\n",
        encoding="utf-8",
    )
    new_key = ["-newkey", "rsa:2048", "-nodes", "-keyout"]
    # Its name, and its key usage: Python 3.13 verifies strictly (VERIFY_X509_STRICT) and refuses
    # a CA without one.
    ca_names = ["-subj", "/CN=test CA", "-addext", "basicConstraints=critical,CA:TRUE"]
    ca_names += ["-addext", "keyUsage=critical,keyCertSign,cRLSign"]
    for args in (
        ["req", "-x509", *new_key, ca_key, "-out", ca, "-days", "2", *ca_names],
        ["req", *new_key, key, "-out", request, "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial"],
    ):
        if args[0] == "x509":
            args += ["-out", cert, "-days", "2", "-extfile", extensions]
        subprocess.run([openssl, *map(str, args)], check=True, capture_output=True)
    return ca, cert, key


async def test_mqtts_checks_the_broker_against_the_systems_ca_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca, cert, key = make_certificates(tmp_path)
    config = f"allow_anonymous true\ncertfile {cert}\nkeyfile {key}\ncafile {ca}"
    with broker(config) as port:
        tls_url = f"mqtts://{LOOPBACK}:{port}"
        # Not in the system's CA store: refused, as any certificate that proves nothing, and
        # at once (one error, not a retry for ever), by a bot and by the server alike.
        untrusted = f"MQTT broker at {LOOPBACK}:{port} .the broker's certificate is not trusted"
        with pytest.raises(AdapterRefused, match=untrusted):
            await adapter_for(tls_url, "g1").connect()
        with pytest.raises(ArenaError, match=untrusted):
            async with running_server(mqtt=tls_url):
                pass
        # OpenSSL reads SSL_CERT_FILE as the system's CA store.
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        g1 = bot_client("g1", tls_url, "liars_dice")
        async with running_server(mqtt=tls_url) as server, playing([g1]):
            assert server.broker is None
            assert [b.name for b in server.hub.status().bots] == ["g1"]


@pytest.mark.parametrize(
    ("given", "host", "port", "user", "password", "tls"),
    [
        ("mqtt://h:1", "h", 1, None, None, False),
        ("mqtt://h", "h", 1883, None, None, False),
        ("mqtts://h", "h", 8883, None, None, True),
        ("mqtts://u@h:9", "h", 9, "u", None, True),
        (
            f"mqtt://a%40b:{quote(SERVER_PASSWORD, safe='')}@h",
            "h",
            1883,
            "a@b",
            SERVER_PASSWORD,
            False,
        ),
    ],
)
def test_both_sides_read_a_broker_url_alike(
    given: str, host: str, port: int, user: str | None, password: str | None, tls: bool
) -> None:
    parsed = parse_mqtt_url(given)
    server_side: tuple[Any, ...] = (
        parsed.host,
        parsed.port,
        parsed.username,
        parsed.password,
        parsed.tls,
    )
    assert server_side == (host, port, user, password, tls)
    bot = adapter_for(given, "g1")
    assert isinstance(bot, MqttAdapter)
    assert (bot.host, bot.port, bot.username, bot.password, bot.tls) == server_side


@pytest.mark.parametrize(
    "given", ["mqtt://u:hunter2@h:99999", "mqtts://u:hunter2@[::1", "tcp://u:hunter2@h:1"]
)
def test_a_bad_url_is_refused_without_its_password(given: str) -> None:
    assert "hunter2" not in redact_url(given) and "u:***@" in redact_url(given)
    with pytest.raises(ValueError) as server_side:
        parse_mqtt_url(given)
    with pytest.raises(ValueError) as bot_side:
        adapter_for(given, "g1")
    for refused in (server_side, bot_side):
        assert "hunter2" not in str(refused.value) and "u:***@" in str(refused.value)


@pytest.mark.parametrize(
    ("given", "secret_parts"),
    [
        ("mqtt://bob:Zq7#Wv@broker:1883", ["Zq7", "Wv"]),
        ("mqtt://bob:Zq7/Wv@broker", ["Zq7", "Wv"]),
        ("mqtt://bob:Zq7?Wv@broker", ["Zq7", "Wv"]),
        ("mqtt://bob:4321#Wv@broker.example", ["4321", "Wv"]),
    ],
)
def test_a_password_with_unencoded_characters_is_refused_without_showing_it(
    given: str, secret_parts: list[str]
) -> None:
    """urlsplit would read part of such a password as the port (and quote it), or the rest of
    the URL as a path or fragment, so that a login went to a host named after the user."""
    for parse in (parse_mqtt_url, lambda url: adapter_for(url, "g1")):
        with pytest.raises(ValueError) as refused:
            parse(given)
        message = str(refused.value)
        assert "percent-encode" in message or "percent-encoded" in message, message
        assert "bob:***@" in message
        assert not any(part in message for part in secret_parts), message


def test_only_a_refused_certificate_counts_as_a_tls_failure_that_no_retry_mends() -> None:
    """A handshake cut short (a broker restarting) must stay a reconnect, for a bot mid-game
    and for the server's bridge alike; a certificate the CA store refuses must not."""
    from arena.transports.mqtt_refusals import tls_failure

    def wrapped(cause: BaseException) -> aiomqtt.MqttError:
        """As aiomqtt raises it: its own error, raised while handling the ssl module's."""
        error = aiomqtt.MqttError(str(cause))
        error.__context__ = cause
        return error

    refused = ssl.SSLCertVerificationError(1, "certificate verify failed")
    refused.verify_message = "self-signed certificate"
    assert tls_failure(wrapped(refused)) == (
        "the broker's certificate is not trusted: self-signed certificate"
    )
    assert tls_failure(wrapped(ssl.SSLEOFError(8, "EOF occurred in violation of protocol"))) is None
    assert tls_failure(wrapped(ConnectionResetError(104, "reset"))) is None


@pytest.mark.parametrize("given", ["ws://bob:hunter2@127.0.0.1:1/#x", "ws://bob:12#hunter2@h:1"])
def test_a_websocket_url_with_a_fragment_is_refused_without_its_password(given: str) -> None:
    """websockets refuses a fragment with a message quoting the URL whole: a bot retrying it
    would log the password at every try."""
    with pytest.raises(ValueError) as refused:
        adapter_for(given, "g1")
    assert "hunter2" not in str(refused.value) and "bob:***@" in str(refused.value)
