"""The checks of a match as a whole: its games are the ones it announced, in order, seated by
its seating rule, dealing the next deal, and its revealed totals add up; and games recorded
without the frame of the match they belong to are named (each game's own replay is
`arena.replay`'s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.dealing import DealingError, verify_commitment
from arena.records import RECORD_VERSION, MatchLines
from arena.referee import match_id_for, seat_order
from arena.replay_checks import (
    HEADER,
    MATCH,
    MATCH_REVEAL,
    Field,
    LineProblem,
    check_shape,
    same,
    unframed_games,
)


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


def unframed_matches(blocks: Sequence[MatchLines]) -> list[MatchCheck]:
    """A verdict for each match whose games are recorded without its frame: its games may each
    replay, but which games it held cannot be checked, so the record as a whole is not ok."""
    matches: dict[tuple[str, str], MatchCheck] = {}
    for unframed in unframed_games(blocks):
        key = (unframed.kind, unframed.match)
        check = matches.setdefault(key, MatchCheck(unframed.match, unframed.kind, 0))
        check.games += 1
        check.problems.append(unframed.problem)
    return list(matches.values())


def check_match(block: MatchLines) -> MatchCheck:
    """The match-level checks; each game's own replay is `replay_game`'s."""
    match = block.match or {}
    number = match.get("_line")
    players = [str(name) for name in match.get("players", [])]
    kind = str(match.get("game_kind"))
    check = MatchCheck(str(match.get("match")), kind, len(block.games))
    problems = check.problems
    try:
        # A games count that is no count gets its own message below.
        check_shape(match, {**MATCH, "games": Field(lambda _: True, "")})
        if block.reveal is not None:
            check_shape(block.reveal, MATCH_REVEAL)
    except LineProblem as exc:
        problems.append(str(exc))
        return check
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
        try:
            check_shape(header, HEADER)
        except LineProblem:
            problems.append(
                f"{at}: game {index} of the match has a malformed header (see the game)"
            )
            continue
        for key in ("match", "game_kind", "seed_commitment"):
            if not same(header.get(key), match.get(key)):
                problems.append(f"{at}: {key} {header.get(key)!r} is not the match's")
        if not same(header.get("rules"), match.get("rules")):
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
        scores = None if result is None else result.get("scores")
        if isinstance(scores, list) and all(type(score) is float for score in scores):
            for name, score in zip(seated, scores, strict=False):
                totals[name] += score
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
