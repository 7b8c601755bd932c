"""Mutation gaps of `arena/matches/mahjong.py`: the competition match's figures (docs/RULES.md,
"The competition match") worked out again from the match's own record, and a series' figures
from matches made up for the purpose.

The record holds every hand's seating (its header's players), dealer, wins, deltas and
penalties, so each program's figures follow from the definitions in RULES.md without the
match's own tally: hands and seat winds (E = the dealer's seat), points, wins on a discard and
self-drawn, deal-ins (the discarder of a won discard), tai, penalties, and the rates over one
copy's hands.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from arena.games.mahjong.rules import load_ruleset
from arena.matches.mahjong import (
    MatchResult,
    MatchSpec,
    ProgramConfig,
    ProgramStats,
    SeriesResult,
    build_bots,
    play_match,
)
from arena.records import MemoryRecorder
from arena.referee import TimeBank
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot, BotReportedError
from bots.mahjong.greedy import GreedyBot
from protocol.messages import Request

RULES = load_ruleset("competition")


class NeverAnswers(Bot):
    """Fails every request: the referee plays its fallback, a penalty each time."""

    games = ("mahjong",)

    async def act(self, request: Request) -> str:
        raise BotReportedError("this bot never answers")


def figures_from_record(
    lines: Sequence[dict[str, Any]], program_of: dict[str, int], programs: int
) -> tuple[list[dict[str, Any]], list[tuple[int, ...]]]:
    """Each program's counts (RULES.md's definitions) and each hand's points per program."""
    headers = [line for line in lines if line["type"] == "header"]
    results = [line for line in lines if line["type"] == "result"]
    figures: list[dict[str, Any]] = [
        {
            "hands": 0,
            "seat_counts": [0, 0, 0, 0],
            "points": 0,
            "discard_wins": 0,
            "self_draws": 0,
            "deal_ins": 0,
            "tai": 0,
            "penalties": 0,
        }
        for _ in range(programs)
    ]
    hand_points = []
    for header, result in zip(headers, results, strict=True):
        detail = result["detail"]
        program_at = [program_of[name] for name in header["players"]]
        points = [0] * programs
        for seat, program in enumerate(program_at):
            mine = figures[program]
            mine["hands"] += 1
            mine["seat_counts"][(seat - detail["dealer"]) % 4] += 1
            mine["points"] += detail["deltas"][seat]
            mine["penalties"] += result["penalties"][seat]
            points[program] += detail["deltas"][seat]
        for win in detail["wins"]:
            winner = figures[program_at[win["seat"]]]
            winner["tai"] += win["tai"]
            if win["how"] == "tsumo":
                winner["self_draws"] += 1
            else:
                winner["discard_wins"] += 1
                figures[program_at[win["from_seat"]]]["deal_ins"] += 1
        hand_points.append(tuple(points))
    return figures, hand_points


def check_against_record(
    result: MatchResult, recorder: MemoryRecorder, spec: MatchSpec, players: Sequence[str]
) -> list[dict[str, Any]]:
    program_of = {name: spec.program_of[player] for player, name in enumerate(players)}
    figures, hand_points = figures_from_record(recorder.lines, program_of, len(spec.bots))
    data = result.to_json()
    copies = 1 if spec.layout == "rotate" else 2
    for shown, counted in zip(data["players"], figures, strict=True):
        for key, value in counted.items():
            if key != "tai":
                assert shown[key] == value, key
        wins = counted["discard_wins"] + counted["self_draws"]
        hands_of_one_copy = counted["hands"] / copies
        assert shown["win_rate"] == round(wins / hands_of_one_copy, 4)
        assert shown["deal_in_rate"] == round(counted["deal_ins"] / hands_of_one_copy, 4)
        assert shown["average_tai"] == (round(counted["tai"] / wins, 3) if wins else 0.0)
    assert result.hand_points == hand_points
    decisions = sum(1 for line in recorder.lines if line["type"] == "decision")
    assert data["decisions"] == decisions
    game_ids = [line["game"] for line in recorder.lines if line["type"] == "header"]
    assert data["rounds"] == len({game_id.split("h")[0] for game_id in game_ids})
    return figures


def test_a_partial_round_with_a_failing_bot_gives_the_figures_of_its_record() -> None:
    spec = MatchSpec(("greedy", "greedy", "greedy", "random"), "gaps", 6, RULES)
    players = ["east-0", "south-1", "west-2", "broken-3"]
    bots: list[Bot] = [GreedyBot(name) for name in players[:3]]
    bots.append(NeverAnswers(players[3]))
    recorder = MemoryRecorder()
    progress: list[tuple[int, int]] = []
    result = asyncio.run(
        play_match(
            spec,
            bots=bots,
            recorder=recorder,
            on_hand=lambda done, total: progress.append((done, total)),
        )
    )
    figures = check_against_record(result, recorder, spec, players)
    # What makes the comparison bite: a second round begun, fallbacks played, discards won.
    assert result.to_json()["rounds"] == 2
    assert [program["penalties"] > 0 for program in figures] == [False, False, False, True]
    assert sum(program["discard_wins"] for program in figures) > 0
    assert progress == [(done, 6) for done in range(1, 7)]


def test_an_ab_match_adds_both_copies_into_each_hands_points() -> None:
    spec = MatchSpec(("greedy", "random"), "gaps ab", 8, RULES, "ab")
    recorder = MemoryRecorder()
    result = asyncio.run(play_match(spec, recorder=recorder))
    check_against_record(result, recorder, spec, spec.player_names())
    assert any(points != (0, 0) for points in result.hand_points)


def test_every_request_carries_the_matchs_deadline_and_late_answers_spend_its_bank() -> None:
    deadlines: list[int] = []

    class Timed(GreedyBot):
        async def act(self, request: Request) -> str:
            deadlines.append(request.deadline_ms)
            return await super().act(request)

    spec = MatchSpec(("greedy",) * 4, "gaps bank", 1, RULES, deadline_ms=4321)
    players = [f"timed-{n}" for n in range(4)]
    ticks = itertools.count()
    # Every reading of the clock is 10 s after the one before: every answer is late, by more
    # than the deadline, and the bank (far larger) takes it.
    bank = TimeBank.for_players(players, 10**12)
    bank.clock = lambda: 10.0 * next(ticks)
    result = asyncio.run(play_match(spec, bots=[Timed(name) for name in players], time_bank=bank))
    assert deadlines and set(deadlines) == {4321}
    assert all(bank.left(name) < 10**12 for name in players)
    assert all(program.penalties == 0 for program in result.programs)


def test_a_config_overrides_the_options_given_to_every_bot() -> None:
    config = ProgramConfig("slow.toml", {"think_ms": 7})
    spec = MatchSpec(("greedy", "greedy"), "gaps", 4, RULES, "ab", configs=(config, None))
    bots = build_bots(spec, {"think_ms": 3})
    assert [bot.think_s for bot in bots if isinstance(bot, GreedyBot)] == [0.007, 0.003] * 2


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"games": 0}, "at least one hand"),
        ({"configs": (None, None, None)}, "3 configs for 4 programs"),
    ],
)
def test_a_spec_that_cannot_be_played_is_refused(changes: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        MatchSpec(("greedy",) * 4, "gaps", **changes)


def test_seats_without_a_name_each_are_refused() -> None:
    seats = [InProcessSeat(GreedyBot(f"g-{n}")) for n in range(4)]
    spec = MatchSpec(("greedy",) * 4, "gaps", 1, RULES)
    with pytest.raises(ValueError, match="one each"):
        asyncio.run(play_match(spec, seats=seats, names=["g-0", "g-1", "g-2"]))


# --- a series, from made-up matches ------------------------------------------------------

AB = MatchSpec(("greedy", "random"), "made up", 4, RULES, "ab")


def ab_match(points: int, a: tuple[int, int, int], b: tuple[int, int, int]) -> MatchResult:
    """An A/B match of 4 hands (8 per side, two copies): A's ``points`` (B has the opposite)
    and each side's (discard wins, self-draws, deal-ins)."""

    def side(name: str, own: int, counts: tuple[int, int, int]) -> ProgramStats:
        discard_wins, self_draws, deal_ins = counts
        return ProgramStats(
            name,
            copies=2,
            hands=8,
            points=own,
            discard_wins=discard_wins,
            self_draws=self_draws,
            deal_ins=deal_ins,
            round_points=[own],
        )

    programs = [side("greedy", points, a), side("random", -points, b)]
    return MatchResult(AB, programs, seed_hex="00", hands=4)


def test_a_series_adds_every_matchs_figures_and_splits_a_tied_match() -> None:
    won = ab_match(1000, (3, 1, 1), (1, 0, 3))
    tied = ab_match(0, (2, 0, 2), (2, 1, 2))
    assert tied.winners() == [0, 1]
    assert tied.to_json()["winners"] == ["greedy", "random"]
    data = SeriesResult("made up", [won, tied]).to_json()
    a, b = data["players"]
    # A tie is reported apart, and shared in the match score (what the interval is of).
    assert (a["matches_won"], a["matches_tied"], a["match_score"]) == (1, 1, 1.5)
    assert (b["matches_won"], b["matches_tied"], b["match_score"]) == (0, 1, 0.5)
    assert (a["discard_wins"], a["self_draws"], a["deal_ins"]) == (5, 1, 3)
    assert (b["discard_wins"], b["self_draws"], b["deal_ins"]) == (3, 1, 5)
    # Both copies' wins over one copy's hands: 6 wins in 8 hands of the series.
    assert (a["win_rate"], b["win_rate"]) == (0.75, 0.5)
    assert data["games"] == 8
    assert data["points_difference_per_match_ci95"]["estimate"] == 1000
