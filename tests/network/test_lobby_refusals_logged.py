"""The server logs a refused ``hello`` of a name already in use, so the operator sees two
participants who chose one name (or a bot restarted without its resume token); the bot alone
was told before."""

from __future__ import annotations

import logging

import pytest
from net_helpers import raw_peer, running_server, ws_url


async def test_a_name_in_use_refusal_is_logged_for_the_operator(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hello = {"type": "hello", "name": "twin", "games": ["liars_dice"]}
    with caplog.at_level(logging.INFO):
        async with running_server() as server, raw_peer(ws_url(server)) as first:
            await first.send(hello)
            assert (await first.recv())["type"] == "welcome"
            async with raw_peer(ws_url(server)) as second:
                await second.send({**hello, "features": ["refusal_codes"]})
                assert (await second.recv())["code"] == "name_in_use"
    logs = [record.msg for record in caplog.records if isinstance(record.msg, dict)]
    (refused,) = [line for line in logs if line["event"] == "hello_refused"]
    assert (refused["bot"], refused["session_state"], refused["resume"]) == ("twin", "lobby", False)
