"""A 1A2B series credits each game to the bot that played it, whichever seat it sat in (found by
a mutation audit: reading A's score from seat 0 in every game went unnoticed)."""

from __future__ import annotations

import asyncio

from arena.matches.bulls_cows import play_series
from arena.records import MemoryRecorder


def test_each_game_is_scored_for_the_bot_in_its_seat() -> None:
    # B sits first in the odd games (seating "alternate"), so A's score there is seat 1's.
    recorder = MemoryRecorder()
    report = asyncio.run(play_series("random", "random", 6, "bc-seats", recorder=recorder))
    headers = [line for line in recorder.lines if line["type"] == "header"]
    results = [line for line in recorder.lines if line["type"] == "result"]
    by_name = [
        dict(zip(header["players"], result["scores"], strict=True))
        for header, result in zip(headers, results, strict=True)
    ]
    a, b = report.names
    assert report.scores == [(scores[a], scores[b]) for scores in by_name]
    assert report.diffs == [scores[a] - scores[b] for scores in by_name]
    reveal = recorder.lines[-1]
    assert reveal["type"] == "reveal"
    assert reveal["totals"] == [sum(s[0] for s in report.scores), sum(s[1] for s in report.scores)]
    # The check means something only if the seats' results differ in some odd game.
    assert any(scores[a] != scores[b] for scores in by_name[1::2])
