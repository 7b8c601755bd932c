"""Replay and verify a record: rebuild each game from its header, re-apply the decisions, and
check that the engine produces exactly the recorded events and result.

Because every deal comes from the revealed seed, a replay that matches proves the walls, dice and
secrets were the ones the seed commits to; the first difference is named by its line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena.dealing import DEALING_VERSION, DealingError, verify_commitment
from arena.games.base import Game, GameResult
from arena.games.errors import GameError
from arena.games.registry import get_spec
from arena.records import (
    READABLE_RECORD_VERSIONS,
    RECORD_VERSION,
    MatchLines,
    RecordError,
    read_lines,
    split_matches,
)
from arena.referee import match_id_for, seat_order
from protocol.games.common import GameEnd


@dataclass
class GameCheck:
    """The verdict on one game of a record."""

    game: str
    game_kind: str
    steps: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a replay, for printing: what happened and who could see it."""

    line: int
    kind: str
    text: str


def _strip(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k != "_line"}


def replay_game(
    lines: list[dict[str, Any]],
    on_step: Callable[[Step], None] | None = None,
    match_reveal: dict[str, Any] | None = None,
    *,
    framed: bool = False,
) -> GameCheck:
    """Re-run one game's lines through its engine; collect every mismatch.

    The seed comes from the game's own ``reveal`` line (record version 1, or a game played on
    its own) or from its match's (``match_reveal``, version 2). A game outside a match frame
    (``framed`` false) must not carry the id of the match its seed would make: a record whose
    frame was cut away could otherwise drop or reorder the match's games unnoticed.
    """
    header = lines[0]
    check = GameCheck(game=str(header.get("game")), game_kind=str(header.get("game_kind")))
    if header.get("record_version") not in READABLE_RECORD_VERSIONS:
        check.problems.append(
            f"line {header['_line']}: record version {header.get('record_version')!r}, "
            f"this arena reads {', '.join(map(str, READABLE_RECORD_VERSIONS))}"
        )
        return check
    if header.get("dealing_version") != DEALING_VERSION:
        check.problems.append(
            f"line {header['_line']}: dealing version {header.get('dealing_version')!r}, "
            f"this arena derives {DEALING_VERSION!r}"
        )
        return check
    reveal = next((line for line in lines if line["type"] == "reveal"), match_reveal)
    if reveal is None:
        check.problems.append("no reveal line: the seed was never published")
        return check
    try:
        seed = verify_commitment(str(header.get("seed_commitment")), str(reveal["seed"]))
    except DealingError as exc:
        check.problems.append(
            f"line {reveal['_line']}: {exc} (commitment in the header, line {header['_line']})"
        )
        return check
    # Version 1 had no frames (and 1A2B ids of this form already), so the check starts at 2.
    if (
        not framed
        and header.get("record_version") != 1
        and header.get("match") == match_id_for(check.game_kind, seed)
    ):
        check.problems.append(
            f"line {header['_line']}: game of match {header.get('match')} recorded without its "
            "match frame (match line and final reveal)"
        )
    spec = get_spec(check.game_kind)
    if on_step is not None:
        players = ", ".join(f"{seat}={name}" for seat, name in enumerate(header.get("players", [])))
        on_step(
            Step(
                header["_line"],
                "header",
                f"{check.game_kind} game {check.game} of match {header.get('match')}: {players}; "
                f"deal {header.get('deal')}",
            )
        )
    try:
        game = spec.new_game(header.get("rules", {}), seed, header.get("deal", {}))
    except GameError as exc:
        check.problems.append(f"line {header['_line']}: cannot rebuild the game: {exc}")
        return check
    pending: list[dict[str, Any]] = []

    def expected_events() -> Iterator[dict[str, Any]]:
        for event in game.drain_events():
            yield {
                "type": "event",
                "to": None if event.to is None else sorted(event.to),
                "payload": event.payload.model_dump(mode="json"),
            }

    pending.extend(expected_events())
    result_line: dict[str, Any] | None = None
    fallbacks = [0] * game.num_seats
    failures = [0] * game.num_seats
    """Failed answers of each seat since its last decision."""
    for line in lines[1:]:
        kind = line["type"]
        number = line["_line"]
        if result_line is not None and kind != "reveal":
            check.problems.append(f"line {number}: {kind!r} line after the game's result")
            break
        if kind == "event":
            if not pending:
                check.problems.append(f"line {number}: event the engine did not produce")
                break
            wanted = pending.pop(0)
            if wanted != _strip(line):
                check.problems.append(
                    f"line {number}: recorded event differs from the replay: "
                    f"recorded {_strip(line)['payload']}, replay {wanted['payload']}"
                )
                break
            if on_step is not None:
                audience = (
                    "all"
                    if line["to"] is None
                    else ("seat " if len(line["to"]) == 1 else "seats ")
                    + ",".join(str(seat) for seat in line["to"])
                )
                shown = _describe(line["payload"], spec.render_event)
                on_step(Step(number, "event", f"[{audience}] {shown}"))
        elif kind == "decision":
            if pending:
                check.problems.append(
                    f"line {number}: decision before the recorded event "
                    f"{pending[0]['payload']} (missing from the record)"
                )
                break
            seat = int(line["seat"])
            problem = _fallback_problem(game, seat, line, failures[seat])
            if problem is not None:
                check.problems.append(f"line {number}: {problem}")
                break
            try:
                game.apply(seat, game.parse_action(str(line["action"])))
            except GameError as exc:
                check.problems.append(f"line {number}: seat {seat} {line['action']!r}: {exc}")
                break
            check.steps += 1
            fallbacks[seat] += bool(line.get("fallback"))
            failures[seat] = 0
            pending.extend(expected_events())
            if on_step is not None:
                tag = " (fallback)" if line.get("fallback") else ""
                on_step(Step(number, "decision", f"seat {seat}: {line['action']}{tag}"))
        elif kind == "failure":
            seat = int(line["seat"])
            if game.is_over() or seat not in game.to_act():
                check.problems.append(f"line {number}: a failure of seat {seat}, not asked now")
                break
            failures[seat] += 1
            if on_step is not None:
                on_step(
                    Step(number, "failure", f"seat {line['seat']}: {line['code']}: {line['text']}")
                )
        elif kind == "result":
            if pending:
                check.problems.append(f"line {number}: result while events are missing")
                break
            if not game.is_over():
                check.problems.append(f"line {number}: result recorded but the game is not over")
                break
            result_line = line
            check.problems.extend(_result_problems(line, game.result(), fallbacks))
            if on_step is not None:
                on_step(Step(number, "result", f"scores {line['scores']} ({line['reason']})"))
        elif kind == "reveal":
            if on_step is not None:
                on_step(Step(number, "reveal", f"seed {line['seed']}"))
        else:
            check.problems.append(f"line {number}: unknown line type {kind!r}")
            break
    if result_line is None and not check.problems:
        state = "the game is over" if game.is_over() else "the game is not over"
        check.problems.append(
            f"no result line after line {lines[-1]['_line']}: the record of this game stops "
            f"short ({state})"
        )
    return check


def _fallback_problem(
    game: Game[Any], seat: int, line: Mapping[str, Any], failures: int
) -> str | None:
    """A decision marked as the referee's fallback must be the engine's fallback action after
    at least one failed answer; a bot's own decision follows at most one (the one re-ask)."""
    if line.get("fallback"):
        fallback = str(game.fallback_action(seat))
        if str(line["action"]) != fallback:
            return (
                f"seat {seat}: fallback {line['action']!r}, the engine's fallback is {fallback!r}"
            )
        if failures == 0:
            return f"seat {seat}: a fallback with no failed answer before it"
    elif failures > 1:
        return f"seat {seat}: its own decision after {failures} failed answers (one re-ask)"
    return None


def _result_problems(
    line: Mapping[str, Any], result: GameResult, fallbacks: Sequence[int]
) -> list[str]:
    """Every field of a recorded result the replay does not reproduce. The penalties are the
    fallback decisions of each seat."""
    number = line["_line"]
    expected: dict[str, Any] = {
        "scores": [float(score) for score in result.scores],
        "winners": list(result.winners),
        "reason": result.reason,
        "detail": GameEnd(
            scores=list(result.scores),
            winners=list(result.winners),
            reason=result.reason,
            detail=dict(result.detail),
        ).model_dump(mode="json")["detail"],
        "penalties": list(fallbacks),
    }
    recorded = dict(line)
    if isinstance(recorded.get("scores"), list):
        with contextlib.suppress(TypeError, ValueError):
            recorded["scores"] = [float(score) for score in recorded["scores"]]
    return [
        f"line {number}: recorded {key} {line.get(key)!r} != replay {value!r}"
        for key, value in expected.items()
        if recorded.get(key) != value
    ]


def _describe(
    payload: dict[str, Any], render: Callable[[Mapping[str, Any]], str | None] | None
) -> str:
    if render is not None:
        shown = render(payload)
        if shown is not None:
            return shown
    kind = payload.get("kind", "?")
    fields = ", ".join(f"{k}={v}" for k, v in payload.items() if k not in ("game", "kind"))
    return f"{kind} {fields}".strip()


@dataclass
class MatchCheck:
    """The verdict on a match as a whole: its games are the ones it announced, in order, by its
    players, and the totals it revealed add up."""

    match: str
    game_kind: str
    games: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class RecordCheck:
    """Every match and game of a record."""

    matches: list[MatchCheck]
    games: list[GameCheck]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.matches) and all(c.ok for c in self.games)


def check_record(
    path: Path, on_step: Callable[[Step], None] | None = None, game: str | None = None
) -> RecordCheck:
    """Check every match and game of a record (or only the game with id ``game``, without the
    checks of its match as a whole)."""
    lines = read_lines(path)
    if not lines:
        raise RecordError(f"{path}: empty record")
    report = RecordCheck([], [])
    seen: dict[tuple[str, str], int] = {}
    game_ids: dict[str, None] = {}  # the ids passed over, in order, for the error below
    for block in split_matches(lines):
        checks: list[GameCheck] = []
        for game_lines in block.games:
            header = game_lines[0]
            key = (str(header.get("match")), str(header.get("game")))
            if game is not None and key[1] != game:
                game_ids.setdefault(key[1])
                continue
            check = _guarded(
                partial(
                    replay_game, game_lines, on_step, block.reveal, framed=block.match is not None
                ),
                GameCheck(str(header.get("game")), str(header.get("game_kind"))),
                header,
            )
            if key in seen:
                check.problems.append(
                    f"line {header['_line']}: game {key[1]} of match {key[0]} was already "
                    f"recorded at line {seen[key]}"
                )
            seen.setdefault(key, header["_line"])
            checks.append(check)
        report.games.extend(checks)
        if game is None and block.match is not None:
            match = block.match
            report.matches.append(
                _guarded(
                    partial(_check_match, block),
                    MatchCheck(str(match.get("match")), str(match.get("game_kind")), 0),
                    match,
                )
            )
    if not report.games and game is not None:
        ids = list(game_ids)
        shown = ", ".join(ids[:12]) + (f", … ({len(ids)} in all)" if len(ids) > 12 else "")
        raise RecordError(f"{path}: no game with id {game!r}; its games: {shown or 'none'}")
    if not report.games and not report.matches:
        raise RecordError(f"{path}: no game in the record")
    return report


_Check = TypeVar("_Check", GameCheck, MatchCheck)


def _guarded(check: Callable[[], _Check], empty: _Check, line: Mapping[str, Any]) -> _Check:
    """Run a check; a record too malformed to check (a missing key, a value of the wrong type)
    is a problem of the record, reported, not a crash of `arena verify`."""
    try:
        return check()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        empty.problems.append(
            f"line {line.get('_line')} onwards: malformed record ({type(exc).__name__}: {exc})"
        )
        return empty


def _check_match(block: MatchLines) -> MatchCheck:
    """The match-level checks; each game's own replay is `replay_game`'s."""
    match = block.match or {}
    number = match.get("_line")
    players = [str(name) for name in match.get("players", [])]
    kind = str(match.get("game_kind"))
    check = MatchCheck(str(match.get("match")), kind, len(block.games))
    problems = check.problems
    if match.get("record_version") != RECORD_VERSION:
        problems.append(f"line {number}: match record version {match.get('record_version')!r}")
        return check
    announced = match.get("games")
    if isinstance(announced, bool) or not isinstance(announced, int) or announced < 0:
        problems.append(f"line {number}: the match's games {announced!r} is not a count")
    if not players or len(set(players)) != len(players):
        problems.append(f"line {number}: the match's players {players} are not distinct names")
        return check
    seating = str(match.get("seating"))
    try:
        seat_order(seating, 0, len(players))
    except ValueError as exc:
        problems.append(f"line {number}: {exc}")
        return check
    problems.extend(_reveal_problems(match, block.reveal))
    finished = sum(any(line["type"] == "result" for line in game) for game in block.games)
    if block.reveal is None:
        problems.append(
            f"no reveal line after the match's {len(block.games)} games: the match has not "
            "ended or its record was cut short"
        )
    elif block.reveal.get("games") != finished:
        problems.append(
            f"line {block.reveal['_line']}: the reveal counts {block.reveal.get('games')!r} "
            f"games played, the record finishes {finished}"
        )
    if isinstance(announced, int) and (len(block.games), finished) != (announced, announced):
        problems.append(
            f"the match announced {announced} games, the record holds {len(block.games)} "
            f"({finished} finished)"
        )
    totals = dict.fromkeys(players, 0.0)
    for index, game_lines in enumerate(block.games):
        header = game_lines[0]
        at = f"line {header['_line']}"
        for key in ("match", "game_kind", "seed_commitment"):
            if header.get(key) != match.get(key):
                problems.append(f"{at}: {key} {header.get(key)!r} is not the match's")
        if header.get("rules") != match.get("rules"):
            problems.append(f"{at}: rules {header.get('rules')!r} are not the match's")
        if header.get("record_version") is not match.get("record_version"):
            problems.append(f"{at}: record version {header.get('record_version')!r} in a match")
        wanted_id = f"r{index // 4}h{index % 4}" if kind == "mahjong" else f"g{index}"
        if header.get("game") != wanted_id:
            problems.append(f"{at}: game {index} of the match has id {header.get('game')!r}")
        seated = [str(name) for name in header.get("players", [])]
        expected_seats = [players[i] for i in seat_order(seating, index, len(players))]
        if seated != expected_seats:
            problems.append(
                f"{at}: players {seated}; game {index} of a match seated by {seating!r} seats "
                f"{expected_seats}"
            )
            continue
        problems.extend(_deal_problems(kind, index, header, seated, totals))
        result = next((line for line in game_lines if line["type"] == "result"), None)
        if result is not None:
            for name, score in zip(seated, result.get("scores", []), strict=False):
                totals[name] += float(score)
    if block.reveal is not None and not problems:
        revealed = block.reveal.get("totals")
        expected = [totals[name] for name in players]
        if (
            not isinstance(revealed, list)
            or len(revealed) != len(expected)
            or any(abs(float(r) - e) > 1e-9 for r, e in zip(revealed, expected, strict=False))
        ):
            problems.append(
                f"line {block.reveal['_line']}: revealed totals {revealed!r} != the games' "
                f"{expected}"
            )
    return check


def _reveal_problems(match: Mapping[str, Any], reveal: Mapping[str, Any] | None) -> list[str]:
    """The reveal closes this match (its id), and the match id is the one its seed makes."""
    if reveal is None:
        return []
    problems = []
    if reveal.get("match") != match.get("match"):
        problems.append(
            f"line {reveal.get('_line')}: the reveal closes match {reveal.get('match')!r}, "
            f"not {match.get('match')!r}"
        )
    try:
        seed = verify_commitment(str(match.get("seed_commitment")), str(reveal.get("seed")))
    except DealingError as exc:
        # Each game reports it too; the match's own verdict must not read "ok" beside them.
        problems.append(f"line {reveal.get('_line')}: {exc}")
        return problems
    wanted = match_id_for(str(match.get("game_kind")), seed)
    if match.get("match") != wanted:
        problems.append(
            f"line {match.get('_line')}: match id {match.get('match')!r}; its seed makes {wanted!r}"
        )
    return problems


def _deal_problems(
    kind: str,
    index: int,
    header: Mapping[str, Any],
    seated: Sequence[str],
    totals: Mapping[str, float],
) -> list[str]:
    """Game ``index`` of a match must deal the ``index``-th deal; a mahjong hand starts from the
    running scores of its players."""
    deal = header.get("deal") or {}
    at = f"line {header['_line']}"
    if kind == "mahjong":
        round_index, hand = divmod(index, 4)
        problems = []
        if (deal.get("round"), deal.get("hand")) != (round_index, hand):
            problems.append(
                f"{at}: game {index} of the match deals round {deal.get('round')!r} hand "
                f"{deal.get('hand')!r}, not round {round_index} hand {hand}"
            )
        running = [int(totals[name]) for name in seated]
        if deal.get("scores") != running:
            problems.append(
                f"{at}: starts from scores {deal.get('scores')!r}, the match's games give {running}"
            )
        return problems
    if deal.get("game_index") != index:
        return [f"{at}: game {index} of the match deals game_index {deal.get('game_index')!r}"]
    return []


def verify_record(
    path: Path, on_step: Callable[[Step], None] | None = None, game: str | None = None
) -> list[GameCheck]:
    """Check every game of a record (or only the game with id ``game``); `check_record` also
    checks each match as a whole."""
    return check_record(path, on_step, game).games
