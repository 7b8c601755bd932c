"""The checks of a match as a whole: its games are the ones it announced, in order, seated by
its seating rule, dealing the next deal, and its revealed totals add up; and games recorded
without the frame of the match they belong to are named (each game's own replay is
`arena.replay`'s).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.dealing import DealingError, MatchSeed, verify_commitment
from arena.dealing.commit import published_commitment, revealed_seed
from arena.matches.frame import match_id_for
from arena.matches.seating import seat_order
from arena.records import RECORD_VERSION, MatchLines
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
    """What is wrong with the match as a whole (its frame, order, seating, totals)."""
    failed_games: list[str] = field(default_factory=list)
    """The ids of its games that failed their own checks (`arena.replay.GameCheck`): a match
    with a forged game is no match "ok", whatever its frame says."""
    totals: dict[str, float] = field(default_factory=dict)
    """Each player's score summed over the games the record finishes (its match line's order),
    what a match cut short still shows; empty when the match's players could not be read."""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.failed_games


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


def headless_match(block: MatchLines) -> MatchCheck:
    """The verdict on a match whose ``match`` line is missing (`MatchLines.headless`): its games
    replay from the seed its reveal publishes, but what the match announced (its players,
    games, seating and rules) cannot be checked; the missing line is the problem named."""
    reveal = block.reveal or {}
    first = block.games[0][0]
    check = MatchCheck(str(reveal.get("match")), str(first.get("game_kind")), len(block.games))
    check.problems.append(
        f"no match line before line {first.get('_line')}: the {len(block.games)} games of match "
        f"{reveal.get('match')!r} and its reveal (line {reveal.get('_line')}) come without the "
        "match line that opens a match (deleted, or the record cut at its start), so what the "
        "match announced — players, games, seating, rules, commitment — cannot be checked"
    )
    return check


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
    commitment, found = _commitment_problems(match, block.reveal, block.games)
    problems.extend(found)
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
    totals = check.totals = dict.fromkeys(players, 0.0)
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
        for key in ("match", "game_kind"):
            if not same(header.get(key), match.get(key)):
                problems.append(f"{at}: {key} {header.get(key)!r} is not the match's")
        if not same(header.get("seed_commitment"), commitment):
            problems.append(
                f"{at}: seed_commitment {header.get('seed_commitment')!r} is not the match's "
                f"{commitment!r}"
            )
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
        problems.extend(_deal_problems(kind, seating, index, header, seated, totals))
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


def _commitment_problems(
    match: Mapping[str, Any],
    reveal: Mapping[str, Any] | None,
    games: Sequence[Sequence[Mapping[str, Any]]],
) -> tuple[str, list[str]]:
    """The commitment the match's games must carry, and what is wrong with the match line's
    commitment, its id, or its reveal.

    The match line, every game's header and the revealed seed all witness one commitment. When
    the match line alone disagrees — every header holds one same commitment, which the
    revealed seed (if any) hashes to — the match line is the line that was changed, and it is
    the one named (not each header, nor the reveal). Otherwise the match line's commitment is
    the reference: a reveal that does not hash to it is named, and each header that differs."""
    number = match.get("_line")
    published = str(match.get("seed_commitment"))  # a string: the match line's shape is checked
    seed: MatchSeed | None = None
    seed_text = None if reveal is None else reveal.get("seed")
    if isinstance(seed_text, str):
        with contextlib.suppress(DealingError):
            seed = revealed_seed(seed_text)
    derived = None if seed is None else seed.commitment()
    held = [game[0].get("seed_commitment") for game in games if game]
    unanimous = held[0] if held and all(same(h, held[0]) for h in held) else None
    problems: list[str] = []
    if reveal is not None and reveal.get("match") != match.get("match"):
        problems.append(
            f"line {reveal.get('_line')}: the reveal closes match {reveal.get('match')!r}, "
            f"not {match.get('match')!r}"
        )
    if (
        isinstance(unanimous, str)
        and not same(published, unanimous)
        and (reveal is None or derived == unanimous)
    ):
        witnesses = (
            f"the seed revealed at line {reveal.get('_line')} hashes to it and every game's "
            "header holds it"
            if reveal is not None
            else "every game's header holds it"
        )
        problems.append(
            f"line {number}: match seed_commitment {published!r} is not the commitment the "
            f"games were dealt under, {unanimous}: {witnesses}"
        )
        return unanimous, problems + _id_problems(match, seed)
    try:
        published_commitment(published)
    except DealingError as exc:
        problems.append(f"line {number}: match seed_commitment: {exc}")
        return published, problems
    if reveal is not None:
        try:
            verify_commitment(published, str(reveal.get("seed")))
        except DealingError as exc:
            # Each game reports it too; the match's own verdict must not read "ok" beside them.
            problems.append(f"line {reveal.get('_line')}: {exc}")
            return published, problems
    return published, problems + _id_problems(match, seed)


def _id_problems(match: Mapping[str, Any], seed: MatchSeed | None) -> list[str]:
    """The match id must be the one its (revealed, checked) seed makes."""
    if seed is None:
        return []
    wanted = match_id_for(str(match.get("game_kind")), seed)
    if match.get("match") != wanted:
        return [
            f"line {match.get('_line')}: match id {match.get('match')!r}; its seed makes {wanted!r}"
        ]
    return []


def _deal_problems(
    kind: str,
    seating: str,
    index: int,
    header: Mapping[str, Any],
    seated: Sequence[str],
    totals: Mapping[str, float],
) -> list[str]:
    """Game ``index`` of a match must deal the ``index``-th deal; a mahjong hand starts from the
    running scores of its players; a liar's dice game is opened by the seat the match's format
    gives it (`liars_dice_opener`)."""
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
    problems = []
    if deal.get("game_index") != index:
        problems.append(
            f"{at}: game {index} of the match deals game_index {deal.get('game_index')!r}"
        )
    if kind == "liars_dice":
        first = liars_dice_opener(seating, index)
        if first is None:
            problems.append(f"{at}: a liar's dice match seated by {seating!r}: no such format")
        elif not same(deal.get("first"), first):
            problems.append(
                f"{at}: game {index} of a liar's dice match seated by {seating!r} is opened by "
                f"seat {first}, the record's deal has first {deal.get('first')!r}"
            )
    return problems


def liars_dice_opener(seating: str, game: int) -> int | None:
    """The seat that opens game ``game`` of a liar's dice match seated by ``seating``: the
    two-bot match alternates the opener every two games (`arena.matches.liars_dice_series.
    duel_opener`), so each bot opens from each seat as often; a table (every seating in turn,
    `arena.matches.liars_dice.run_table`) is opened by seat 0, whoever sits there. None for a
    seating no liar's dice match has."""
    if seating == "alternate":
        from arena.matches.liars_dice_series import duel_opener

        return duel_opener(game)
    if seating == "permutations":
        return 0
    return None
