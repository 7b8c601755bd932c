"""What a mutation audit of record writing and reading, `arena replay` and the protocol codec
found unchecked: each test fails on one hand-made change to the code (named in its docstring)
that the other tests let through.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from wire_samples import solve_observation

from arena.cli.main import app
from arena.games.registry import get_spec
from arena.matches.liars_dice_series import make_ld_bot, run_match
from arena.records import JsonlRecorder, RecordError, read_lines, split_matches
from arena.replay import RecordCheck, Step, check_record
from arena.transports.base import SeatFailure
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.codec import MAX_MESSAGE_BYTES, ProtocolError, decode, name_problem, read_frame
from protocol.messages import ErrorCode, Event, Request

Line = dict[str, Any]
runner = CliRunner()


# -- writing a record ----------------------------------------------------------------------------


def test_a_written_line_is_in_the_file_before_the_recorder_closes(tmp_path: Path) -> None:
    """Mutant: `JsonlRecorder.write` without its flush (a crash would lose the buffered lines)."""
    path = tmp_path / "open.jsonl"
    with JsonlRecorder(path) as recorder:
        recorder.write({"type": "match", "note": "牌"})
        assert read_lines(path) == [{"type": "match", "note": "牌", "_line": 1}]


def test_leaving_the_recorder_s_with_block_closes_its_file(tmp_path: Path) -> None:
    """Mutant: `Recorder.__exit__` that does not call `close`."""
    with JsonlRecorder(tmp_path / "closed.jsonl") as recorder:
        recorder.write({"type": "match"})
    with pytest.raises(ValueError, match="closed file"):
        recorder.write({"type": "reveal"})


@pytest.mark.parametrize("mode", [0o640, 0o606, 0o604])
def test_an_existing_record_file_loses_group_or_other_access_alone(
    mode: int, tmp_path: Path
) -> None:
    """Mutant: only the "other" bits of an existing file looked at (``mode & 0o007``), so a file
    its group may read kept that access; and the converse (``mode & 0o070``)."""
    path = tmp_path / "old.jsonl"
    path.write_text("", encoding="utf-8")
    path.chmod(mode)
    with JsonlRecorder(path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


# -- reading a record ----------------------------------------------------------------------------


def _nested(lists: int) -> str:
    """A record line that nests ``lists`` lists inside its object: depth ``lists + 1``."""
    return '{"type":"match","x":' + "[" * lists + "]" * lists + "}\n"


def test_a_line_exactly_as_deep_as_the_limit_is_read_and_one_level_more_is_not(
    tmp_path: Path,
) -> None:
    """Mutants: `MAX_DEPTH` 65, ``_depth(value) >= MAX_DEPTH``, and `_depth` counting the
    outermost object as depth 0 (each lets a line one level too deep through, or refuses one at
    the limit)."""
    path = tmp_path / "deep.jsonl"
    path.write_text(_nested(63), encoding="utf-8")  # the object, then 63 lists: depth 64
    (line,) = read_lines(path)
    assert line["type"] == "match"
    path.write_text(_nested(64), encoding="utf-8")
    with pytest.raises(RecordError, match=r"deep.jsonl:1: not JSON \(nested too deeply\)$"):
        read_lines(path)


def test_blank_lines_are_skipped_and_still_counted(tmp_path: Path) -> None:
    """Mutant: ``if not text:`` for ``if not text.strip():`` (a blank line, which still holds
    its newline, is then read as JSON and refused)."""
    path = tmp_path / "blank.jsonl"
    path.write_text('\n{"type":"match"}\n   \n\t\n{"type":"reveal"}\n', encoding="utf-8")
    assert [(line["type"], line["_line"]) for line in read_lines(path)] == [
        ("match", 2),
        ("reveal", 5),
    ]


@pytest.mark.parametrize("text", ['{"type":1}', '{"type":null}', '{"type":["match"]}'])
def test_a_line_whose_type_is_no_string_is_refused(text: str, tmp_path: Path) -> None:
    """Mutant: any ``type`` key taken (``"type" not in value``)."""
    path = tmp_path / "type.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"type.jsonl:1: a record line is an object with a"):
        read_lines(path)


# -- grouping a record's lines into matches ------------------------------------------------------


def _header(match: str, game: str, line: int) -> Line:
    return {"type": "header", "match": match, "game": game, "_line": line}


def _shape(lines: list[Line]) -> list[tuple[int | None, list[list[int]], int | None]]:
    """Each block of `split_matches` as (match line, the line numbers of each game, reveal)."""
    return [
        (
            None if block.match is None else block.match["_line"],
            [[line["_line"] for line in game] for game in block.games],
            None if block.reveal is None else block.reveal["_line"],
        )
        for block in split_matches(lines)
    ]


def test_a_game_after_a_match_s_reveal_starts_a_block_of_its_own() -> None:
    """Mutant: a header after a match's reveal joins that match (``if current is None:``),
    whose next line is then "after the match's reveal"."""
    lines = [
        {"type": "match", "match": "m", "_line": 1},
        _header("m", "g0", 2),
        {"type": "result", "_line": 3},
        {"type": "reveal", "match": "m", "seed": "s", "_line": 4},
        _header("own", "g0", 5),
        {"type": "result", "_line": 6},
        {"type": "reveal", "seed": "t", "_line": 7},
    ]
    assert _shape(lines) == [(1, [[2, 3]], 4), (None, [[5, 6, 7]], None)]


def test_a_line_after_a_match_s_reveal_is_an_error_of_the_record() -> None:
    """Mutant: a line after a match's reveal (before any header) added to its last game."""
    lines = [
        {"type": "match", "match": "m", "_line": 1},
        _header("m", "g0", 2),
        {"type": "result", "_line": 3},
        {"type": "reveal", "match": "m", "seed": "s", "_line": 4},
        {"type": "event", "_line": 5},
    ]
    with pytest.raises(RecordError, match=r"^line 5: 'event' after the match's reveal line$"):
        split_matches(lines)


def test_a_line_between_a_match_line_and_its_first_header_is_an_error_of_the_record() -> None:
    """Mutant: ``elif current is None:`` for ``elif current is None or not current.games:`` (an
    `IndexError` then escapes `arena verify`)."""
    lines = [{"type": "match", "match": "m", "_line": 1}, {"type": "event", "_line": 2}]
    with pytest.raises(RecordError, match=r"^line 2: 'event' before any header$"):
        split_matches(lines)


def test_a_headless_match_takes_none_of_the_games_that_reveal_their_own_seed() -> None:
    """Mutant: `_match_game` without its "no reveal of its own" condition: a game played on its
    own under the same match id is swallowed into the headless match that follows it."""
    lines = [
        _header("m", "g0", 1),
        {"type": "result", "_line": 2},
        {"type": "reveal", "seed": "s", "_line": 3},
        _header("m", "g1", 4),
        {"type": "result", "_line": 5},
        {"type": "reveal", "match": "m", "seed": "s", "_line": 6},
    ]
    assert _shape(lines) == [(None, [[1, 2, 3]], None), (None, [[4, 5]], 6)]


def test_a_headless_match_that_takes_every_game_leaves_no_empty_block() -> None:
    """Mutant: the block the headless match emptied is left in the list (no `matches.pop()`)."""
    lines = [
        _header("m", "g0", 1),
        {"type": "result", "_line": 2},
        _header("m", "g1", 3),
        {"type": "result", "_line": 4},
        {"type": "reveal", "match": "m", "seed": "s", "_line": 5},
    ]
    assert _shape(lines) == [(None, [[1, 2], [3, 4]], 5)]


# -- the protocol codec --------------------------------------------------------------------------


def test_the_default_frame_limit_is_one_mebibyte_exactly() -> None:
    """Mutant: `MAX_MESSAGE_BYTES` one byte larger (docs/NETWORK.md, "Robustness": 1 MiB)."""
    empty = json.dumps({"v": 1, "type": "ping", "pad": ""})
    at_limit = json.dumps({"v": 1, "type": "ping", "pad": "x" * (MAX_MESSAGE_BYTES - len(empty))})
    assert len(at_limit) == 1 << 20
    assert read_frame(at_limit)["type"] == "ping"
    with pytest.raises(ProtocolError) as caught:
        read_frame(at_limit + " ")
    assert caught.value.code == ErrorCode.TOO_LARGE


def test_a_bad_message_names_each_of_its_problems() -> None:
    """Mutant: only the first problem of a frame named (``exc.errors()[:1]``)."""
    with pytest.raises(ProtocolError) as caught:
        decode({"v": 1, "type": "action", "seq": "2", "action": 5})
    assert caught.value.code == ErrorCode.BAD_MESSAGE
    assert "action.seq:" in caught.value.text and "action.action:" in caught.value.text


def test_a_bad_name_of_70_characters_is_shown_whole_and_a_longer_one_cut() -> None:
    """Mutant: ``len(name) < 70`` (a 70-character name shown cut)."""
    assert name_problem("x" * 70).endswith(f"(got {'x' * 70!r})")
    assert name_problem("x" * 71).endswith(f"(got {'x' * 67 + '...'!r})")


def test_a_protocol_error_becomes_an_error_message_with_its_envelope() -> None:
    """Mutant: `ProtocolError.to_message` dropping the envelope it is given."""
    message = ProtocolError(ErrorCode.BAD_JSON, "not JSON").to_message(match="m1", seq=7)
    assert (message.code, message.text, message.match, message.seq) == (
        ErrorCode.BAD_JSON,
        "not JSON",
        "m1",
        7,
    )


# -- in-process seats ----------------------------------------------------------------------------


class Silent(Bot):
    """A bot that keeps `Bot.on_event`: an event sent to it is dropped unread."""

    async def act(self, request: Request) -> str:
        return "pass"


class Listening(Silent):
    async def on_event(self, event: Event) -> None:
        return None


class RelayingSeat(InProcessSeat):
    """A seat that passes messages on elsewhere too (a spy, a relay): it wants them all."""

    async def send(self, message: Any) -> None:
        await super().send(message)


def test_an_in_process_seat_wants_events_only_when_someone_reads_them() -> None:
    """Mutant: `InProcessSeat.wants_events` always true (every event of an in-process match is
    then built for nothing)."""
    assert InProcessSeat(Silent("quiet")).wants_events is False
    assert InProcessSeat(Listening("listener")).wants_events is True
    assert RelayingSeat(Silent("quiet")).wants_events is True


# -- `arena replay`: the steps it shows ----------------------------------------------------------

MAHJONG_GOLDEN = Path(__file__).parents[1] / "mahjong_table/golden/r5_per_seat_draws.jsonl"
"""A mahjong hand played on its own (its own reveal): events to one seat, to the three others
and to everyone."""


LD_GOLDEN = Path(__file__).parents[1] / "liars_dice/golden/three-seat-series.jsonl"
"""A three-seat liar's dice game played on its own (its own reveal)."""


class Stumbling(Bot):
    """A liar's dice bot whose first two answers are no action at all, so the referee records two
    failures and plays the fallback for it; ``inner`` plays the rest."""

    games = ("liars_dice",)

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.stumbles = 2

    async def on_event(self, event: Event) -> None:
        await self.inner.on_event(event)

    async def act(self, request: Request) -> str:
        if self.stumbles:
            self.stumbles -= 1
            return "stumble"
        return await self.inner.act(request)


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A framed liar's dice duel of 2 games written by a `JsonlRecorder`; its first game holds
    two failures and a fallback."""
    path = tmp_path_factory.mktemp("records") / "duel.jsonl"
    seats = (
        InProcessSeat(Stumbling(make_ld_bot("random-guess", {"seed": "gaps"}))),
        InProcessSeat(make_ld_bot("type5", {"seed": "gaps"})),
    )
    with JsonlRecorder(path) as recorder:
        asyncio.run(run_match("rg", "t5", 2, "records-gaps", seats=seats, recorder=recorder))
    return path


def _replayed(path: Path, game: str | None = None) -> tuple[RecordCheck, list[Step]]:
    steps: list[Step] = []
    return check_record(path, on_step=steps.append, game=game), steps


def _recorded(path: Path) -> list[Line]:
    return read_lines(path)


def _written(tmp_path: Path, lines: list[Line]) -> Path:
    path = tmp_path / "edited.jsonl"
    path.write_text(
        "".join(
            json.dumps({k: v for k, v in line.items() if k != "_line"}) + "\n" for line in lines
        ),
        encoding="utf-8",
    )
    return path


def test_replay_shows_each_line_of_each_game_once_as_its_own_kind(duel: Path) -> None:
    """Mutant: event lines replayed without a step (`arena replay` would show decisions only)."""
    report, steps = _replayed(duel)
    assert report.ok
    in_games = [line for line in _recorded(duel) if line["type"] not in ("match", "reveal")]
    assert [(step.line, step.kind) for step in steps] == [
        (line["_line"], line["type"]) for line in in_games
    ]


def test_replay_s_header_step_names_the_game_its_players_and_its_deal(duel: Path) -> None:
    """Mutant: the header step without the deal it rebuilds the game from."""
    header = next(line for line in _recorded(duel) if line["type"] == "header")
    _, steps = _replayed(duel, "g0")
    players = ", ".join(f"{seat}={name}" for seat, name in enumerate(header["players"]))
    assert steps[0] == Step(
        header["_line"],
        "header",
        f"liars_dice game g0 of match {header['match']}: {players}; deal {header['deal']}",
    )


def test_replay_shows_a_failure_with_its_code_and_a_fallback_as_the_referee_s(duel: Path) -> None:
    """Mutants: a failure step without its error code; a fallback decision shown as the bot's."""
    lines = {line["_line"]: line for line in _recorded(duel)}
    _, steps = _replayed(duel)
    failures = [step for step in steps if step.kind == "failure"]
    assert len(failures) == 2
    for step in failures:
        line = lines[step.line]
        assert step.text == f"seat {line['seat']}: {line['code']}: {line['text']}"
    decisions = [step for step in steps if step.kind == "decision"]
    fallbacks = [step for step in decisions if lines[step.line].get("fallback")]
    assert len(fallbacks) == 1 and fallbacks[0].text.endswith(" (fallback)")
    assert not any(step.text.endswith("(fallback)") for step in decisions if step not in fallbacks)


def test_a_game_s_decisions_are_counted_once_each_fallbacks_included(duel: Path) -> None:
    """Mutant: a fallback decision counted twice in `GameCheck.steps` (`arena verify`'s
    "N decisions")."""
    report, _ = _replayed(duel)
    games: dict[str, int] = {}
    game = ""
    for line in _recorded(duel):
        game = line.get("game", game) if line["type"] == "header" else game
        if line["type"] == "decision":
            games[game] = games.get(game, 0) + 1
    assert {check.game: check.steps for check in report.games} == games


def test_replay_names_who_may_see_each_event() -> None:
    """Mutants: every event shown as public (``[all]``); an event to several seats shown as
    ``[seat 1,2,3]``."""
    lines = {line["_line"]: line for line in read_lines(MAHJONG_GOLDEN)}
    _, steps = _replayed(MAHJONG_GOLDEN, "r5h3")
    audiences = set()
    for step in steps:
        if step.kind != "event":
            continue
        to = lines[step.line]["to"]
        audience = (
            "all"
            if to is None
            else ("seat " if len(to) == 1 else "seats ") + ",".join(map(str, to))
        )
        assert step.text.startswith(f"[{audience}] "), step
        audiences.add(audience.split(" ")[0])
    assert audiences == {"all", "seat", "seats"}


def test_replay_of_a_game_played_on_its_own_ends_with_its_seed() -> None:
    """Mutant: a game's own reveal line replayed without a step."""
    reveal = read_lines(MAHJONG_GOLDEN)[-1]
    _, steps = _replayed(MAHJONG_GOLDEN, "r5h3")
    assert steps[-1] == Step(reveal["_line"], "reveal", f"seed {reveal['seed']}")


def test_a_mismatch_is_shown_at_the_line_it_names(duel: Path, tmp_path: Path) -> None:
    """Mutant: `_show_mismatch` always at the game's last line, whatever line the problem
    names."""
    lines = _recorded(duel)
    at = next(i for i, line in enumerate(lines) if line["type"] == "event" and line["to"])
    lines[at]["to"] = None  # a private event made public
    _, steps = _replayed(_written(tmp_path, lines))
    (mismatch,) = [step for step in steps if step.kind == "mismatch"]
    assert mismatch.line == at + 1 and mismatch.text.startswith(f"line {at + 1}: ")


def test_a_result_that_differs_is_shown_among_the_steps_at_its_line(
    duel: Path, tmp_path: Path
) -> None:
    """Mutant: the problems of a result line reported in the verdict only, not as a mismatch
    step where `arena replay` shows the result."""
    lines = _recorded(duel)
    at = next(i for i, line in enumerate(lines) if line["type"] == "result")
    lines[at]["penalties"] = [0, 0]  # the fallback's penalty taken away
    report, steps = _replayed(_written(tmp_path, lines))
    assert not report.ok
    mismatches = [step for step in steps if step.kind == "mismatch"]
    assert [step.line for step in mismatches] == [at + 1]
    assert "recorded penalties [0, 0]" in mismatches[0].text


def test_replay_renders_each_event_as_its_game_shows_it() -> None:
    """Mutant: the game's own renderer ignored (tiles shown as ``tiles=[...]`` with no names)."""
    render = get_spec("mahjong").render_event
    assert render is not None
    lines = {line["_line"]: line for line in read_lines(MAHJONG_GOLDEN)}
    _, steps = _replayed(MAHJONG_GOLDEN, "r5h3")
    events = [step for step in steps if step.kind == "event"]
    assert events and all(
        step.text.endswith(f"] {render(lines[step.line]['payload'])}") for step in events
    )


def test_an_event_of_a_game_without_a_renderer_is_shown_as_its_kind_and_fields() -> None:
    """Mutant: `_describe` showing the payload's ``game`` among the fields (``game=liars_dice``
    in every liar's dice and 1A2B event)."""
    lines = read_lines(LD_GOLDEN)
    _, steps = _replayed(LD_GOLDEN, "g0")
    start, dice = lines[1]["payload"], lines[2]["payload"]
    assert steps[1:3] == [
        Step(
            2,
            "event",
            f"[all] round_start round={start['round']}, first={start['first']}, "
            f"dice_counts={start['dice_counts']}",
        ),
        Step(3, "event", f"[seat 0] dice round={dice['round']}, seat=0, dice={dice['dice']}"),
    ]


def test_arena_replay_prints_each_step_with_its_audience_and_the_verdicts(
    duel: Path, tmp_path: Path
) -> None:
    """Mutants: the game's and the match's problems left out of `arena replay`'s closing lines;
    a step's text printed as rich markup (its ``[seat 0]`` then read as a style tag)."""
    whole = runner.invoke(app, ["replay", str(duel)])
    assert whole.exit_code == 0, whole.output
    assert "[seat 0] " in whole.stdout and "[all] " in whole.stdout
    lines = _recorded(duel)
    at = next(i for i, line in enumerate(lines) if line["type"] == "result")
    lines[at]["penalties"] = [0, 0]
    lines[-1]["totals"] = [total + 1.0 for total in lines[-1]["totals"]]
    shown = runner.invoke(app, ["replay", str(_written(tmp_path, lines))])
    assert shown.exit_code == 1
    out = shown.stdout.splitlines()
    assert any(
        line.startswith(f"mismatch in game g0: line {at + 1}: recorded penalties") for line in out
    )
    match = lines[0]["match"]
    assert any(
        line.startswith(f"mismatch in match {match}: line {len(lines)}: revealed totals")
        for line in out
    ), shown.stdout


# -- `arena replay` and `arena verify`: what a game's replay checks -----------------------------


def _problems_after(tmp_path: Path, lines: list[Line], game: str | None = None) -> list[str]:
    report = check_record(_written(tmp_path, lines), game=game)
    return [p for m in report.matches for p in m.problems] + [
        p for check in report.games for p in check.problems
    ]


def _first(lines: list[Line], kind: str, after: int = 0) -> int:
    return next(i for i, line in enumerate(lines) if i >= after and line["type"] == kind)


def _result_twice(lines: list[Line]) -> str:
    at = _first(lines, "result")
    lines.insert(at + 1, dict(lines[at]))
    return f"line {at + 2}: 'result' line after the game's result"


def _seat_past_the_last(lines: list[Line]) -> str:
    at = _first(lines, "decision")
    lines[at]["seat"] = 2
    return f"line {at + 1}: seat 2 is not a seat of this 2-player game"


def _event_before_a_decision_dropped(lines: list[Line]) -> str:
    at = next(
        i
        for i, line in enumerate(lines)
        if line["type"] == "decision" and lines[i - 1]["type"] == "event"
    )
    del lines[at - 1]
    return f"line {at}: decision before the recorded event"


def _failure_of_a_seat_not_asked(lines: list[Line]) -> str:
    failing = lines[_first(lines, "failure")]["seat"]
    at = _first(lines, "decision")
    while lines[at]["seat"] != failing:
        at = _first(lines, "decision", at + 1)
    other = 1 - failing  # never failed: request number 1 is after none of its own
    lines.insert(at, {"type": "failure", "seat": other, "seq": 1, "code": "late", "text": "x"})
    return f"line {at + 1}: a failure of seat {other}, not asked now"


def _last_event_dropped(lines: list[Line]) -> str:
    at = _first(lines, "result")
    assert lines[at - 1]["type"] == "event"
    del lines[at - 1]
    return f"line {at}: result while events are missing"


def _failures_dropped(lines: list[Line]) -> str:
    fallback = next(i for i, line in enumerate(lines) if line.get("fallback"))
    lines[:] = [line for line in lines if line["type"] != "failure"]
    return f"line {fallback - 1}: seat {lines[fallback - 2]['seat']}: a fallback with no failed"


def _fallback_passed_off_as_the_bot_s(lines: list[Line]) -> str:
    fallback = next(i for i, line in enumerate(lines) if line.get("fallback"))
    del lines[fallback]["fallback"]
    lines[_first(lines, "result")]["penalties"] = [0, 0]
    seat = lines[fallback]["seat"]
    return f"line {fallback + 1}: seat {seat}: its own decision after 2 failed answers"


def _game_kind_alias(lines: list[Line]) -> str:
    lines[1]["game_kind"] = "liars-dice"
    return "line 2: game kind 'liars-dice'; the referee writes 'liars_dice'"


DUEL_EDITS = {
    "a result line twice": _result_twice,
    "a seat one past the last": _seat_past_the_last,
    "an event before a decision dropped": _event_before_a_decision_dropped,
    "a failure of a seat not asked": _failure_of_a_seat_not_asked,
    "the game's last event dropped": _last_event_dropped,
    "the failures before a fallback dropped": _failures_dropped,
    "a fallback passed off as the bot's": _fallback_passed_off_as_the_bot_s,
    "a game kind written as its alias": _game_kind_alias,
}


@pytest.mark.parametrize("edit", sorted(DUEL_EDITS))
def test_a_replay_names_the_line_no_referee_writes(edit: str, duel: Path, tmp_path: Path) -> None:
    """Mutants, one per edit: a line after the game's result taken (a result written twice then
    passes); seat == number of seats taken; a decision taken while a recorded event is missing;
    a failure of a seat that was not asked taken; a result taken with events missing; a fallback
    with no failure before it, or a bot's own decision after two, taken; a game kind's alias
    taken for its name."""
    lines = _recorded(duel)
    wanted = DUEL_EDITS[edit](lines)
    problems = _problems_after(tmp_path, lines, game="g0")
    assert any(p.startswith(wanted) for p in problems), problems


def _reveal_twice(lines: list[Line]) -> str:
    lines.append(dict(lines[-1]))
    return f"line {len(lines)}: 'reveal' line after the game's reveal"


def _record_version(lines: list[Line]) -> str:
    lines[0]["record_version"] = 3
    return "line 1: record version 3, this arena reads 1, 2"


def _dealing_version(lines: list[Line]) -> str:
    lines[0]["dealing_version"] = "arena-dealing/2"
    return "line 1: dealing version 'arena-dealing/2', this arena derives"


def _reveal_with_a_note(lines: list[Line]) -> str:
    lines[-1]["note"] = "x"
    return f"line {len(lines)}: unknown key 'note' in a reveal line"


def _commitment_in_capitals(lines: list[Line]) -> str:
    lines[0]["seed_commitment"] = lines[0]["seed_commitment"].upper()
    return "line 1: header seed_commitment: "


def _a_fourth_player(lines: list[Line]) -> str:
    lines[0]["players"].append("extra")
    return "line 1: 4 players for a game of 3 seats"


def _reveal_before_the_result(lines: list[Line]) -> str:
    lines.insert(len(lines) - 2, lines.pop())
    return f"line {len(lines) - 1}: the seed revealed before the game's result"


GAME_ON_ITS_OWN_EDITS = {
    "a reveal line twice": _reveal_twice,
    "an unknown record version": _record_version,
    "another dealing version": _dealing_version,
    "a key added to its own reveal": _reveal_with_a_note,
    "a commitment not as the referee writes it": _commitment_in_capitals,
    "a player more than seats": _a_fourth_player,
    "the reveal before the result": _reveal_before_the_result,
}


@pytest.mark.parametrize("edit", sorted(GAME_ON_ITS_OWN_EDITS))
def test_a_replay_of_a_game_played_on_its_own_names_the_line_no_referee_writes(
    edit: str, tmp_path: Path
) -> None:
    """Mutants, one per edit: a line after the game's own reveal taken (a reveal written twice
    then passes); any record or dealing version taken; only the seed of a game's own reveal
    checked; the header's commitment not checked on its own (the reveal line blamed); more
    players than seats taken; a reveal before the result taken for a result after it."""
    lines = read_lines(LD_GOLDEN)
    wanted = GAME_ON_ITS_OWN_EDITS[edit](lines)
    problems = _problems_after(tmp_path, lines, game="g0")
    assert any(p.startswith(wanted) for p in problems), problems


def test_a_game_recorded_three_times_names_its_first_line_each_time(tmp_path: Path) -> None:
    """Mutants: a game recorded twice not named; a copy named after the last copy rather than
    the first."""
    text = LD_GOLDEN.read_text(encoding="utf-8")
    path = tmp_path / "thrice.jsonl"
    path.write_text(text * 3, encoding="utf-8")
    length = len(text.splitlines())
    report = check_record(path, game="g0")
    match = report.games[0].match
    assert [check.problems for check in report.games] == [
        [],
        [f"line {length + 1}: game g0 of match {match} was already recorded at line 1"],
        [f"line {2 * length + 1}: game g0 of match {match} was already recorded at line 1"],
    ]


def test_replaying_one_game_leaves_out_the_checks_of_unframed_matches() -> None:
    """Mutant: `check_record` with ``game`` still adding the verdicts of matches recorded without
    their frame (`arena replay --game` would then fail an intact game)."""
    assert check_record(MAHJONG_GOLDEN).matches  # a later hand of its seed, on its own
    report = check_record(MAHJONG_GOLDEN, game="r5h3")
    assert report.ok and not report.matches


def test_an_unknown_game_id_lists_twelve_ids_and_counts_them_all(tmp_path: Path) -> None:
    """Mutant: the list of a record's games cut at twelve without saying how many there are."""
    path = tmp_path / "many.jsonl"
    headers = [{"type": "header", "match": "m", "game": f"g{k}"} for k in range(13)]
    path.write_text("".join(json.dumps(h) + "\n" for h in headers), encoding="utf-8")
    shown = ", ".join(f"g{k}" for k in range(12))
    with pytest.raises(
        RecordError, match=rf"no game with id 'x'; its games: {shown}, … \(13 in all\)$"
    ):
        check_record(path, game="x")


# -- in-process seats: what `act` returns --------------------------------------------------------


class Answers(Bot):
    """A bot that answers every request with ``answer``, whatever it is."""

    def __init__(self, answer: Any) -> None:
        super().__init__("answers")
        self.answer = answer

    async def act(self, request: Request) -> Any:
        return self.answer


REQUEST = Request(
    seq=3,
    seat=1,
    deadline_ms=1000,
    observation=solve_observation(seat=1),
)


@pytest.mark.parametrize(
    ("answer", "wanted"),
    [
        (b"1234", "act() must return a str, got bytes"),
        (1234, "act() must return a str, got int"),
        ("", "String should have at least 1 character"),
    ],
)
def test_an_answer_that_is_no_action_text_is_a_bad_message(answer: Any, wanted: str) -> None:
    """Mutants: `InProcessSeat.ask` without its str check (pydantic then takes ``b"1234"`` as
    the text ``1234``); a `ValueError` of the `Action` escaping the seat instead of a
    `SeatFailure`."""
    with pytest.raises(SeatFailure) as caught:
        asyncio.run(InProcessSeat(Answers(answer)).ask(REQUEST))
    assert caught.value.code == ErrorCode.BAD_MESSAGE
    assert wanted in caught.value.text
