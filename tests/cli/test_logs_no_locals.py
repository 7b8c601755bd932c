"""A logged exception shows its traceback, never the local variables of its frames.

Rich's traceback (structlog's default on the console) prints every frame's locals: a server
frame holds a bot's ``Hello`` with its token, a resume token, an MQTT connection id (which grants
a bot's topics on the embedded broker). Whoever reads the terminal or the ``--log-json`` file
would read them too.
"""

from __future__ import annotations

import json
import logging
import secrets
from pathlib import Path
from typing import Any

import pytest
import structlog

from arena.logs import configure_logging
from arena.server.auth import TokenStore
from arena.server.hub import Hub
from protocol.messages import Hello
from tests.network.net_helpers import QuietLink


def _fail_holding(secret: str) -> None:
    hello = Hello(name="g1", token=secret, games=["liars_dice"])  # noqa: F841 - the local shown
    raise RuntimeError("the handler failed")


def _json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_logged_exception_prints_no_locals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Drawn at run time: a literal would show up anyway, in the traceback's source lines.
    secret = secrets.token_hex(16)
    log_file = tmp_path / "log.jsonl"
    configure_logging("info", log_file)
    try:
        _fail_holding(secret)
    except RuntimeError:
        structlog.get_logger("arena.test").exception("structlog_failure")
    try:
        _fail_holding(secret)
    except RuntimeError:
        logging.getLogger("arena.test").exception("stdlib_failure")
    err = capsys.readouterr().err
    assert secret not in err
    assert secret not in log_file.read_text(encoding="utf-8")
    # The tracebacks themselves are kept, on the console and in the file.
    assert err.count("_fail_holding") >= 2 and err.count("RuntimeError") >= 2
    for entry in _json_lines(log_file):
        (exception,) = entry["exception"]
        assert exception["exc_type"] == "RuntimeError"
        assert "_fail_holding" in [frame["name"] for frame in exception["frames"]]
        # structlog >= 24.3 leaves the key out, older ones write "locals": null.
        assert all(frame.get("locals") is None for frame in exception["frames"])


async def test_a_server_fault_on_a_hello_does_not_log_its_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug while admitting a bot is logged with its traceback (``frame_handler_failed``);
    the frames handling the hello hold it, token and all."""
    token = secrets.token_hex(16)
    log_file = tmp_path / "serve.jsonl"
    configure_logging("info", log_file)
    hub = Hub(TokenStore.open_store())

    async def broken_admit(*_args: object) -> object:
        raise RuntimeError("a bug in the lobby")

    monkeypatch.setattr(hub.lobby, "admit", broken_admit)
    conn = hub.connection(QuietLink(), timed=False)
    await conn.feed(Hello(name="g1", token=token, games=["liars_dice"]).model_dump_json())
    assert hub.internal_errors == 1
    err = capsys.readouterr().err
    assert "frame_handler_failed" in err and "a bug in the lobby" in err
    assert token not in err
    text = log_file.read_text(encoding="utf-8")
    assert token not in text
    (failure,) = [e for e in _json_lines(log_file) if e["event"] == "frame_handler_failed"]
    assert "_hello" in [frame["name"] for frame in failure["exception"][0]["frames"]]
