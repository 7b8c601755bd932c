"""A match stopped while a seat is told a game's end records no game it does not count: the
result line is written after the end is sent, so the record and the reveal's count agree. And
a resume token or bot token carrying a lone surrogate (JSON allows one) is refused, not an
internal error."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from arena.matches.mahjong import MatchSpec, play_match
from arena.records import JsonlRecorder
from arena.server.auth import digest
from arena.server.lobby import _same_secret
from arena.transports.inprocess import InProcessSeat
from protocol.games.common import GameEnd


class StuckOnTheSecondEnd(InProcessSeat):
    """Takes for ever to be told the second game's end (a slow remote seat); four seats are
    told each end."""

    ends = 0
    told = asyncio.Event()

    async def send(self, message: Any) -> None:
        if isinstance(message.payload, GameEnd):
            type(self).ends += 1
            if type(self).ends == 5:  # the first of four seats told the second game's end
                type(self).told.set()
                await asyncio.Event().wait()
        await super().send(message)


async def test_a_match_stopped_during_a_game_end_records_what_it_counts(tmp_path: Path) -> None:
    StuckOnTheSecondEnd.ends = 0
    StuckOnTheSecondEnd.told = asyncio.Event()
    path = tmp_path / "match.jsonl"
    recorder = JsonlRecorder(path)
    spec = MatchSpec(bots=("greedy",) * 4, seed="stopped", games=4)
    task = asyncio.create_task(
        play_match(spec, seat_factory=StuckOnTheSecondEnd, recorder=recorder)
    )
    await StuckOnTheSecondEnd.told.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    recorder.close()
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    results = sum(line["type"] == "result" for line in lines)
    (reveal,) = [line for line in lines if line["type"] == "reveal"]
    assert results == reveal["games"] == 1


def test_a_lone_surrogate_in_a_token_is_refused_not_an_error() -> None:
    assert not _same_secret("\ud800", "a1b2c3")
    assert digest("\ud800") != digest("a1b2c3")
