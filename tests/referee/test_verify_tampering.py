"""`arena verify` and `arena replay` on edited records: "ok" must cover every byte a participant
reads. A match whose frame was cut away, a line edited where no check looked (an added key, a
number written as a string or a boolean, an invented failure), a private event made public,
a malformed or too deeply nested line: each is named by its line and field, the same way by
both commands, and never crashes them.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_match_records import _duel, _index, _lines, _write
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.matches.bulls_cows import play_series
from arena.matches.frame import match_id_for
from arena.matches.liars_dice_series import make_ld_bot
from arena.records import MemoryRecorder, RecordError
from arena.referee import play_game
from arena.replay import RecordCheck, Step, check_record
from arena.transports.inprocess import InProcessSeat

Line = dict[str, Any]
runner = CliRunner()


@pytest.fixture(scope="module")
def duel() -> list[Line]:
    """A framed liar's dice duel of 6 games."""
    recorder = MemoryRecorder()
    _duel("verify-tampering", 6, recorder)
    return _lines(recorder)


@pytest.fixture(scope="module")
def series() -> list[Line]:
    """A framed 1A2B duel series of 2 games."""
    recorder = MemoryRecorder()
    asyncio.run(play_series("random", "random", 2, "verify-tampering", recorder=recorder))
    return _lines(recorder)


def _problems(report: RecordCheck) -> list[str]:
    return [p for m in report.matches for p in m.problems] + [
        p for check in report.games for p in check.problems
    ]


def _caught(tmp_path: Path, lines: list[Line], wanted: str) -> list[str]:
    """The record's problems, one of which must contain ``wanted``; replaying it step by step
    (as `arena replay` does) must give the same verdict."""
    path = _write(tmp_path, "edited", lines)
    report = check_record(path)
    problems = _problems(report)
    assert not report.ok and any(wanted in p for p in problems), problems
    steps: list[Step] = []
    assert _problems(check_record(path, on_step=steps.append)) == problems
    return problems


# -- a match without its frame -----------------------------------------------------------------


def _games(lines: list[Line]) -> list[list[Line]]:
    headers = _index(lines, "header")
    ends = [*headers[1:], _index(lines, "reveal")[-1]]
    return [lines[a:b] for a, b in zip(headers, ends, strict=True)]


def _unframed(lines: list[Line], keep: list[int], edit: Callable[[Line], None]) -> list[Line]:
    """Games ``keep`` of a framed match, each with its own reveal, the match line and the final
    reveal cut away, every header edited by ``edit``."""
    reveal = {"type": "reveal", "seed": lines[-1]["seed"]}
    kept = []
    for index in keep:
        game = copy.deepcopy(_games(lines)[index])
        edit(game[0])
        kept += [*game, dict(reveal)]
    return kept


def _as_version_1(header: Line) -> None:
    header["record_version"] = 1


def _another_id(header: Line) -> None:
    header["match"] += "-x"


@pytest.mark.parametrize("edit", [_as_version_1, _another_id], ids=["version 1", "id edited"])
def test_games_of_a_match_without_its_frame_fail(
    duel: list[Line], edit: Callable[[Line], None], tmp_path: Path
) -> None:
    match = duel[0]["match"]
    problems = _caught(tmp_path, _unframed(duel, [0, 1, 3], edit), "cannot be checked")
    assert any(
        f"game g3 deals game 3 of match {match} but is game 2 of that seed" in p
        and "which games the match held cannot be checked" in p
        for p in problems
    ), problems


def test_a_later_game_alone_without_its_frame_fails(duel: list[Line], tmp_path: Path) -> None:
    _caught(tmp_path, _unframed(duel, [4], _another_id), "game g4 deals game 4 of match")


def test_a_version_1_header_with_the_frame_s_id_outside_a_frame_fails(
    duel: list[Line], tmp_path: Path
) -> None:
    # Games 0, 1 in order: only the id, which no version 1 liar's dice record had, tells.
    _caught(tmp_path, _unframed(duel, [0, 1], _as_version_1), "recorded without its match frame")


def _played_on_their_own(seed_text: str, games: int, version: int = 2) -> list[Line]:
    """Games 0 … games-1 of a seed, each played on its own (its own reveal, no frame)."""
    recorder = MemoryRecorder()
    bots = [make_ld_bot(name, {"seed": seed_text}) for name in ("random-guess", "type5")]

    async def play() -> None:
        for k in range(games):
            await play_game(
                "liars_dice",
                [InProcessSeat(bot) for bot in bots],
                rules={},
                seed=MatchSeed.from_text(seed_text),
                deal={"game_index": k, "first": k % 2},
                players=["random-guess", "type5"],
                game_id=f"g{k}",
                recorder=recorder,
                reveal=True,  # games on their own: each record line set publishes its seed
            )

    asyncio.run(play())
    lines = _lines(recorder)
    for line in lines:
        if line["type"] == "header":
            line["record_version"] = version
    return lines


@pytest.mark.parametrize("version", [1, 2])
def test_games_played_on_their_own_still_verify(version: int, tmp_path: Path) -> None:
    for games in (1, 3):
        report = check_record(_write(tmp_path, "own", _played_on_their_own("own", games, version)))
        assert report.ok and not report.matches, _problems(report)


def test_a_version_1_1a2b_record_keeps_its_frame_like_id(
    series: list[Line], tmp_path: Path
) -> None:
    # Version 1 1A2B records (no frames) named their games' match as `match_id_for` does.
    (game,) = [g for g in _games(series) if g[0]["game"] == "g0"]
    lines = [*copy.deepcopy(game), {"type": "reveal", "seed": series[-1]["seed"]}]
    lines[0]["record_version"] = 1
    seed = MatchSeed.from_text("verify-tampering")
    assert lines[0]["match"] == match_id_for("bulls_cows", seed)
    report = check_record(_write(tmp_path, "v1", lines))
    assert report.ok, _problems(report)


# -- lines that are not JSON a record holds ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ('{"type":"match","x":' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"type":"match","x":' + "[" * 200 + "]" * 200 + "}", "nested too deeply"),
        ('{"type":"header","game":"g0","game":"g1"}', "the key 'game' twice in one object"),
        ('{"type":"result","scores":[NaN]}', "NaN is not a JSON number"),
    ],
    ids=["deep", "deeper than a record", "repeated key", "NaN"],
)
def test_json_a_record_does_not_hold_is_one_line_error(
    text: str, wanted: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=f"bad.jsonl:1: not JSON \\({wanted}\\)$"):
        check_record(path)
    for command in ("verify", "replay"):
        result = runner.invoke(app, [command, str(path)])
        assert result.exit_code == 2, result.output
        assert result.output.strip().endswith(f"bad.jsonl:1: not JSON ({wanted})")


def test_a_line_naming_its_own_line_number_is_refused(duel: list[Line], tmp_path: Path) -> None:
    lines = copy.deepcopy(duel)
    lines[3]["_line"] = 99
    with pytest.raises(ArenaError, match=r":4: the key '_line' is not part of a record"):
        check_record(_write(tmp_path, "line", lines))


# -- what differs, named ------------------------------------------------------------------------


def test_a_private_event_made_public_says_what_differs(duel: list[Line], tmp_path: Path) -> None:
    lines = copy.deepcopy(duel)
    private = next(i for i, line in enumerate(lines) if line["type"] == "event" and line["to"])
    seat = lines[private]["to"]
    lines[private]["to"] = None
    _caught(
        tmp_path,
        lines,
        f"line {private + 1}: recorded event differs from the replay: to: "
        f"recorded everyone, replay {seat}",
    )


def test_a_number_turned_into_a_float_in_an_event_is_named(
    duel: list[Line], tmp_path: Path
) -> None:
    lines = copy.deepcopy(duel)
    dice = next(
        i for i, line in enumerate(lines) if line["type"] == "event" and "dice" in line["payload"]
    )
    lines[dice]["payload"]["dice"] = [float(d) for d in lines[dice]["payload"]["dice"]]
    _caught(
        tmp_path,
        lines,
        f"line {dice + 1}: recorded event differs from the replay: payload.dice: recorded [",
    )


# -- malformed lines: named by line and field, same verdict in verify and replay ----------------


def _first(lines: list[Line], kind: str) -> int:
    return _index(lines, kind)[0]


def test_a_malformed_line_is_named_not_a_python_exception(duel: list[Line], tmp_path: Path) -> None:
    no_seed = copy.deepcopy(duel)
    del no_seed[-1]["seed"]
    problems = _caught(tmp_path, no_seed, f"line {len(duel)}: reveal line without 'seed'")
    assert not any("malformed record" in p or "Error" in p for p in problems), problems
    seat7 = copy.deepcopy(duel)
    decision = _first(seat7, "decision")
    seat7[decision]["seat"] = 7
    _caught(tmp_path, seat7, f"line {decision + 1}: seat 7 is not a seat of this 2-player game")


def test_a_failure_without_code_fails_verify_and_replay_alike(
    duel: list[Line], tmp_path: Path
) -> None:
    lines = copy.deepcopy(duel)
    decision = _first(lines, "decision")
    lines.insert(decision, {"type": "failure", "seat": lines[decision]["seat"]})
    _caught(tmp_path, lines, f"line {decision + 1}: failure line without 'seq'")
    path = _write(tmp_path, "failure", lines)
    for command in ("verify", "replay"):
        result = runner.invoke(app, [command, str(path)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert "failure line without 'seq'" in result.output


# -- every field of every line kind --------------------------------------------------------------


def _edit(kind: str, n: int, change: Callable[[Line], None]) -> Callable[[list[Line]], list[Line]]:
    def tamper(lines: list[Line]) -> list[Line]:
        lines = copy.deepcopy(lines)
        change(lines[_index(lines, kind)[n]])
        return lines

    return tamper


def _put(key: str, value: Any) -> Callable[[Line], None]:
    return lambda line: line.__setitem__(key, value)


def _convert(key: str, convert: Callable[[Any], Any]) -> Callable[[Line], None]:
    return lambda line: line.__setitem__(key, [convert(x) for x in line[key]])


def _insert_before_decision(n: int, failure: Callable[[Line], Line]) -> Callable[..., list[Line]]:
    def tamper(lines: list[Line]) -> list[Line]:
        lines = copy.deepcopy(lines)
        at = _index(lines, "decision")[n]
        lines.insert(at, failure(lines[at]))
        return lines

    return tamper


def _failure(seq: int, code: str = "late") -> Callable[[Line], Line]:
    return lambda decision: {
        "type": "failure",
        "seat": decision["seat"],
        "seq": seq,
        "code": code,
        "text": "invented",
    }


def _seqs_going_back(lines: list[Line]) -> list[Line]:
    """A failure before two decisions of one seat in one game, the second numbered lower."""
    lines = copy.deepcopy(lines)
    game = _games(lines)[0]
    seat = next(line["seat"] for line in game if line["type"] == "decision")
    mine = [i for i, line in enumerate(lines[: len(game)]) if line.get("seat") == seat]
    for at, seq in sorted(zip(mine[:2], (5, 3), strict=True), reverse=True):
        lines.insert(at, _failure(seq)({"seat": seat}))
    return lines


def _own_reveal_in_frame(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    at = _first(lines, "result") + 1
    lines.insert(at, {"type": "reveal", "seed": lines[-1]["seed"]})
    return lines


def _action_respelled(lines: list[Line]) -> list[Line]:
    lines = copy.deepcopy(lines)
    at = next(
        i for i, line in enumerate(lines) if line["type"] == "decision" and "x" in line["action"]
    )
    lines[at]["action"] = lines[at]["action"].upper()
    return lines


DUEL_TAMPERS: dict[str, tuple[Callable[[list[Line]], list[Line]], str]] = {
    "header note": (
        _edit("header", 0, _put("note", "seat 1 disqualified")),
        "unknown key 'note' in a header line",
    ),
    "result kind": (_edit("result", 0, _put("kind", "forfeit")), "recorded kind 'forfeit'"),
    "result game": (_edit("result", 0, _put("game", "x")), "recorded game 'x' != replay"),
    "scores as strings": (_edit("result", 0, _convert("scores", str)), "recorded scores ['"),
    "penalties as booleans": (
        _edit("result", 0, _convert("penalties", bool)),
        "recorded penalties [False, False] != replay [0, 0]",
    ),
    "winners as booleans": (
        _edit("result", 1, _convert("winners", lambda w: w == 1)),
        "recorded winners [",
    ),
    "result comment": (
        _edit("result", 0, _put("comment", "edited")),
        "unknown key 'comment' in a result line",
    ),
    "decision seat as a string": (
        _edit("decision", 0, lambda line: line.__setitem__("seat", str(line["seat"]))),
        'decision seat "',
    ),
    "decision seat true": (
        _edit("decision", 1, _put("seat", True)),
        "decision seat true is not an integer",
    ),
    "decision extra key": (
        _edit("decision", 0, _put("by", "human operator")),
        "unknown key 'by' in a decision line",
    ),
    "fallback false": (_edit("decision", 0, _put("fallback", False)), "decision fallback false"),
    "action respelled": (_action_respelled, "; the referee writes it 'bid "),
    "reveal extra key": (
        _edit("reveal", 0, _put("signed_by", "nobody")),
        "unknown key 'signed_by' in a reveal line",
    ),
    "totals as strings": (_edit("reveal", 0, _convert("totals", str)), 'reveal totals ["'),
    "match line extra key": (
        _edit("match", 0, _put("note", "x")),
        "unknown key 'note' in a match line",
    ),
    "invented failure without seq": (
        _insert_before_decision(
            0, lambda d: {"type": "failure", "seat": d["seat"], "code": "late", "text": "invented"}
        ),
        "failure line without 'seq'",
    ),
    "failure with an unknown code": (
        _insert_before_decision(0, _failure(1, "forfeit")),
        'failure code "forfeit" is not an error code',
    ),
    "failure numbers going back": (_seqs_going_back, "request number 3 after its 5"),
    "a game's own reveal in the frame": (_own_reveal_in_frame, "own reveal inside a match frame"),
}


@pytest.mark.parametrize("tamper", sorted(DUEL_TAMPERS))
def test_verify_checks_every_field_of_every_line(
    duel: list[Line], tamper: str, tmp_path: Path
) -> None:
    edit, wanted = DUEL_TAMPERS[tamper]
    _caught(tmp_path, edit(duel), wanted)


def test_a_1a2b_deal_with_an_unknown_key_fails(series: list[Line], tmp_path: Path) -> None:
    lines = _edit("header", 0, lambda h: h["deal"].__setitem__("extra", 1))(series)
    _caught(tmp_path, lines, "deal 'extra': a 1A2B duel's deal holds only 'game_index'")


def test_untouched_records_of_both_games_verify(
    duel: list[Line], series: list[Line], tmp_path: Path
) -> None:
    for name, lines in (("duel", duel), ("series", series)):
        report = check_record(_write(tmp_path, name, lines))
        assert report.ok and len(report.matches) == 1, _problems(report)
