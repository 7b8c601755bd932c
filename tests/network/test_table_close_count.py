"""The server's ``table_closed`` log line counts the seats the close released, those whose seat
connections were still there included: they leave as the table closes (the count said 0 for
them, while their bots' matches were cut short, `match_aborted`)."""

from __future__ import annotations

import logging

import pytest
from net_helpers import attach, open_table, raw_peer, running_server, scaled, ws_url

from arena.server.hub import Limits


async def test_a_table_closed_under_attached_seats_counts_them_cut_short(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO):
        limits = Limits(hello_timeout_s=scaled(10), detach_grace_s=0.0)
        async with (
            running_server(limits=limits) as server,
            open_table(server) as (admin, _bots, opened),
        ):
            url = ws_url(server)
            keys = [seat["key"] for seat in opened["seats"]]
            async with raw_peer(url) as first, raw_peer(url) as second:
                assert (await attach(first, opened, 0, keys[0]))["type"] == "attached"
                assert (await attach(second, opened, 1, keys[1]))["type"] == "attached"
                await admin.send({"v": 1, "type": "close_table", "table": opened["table"]})
                await admin.recv_until("table_closed")
    logs = [record.msg for record in caplog.records if isinstance(record.msg, dict)]
    (closed,) = [line for line in logs if line["event"] == "table_closed"]
    assert closed["seats_cut_short"] == 2
