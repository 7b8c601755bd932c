"""Replay and verify a record: rebuild each game from its header, re-apply the decisions, and
check that the engine produces exactly the recorded events and result.

Because every deal comes from the revealed seed, a replay that matches proves the walls, dice and
secrets were the ones the seed commits to; the first difference is named by its line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.dealing import DEALING_VERSION, DealingError, verify_commitment
from arena.games.errors import GameError
from arena.games.registry import get_spec
from arena.records import RECORD_VERSION, RecordError, read_lines, split_games


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
    lines: list[dict[str, Any]], on_step: Callable[[Step], None] | None = None
) -> GameCheck:
    """Re-run one game's lines through its engine; collect every mismatch."""
    header = lines[0]
    check = GameCheck(game=str(header.get("game")), game_kind=str(header.get("game_kind")))
    if header.get("record_version") != RECORD_VERSION:
        check.problems.append(
            f"line {header['_line']}: record version {header.get('record_version')}"
        )
        return check
    if header.get("dealing_version") != DEALING_VERSION:
        check.problems.append(
            f"line {header['_line']}: dealing version {header.get('dealing_version')!r}, "
            f"this arena derives {DEALING_VERSION!r}"
        )
        return check
    reveal = next((line for line in lines if line["type"] == "reveal"), None)
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
    for line in lines[1:]:
        kind = line["type"]
        number = line["_line"]
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
            try:
                game.apply(seat, game.parse_action(str(line["action"])))
            except GameError as exc:
                check.problems.append(f"line {number}: seat {seat} {line['action']!r}: {exc}")
                break
            check.steps += 1
            pending.extend(expected_events())
            if on_step is not None:
                tag = " (fallback)" if line.get("fallback") else ""
                on_step(Step(number, "decision", f"seat {seat}: {line['action']}{tag}"))
        elif kind == "failure":
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
            result = game.result()
            if [float(s) for s in line["scores"]] != [float(s) for s in result.scores]:
                check.problems.append(
                    f"line {number}: recorded scores {line['scores']} "
                    f"!= replay {list(result.scores)}"
                )
            if on_step is not None:
                on_step(Step(number, "result", f"scores {line['scores']} ({line['reason']})"))
        elif kind == "reveal":
            if on_step is not None:
                on_step(Step(number, "reveal", f"seed {line['seed']}"))
        else:
            check.problems.append(f"line {number}: unknown line type {kind!r}")
    return check


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


def verify_record(
    path: Path, on_step: Callable[[Step], None] | None = None, game: str | None = None
) -> list[GameCheck]:
    """Check every game of a record (or only the game with id ``game``)."""
    lines = read_lines(path)
    if not lines:
        raise RecordError(f"{path}: empty record")
    games = [g for g in split_games(lines) if game is None or str(g[0].get("game")) == game]
    if not games:
        raise RecordError(f"{path}: no game with id {game!r}")
    return [replay_game(game_lines, on_step) for game_lines in games]
