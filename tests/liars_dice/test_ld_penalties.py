"""Liar's dice matches and leagues count each bot's penalties, as 1A2B and mahjong do."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from arena.leagues.config import load_league
from arena.leagues.play import plan_matches, play_league_match
from arena.leagues.runner import open_league
from arena.matches.liars_dice_series import make_ld_bot, run_match
from arena.records import MemoryRecorder
from arena.store import ResultStore
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Request

GAMES = 6


class NonsenseBot(Bot):
    """Plays well in odd games and answers nonsense in even ones: each of its decisions there is
    the referee's fallback, after a re-ask."""

    games = ("liars_dice",)

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.inner = make_ld_bot("probability", {"seed": "inner"})

    async def act(self, request: Request) -> str:
        if request.game is not None and int(request.game.removeprefix("g")) % 2 == 0:
            return "nonsense"
        return await self.inner.act(request)


def fallbacks_by_player(lines: list[dict[str, Any]]) -> Counter[str]:
    """The referee's fallback decisions in a record, by player."""
    counted: Counter[str] = Counter()
    players: list[str] = []
    for line in lines:
        if line["type"] == "header":
            players = line["players"]
        elif line["type"] == "decision" and line.get("fallback"):
            counted[players[line["seat"]]] += 1
    return counted


async def test_a_match_report_counts_each_bots_penalties() -> None:
    recorder = MemoryRecorder()
    seats = (InProcessSeat(NonsenseBot("bad")), InProcessSeat(make_ld_bot("type5")))
    report = await run_match("bad", "good", GAMES, "ld-penalties", seats=seats, recorder=recorder)
    fallbacks = fallbacks_by_player(recorder.lines)
    assert fallbacks["bad"] > 0 and fallbacks["good"] == 0
    assert report.penalties == [fallbacks["bad"], 0]
    assert report.to_json()["penalties"] == {"a": fallbacks["bad"], "b": 0}


async def test_a_match_of_good_bots_has_none() -> None:
    report = await run_match("probability", "type5", 4, "ld-clean")
    assert report.penalties == [0, 0]
    assert report.to_json()["penalties"] == {"a": 0, "b": 0}


async def test_a_league_stores_a_liars_dice_match_with_its_penalties(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(
        f'name = "dice"\ngame = "liars-dice"\ngames = {GAMES}\n'
        '[[bots]]\nname = "good"\nbot = "type5"\n'
        '[[bots]]\nname = "bad"\nbot = "probability"\n',
        encoding="utf-8",
    )
    config = load_league(path)
    (plan,) = plan_matches(config)
    assert plan.bots == ("good", "bad")
    # Seats stand for the bots, as on a server: B answers nonsense in every other game.
    seats = [InProcessSeat(make_ld_bot("type5")), InProcessSeat(NonsenseBot("bad"))]
    outcome = await play_league_match(config, plan, seats=seats)
    bad = outcome.penalties["bad"]
    assert bad > 0 and outcome.penalties == {"good": 0, "bad": bad}
    assert outcome.summary["penalties"] == {"good": 0, "bad": bad}
    with ResultStore(tmp_path / "results.sqlite") as store:
        league = open_league(config, store)
        assert store.save_match(league, outcome)
        (stored,) = store.matches(league)
    assert stored.penalties == {"good": 0, "bad": bad}
    assert stored.summary["penalties"] == {"good": 0, "bad": bad}


async def test_a_table_counts_each_bots_penalties_whatever_seat_it_sits_in() -> None:
    from arena.matches.liars_dice import run_table

    recorder = MemoryRecorder()
    names = ["good", "bad", "fair"]
    seats = [
        InProcessSeat(make_ld_bot("type5")),
        InProcessSeat(NonsenseBot("bad")),
        InProcessSeat(make_ld_bot("probability")),
    ]
    report = await run_table(names, seats, GAMES, "ld-table-penalties", recorder=recorder)
    penalties = {s.bot: s.penalties for s in report.standings}
    fallbacks = sum(1 for line in recorder.lines if line.get("fallback"))
    assert penalties["bad"] == fallbacks > 0
    assert penalties["good"] == penalties["fair"] == 0
    assert [r["penalties"] for r in report.to_json()["results"]] == [0, fallbacks, 0]
