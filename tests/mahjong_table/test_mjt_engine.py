"""Scripted hands on chosen walls: calls and their priority, kongs, robbing a kong, first-turn
wins, payments, the exhaustive draw, fallbacks and the reasons given for illegal actions."""

from __future__ import annotations

import pytest
from mjt_walls import COMMON, COMPETITION, act, build_wall, game_on, legal_texts, pass_claims

from arena.games.errors import IllegalActionError, NotYourTurnError
from arena.games.mahjong.engine import MahjongGame
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.tiles import parse_tiles
from protocol.games.mahjong import Drew, KongDeclared, Win

FILLER = "1289m1289s1234567z"
"""Fifteen tiles that make no set: the dealer's hand around the tile it discards first."""


def wins(game: MahjongGame) -> list[Win]:
    return [e.payload for e in game.drain_events() if isinstance(e.payload, Win)]


def claim_wall() -> list[int]:
    """Dealer draws 7m, discards 5m: seat 1 may chi (34m), seat 2 pon (55m), seat 3 ron (46m)."""
    return build_wall(
        [
            "5m" + FILLER,
            "34m55p1289p3467s567z6p",
            "55m67p1s9s234z123p78s9p4p",
            "46m123456789p234s11s",
        ],
        draws="7m",
    )


def test_the_dealer_draws_first_and_holds_seventeen() -> None:
    game = game_on(claim_wall())
    assert game.to_act() == (0,)
    assert [sum(row) for row in game.s.counts] == [17, 16, 16, 16]
    assert game.s.wall.live() == 136 - 64 - 16 - 1
    assert game.observation(0).drawn == "7m"


def test_chi_only_from_the_seat_before() -> None:
    game = game_on(claim_wall())
    act(game, 0, "discard 5m")
    assert legal_texts(game, 1) == ["chi 345m", "pass"]
    assert legal_texts(game, 2) == ["pon", "pass"]
    assert legal_texts(game, 3) == ["ron", "pass"]


def test_claim_priority_win_then_pon_then_chi() -> None:
    game = game_on(claim_wall())
    act(game, 0, "discard 5m")
    game.apply(1, game.parse_action("chi 345m"))
    game.apply(2, game.parse_action("pon"))
    assert set(game.to_act()) == {3}
    game.apply(3, game.parse_action("ron"))
    (win,) = wins(game)
    assert (win.seat, win.how, win.from_seat, win.tile) == (3, "ron", 0, "5m")

    game = game_on(claim_wall())
    act(game, 0, "discard 5m")
    game.apply(3, game.parse_action("pass"))
    game.apply(1, game.parse_action("chi 345m"))
    game.apply(2, game.parse_action("pon"))
    assert game.to_act() == (2,)
    assert [str(m.meld) for m in game.s.melds[2]] == ["pon:555m"]
    assert game.s.melds[1] == [] and game.s.river[0] == []
    assert all(t.startswith("discard ") for t in legal_texts(game, 2))


KONG_HANDS = [
    "5s" + FILLER,
    "555s1289p1467m567z34p",
    "234s234p678s678p23z4z3m",
    "123456789p1s9s3m456m7m",
]


def test_open_kong_from_the_seat_before_follows_the_ruleset() -> None:
    competition = game_on(build_wall(KONG_HANDS), COMPETITION)
    act(competition, 0, "discard 5s")
    assert legal_texts(competition, 1) == ["pon", "pass"]
    with pytest.raises(IllegalActionError, match="open_kong_from_left"):
        competition.apply(1, competition.parse_action("kong"))

    common = game_on(build_wall(KONG_HANDS), COMMON)
    act(common, 0, "discard 5s")
    assert legal_texts(common, 1) == ["kong", "pon", "pass"]
    common.apply(1, common.parse_action("kong"))
    drew = [e.payload for e in common.drain_events() if isinstance(e.payload, Drew)]
    # The tail holds the last of the ascending unused tiles: a 7z.
    assert (drew[-1].seat, drew[-1].tile, drew[-1].replacement) == (1, "7z", True)
    assert [str(m.meld) for m in common.s.melds[1]] == ["kong:5555s"]


def test_open_kong_from_the_opposite_seat_is_allowed_in_the_competition() -> None:
    hands = [
        "5s" + FILLER,
        "1289p1467m567z346p77p",
        "555s234s678s678p23z4z3m",
        "123456789p1s9s3m456m7m",
    ]
    game = game_on(build_wall(hands), COMPETITION)
    act(game, 0, "discard 5s")
    assert legal_texts(game, 2) == ["kong", "pon", "pass"]


def test_several_wins_on_one_discard() -> None:
    hands = [
        "5m" + FILLER,
        "46m123456789p345s77s",
        "3467s234z567z12p238m5p",
        "46m123456789s789p99p",
    ]
    first = game_on(build_wall(hands), COMPETITION)
    act(first, 0, "discard 5m")
    assert set(first.to_act()) == {1, 3}
    first.apply(3, first.parse_action("ron"))
    first.apply(1, first.parse_action("ron"))
    assert [w.seat for w in wins(first)] == [1]

    every = game_on(build_wall(hands), COMMON)
    act(every, 0, "discard 5m")
    every.apply(1, every.parse_action("ron"))
    every.apply(3, every.parse_action("ron"))
    both = wins(every)
    assert [w.seat for w in both] == [1, 3]
    result = every.result()
    assert result.winners == (1, 3) and sum(result.scores) == 0
    assert result.scores[0] == sum(w.payments[0] for w in both) < 0


def test_robbing_an_added_kong() -> None:
    hands = [
        "5p" + FILLER,
        "55p3467m3467s567z19p2z",
        "123456789m123s46p99s",
        "678p58m58s234z2s23p7z1z4s",
    ]
    game = game_on(build_wall(hands, draws="7z5m4z6z5p"))
    act(game, 0, "discard 5p")
    assert legal_texts(game, 2) == ["ron", "pass"]
    act(game, 1, "pon")
    act(game, 1, "discard 1p")
    act(game, 2, "discard 5m")
    act(game, 3, "discard 4z")
    act(game, 0, "discard 6z")
    assert "akong 5p" in legal_texts(game, 1)
    act(game, 1, "akong 5p")
    assert game.to_act() == (2,)
    assert game.observation(2).phase == "rob_kong"
    assert legal_texts(game, 2) == ["ron", "pass"]
    game.apply(2, game.parse_action("ron"))
    (win,) = wins(game)
    assert (win.seat, win.how, win.from_seat, win.tile) == (2, "rob_kong", 1, "5p")
    assert "搶槓" in [row.name for row in win.breakdown]
    assert win.payments[1] < 0 and win.payments[0] == win.payments[3] == 0
    assert all(n == 4 for n in game.s.tiles_accounted())


def test_a_seat_asked_about_an_added_kong_it_cannot_rob_is_told_why() -> None:
    """competition-server asks every seat; a ron from one the tile does not complete names
    that, not "ron or pass (ron is neither)"."""
    hands = [
        "5p" + FILLER,
        "55p3467m3467s567z19p2z",
        "123456789m123s46p99s",
        "678p58m58s234z2s23p7z1z4s",
    ]
    game = game_on(build_wall(hands, draws="7z5m4z6z5p"), load_ruleset("competition-server"))
    act(game, 0, "discard 5p")
    act(game, 1, "pon")
    for seat, move in ((1, "discard 1p"), (2, "discard 5m"), (3, "discard 4z"), (0, "discard 6z")):
        act(game, seat, move)
        pass_claims(game)  # every seat is asked about every discard here
    act(game, 1, "akong 5p")
    assert game.observation(3).phase == "rob_kong"
    assert legal_texts(game, 3) == ["pass"]
    with pytest.raises(IllegalActionError, match="5p, added to a pon, does not complete your"):
        game.apply(3, game.parse_action("ron"))
    with pytest.raises(IllegalActionError, match=r"only ron or pass \(pon is neither\)"):
        game.apply(3, game.parse_action("pon"))


def test_an_added_kong_nobody_robs_draws_from_the_tail() -> None:
    hands = [
        "5p" + FILLER,
        "55p3467m3467s567z19p2z",
        "123456789m123s46p99s",
        "678p58m58s234z2s23p7z1z4s",
    ]
    game = game_on(build_wall(hands, draws="7z5m4z6z5p", tail="9m"))
    act(game, 0, "discard 5p")
    act(game, 1, "pon")
    act(game, 1, "discard 1p")
    for seat, tile in ((2, "5m"), (3, "4z"), (0, "6z")):
        act(game, seat, f"discard {tile}")
    act(game, 1, "akong 5p")
    game.apply(2, game.parse_action("pass"))
    assert [str(m.meld) for m in game.s.melds[1]] == ["akong:5555p"]
    assert game.observation(1).drawn == "9m"


def test_concealed_kong_hides_its_tile_and_wins_on_the_replacement() -> None:
    hands = [
        "1111z123456789m12p5s",
        "1289p3467m3467s567z9s",
        "2222z3333z4444z1289s",
        "19p28m28p67p4p4s6s7s3s5z5m8s",
    ]
    game = game_on(build_wall(hands, draws="5s", tail="3p"))
    assert "ckong 1z" in legal_texts(game, 0)
    game.drain_events()
    act(game, 0, "ckong 1z")
    events = game.drain_events()
    kongs = {(e.payload.tile, e.to) for e in events if isinstance(e.payload, KongDeclared)}
    assert kongs == {("1z", frozenset({0})), (None, frozenset({1, 2, 3}))}
    drawn = [e.payload for e in events if isinstance(e.payload, Drew)]
    assert drawn == [Drew(seat=0, tile="3p", replacement=True, wall=54)]
    assert game.observation(1).melds[0][0].tiles is None
    assert game.observation(0).melds[0][0].tiles == "1111z"
    assert legal_texts(game, 0)[0] == "tsumo"
    act(game, 0, "tsumo")
    (win,) = wins(game)
    rows = [row.name for row in win.breakdown]
    assert "槓上開花" in rows and "莊家" in rows and "門清自摸" in rows
    assert "天胡" not in rows  # the kong ended the first go-around
    assert win.melds[0].tiles == "1111z"  # shown once the hand is won


def test_heavenly_win_and_the_dealer_self_draw_payments() -> None:
    hands = [
        "123456789m123456p5s",
        "3467s1234567z789p89m",
        "11223m3p1234567z289s",
        "344567m3467s128p11s9s",
    ]
    game = game_on(build_wall(hands, draws="5s"))
    assert legal_texts(game, 0)[0] == "tsumo"
    act(game, 0, "tsumo")
    (win,) = wins(game)
    assert {"天胡", "莊家"} <= {row.name for row in win.breakdown}
    each = 1000 + 500 * win.tai
    assert win.payments == [3 * each, -each, -each, -each]


def test_the_dealer_pays_its_tai_on_a_discard_win() -> None:
    game = game_on(claim_wall())
    act(game, 0, "discard 5m")
    act(game, 3, "ron")
    (win,) = wins(game)
    rows = [row.name for row in win.breakdown]
    assert "莊家" not in rows and "人胡" in rows
    owed = 1000 + 500 * (win.tai + 1)
    assert win.payments == [-owed, 0, 0, owed]
    assert game.result().scores == (-owed, 0, 0, owed)


def test_the_hand_is_drawn_with_sixteen_tiles_left() -> None:
    game = game_on(claim_wall())
    draws = 0
    while True:
        draws += sum(isinstance(e.payload, Drew) for e in game.drain_events())
        if game.is_over():
            break
        for seat in game.to_act():
            game.apply(seat, game.fallback_action(seat))
    result = game.result()
    assert result.reason == "exhaustive" and result.scores == (0.0, 0.0, 0.0, 0.0)
    assert draws == 136 - 64 - 16
    assert len(game.s.wall.remaining()) == 16
    assert game.observation(0).wall == 0


def test_fallbacks_and_the_reasons_for_illegal_actions() -> None:
    game = game_on(claim_wall())
    assert str(game.fallback_action(0)) == "discard 7m"
    with pytest.raises(NotYourTurnError, match="seat 0's turn"):
        game.apply(1, game.parse_action("discard 1p"))
    with pytest.raises(IllegalActionError, match="you hold no 9p"):
        game.apply(0, game.parse_action("discard 9p"))
    with pytest.raises(IllegalActionError, match="does not win"):
        game.apply(0, game.parse_action("tsumo"))
    act(game, 0, "discard 5m")
    assert all(str(game.fallback_action(seat)) == "pass" for seat in game.to_act())
    with pytest.raises(IllegalActionError, match="seat before you"):
        game.apply(2, game.parse_action("chi 345m"))
    game.apply(3, game.parse_action("pass"))
    game.apply(2, game.parse_action("pass"))
    game.apply(1, game.parse_action("chi 345m"))
    assert game.observation(1).drawn is None
    with pytest.raises(IllegalActionError, match="must discard"):
        game.apply(1, game.parse_action("tsumo"))
    highest = max(parse_tiles(game.observation(1).tiles))
    assert game.fallback_action(1).tile == highest


def test_a_copy_shares_no_mutable_state_with_its_original() -> None:
    game = game_on(claim_wall())
    twin = game.copy()
    twin.s.scores[0] += 500
    twin.s.counts[0][0] += 1
    twin.s.river[0].append(0)
    twin.s.melds[1].append(None)  # type: ignore[arg-type]
    assert game.s.scores == [0, 0, 0, 0]
    assert [sum(row) for row in game.s.counts] == [17, 16, 16, 16]
    assert game.s.river[0] == [] and game.s.melds[1] == []
