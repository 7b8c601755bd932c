"""The flowers ruleset option (花牌): walls of 144, 補花 on the deal in dealer order and during
play, chained replacements, a kong replacement that is a flower, the wins of flowers (八仙過海,
七搶一), what the events and observations show, and random playouts that lose no tile."""

from __future__ import annotations

from typing import Any

import pytest
from mjt_walls import FLOWER_RULES, act, build_flower_wall, game_on

from arena.dealing import MatchSeed
from arena.games.errors import RulesetError
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import MahjongRules
from arena.games.mahjong.tiles import FLOWERS, parse_tiles
from arena.games.mahjong.wall import FLOWER_WALL_TILES, WALL_TILES, round_wall
from protocol.games.mahjong import Dealt, Drew, FlowerExposed, KongDeclared, OtherDrew, Win

SEAT1 = "59m789p12345678s567z"
SEAT2 = "6688m99p223344s6677z"
SEAT3 = "379m78p56789s123456z"
"""Sixteen tiles each that never win in these scripts."""
TENPAI = "111m234m567m123p456p9s"
"""The dealer's hand in several scripts: 111m 234m 567m 123p 456p and a single wait on 9s."""


def drained(game: MahjongGame) -> list[tuple[frozenset[int] | None, Any]]:
    return [(e.to, e.payload) for e in game.drain_events()]


def flower_events(events: list[tuple[frozenset[int] | None, Any]]) -> list[tuple[int, str]]:
    found = []
    for to, payload in events:
        if isinstance(payload, FlowerExposed):
            assert to is None, "an exposed flower is public"
            found.append((payload.seat, payload.tile))
    return found


def the_win(events: list[tuple[frozenset[int] | None, Any]]) -> Win:
    (win,) = [p for _, p in events if isinstance(p, Win)]
    return win


def test_flower_walls_hold_each_flower_once_and_flowerless_walls_are_unchanged() -> None:
    seed = MatchSeed.from_text("flower walls")
    dealt_flowers = 0
    for r in range(40):
        wall = round_wall(seed, r, flowers=True)
        assert len(wall) == 144 and sorted(wall) == list(FLOWER_WALL_TILES)
        assert [wall.count(f) for f in FLOWERS] == [1] * 8
        dealt_flowers += sum(t in FLOWERS for t in wall[:64])
        plain = round_wall(seed, r)
        assert plain == round_wall(seed, r, flowers=False)
        assert sorted(plain) == list(WALL_TILES) and len(plain) == 136
    # 64 of 144 places are dealt: about 8 × 64/144 ≈ 3.6 flowers a wall.
    assert 80 < dealt_flowers < 210


def test_the_option_is_listed_only_when_on() -> None:
    assert "flowers" not in MahjongRules().to_mapping()
    mapping = FLOWER_RULES.to_mapping()
    assert mapping["flowers"] is True and not mapping["open_kong_from_left"]
    assert MahjongRules.from_mapping(mapping) == FLOWER_RULES
    assert MahjongRules.from_mapping({"flowers": False}) == MahjongRules()
    with pytest.raises(RulesetError, match="flowers"):
        MahjongRules.from_mapping({"flowers": "yes"})


def test_deal_flowers_are_replaced_in_rounds_from_the_dealer() -> None:
    # Dealer seat 1 (position 0) holds 1f, seat 3 (position 2) holds 2f 3f. Round one: seat 1
    # exposes 1f and draws 4f; seat 3 exposes 2f 3f and draws 9p, 5f. Round two: seat 1 exposes
    # 4f and draws 8p; seat 3 exposes 5f and draws 7p.
    wall = build_flower_wall(
        [
            "1289m1289s1234567z1f",
            "34m55p1289p3467s567z6p",
            "55m67p1s9s234z123p78s23f",
            "46m123456789p234s11s",
        ],
        tail="4f9p5f8p7p",
    )
    game = game_on(wall, FLOWER_RULES, dealer=1)
    events = drained(game)
    assert flower_events(events) == [(1, "1f"), (3, "2f"), (3, "3f"), (1, "4f"), (3, "5f")]
    dealt = {p.seat: (to, p.tiles) for to, p in events if isinstance(p, Dealt)}
    assert dealt[3] == (frozenset({3}), "55m12367p1789s234z23f")
    replacements = [(to, p) for to, p in events if isinstance(p, Drew) and p.replacement]
    assert [(p.seat, p.tile) for _, p in replacements] == [
        (1, "4f"),
        (3, "9p"),
        (3, "5f"),
        (1, "8p"),
        (3, "7p"),
    ]
    assert all(to == frozenset({p.seat}) for to, p in replacements), "draws stay private"
    others = [p.seat for to, p in events if isinstance(p, OtherDrew) and p.replacement]
    assert others == [1, 3, 3, 1, 3]
    s = game.s
    assert [sum(row) for row in s.counts] == [16, 17, 16, 16]
    assert s.flowers == [[], parse_tiles("1f4f"), [], parse_tiles("2f3f5f")]
    assert s.draws == [0, 1, 0, 0], "replacements for flowers are not draws"
    assert s.tiles_accounted() == [4] * 34 + [1] * 8
    observation = game.observation(0)
    assert observation.flowers == [[], ["1f", "4f"], [], ["2f", "3f", "5f"]]
    assert observation.wall == 144 - 64 - 16 - 5 - 1
    assert "f" not in game.observation(3).tiles
    assert game.to_act() == (1,)


def test_a_flower_drawn_first_is_replaced_and_the_first_turn_win_stands() -> None:
    # The dealer's first draw is 1f (East's season); the replacement 9s completes the hand: 天胡,
    # which includes 門清自摸 and takes the place of 槓上開花; 正花 1 for 1f.
    wall = build_flower_wall([TENPAI, SEAT1, SEAT2, SEAT3], draws="1f", tail="9s")
    game = game_on(wall, FLOWER_RULES)
    events = drained(game)
    assert flower_events(events) == [(0, "1f")]
    drawn = [(p.tile, p.replacement) for to, p in events if isinstance(p, Drew)]
    assert drawn == [("1f", False), ("9s", True)]
    assert game.s.draws[0] == 1 and game.observation(0).drawn == "9s"
    assert "tsumo" in [str(a) for a in game.legal_actions(0)]
    act(game, 0, "tsumo")
    win = the_win(drained(game))
    assert [(r.name, r.tai) for r in win.breakdown] == [("莊家", 1), ("天胡", 16), ("正花", 1)]
    assert (win.tai, win.payments) == (18, [30000, -10000, -10000, -10000])


def test_a_win_on_the_replacement_after_a_flower_is_kong_replacement() -> None:
    # Seed 003 table 2-1: "槓牌後補牌或補花就胡牌可加算槓上開花". The dealer's second draw is 1f;
    # the replacement 9s wins: 莊家 1, 門清自摸 3, 槓上開花 1, 正花 1 = 6 Tai, 1000 + 3000 each.
    wall = build_flower_wall([TENPAI, SEAT1, SEAT2, SEAT3], draws="1z2z3z4z1f", tail="9s")
    game = game_on(wall, FLOWER_RULES)
    for seat, tile in enumerate(("1z", "2z", "3z", "4z")):
        act(game, seat, f"discard {tile}")
    assert game.s.flowers[0] == parse_tiles("1f") and game.s.draws[0] == 2
    act(game, 0, "tsumo")
    win = the_win(drained(game))
    assert [(r.name, r.tai) for r in win.breakdown] == [
        ("莊家", 1),
        ("槓上開花", 1),
        ("門清自摸", 3),
        ("正花", 1),
    ]
    assert win.payments == [12000, -4000, -4000, -4000]


def test_a_kong_replacement_that_is_a_flower_chains_into_a_flower_replacement() -> None:
    # ckong 1m; the replacement is 2f (South's, so no 正花 for the dealer), exposed and replaced
    # by 9s, which wins: 莊家 1, 門清自摸 3 (a 暗槓 keeps 門清), 槓上開花 1 once = 5 Tai.
    wall = build_flower_wall(
        ["1111m234m567m12345p9s", SEAT1, SEAT2, SEAT3], draws="6p", tail="2f9s"
    )
    game = game_on(wall, FLOWER_RULES)
    drained(game)
    act(game, 0, "ckong 1m")
    events = drained(game)
    kinds = [type(p).__name__ for to, p in events if to is None or 0 in to]
    assert kinds == ["KongDeclared", "Drew", "FlowerExposed", "Drew"]
    assert [p.tile for _, p in events if isinstance(p, Drew)] == ["2f", "9s"]
    assert all(p.replacement for _, p in events if isinstance(p, Drew | OtherDrew))
    assert any(isinstance(p, KongDeclared) for _, p in events)
    act(game, 0, "tsumo")
    win = the_win(drained(game))
    rows = [(r.name, r.tai) for r in win.breakdown]
    assert rows == [("莊家", 1), ("槓上開花", 1), ("門清自摸", 3)]
    assert win.payments == [10500, -3500, -3500, -3500]


def test_eight_flowers_win_at_once_paid_as_a_self_draw() -> None:
    # The dealer is dealt 1f-7f; its first replacement is 8f, exposed in the second round:
    # 八仙過海 8 + 莊家 1 = 9 Tai, each of the three pays 1000 + 4500.
    wall = build_flower_wall(["1234567f123456789m", SEAT1, SEAT2, SEAT3], tail="8f123456p")
    game = game_on(wall, FLOWER_RULES)
    events = drained(game)
    assert game.is_over() and game.to_act() == ()
    win = the_win(events)
    assert (win.seat, win.how, win.tile, win.from_seat) == (0, "tsumo", "8f", None)
    assert [(r.name, r.tai) for r in win.breakdown] == [("莊家", 1), ("八仙過海", 8)]
    assert win.payments == [16500, -5500, -5500, -5500]
    result = game.result()
    assert result.winners == (0,) and result.scores == (16500.0, -5500.0, -5500.0, -5500.0)


def test_seven_flowers_take_the_eighth_on_the_deal() -> None:
    # The dealer exposes 1f-7f in round one, then seat 1 exposes 8f: 七搶一 for the dealer,
    # 8 + 莊家 1 = 9 Tai, paid by seat 1 alone like a discard: 1000 + 4500.
    wall = build_flower_wall(
        ["1234567f123456789m", "8f9m789p12345678s567z", SEAT2, SEAT3], tail="1234567p"
    )
    game = game_on(wall, FLOWER_RULES)
    win = the_win(drained(game))
    assert (win.seat, win.how, win.tile, win.from_seat) == (0, "rob_flower", "8f", 1)
    assert [(r.name, r.tai) for r in win.breakdown] == [("莊家", 1), ("七搶一", 8)]
    assert win.payments == [5500, -5500, 0, 0]


def test_seven_flowers_take_the_eighth_the_dealer_draws() -> None:
    # Seat 2 exposes 1f-7f on the deal; the dealer draws 8f first: 七搶一 for seat 2, 8 Tai, and
    # the paying dealer adds its 莊家 Tai to the payment: 1000 + 500 × 9.
    wall = build_flower_wall(
        [SEAT1, SEAT2, "1234567f123456789p", SEAT3], draws="8f", tail="1234567m"
    )
    game = game_on(wall, FLOWER_RULES)
    events = drained(game)
    assert flower_events(events)[-1] == (0, "8f")
    win = the_win(events)
    assert (win.seat, win.how, win.from_seat, win.tai) == (2, "rob_flower", 0, 8)
    assert [(r.name, r.tai) for r in win.breakdown] == [("七搶一", 8)]
    assert win.payments == [-5500, 0, 5500, 0]


def test_the_seventh_flower_takes_an_eighth_already_face_up() -> None:
    # Seat 1 exposes 8f in round one, seat 2 1f-6f; seat 2's first replacement is 7f, exposed
    # in round two: seven before seat 2 and the eighth before seat 1, so 七搶一 for seat 2, on
    # seat 1's 8f, paid by seat 1 alone (before, nobody won and the hand played on).
    wall = build_flower_wall(
        [SEAT1, "8f9m789p12345678s567z", "123456f6688m99p2233s", SEAT3], tail="1p7f23456p"
    )
    game = game_on(wall, FLOWER_RULES)
    events = drained(game)
    assert flower_events(events)[-1] == (2, "7f")
    win = the_win(events)
    assert (win.seat, win.how, win.tile, win.from_seat, win.tai) == (2, "rob_flower", "8f", 1, 8)
    assert win.payments == [0, -5000, 5000, 0]
    assert game.is_over()


@pytest.mark.parametrize("per_seat", [False, True])
def test_random_playouts_lose_no_tile_and_keep_flowers_out_of_hands(per_seat: bool) -> None:
    rules = FLOWER_RULES.to_mapping() | {"per_seat_draws": per_seat}
    seen = {"flower": 0, "win": 0}
    for r in range(40):
        seed = MatchSeed.from_text(f"flower playout {per_seat}")
        game = new_game(rules, seed, {"round": r, "hand": r % 4})
        chooser = seed.stream("chooser", str(r))
        while True:
            s = game.s
            assert s.tiles_accounted() == [4] * 34 + [1] * 8
            assert all(len(row) == 34 for row in s.counts)
            for seat in range(4):
                assert "f" not in game.observation(seat).tiles
            for _, payload in drained(game):
                seen["flower"] += isinstance(payload, FlowerExposed)
                seen["win"] += isinstance(payload, Win)
            if game.is_over():
                break
            for seat in game.to_act():
                legal = game.legal_actions(seat)
                assert not any("f" in str(a) for a in legal)
                game.apply(seat, chooser.choice(list(legal)))
        assert sum(game.result().scores) == 0
    assert seen["flower"] > 100
