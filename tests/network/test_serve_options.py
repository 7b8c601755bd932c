"""`arena serve`'s options (CLI audit L1, L2, L3, L4, L9): the URL it logs for an IPv6 address is
one a client takes; `--grace nan` is refused; arena's `--log-level` and `--log-file` work with
it; a missing `--tokens` file is one `error:` line; an `--mqtt` address where no MQTT broker
answers is refused with the reason.

Nothing here asserts on time: every wait is bounded only so that a broken build fails."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import signal
import socket
from pathlib import Path

import pytest
from net_helpers import ARENA, LOOPBACK, arena_command, scaled, subprocess_env, wait_until

from arena.server.app import ArenaServer, ServerConfig, ServerConfigError
from arena.server.remote import server_status


def test_grace_nan_is_refused_in_one_line() -> None:
    # Accepted, nan cut the drain short after an arbitrary time (and this would serve on).
    shown = arena_command("serve", "--port", "0", "--grace", "nan")
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == (
        "error: --grace must be a number of seconds (0: none, <0: for ever), got nan\n"
    )


def test_grace_below_zero_or_infinite_waits_for_ever() -> None:
    from arena.cli.serve import drain_grace_s

    assert drain_grace_s(-1.0) is None
    assert drain_grace_s(math.inf) is None
    assert drain_grace_s(-math.inf) is None
    assert drain_grace_s(0.0) == 0.0
    assert drain_grace_s(2.5) == 2.5


def test_a_missing_tokens_file_is_one_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    shown = arena_command("serve", "--port", "0", "--tokens", str(missing))
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == f"error: no file {missing}\n"


def test_two_json_log_files_are_refused_before_either_is_made(tmp_path: Path) -> None:
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    shown = arena_command(
        "--log-file", str(first), "serve", "--port", "0", "--log-json", str(second)
    )
    assert shown.returncode == 2
    assert shown.stderr == (
        f"error: arena --log-file {first} and serve --log-json {second} name two JSON log "
        "files; give one of them\n"
    )
    assert list(tmp_path.iterdir()) == []


async def test_arena_log_level_and_log_file_apply_to_serve(tmp_path: Path) -> None:
    log_file = tmp_path / "serve.log"
    process = await asyncio.create_subprocess_exec(
        ARENA,
        "--log-level",
        "error",
        "--log-file",
        str(log_file),
        "serve",
        "--host",
        LOOPBACK,
        "--port",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )
    try:

        def listening() -> bool:
            return log_file.exists() and '"event": "listening"' in log_file.read_text("utf-8")

        # Before, the file was made by arena and then left empty by serve's own logging.
        await wait_until(listening, "the listening line in arena's --log-file", seconds=30)
        process.send_signal(signal.SIGTERM)
        _out, err = await asyncio.wait_for(process.communicate(), timeout=scaled(60))
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    # At level error, the console shows none of the info lines the file holds.
    assert err.decode() == ""
    events = [json.loads(line)["event"] for line in log_file.read_text("utf-8").splitlines()]
    assert {"listening", "shutdown_requested", "stopped"} <= set(events)


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here")
async def test_the_logged_url_of_an_ipv6_server_is_one_clients_take(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = ArenaServer(ServerConfig(host="::1", port=0))
    # structlog hands each line to the standard logger as its event dict (arena.logs).
    with caplog.at_level(logging.INFO, logger="arena.server.app"):
        await server.start()
    try:
        [url] = [
            record.msg["url"]
            for record in caplog.records
            if isinstance(record.msg, dict) and record.msg.get("event") == "listening"
        ]
        assert url == f"ws://[::1]:{server.port}"
        # What `arena lobby --server URL` does with it; the bracket-less form was refused.
        status = await server_status(url)
        assert status.bots == [] and status.tables == []
    finally:
        await server.stop()


async def test_an_mqtt_address_with_no_broker_answering_is_refused_with_the_reason() -> None:
    """Something takes the TCP connection (a web server, say) but never answers MQTT: the
    server's start said only "cannot subscribe", since its wait ended with the first try's."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    listener = await asyncio.start_server(silent, LOOPBACK, 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        server = ArenaServer(ServerConfig(host=LOOPBACK, port=0, mqtt=f"mqtt://{LOOPBACK}:{port}"))
        with pytest.raises(ServerConfigError) as refused:
            await server.start()
    finally:
        listener.close()
        await listener.wait_closed()
    said = str(refused.value)
    assert said.startswith(f"cannot connect to an MQTT broker at {LOOPBACK}:{port} (the last try: ")
    assert said.endswith("): is that the address of an MQTT broker, and does it answer?")
    assert "(the last try: )" not in said
