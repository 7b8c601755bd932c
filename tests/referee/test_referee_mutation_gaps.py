"""Referee and record-check rules that a plausible slip would break with the suite still green.

Found by a mutation audit of `arena.referee` and `arena.replay_checks`: each test fails on one
hand-made bug and asserts the documented rule (the referee's module docstring, docs/DEALING.md
"What `arena verify` proves"), on a scripted clock where time matters.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import arena.referee
from arena.dealing import DEALING_VERSION, MatchSeed
from arena.games.mahjong.rules import MahjongRules
from arena.matches.bulls_cows import play_series
from arena.matches.liars_dice_series import make_ld_bot
from arena.matches.mahjong import MatchSpec, play_match
from arena.records import RECORD_VERSION, MatchLines, MemoryRecorder
from arena.referee import TimeBank, play_game
from arena.replay import check_record
from arena.replay_checks import FAILURE, LineProblem, check_shape, game_index, unframed_games
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Action, Request


class FirstAnswerLateSeat(InProcessSeat):
    """Takes ``think_s`` of the scripted clock over its first request, then answers it as its
    bot would; answers every later request at once."""

    def __init__(self, bot: Bot, clock: list[float], think_s: float) -> None:
        super().__init__(bot)
        self.clock = clock
        self.think_s = think_s
        self.asked = 0

    async def ask(self, request: Request) -> Action:
        self.asked += 1
        if self.asked == 1:
            self.clock[0] += self.think_s
        return await super().ask(request)


def _duel_game(
    seat: FirstAnswerLateSeat, *, deadline_ms: int, bank: TimeBank | None
) -> tuple[MemoryRecorder, tuple[int, ...]]:
    recorder = MemoryRecorder()
    played = asyncio.run(
        play_game(
            "liars_dice",
            [seat, InProcessSeat(make_ld_bot("type5", {"seed": "gaps"}))],
            rules={},
            seed=MatchSeed.from_text("referee-gaps"),
            deal={"game_index": 0},
            players=["late", "t5"],
            deadline_ms=deadline_ms,
            recorder=recorder,
            time_bank=bank,
        )
    )
    return recorder, played.penalties


def test_an_overrun_the_bank_covers_exactly_is_taken_and_empties_the_bank() -> None:
    # "An answer after the deadline is still taken while the bank covers the overrun": 250 ms
    # with a 125 ms deadline and 125 ms in the bank is covered (binary fractions: no rounding).
    clock = [0.0]
    late = FirstAnswerLateSeat(make_ld_bot("random-guess", {"seed": "gaps"}), clock, 0.25)
    bank = TimeBank({"late": 125.0, "t5": 125.0}, clock=lambda: clock[0])
    recorder, penalties = _duel_game(late, deadline_ms=125, bank=bank)
    assert [line for line in recorder.lines if line["type"] == "failure"] == []
    assert penalties == (0, 0)
    assert bank.left("late") == 0.0


def test_a_late_answer_without_a_bank_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # The referee's rule: a late answer gets an error and one re-ask; only a match with a bank
    # plays the fallback at once when the bank cannot cover it. The referee's own clock is
    # scripted here (its module's `time`, not the event loop's), so no real time is waited on.
    clock = [0.0]
    monkeypatch.setattr(arena.referee, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    late = FirstAnswerLateSeat(make_ld_bot("random-guess", {"seed": "gaps"}), clock, 0.5)
    recorder, penalties = _duel_game(late, deadline_ms=100, bank=None)
    failures = [line for line in recorder.lines if line["type"] == "failure"]
    assert [(line["seat"], line["code"]) for line in failures] == [(0, "late")]
    assert penalties == (0, 0)
    assert not any(line.get("fallback") for line in recorder.lines)


def test_a_mahjong_deal_names_game_four_rounds_plus_hand() -> None:
    # Hand g of a match is hand g % 4 of round g // 4 (RULES.md "The competition match").
    assert [
        game_index("mahjong", {"round": r, "hand": h}) for r in (0, 1, 2) for h in range(4)
    ] == (list(range(12)))


def _mahjong_game_on_its_own(seed: MatchSeed, round_index: int, hand: int, line: int) -> list[Any]:
    header = {
        "type": "header",
        "_line": line,
        "record_version": RECORD_VERSION,
        "dealing_version": DEALING_VERSION,
        "game_kind": "mahjong",
        "match": "m",
        "game": f"r{round_index}h{hand}",
        "players": ["a", "b", "c", "d"],
        "rules": {},
        "deal": {"round": round_index, "hand": hand, "scores": [0, 0, 0, 0]},
        "seed_commitment": seed.commitment(),
    }
    return [header, {"type": "reveal", "_line": line + 1, "seed": seed.hex()}]


def test_unframed_mahjong_hands_in_order_across_rounds_are_a_series() -> None:
    # docs/DEALING.md: games recorded without a frame must be their seed's games 0, 1, 2 … in
    # order; round 1 hand 0 is game 4, the fifth of the seed, and so in its place.
    seed = MatchSeed.from_text("unframed-mahjong")
    deals = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)]
    games = [_mahjong_game_on_its_own(seed, r, h, 10 * i + 1) for i, (r, h) in enumerate(deals)]
    assert unframed_games([MatchLines(None, games)]) == []
    skipped = [games[i] for i in (0, 1, 2, 3, 5)]
    problems = [found.problem for found in unframed_games([MatchLines(None, skipped)])]
    assert len(problems) == 1
    assert "game r1h1 deals game 5 of match" in problems[0]
    assert "but is game 4 of that seed" in problems[0]


def test_a_failure_line_with_request_number_zero_is_not_the_referees() -> None:
    # The referee numbers each seat's requests 1, 2, 3 … (`_RequestNumbers`), so a failure
    # line's ``seq`` of 0 was written by someone else.
    line = {"type": "failure", "_line": 7, "seat": 0, "seq": 0, "code": "late", "text": "x"}
    with pytest.raises(LineProblem, match="seq 0 is not a request number"):
        check_shape(line, FAILURE)
    check_shape({**line, "seq": 1}, FAILURE)


def test_two_games_of_a_match_swapped_whole_are_named(tmp_path: Path) -> None:
    # docs/DEALING.md: verify proves "that the match holds the games it announced": game k of a
    # match deals game index k. Games 0 and 2 of a 1A2B series sit alike and each replays on its
    # own, so swapped whole (their ids put back in order) only their deals tell.
    recorder = MemoryRecorder()
    asyncio.run(play_series("random", "random", 4, "swapped-games", recorder=recorder))
    lines: list[dict[str, Any]] = json.loads(json.dumps(recorder.lines))
    starts = [i for i, line in enumerate(lines) if line["type"] == "header"]
    first, second = lines[starts[0] : starts[1]], lines[starts[2] : starts[3]]
    first[0]["game"], second[0]["game"] = "g2", "g0"
    swapped = (
        lines[: starts[0]] + second + lines[starts[1] : starts[2]] + first + lines[starts[3] :]
    )
    path = tmp_path / "swapped.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in swapped), encoding="utf-8")
    report = check_record(path)
    assert all(game.ok for game in report.games)
    problems = [problem for match in report.matches for problem in match.problems]
    assert any("game 0 of the match deals game_index 2" in p for p in problems), problems
    assert any("game 2 of the match deals game_index 0" in p for p in problems), problems


def _checked(tmp_path: Path, lines: list[dict[str, Any]]) -> tuple[bool, list[str]]:
    """Whether every game of the record replays, and the problems of its matches."""
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = check_record(path)
    return all(game.ok for game in report.games), [
        problem for match in report.matches for problem in match.problems
    ]


def test_revealed_totals_off_by_half_a_point_are_named(tmp_path: Path) -> None:
    # The reveal's totals must be the games' own (a 1A2B draw scores ½: half a point is a game).
    recorder = MemoryRecorder()
    asyncio.run(play_series("random", "random", 2, "totals-half", recorder=recorder))
    lines: list[dict[str, Any]] = json.loads(json.dumps(recorder.lines))
    assert _checked(tmp_path, lines) == (True, [])
    lines[-1]["totals"][0] += 0.5
    games_ok, problems = _checked(tmp_path, lines)
    assert games_ok
    assert any("revealed totals" in p for p in problems), problems


@pytest.fixture(scope="module")
def mahjong_match() -> list[dict[str, Any]]:
    """The record of a two-hand A/B mahjong match of random bots."""
    spec = MatchSpec(("random", "random"), "running-scores", 2, MahjongRules(), "ab", 5000)
    recorder = MemoryRecorder()
    asyncio.run(play_match(spec, recorder=recorder))
    lines: list[dict[str, Any]] = json.loads(json.dumps(recorder.lines))
    return lines


def test_a_mahjong_hand_must_start_from_the_running_scores(
    mahjong_match: list[dict[str, Any]], tmp_path: Path
) -> None:
    # replay_match: "a mahjong hand starts from the running scores of its players". A second
    # hand whose header and hand_start event were both given other scores replays on its own,
    # so only the match's running totals can tell.
    lines = copy.deepcopy(mahjong_match)
    second = [i for i, line in enumerate(lines) if line["type"] == "header"][1]
    forged = [
        score + shift
        for score, shift in zip(lines[second]["deal"]["scores"], [8, -8, 0, 0], strict=True)
    ]
    lines[second]["deal"]["scores"] = forged
    start = next(
        line for line in lines[second:] if line["type"] == "event" and "scores" in line["payload"]
    )
    start["payload"]["scores"] = list(forged)
    games_ok, problems = _checked(tmp_path, lines)
    assert games_ok
    assert any(f"starts from scores {forged}" in p for p in problems), problems


def test_a_mahjong_hand_dealt_as_another_hand_of_its_round_is_named_by_the_match(
    mahjong_match: list[dict[str, Any]], tmp_path: Path
) -> None:
    # Hand 1 of round 0 must deal hand 1 (seat 1 deals): the match check names a header that
    # says hand 0, as it names one that says another round.
    lines = copy.deepcopy(mahjong_match)
    second = [i for i, line in enumerate(lines) if line["type"] == "header"][1]
    lines[second]["deal"]["hand"] = 0
    _, problems = _checked(tmp_path, lines)
    assert any("deals round 0 hand 0, not round 0 hand 1" in p for p in problems), problems


def test_a_match_id_its_seed_does_not_make_is_named(tmp_path: Path) -> None:
    # docs/DEALING.md: a match id is <game>-<first 12 hex digits of the commitment>; an id
    # changed on every line (match line, headers, reveal) still replays game by game.
    recorder = MemoryRecorder()
    asyncio.run(play_series("random", "random", 2, "forged-id", recorder=recorder))
    lines: list[dict[str, Any]] = json.loads(json.dumps(recorder.lines))
    for line in lines:
        if "match" in line:
            line["match"] = "bulls-cows-000000000000"
    games_ok, problems = _checked(tmp_path, lines)
    assert games_ok
    assert any("match id 'bulls-cows-000000000000'; its seed makes" in p for p in problems), (
        problems
    )


class TwiceWrongSeat(InProcessSeat):
    """Answers its first two requests with an action no game reads, then as its bot would."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.asked = 0

    async def ask(self, request: Request) -> Action:
        self.asked += 1
        if self.asked <= 2:
            return Action(seq=request.seq, action="not an action")
        return await super().ask(request)


@pytest.fixture(scope="module")
def twice_wrong_game() -> list[dict[str, Any]]:
    """A liar's dice game on its own whose seat 0 fails twice (two failure lines, a fallback)."""
    recorder = MemoryRecorder()
    seats = [
        TwiceWrongSeat(make_ld_bot("random-guess", {"seed": "gaps"})),
        InProcessSeat(make_ld_bot("type5", {"seed": "gaps"})),
    ]
    asyncio.run(
        play_game(
            "liars_dice",
            seats,
            rules={},
            seed=MatchSeed.from_text("repeated-seq"),
            deal={"game_index": 0},
            players=["wrong", "t5"],
            recorder=recorder,
            reveal=True,
        )
    )
    lines: list[dict[str, Any]] = json.loads(json.dumps(recorder.lines))
    return lines


def _game_problems(tmp_path: Path, lines: list[dict[str, Any]]) -> list[str]:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return [problem for game in check_record(path).games for problem in game.problems]


def test_a_request_number_repeated_in_the_failures_is_named(
    twice_wrong_game: list[dict[str, Any]], tmp_path: Path
) -> None:
    # docs/DEALING.md: failure lines are checked for form, "request numbers only grow" (the
    # referee numbers each seat's requests 1, 2, 3 …): one repeated is not the referee's.
    lines = copy.deepcopy(twice_wrong_game)
    failures = [line for line in lines if line["type"] == "failure"]
    assert [line["seat"] for line in failures] == [0, 0]
    assert failures[1]["seq"] == failures[0]["seq"] + 1
    assert _game_problems(tmp_path, lines) == []
    failures[1]["seq"] = failures[0]["seq"]
    problems = _game_problems(tmp_path, lines)
    assert any("request number" in p and "only grow" in p for p in problems), problems


def test_a_third_failure_before_a_decision_is_named(
    twice_wrong_game: list[dict[str, Any]], tmp_path: Path
) -> None:
    # docs/DEALING.md: at most two failures of a seat before its decision (one re-ask).
    lines = copy.deepcopy(twice_wrong_game)
    second = [i for i, line in enumerate(lines) if line["type"] == "failure"][1]
    third = {**lines[second], "seq": lines[second]["seq"] + 1}
    lines.insert(second + 1, third)
    problems = _game_problems(tmp_path, lines)
    assert any("failure 3 before its decision" in p for p in problems), problems
