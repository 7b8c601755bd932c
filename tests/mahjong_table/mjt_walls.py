"""Set-up helpers for the mahjong table tests: walls with chosen hands and draws, and a driver
that answers the claims a script does not mention with ``pass``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.mahjong.engine import MahjongGame
from arena.games.mahjong.rules import MahjongRules, load_ruleset
from arena.games.mahjong.state import CLAIM, ROB
from arena.games.mahjong.tiles import parse_tiles, to_counts

COMPETITION = load_ruleset("competition")
COMMON = load_ruleset("common")


def build_wall(hands: Sequence[str], draws: str = "", tail: str = "") -> list[int]:
    """A 136-tile wall: ``hands`` by position from the dealer (16 tiles each), then ``draws``
    from the head in order, the unused tiles in ascending order, and ``tail`` at the end so that
    its first tile is the first replacement draw."""
    assert len(hands) == 4
    dealt = [parse_tiles(hand) for hand in hands]
    assert all(len(hand) == 16 for hand in dealt), [len(h) for h in dealt]
    head = parse_tiles(draws)
    back = parse_tiles(tail)
    used = [t for hand in dealt for t in hand] + head + back
    counts = to_counts(used)
    rest = [t for t in range(34) for _ in range(4 - counts[t])]
    wall = [t for hand in dealt for t in hand] + head + rest + back[::-1]
    assert len(wall) == 136
    return wall


def game_on(
    wall: list[int],
    rules: MahjongRules | Mapping[str, Any] = COMPETITION,
    dealer: int = 0,
) -> MahjongGame:
    if not isinstance(rules, MahjongRules):
        rules = MahjongRules.from_mapping(rules)
    return MahjongGame(rules, wall, round_index=0, hand_index=dealer)


def pass_claims(game: MahjongGame, keep: int | None = None) -> None:
    """Every due seat except ``keep`` passes on the pending discard or added kong."""
    if game.s.phase not in (CLAIM, ROB):
        return
    for seat in list(game.to_act()):
        if seat != keep:
            game.apply(seat, game.parse_action("pass"))


def act(game: MahjongGame, seat: int, text: str) -> None:
    """Play ``text`` for ``seat``; pending claims it is not part of are passed first."""
    if seat not in game.to_act():
        pass_claims(game)
    else:
        pass_claims(game, keep=seat)
    assert seat in game.to_act(), f"seat {seat} is not due; due: {game.to_act()}"
    game.apply(seat, game.parse_action(text))


def legal_texts(game: MahjongGame, seat: int) -> list[str]:
    return [str(a) for a in game.legal_actions(seat)]
