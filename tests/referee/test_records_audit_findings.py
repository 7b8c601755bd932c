"""The records audit's findings on `arena verify`, `arena replay` and the record files: a match
with a failed game is no match "ok" (M1); a record file is its owner's alone (M2); a changed or
deleted match line is blamed on that line (L1); a commitment or seed is taken exactly as the
referee writes it (L2); every problem is one line of output (L3); `verify --json` always prints
one object, and its games name their match (L4); `arena match --json` names its seed and record
(L5); `replay` shows a mismatch where it happens and says what `--game` leaves out (L6); the
liar's dice opener of every game is checked against the match format's rule (L7).
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_match_records import _duel, _index, _lines, _write
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import DealingError, MatchSeed
from arena.dealing.commit import check_reveal, commitment, verify_commitment
from arena.games.liars_dice import LiarsDiceRules
from arena.matches.frame import MatchFrame
from arena.matches.liars_dice_series import make_ld_bot, play_seats
from arena.matches.mahjong import MatchSpec, play_match
from arena.matches.seating import seat_order
from arena.records import JsonlRecorder, MemoryRecorder
from arena.replay import RecordCheck, check_record
from arena.transports.inprocess import InProcessSeat

Line = dict[str, Any]
runner = CliRunner()


@pytest.fixture(scope="module")
def duel() -> list[Line]:
    """A framed liar's dice duel of 6 games."""
    recorder = MemoryRecorder()
    _duel("records-audit", 6, recorder)
    return _lines(recorder)


@pytest.fixture(scope="module")
def mahjong() -> list[Line]:
    """A framed mahjong match of 4 hands (long lines: the deals)."""
    recorder = MemoryRecorder()
    spec = MatchSpec(("greedy", "greedy", "random", "random"), "records-audit", 4)
    asyncio.run(play_match(spec, recorder=recorder))
    return _lines(recorder)


def _problems(report: RecordCheck) -> list[str]:
    return [p for m in report.matches for p in m.problems] + [
        p for check in report.games for p in check.problems
    ]


def _one_die_changed(lines: list[Line], game: str) -> list[Line]:
    """A private roll of ``game`` changed: that game alone fails its replay."""
    lines = copy.deepcopy(lines)
    header = next(i for i, line in enumerate(lines) if line.get("game") == game)
    dice = next(
        line
        for line in lines[header:]
        if line["type"] == "event" and line["payload"].get("kind") == "dice"
    )
    dice["payload"]["dice"][0] = 7 - dice["payload"]["dice"][0]
    return lines


# -- M1: the match verdict counts its failed games ----------------------------------------------


def test_a_match_with_a_forged_game_is_not_ok(duel: list[Line], tmp_path: Path) -> None:
    path = _write(tmp_path, "forged", _one_die_changed(duel, "g2"))
    report = check_record(path)
    (match,) = report.matches
    assert match.problems == []  # the frame itself is intact …
    assert match.failed_games == ["g2"] and not match.ok  # … but the match is not ok

    shown = runner.invoke(app, ["verify", str(path)])
    assert shown.exit_code == 1
    last = shown.stdout.splitlines()[-1]
    verdict, _totals = last.split("; totals: ")
    assert verdict == f"liars_dice match {match.match}: 6 games, 1 FAILED (g2)", shown.stdout
    assert "ok" not in verdict

    as_json = runner.invoke(app, ["verify", "--json", str(path)])
    assert as_json.exit_code == 1
    (entry,) = json.loads(as_json.stdout)["matches"]
    assert entry["ok"] is False and entry["failed_games"] == ["g2"] and entry["problems"] == []


def test_an_untouched_match_is_still_ok(duel: list[Line], tmp_path: Path) -> None:
    shown = runner.invoke(app, ["verify", str(_write(tmp_path, "ok", duel))])
    assert shown.exit_code == 0, shown.stdout
    assert shown.stdout.splitlines()[-1].split("; totals: ")[0].endswith(": 6 games ok")


# -- M2: record files are their owner's alone -----------------------------------------------------


def test_a_record_file_is_created_readable_by_its_owner_only(tmp_path: Path) -> None:
    old = os.umask(0)  # the widest umask: the mode must not depend on it
    try:
        with JsonlRecorder(tmp_path / "new.jsonl") as recorder:
            recorder.write({"type": "match"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o600


def test_an_existing_record_file_loses_other_readers_before_a_line_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("", encoding="utf-8")
    path.chmod(0o644)
    with JsonlRecorder(path) as recorder:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        recorder.write({"type": "match"})


def test_arena_match_writes_its_record_owner_only(tmp_path: Path) -> None:
    args = ["match", "liars-dice", "--a", "random-guess", "--b", "type5", "--games", "2"]
    result = runner.invoke(app, [*args, "--seed", "m2", "--record", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (record,) = tmp_path.glob("*.jsonl")
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


# -- L1: the match line is blamed for what was done to it ----------------------------------------


def _match_line_commitment(lines: list[Line], value: str) -> list[Line]:
    lines = copy.deepcopy(lines)
    lines[0]["seed_commitment"] = value
    return lines


@pytest.mark.parametrize("change", ["other digits", "upper case"])
def test_a_changed_match_line_commitment_is_blamed_on_line_1(
    duel: list[Line], change: str, tmp_path: Path
) -> None:
    real = duel[0]["seed_commitment"]
    value = "0" + real[1:] if change == "other digits" else real.upper()
    report = check_record(_write(tmp_path, "c", _match_line_commitment(duel, value)))
    assert all(check.ok for check in report.games)  # the games agree with the seed
    (match,) = report.matches
    (problem,) = match.problems
    assert problem.startswith("line 1: match seed_commitment ") and value in problem
    assert real in problem  # the commitment the seed and every header hold


def test_a_changed_header_commitment_is_still_blamed_on_that_header(
    duel: list[Line], tmp_path: Path
) -> None:
    lines = copy.deepcopy(duel)
    header = _index(lines, "header")[1]
    lines[header]["seed_commitment"] = "0" * 64
    (match,) = check_record(_write(tmp_path, "h", lines)).matches
    assert any(p.startswith(f"line {header + 1}: seed_commitment ") for p in match.problems)
    assert not any(p.startswith("line 1:") for p in match.problems), match.problems


def test_a_deleted_match_line_is_named_and_the_seed_is_still_published(
    duel: list[Line], tmp_path: Path
) -> None:
    report = check_record(_write(tmp_path, "headless", duel[1:]))
    problems = _problems(report)
    assert not any("never published" in p for p in problems), problems
    assert not any("unknown key 'match'" in p for p in problems), problems
    assert all(check.ok for check in report.games) and len(report.games) == 6
    (match,) = report.matches
    assert match.match == duel[0]["match"] and not match.ok
    (problem,) = match.problems
    assert problem.startswith("no match line before line 1: ")


# -- L2: exactly as the referee writes them ------------------------------------------------------


def _everywhere(lines: list[Line], key: str, change: Callable[[str], str]) -> list[Line]:
    lines = copy.deepcopy(lines)
    for line in lines:
        if key in line:
            line[key] = change(line[key])
    return lines


@pytest.mark.parametrize(
    ("key", "change"),
    [
        ("seed_commitment", str.upper),
        ("seed_commitment", lambda text: text + " "),
        ("seed", str.upper),
        ("seed", lambda text: f" {text}\n"),
    ],
    ids=["commitment upper", "commitment padded", "seed upper", "seed padded"],
)
def test_a_commitment_or_seed_not_as_the_referee_writes_it_fails(
    duel: list[Line], key: str, change: Callable[[str], str], tmp_path: Path
) -> None:
    report = check_record(_write(tmp_path, "n", _everywhere(duel, key, change)))
    assert not report.ok
    assert any("lowercase hex digits" in p for p in _problems(report)), _problems(report)


def test_verify_commitment_is_exact_and_check_reveal_forgiving() -> None:
    seed = MatchSeed.from_text("exact")
    with pytest.raises(DealingError, match="lowercase hex"):
        verify_commitment(commitment(seed).upper(), seed.hex())
    with pytest.raises(DealingError, match="lowercase hex"):
        verify_commitment(commitment(seed), seed.hex() + "\n")
    assert verify_commitment(commitment(seed), seed.hex()) == seed
    # A person comparing what they were shown: case and spaces do not matter.
    assert check_reveal(commitment(seed).upper(), f" {seed.hex()}\n")


# -- L3: one problem, one line --------------------------------------------------------------------


def test_every_verify_problem_is_one_line(mahjong: list[Line], tmp_path: Path) -> None:
    lines = copy.deepcopy(mahjong)
    deal = next(
        i
        for i, line in enumerate(lines)
        if line["type"] == "event" and line["payload"].get("kind") == "deal"
    )
    tiles = lines[deal]["payload"]["tiles"]
    lines[deal]["payload"]["tiles"] = tiles[::-1]
    path = _write(tmp_path, "tile", lines)
    (problem,) = [p for check in check_record(path).games for p in check.problems]
    assert len(problem) > 160  # longer than any console's default width
    for command in (["verify", str(path)], ["replay", str(path)]):
        shown = runner.invoke(app, command)
        assert any(problem in line for line in shown.stdout.splitlines()), shown.stdout


# -- L4: --json is one object, whatever happens ---------------------------------------------------


@pytest.mark.parametrize(
    "content", ["", '{"type":"header"', "\ufeffnot a record\n"], ids=["empty", "cut", "not JSON"]
)
def test_verify_json_of_an_unreadable_record_is_an_object_with_its_error(
    content: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["record"] == str(path) and data["error"]
    assert f"error: {data['error']}" in result.stderr


def test_verify_json_of_a_missing_record_is_an_object_too(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", "--json", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == f"no file {tmp_path / 'none.jsonl'}"


def test_verify_json_games_name_their_match(duel: list[Line], tmp_path: Path) -> None:
    second = MemoryRecorder()
    _duel("records-audit-2", 2, second)
    path = _write(tmp_path, "two", [*duel, *_lines(second)])
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 0, result.stdout
    games = json.loads(result.stdout)["games"]
    ids = [(game["match"], game["game"]) for game in games]
    assert len(set(ids)) == len(ids) == 8  # g0 and g1 twice, told apart by their match
    assert {game["match"] for game in games} == {duel[0]["match"], second.lines[0]["match"]}
    assert all(game["ok"] for game in games)


# -- L5: arena match --json names its seed and its record -----------------------------------------

MATCHES = {
    "liars-dice duel": (
        ["match", "liars-dice", "--a", "random-guess", "--b", "type5", "--games", "2"],
        "liars-dice-duel-",
    ),
    "liars-dice table": (
        ["match", "liars-dice", "--bots", "random-guess,type5,probability", "--games", "2"],
        "liars-dice-table-",
    ),
    "bulls-cows": (
        ["match", "bulls-cows", "--a", "frequency", "--b", "random", "--games", "2"],
        "bulls-cows-",
    ),
    "mahjong": (
        ["match", "mahjong", "--bots", "greedy,greedy,random,random", "--games", "1"],
        "mahjong-",
    ),
}


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_match_json_names_its_seed_and_record(name: str, tmp_path: Path) -> None:
    args, prefix = MATCHES[name]
    recorded = runner.invoke(app, [*args, "--json", "--record", str(tmp_path)])
    assert recorded.exit_code == 0, recorded.output
    (record,) = tmp_path.glob(f"{prefix}*.jsonl")
    data = json.loads(recorded.stdout)
    assert data["record"] == str(record.resolve())
    seed = data["seed"]  # a fresh seed, shown on stderr too
    assert f"seed: {seed}" in recorded.stderr
    assert json.loads(record.read_text().splitlines()[-1])["seed"] == seed
    unrecorded = runner.invoke(app, [*args, "--json", "--seed", "l5"])
    assert unrecorded.exit_code == 0, unrecorded.output
    assert json.loads(unrecorded.stdout)["record"] is None
    assert json.loads(unrecorded.stdout)["seed"] == "l5"


def test_a_mahjong_series_names_each_match_s_record(tmp_path: Path) -> None:
    args = ["match", "mahjong", "--bots", "greedy,greedy,random,random", "--games", "1"]
    result = runner.invoke(
        app, [*args, "--matches", "2", "--seed", "s", "--json", "--record", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    per_match = json.loads(result.stdout)["per_match"]
    assert sorted(match["record"] for match in per_match) == sorted(
        str(path.resolve()) for path in tmp_path.glob("*.jsonl")
    )


# -- L6: replay says where, and what --game leaves out ---------------------------------------------


def test_replay_shows_a_mismatch_where_it_happens(duel: list[Line], tmp_path: Path) -> None:
    path = _write(tmp_path, "die", _one_die_changed(duel, "g0"))
    shown = runner.invoke(app, ["replay", str(path)])
    assert shown.exit_code == 1
    out = shown.stdout.splitlines()
    mismatch = next(i for i, line in enumerate(out) if "mismatch:" in line)
    next_game = next(i for i, line in enumerate(out) if "liars_dice game g1 of match" in line)
    assert mismatch < next_game, shown.stdout


def test_replay_of_one_game_says_its_match_was_not_checked(
    duel: list[Line], tmp_path: Path
) -> None:
    real = duel[0]["seed_commitment"]
    path = _write(tmp_path, "c", _match_line_commitment(duel, "0" + real[1:]))
    assert runner.invoke(app, ["verify", str(path)]).exit_code == 1
    shown = runner.invoke(app, ["replay", str(path), "--game", "g1"])
    assert shown.exit_code == 0  # the game itself is intact
    last = shown.stdout.splitlines()[-1]
    assert "were not run" in last and f"arena verify {path}" in last


# -- L7: the liar's dice opener follows the match format's rule ----------------------------------


def _liars_dice_match(
    names: Sequence[str], seating: str, openers: Sequence[int], tmp_path: Path
) -> Path:
    """A framed liar's dice match played through the referee, game k opened by ``openers[k]``:
    every game consistent with its deal, only the opener schedule chosen here."""
    recorder = MemoryRecorder()
    seed = MatchSeed.from_text("openers")
    rules = LiarsDiceRules(players=len(names))

    async def play() -> None:
        seats = [
            InProcessSeat(make_ld_bot(strategy, {"seed": f"openers-{i}"}))
            for i, strategy in enumerate(names)
        ]
        frame = MatchFrame(
            "liars_dice",
            seed,
            seats,
            list(names),
            len(openers),
            recorder,
            seating,
            rules.to_mapping(),
        )
        await frame.start()
        for k, first in enumerate(openers):
            order = seat_order(seating, k, len(names))
            played = await play_seats(
                [seats[i] for i in order],
                [names[i] for i in order],
                seed,
                game_index=k,
                first=first,
                rules=rules,
                match_id=frame.match_id,
                recorder=recorder,
                reveal=False,
            )
            frame.tally([names[i] for i in order], played.result.scores)
        await frame.finish()

    asyncio.run(play())
    return _write(tmp_path, f"{seating}-{''.join(map(str, openers))}", _lines(recorder))


@pytest.mark.parametrize(
    ("names", "seating", "right", "wrong", "game"),
    [
        (("random-guess", "type5"), "alternate", [0, 0, 1, 1], [1, 0, 1, 1], 0),
        (("random-guess", "type5"), "alternate", [0, 0, 1, 1], [0, 0, 1, 0], 3),
        (("random-guess", "type5", "probability"), "permutations", [0, 0, 0], [0, 2, 0], 1),
    ],
    ids=["duel game 0", "duel game 3", "table game 1"],
)
def test_a_liars_dice_opener_against_the_format_s_rule_fails(
    names: Sequence[str],
    seating: str,
    right: list[int],
    wrong: list[int],
    game: int,
    tmp_path: Path,
) -> None:
    assert check_record(_liars_dice_match(names, seating, right, tmp_path)).ok
    report = check_record(_liars_dice_match(names, seating, wrong, tmp_path))
    assert all(check.ok for check in report.games)  # each game is right for its own deal
    (match,) = report.matches
    assert not match.ok
    assert any(
        f"game {game} of a liar's dice match seated by {seating!r} is opened by seat "
        f"{right[game]}" in p
        for p in match.problems
    ), match.problems
