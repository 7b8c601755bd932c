"""Set-up helpers for the mahjong table tests: walls with chosen hands and draws, and a driver
that answers the claims a script does not mention with ``pass``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.mahjong.engine import MahjongGame
from arena.games.mahjong.rules import MahjongRules, load_ruleset
from arena.games.mahjong.state import CLAIM, ROB
from arena.games.mahjong.tiles import FLOWERS, parse_tiles, to_counts

COMPETITION = load_ruleset("competition")
COMMON = load_ruleset("common")
FLOWER_RULES = load_ruleset("flowers")


def build_wall(
    hands: Sequence[str], draws: str = "", tail: str = "", *, flowers: bool = False
) -> list[int]:
    """A 136-tile wall (144 with ``flowers``): ``hands`` by position from the dealer (16 tiles
    each), then ``draws`` from the head in order, the unused tiles in ascending order (flowers
    last), and ``tail`` at the end so that its first tile is the first replacement draw. With
    ``flowers`` the hands, draws and tail may hold flowers (``1f``-``8f``)."""
    assert len(hands) == 4
    dealt = [parse_tiles(hand) for hand in hands]
    assert all(len(hand) == 16 for hand in dealt), [len(h) for h in dealt]
    head = parse_tiles(draws)
    back = parse_tiles(tail)
    used = [t for hand in dealt for t in hand] + head + back
    counts = to_counts(t for t in used if t not in FLOWERS)
    rest = [t for t in range(34) for _ in range(4 - counts[t])]
    if flowers:
        assert len([f for f in used if f in FLOWERS]) == len({f for f in used if f in FLOWERS})
        rest += [f for f in FLOWERS if f not in used]
    wall = [t for hand in dealt for t in hand] + head + rest + back[::-1]
    assert len(wall) == (144 if flowers else 136)
    return wall


def build_flower_wall(hands: Sequence[str], draws: str = "", tail: str = "") -> list[int]:
    """`build_wall` for the flowers option (144 tiles)."""
    return build_wall(hands, draws, tail, flowers=True)


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
