"""Replay and verify a record: rebuild each game from its header, re-apply the decisions, and
check that the engine produces exactly the recorded events and result.

Because every deal comes from the revealed seed, a replay that matches proves the walls, dice and
secrets were the ones the seed commits to; the first difference is named by its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena.dealing import DEALING_VERSION, DealingError, MatchSeed, verify_commitment
from arena.dealing.commit import published_commitment
from arena.games.base import Game, GameResult, GameSpec
from arena.games.errors import GameError
from arena.games.registry import canonical_name, get_spec
from arena.matches.frame import match_id_for
from arena.records import (
    READABLE_RECORD_VERSIONS,
    RecordError,
    read_lines,
    split_matches,
)
from arena.replay_checks import (
    DECISION,
    FAILURE,
    FALLBACK,
    GAME_REVEAL,
    HEADER,
    LineProblem,
    check_shape,
    differences,
    same,
)
from arena.replay_match import MatchCheck, check_match, headless_match, unframed_matches
from protocol.games.common import GameEnd


@dataclass
class GameCheck:
    """The verdict on one game of a record."""

    game: str
    game_kind: str
    steps: int = 0
    problems: list[str] = field(default_factory=list)
    match: str = ""
    """The match id its header names (a record may hold several matches, each with a ``g0``)."""

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
    """Re-run one game's lines through its engine; collect the first mismatch.

    The seed comes from the game's own ``reveal`` line (record version 1, or a game played on
    its own) or from its match's (``match_reveal``, version 2). A game outside a match frame
    (``framed`` false) must not carry the id of the match its seed would make: a record whose
    frame was cut away could otherwise drop or reorder the match's games unnoticed (the other
    signs of a cut frame are `check_record`'s, across the record's games).
    """
    header = lines[0]
    check = _empty_check(header)
    try:
        seed, spec = _game_seed(lines, match_reveal, framed=framed)
        if on_step is not None:
            players = ", ".join(f"{seat}={name}" for seat, name in enumerate(header["players"]))
            on_step(
                Step(
                    header["_line"],
                    "header",
                    f"{check.game_kind} game {check.game} of match {header['match']}: "
                    f"{players}; deal {header['deal']}",
                )
            )
        _Replay(lines, spec, seed, check, on_step).run()
    except LineProblem as exc:
        check.problems.append(str(exc))
        _show_mismatch(on_step, str(exc), lines)
    return check


def _empty_check(header: Mapping[str, Any]) -> GameCheck:
    return GameCheck(
        game=str(header.get("game")),
        game_kind=str(header.get("game_kind")),
        match=str(header.get("match")),
    )


_LINE_NUMBER = re.compile(r"\bline (\d+)")


def _show_mismatch(
    on_step: Callable[[Step], None] | None, problem: str, lines: Sequence[Mapping[str, Any]]
) -> None:
    """A replay shows a mismatch where it happens, among the steps (as a ``mismatch`` step at
    the line it names, else at the game's last line), not only in the verdict at the end."""
    if on_step is None:
        return
    named = _LINE_NUMBER.search(problem)
    number = int(named.group(1)) if named else int(lines[-1].get("_line") or 0)
    on_step(Step(number, "mismatch", problem))


def _game_seed(
    lines: list[dict[str, Any]], match_reveal: dict[str, Any] | None, *, framed: bool
) -> tuple[MatchSeed, GameSpec]:
    """The game's seed, checked against its header's commitment, and its game's spec; a
    `LineProblem` when the header or the reveal is not what the referee writes."""
    header = lines[0]
    at = f"line {header['_line']}"
    check_shape(header, HEADER)
    if header["record_version"] not in READABLE_RECORD_VERSIONS:
        raise LineProblem(
            f"{at}: record version {header['record_version']!r}, this arena reads "
            f"{', '.join(map(str, READABLE_RECORD_VERSIONS))}"
        )
    if header["dealing_version"] != DEALING_VERSION:
        raise LineProblem(
            f"{at}: dealing version {header['dealing_version']!r}, this arena derives "
            f"{DEALING_VERSION!r}"
        )
    try:
        kind = canonical_name(header["game_kind"])
    except GameError as exc:
        raise LineProblem(f"{at}: {exc}") from None
    if kind != header["game_kind"]:
        raise LineProblem(f"{at}: game kind {header['game_kind']!r}; the referee writes {kind!r}")
    own = [line for line in lines if line["type"] == "reveal"]
    if framed and own:
        raise LineProblem(
            f"line {own[0]['_line']}: a game's own reveal inside a match frame (a match reveals "
            "its seed once, after its last game)"
        )
    reveal = own[0] if own else match_reveal
    if reveal is None:
        raise LineProblem("no reveal line: the seed was never published")
    # The rest of a match's reveal line is the match check's; its seed is every game's.
    seed_line: dict[str, Any] = {k: reveal[k] for k in ("type", "_line", "seed") if k in reveal}
    check_shape(seed_line if framed else reveal, GAME_REVEAL)
    try:
        published_commitment(header["seed_commitment"])
    except DealingError as exc:
        raise LineProblem(f"{at}: header seed_commitment: {exc}") from None
    try:
        seed = verify_commitment(header["seed_commitment"], reveal["seed"])
    except DealingError as exc:
        raise LineProblem(
            f"line {reveal['_line']}: {exc} (commitment in the header, {at})"
        ) from None
    # Only a match frame gives a game this id, but version 1 1A2B records (no frames) had it.
    if (
        not framed
        and header["match"] == match_id_for(kind, seed)
        and (header["record_version"], kind) != (1, "bulls_cows")
    ):
        raise LineProblem(
            f"{at}: game of match {header['match']} recorded without its match frame (match "
            "line and final reveal)"
        )
    return seed, get_spec(kind)


class _Replay:
    """One game's lines after its header, re-applied to the engine line by line; the first
    line that differs from what the referee would have written raises `LineProblem`."""

    def __init__(
        self,
        lines: list[dict[str, Any]],
        spec: GameSpec,
        seed: MatchSeed,
        check: GameCheck,
        on_step: Callable[[Step], None] | None,
    ) -> None:
        header = lines[0]
        self.lines = lines
        self.spec = spec
        self.check = check
        self.on_step = on_step
        try:
            self.game = spec.new_game(header["rules"], seed, header["deal"])
        except GameError as exc:
            raise LineProblem(f"line {header['_line']}: cannot rebuild the game: {exc}") from None
        seats = self.game.num_seats
        if len(header["players"]) != seats:
            raise LineProblem(
                f"line {header['_line']}: {len(header['players'])} players for a game of "
                f"{seats} seats"
            )
        self.pending: list[dict[str, Any]] = []
        self.fallbacks = [0] * seats
        self.failures = [0] * seats
        """Failed answers of each seat since its last decision."""
        self.last_seq = [0] * seats
        self.result: dict[str, Any] | None = None
        self.revealed = False

    def step(self, number: int, kind: str, text: str) -> None:
        if self.on_step is not None:
            self.on_step(Step(number, kind, text))

    def drain(self) -> None:
        for event in self.game.drain_events():
            self.pending.append(
                {
                    "type": "event",
                    "to": None if event.to is None else sorted(event.to),
                    "payload": event.payload.model_dump(mode="json"),
                }
            )

    def run(self) -> None:
        self.drain()
        for line in self.lines[1:]:
            kind = line["type"]
            number = line["_line"]
            if self.revealed:
                raise LineProblem(f"line {number}: {kind!r} line after the game's reveal")
            if self.result is not None and kind != "reveal":
                raise LineProblem(f"line {number}: {kind!r} line after the game's result")
            handler = {
                "event": self.event,
                "decision": self.decision,
                "failure": self.failure,
                "result": self.result_line,
                "reveal": self.reveal,
            }.get(kind)
            if handler is None:
                raise LineProblem(f"line {number}: unknown line type {kind!r}")
            handler(line)
        if self.result is None:
            state = "the game is over" if self.game.is_over() else "the game is not over"
            raise LineProblem(
                f"no result line after line {self.lines[-1]['_line']}: the record of this game "
                f"stops short ({state})"
            )

    def seat_of(self, line: Mapping[str, Any]) -> int:
        seat: int = line["seat"]
        if not 0 <= seat < self.game.num_seats:
            raise LineProblem(
                f"line {line['_line']}: seat {seat} is not a seat of this "
                f"{self.game.num_seats}-player game"
            )
        return seat

    def event(self, line: dict[str, Any]) -> None:
        number = line["_line"]
        if not self.pending:
            raise LineProblem(f"line {number}: event the engine did not produce")
        wanted = self.pending.pop(0)
        found = differences(_strip(line), wanted)
        if found:
            raise LineProblem(
                f"line {number}: recorded event differs from the replay: {'; '.join(found)} "
                f"(replay: {wanted['payload']})"
            )
        audience = (
            "all"
            if line["to"] is None
            else ("seat " if len(line["to"]) == 1 else "seats ")
            + ",".join(str(seat) for seat in line["to"])
        )
        shown = _describe(line["payload"], self.spec.render_event)
        self.step(number, "event", f"[{audience}] {shown}")

    def decision(self, line: dict[str, Any]) -> None:
        number = line["_line"]
        if self.pending:
            raise LineProblem(
                f"line {number}: decision before the recorded event "
                f"{self.pending[0]['payload']} (missing from the record)"
            )
        check_shape(line, DECISION, FALLBACK)
        seat = self.seat_of(line)
        game = self.game
        try:
            action = game.parse_action(line["action"])
        except GameError as exc:
            raise LineProblem(f"line {number}: seat {seat} {line['action']!r}: {exc}") from None
        if str(action) != line["action"]:
            raise LineProblem(
                f"line {number}: action {line['action']!r}; the referee writes it {str(action)!r}"
            )
        problem = _fallback_problem(game, seat, line, self.failures[seat])
        if problem is not None:
            raise LineProblem(f"line {number}: {problem}")
        try:
            game.apply(seat, action)
        except GameError as exc:
            raise LineProblem(f"line {number}: seat {seat} {line['action']!r}: {exc}") from None
        self.check.steps += 1
        self.fallbacks[seat] += bool(line.get("fallback"))
        self.failures[seat] = 0
        self.drain()
        tag = " (fallback)" if line.get("fallback") else ""
        self.step(number, "decision", f"seat {seat}: {line['action']}{tag}")

    def failure(self, line: dict[str, Any]) -> None:
        # A failure comes from the bot (late, malformed, illegal), so the replay cannot make it;
        # it can check that the line is one the referee writes, for a seat asked at that point,
        # at most twice before that seat's decision (one re-ask), with request numbers that
        # only grow (the referee numbers each seat's requests 1, 2, 3, …).
        number = line["_line"]
        check_shape(line, FAILURE)
        seat = self.seat_of(line)
        if self.game.is_over() or seat not in self.game.to_act():
            raise LineProblem(f"line {number}: a failure of seat {seat}, not asked now")
        if line["seq"] <= self.last_seq[seat]:
            raise LineProblem(
                f"line {number}: seat {seat}'s request number {line['seq']} after its "
                f"{self.last_seq[seat]} (the referee's numbers only grow)"
            )
        self.last_seq[seat] = line["seq"]
        self.failures[seat] += 1
        if self.failures[seat] > 2:
            raise LineProblem(
                f"line {number}: seat {seat}'s failure {self.failures[seat]} before its decision "
                "(the referee asks at most twice)"
            )
        self.step(number, "failure", f"seat {seat}: {line['code']}: {line['text']}")

    def result_line(self, line: dict[str, Any]) -> None:
        number = line["_line"]
        if self.pending:
            raise LineProblem(f"line {number}: result while events are missing")
        if not self.game.is_over():
            raise LineProblem(f"line {number}: result recorded but the game is not over")
        waiting = [seat for seat, count in enumerate(self.failures) if count]
        if waiting:
            raise LineProblem(
                f"line {number}: result after a failure of seat {waiting[0]} with no decision "
                "after it"
            )
        self.result = line
        found = _result_problems(line, self.game.result(), self.fallbacks)
        self.check.problems.extend(found)
        self.step(number, "result", f"scores {line.get('scores')} ({line.get('reason')})")
        for problem in found:
            _show_mismatch(self.on_step, problem, self.lines)

    def reveal(self, line: dict[str, Any]) -> None:
        if self.result is None:
            raise LineProblem(f"line {line['_line']}: the seed revealed before the game's result")
        self.revealed = True
        self.step(line["_line"], "reveal", f"seed {line['seed']}")


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
    """Every key of a recorded result that differs from the line the referee writes (types
    included: a score is a number with a decimal point, a penalty a whole number). The
    penalties are the fallback decisions of each seat."""
    number = line["_line"]
    expected: dict[str, Any] = {
        **GameEnd(
            scores=list(result.scores),
            winners=list(result.winners),
            reason=result.reason,
            detail=dict(result.detail),
        ).model_dump(mode="json"),
        "penalties": list(fallbacks),
    }
    problems = [
        f"line {number}: recorded {key} {line.get(key)!r} != replay {value!r}"
        for key, value in expected.items()
        if not same(line.get(key), value)
    ]
    problems += [
        f"line {number}: unknown key {key!r} in a result line"
        for key in line
        if key not in expected and key not in ("type", "_line")
    ]
    return problems


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
class RecordCheck:
    """Every match and game of a record."""

    matches: list[MatchCheck]
    games: list[GameCheck]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.matches) and all(c.ok for c in self.games)


def check_record(
    path: Path,
    on_step: Callable[[Step], None] | None = None,
    game: str | None = None,
    name: str | None = None,
) -> RecordCheck:
    """Check every match and game of a record (or only the game with id ``game``, without the
    checks of its match as a whole). Each match's verdict names its games that failed their
    own checks (`MatchCheck.failed_games`). Errors name the record ``name``, else its path."""
    shown = name or str(path)
    lines = read_lines(path, shown)
    if not lines:
        raise RecordError(f"{shown}: empty record")
    report = RecordCheck([], [])
    seen: dict[tuple[str, str], int] = {}
    game_ids: dict[str, None] = {}  # the ids passed over, in order, for the error below
    try:
        blocks = split_matches(lines)
    except RecordError as exc:
        raise RecordError(f"{shown}: {exc}") from None
    for block in blocks:
        checks: list[GameCheck] = []
        for game_lines in block.games:
            header = game_lines[0]
            key = (str(header.get("match")), str(header.get("game")))
            if game is not None and key[1] != game:
                game_ids.setdefault(key[1])
                continue
            check = _guarded(
                partial(replay_game, game_lines, on_step, block.reveal, framed=block.framed),
                _empty_check(header),
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
        if game is None and block.framed:
            if block.match is not None:
                match = block.match
                verdict = _guarded(
                    partial(check_match, block),
                    MatchCheck(str(match.get("match")), str(match.get("game_kind")), 0),
                    match,
                )
            else:
                verdict = headless_match(block)
            verdict.failed_games = [check.game for check in checks if not check.ok]
            report.matches.append(verdict)
    if game is None:
        report.matches.extend(unframed_matches(blocks))
    if not report.games and game is not None:
        ids = list(game_ids)
        shown_ids = ", ".join(ids[:12]) + (f", … ({len(ids)} in all)" if len(ids) > 12 else "")
        listed = shown_ids or "none"
        raise RecordError(f"{shown}: no game with id {game!r}; its games: {listed}")
    if not report.games and not report.matches:
        raise RecordError(f"{shown}: no game in the record")
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


def verify_record(
    path: Path, on_step: Callable[[Step], None] | None = None, game: str | None = None
) -> list[GameCheck]:
    """Check every game of a record (or only the game with id ``game``); `check_record` also
    checks each match as a whole."""
    return check_record(path, on_step, game).games
