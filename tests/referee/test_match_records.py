"""A match as a whole (seed 000's commit–reveal): the players get the seed's commitment before
any deal and the seed after the last game; the record reveals it once, at the end; match ids
never give the seed away; `arena verify` checks each match whole — its games, their order,
players and totals — and every field of every result.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.games.liars_dice import LiarsDiceRules
from arena.games.mahjong.rules import MahjongRules
from arena.matches.bulls_cows import play_series
from arena.matches.liars_dice import in_process_seats, run_table
from arena.matches.liars_dice_series import make_ld_bot, run_match
from arena.matches.mahjong import MatchSpec, play_match
from arena.records import JsonlRecorder, MemoryRecorder
from arena.replay import check_record
from arena.transports.inprocess import InProcessSeat
from protocol.games.common import GameStart, MatchEnd, MatchStart
from protocol.messages import Error, Event, Request

Line = dict[str, Any]


class SpySeat:
    """A seat that remembers every message its bot is sent."""

    def __init__(self, inner: InProcessSeat) -> None:
        self.inner = inner
        self.messages: list[Event | Error] = []

    async def send(self, message: Event | Error) -> None:
        self.messages.append(message)
        await self.inner.send(message)

    async def ask(self, request: Request) -> Any:
        return await self.inner.ask(request)


def _duel(seed: str, games: int, recorder: MemoryRecorder) -> tuple[SpySeat, SpySeat]:
    seats = (
        SpySeat(InProcessSeat(make_ld_bot("random-guess", {"seed": seed}))),
        SpySeat(InProcessSeat(make_ld_bot("type5", {"seed": seed}))),
    )
    asyncio.run(run_match("rg", "t5", games, seed, seats=seats, recorder=recorder))
    return seats


def test_players_get_the_commitment_first_and_the_seed_last() -> None:
    recorder = MemoryRecorder()
    seats = _duel("frame-seed", 6, recorder)
    seed = MatchSeed.from_text("frame-seed")
    wins = [0.0, 0.0]
    for line in recorder.lines:
        if line["type"] == "header":
            players = line["players"]
        if line["type"] == "result":
            for name, score in zip(players, line["scores"], strict=True):
                wins[["rg", "t5"].index(name)] += score
    for index, seat in enumerate(seats):
        first, last = seat.messages[0], seat.messages[-1]
        assert isinstance(first, Event) and isinstance(first.payload, MatchStart)
        assert first.payload.seed_commitment == seed.commitment()
        assert first.payload.players == ["rg", "t5"] and first.payload.games == 6
        assert first.seat == index and first.match == recorder.lines[0]["match"]
        assert isinstance(seat.messages[1], Event)
        assert isinstance(seat.messages[1].payload, GameStart)
        assert isinstance(last, Event) and isinstance(last.payload, MatchEnd)
        assert hashlib.sha256(bytes.fromhex(last.payload.seed)).hexdigest() == seed.commitment()
        assert last.payload.totals == wins
    assert sum(wins) == 6


def test_the_record_reveals_the_seed_once_after_the_last_game() -> None:
    recorder = MemoryRecorder()
    _duel("frame-seed", 4, recorder)
    kinds = [line["type"] for line in recorder.lines]
    assert kinds[0] == "match" and kinds[-1] == "reveal"
    assert kinds.count("reveal") == 1 and kinds.count("header") == 4
    assert recorder.lines[-1]["games"] == 4


def test_match_ids_differ_by_seed_and_never_contain_it(tmp_path: Path) -> None:
    ids = set()
    for seed in ("one-secret-seed", "another-secret-seed"):
        recorder = MemoryRecorder()
        _duel(seed, 1, recorder)
        match_id = recorder.lines[0]["match"]
        assert seed not in match_id and MatchSeed.from_text(seed).hex() not in match_id
        ids.add(match_id)
    assert len(ids) == 2
    spec = MatchSpec(("random", "random"), "mahjong-secret", 1, MahjongRules(), "ab", 5000)
    mahjong = MemoryRecorder()
    asyncio.run(play_match(spec, recorder=mahjong))
    assert "mahjong-secret" not in json.dumps([mahjong.lines[0], mahjong.lines[1]])


def test_a_table_and_a_1a2b_series_are_framed_too(tmp_path: Path) -> None:
    names, seats = in_process_seats(["random-guess", "probability", "type3"], "t", {})
    recorder = MemoryRecorder()
    report = asyncio.run(
        run_table(names, seats, 6, "t", rules=LiarsDiceRules(players=3), recorder=recorder)
    )
    assert recorder.lines[-1]["totals"] == [float(s.wins) for s in report.standings]
    series = MemoryRecorder()
    asyncio.run(play_series("random", "random", 2, "bc", recorder=series))
    path = tmp_path / "bc.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in series.lines), encoding="utf-8")
    report_bc = check_record(path)
    assert report_bc.ok and len(report_bc.matches) == 1 and len(report_bc.games) == 2


def _write(tmp_path: Path, name: str, lines: list[Line]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _lines(recorder: MemoryRecorder) -> list[Line]:
    return list(json.loads(json.dumps(recorder.lines)))


def _index(lines: list[Line], kind: str) -> list[int]:
    return [i for i, line in enumerate(lines) if line["type"] == kind]


def _set(i_kind: str, n: int, key: str, value: Any) -> Callable[[list[Line]], list[Line]]:
    def tamper(lines: list[Line]) -> list[Line]:
        lines = copy.deepcopy(lines)
        lines[_index(lines, i_kind)[n]][key] = value
        return lines

    return tamper


def _penalise_first_seat(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    result = lines[_index(lines, "result")[0]]
    result["penalties"] = [3, *result["penalties"][1:]]
    return lines


def _reverse_players(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    header = lines[_index(lines, "header")[2]]
    header["players"] = header["players"][::-1]
    return lines


def _swap_seats_of_two_games(lines: list[Line]) -> list[Line]:
    """Reverse the seats of games 0 and 2 (and their results with them): each player's total is
    unchanged when both swaps cancel out, but who won each game is not."""
    lines = copy.deepcopy(lines)
    for n in (0, 2):
        header = lines[_index(lines, "header")[n]]
        header["players"] = header["players"][::-1]
    return lines


def _strip_frame(lines: list[Line]) -> list[Line]:
    """Cut the match line and the final reveal, give every game its own reveal, and play the
    games in reverse order: each game alone still replays."""
    reveal = {"type": "reveal", "seed": lines[-1]["seed"]}
    headers = _index(lines, "header")
    games = [lines[a:b] for a, b in zip(headers, [*headers[1:], len(lines) - 1], strict=True)]
    return [line for game in reversed(games) for line in [*game, reveal]]


def _edit_rules_of_one_game(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    lines[_index(lines, "header")[1]]["rules"]["forged"] = True
    return lines


def _forge_fallback(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    lines[_index(lines, "decision")[1]]["fallback"] = True
    return lines


TAMPERS: dict[str, Callable[[list[Line]], list[Line]]] = {
    "game cut short": lambda lines: [*lines[: _index(lines, "header")[1] - 2], lines[-1]],
    "result deleted": lambda lines: [
        line for i, line in enumerate(lines) if i != _index(lines, "result")[0]
    ],
    "winners edited": _set("result", 0, "winners", [5]),
    "penalties edited": _penalise_first_seat,
    "reason edited": _set("result", 0, "reason", "resigned"),
    "detail edited": _set("result", 1, "detail", {"forged": True}),
    "players swapped": _reverse_players,
    "game dropped": lambda lines: (
        lines[: _index(lines, "header")[1]] + lines[_index(lines, "header")[2] :]
    ),
    "game repeated": lambda lines: (
        lines[: _index(lines, "header")[2]]
        + lines[_index(lines, "header")[1] : _index(lines, "header")[2]]
        + lines[_index(lines, "header")[2] :]
    ),
    "reveal deleted": lambda lines: lines[:-1],
    "match cut short": lambda lines: [*lines[: _index(lines, "header")[3]], lines[-1]],
    "totals edited": _set("reveal", 0, "totals", [0.0, 0.0, 0.0, 0.0]),
    "seats swapped, totals kept": _swap_seats_of_two_games,
    "frame stripped, games reordered": _strip_frame,
    "announced games hidden": _set("match", 0, "games", None),
    "rules edited in one game": _edit_rules_of_one_game,
    "a decision marked as a fallback": _forge_fallback,
    "game id edited": _set("header", 1, "game", "g99"),
}


CAUGHT_BY = {
    "game cut short": "the record of this game stops short",
    "result deleted": "the record finishes",
    "winners edited": "recorded winners [5] != replay",
    "penalties edited": "recorded penalties [3, 0",
    "reason edited": "recorded reason 'resigned' != replay",
    "detail edited": "recorded detail {'forged': True} != replay",
    "players swapped": "of a match seated by",
    "game dropped": "game 1 of the match has id",
    "game repeated": "game 2 of the match has id",
    "reveal deleted": "no reveal line: the seed was never published",
    "match cut short": "the match announced",
    "totals edited": "revealed totals [0.0, 0.0, 0.0, 0.0] != the games'",
    "seats swapped, totals kept": "game 0 of a match seated by",
    "frame stripped, games reordered": "recorded without its match frame",
    "announced games hidden": "the match's games None is not a count",
    "rules edited in one game": "are not the match's",
    "a decision marked as a fallback": "the engine's fallback is",
    "game id edited": "game 1 of the match has id 'g99'",
}
"""The problem `check_record` must name for each tampering: failing for another reason would
hide a check that no longer works."""


@pytest.fixture(scope="module")
def records() -> dict[str, list[Line]]:
    duel = MemoryRecorder()
    _duel("tamper", 6, duel)
    spec = MatchSpec(
        ("greedy", "random", "random", "greedy"), "tamper", 8, MahjongRules(), "rotate", 5000
    )
    mahjong = MemoryRecorder()
    asyncio.run(play_match(spec, recorder=mahjong))
    return {"liars_dice": _lines(duel), "mahjong": _lines(mahjong)}


@pytest.mark.parametrize("game", ["liars_dice", "mahjong"])
def test_an_untouched_match_verifies(
    records: dict[str, list[Line]], game: str, tmp_path: Path
) -> None:
    report = check_record(_write(tmp_path, game, records[game]))
    assert report.ok, (report.matches, [c.problems for c in report.games])
    assert len(report.matches) == 1


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
@pytest.mark.parametrize("game", ["liars_dice", "mahjong"])
def test_verify_catches_every_tampering(
    records: dict[str, list[Line]], game: str, tamper: str, tmp_path: Path
) -> None:
    report = check_record(_write(tmp_path, "t", TAMPERS[tamper](records[game])))
    assert not report.ok, tamper
    problems = [p for m in report.matches for p in m.problems]
    problems += [p for check in report.games for p in check.problems]
    assert any(CAUGHT_BY[tamper] in problem for problem in problems), (tamper, problems)


def test_an_interrupted_match_still_reveals_what_was_played(tmp_path: Path) -> None:
    path = tmp_path / "stopped.jsonl"

    async def stopped() -> None:
        seats = (
            InProcessSeat(make_ld_bot("random-guess", {"seed": "s"})),
            InProcessSeat(make_ld_bot("type5", {"seed": "s"})),
        )
        done = 0

        def progress(step: int) -> None:
            nonlocal done
            done += step
            if done == 3:
                raise KeyboardInterrupt

        with JsonlRecorder(path) as recorder:
            await run_match("rg", "t5", 10, "s", seats=seats, recorder=recorder, progress=progress)

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(stopped())
    report = check_record(path)
    assert all(check.ok for check in report.games) and len(report.games) == 3
    (match,) = report.matches
    assert match.problems == ["the match announced 10 games, the record holds 3 (3 finished)"]


def test_in_process_bots_never_hold_the_match_seed() -> None:
    seats = run_match_seats("bot-seed-secret")
    seed = MatchSeed.from_text("bot-seed-secret")
    held = [seat.bot.seed_text for seat in seats]  # type: ignore[attr-defined]
    assert held == [seed.derive("bots", name).hex() for name in ("random-guess", "type5")]
    assert len(set(held)) == 2 and not {"bot-seed-secret", seed.hex()} & set(held)


def run_match_seats(seed_text: str) -> list[InProcessSeat]:
    names, seats = in_process_seats(["random-guess", "type5"], seed_text, {})
    assert names == ["random-guess", "type5"]
    return [seat for seat in seats if isinstance(seat, InProcessSeat)]


def test_an_unknown_game_id_lists_the_record_s_games(
    records: dict[str, list[Line]], tmp_path: Path
) -> None:
    path = _write(tmp_path, "ids", records["liars_dice"])
    assert [check.game for check in check_record(path, game="g2").games] == ["g2"]
    listed = r"no game with id 'g9'; its games: g0, g1, g2, g3, g4, g5$"
    with pytest.raises(ArenaError, match=listed):
        check_record(path, game="g9")


@pytest.mark.parametrize("game", ["liars_dice", "mahjong"])
def test_a_forged_seed_fails_the_match_itself_not_only_its_games(
    records: dict[str, list[Line]], game: str, tmp_path: Path
) -> None:
    forged = _set("reveal", 0, "seed", "ab" * 32)(records[game])
    report = check_record(_write(tmp_path, "forged", forged))
    (match,) = report.matches
    assert not match.ok and any("commitment" in problem for problem in match.problems)
    assert not any(check.ok for check in report.games)
