"""Table rules the scripted hands left unchecked (found by a mutation audit): first-turn wins
and who may claim what. Expectations follow docs/RULES.md ("Wins and what the scorer is told",
"Claims on a discard")."""

from __future__ import annotations

from mjt_walls import act, build_wall, game_on, legal_texts

from arena.games.mahjong.engine import MahjongGame
from protocol.games.mahjong import Win


def wins(game: MahjongGame) -> list[Win]:
    return [e.payload for e in game.drain_events() if isinstance(e.payload, Win)]


def test_a_win_on_a_discard_after_ones_own_first_draw_is_no_human_win() -> None:
    # 人胡 is a win on a discard before the winner's own first draw (docs/RULES.md). Seat 1
    # waits on 5p (4p 6p); it draws and discards once, and only then wins on the dealer's 5p,
    # with no call or kong made by anyone: an ordinary 門清 win.
    hands = [
        "5m1289m1289s1234567z",
        "123m456m789m123s77z4p6p",
        "345s678s3456m22z33z44z",
        "567s567m11p22p33p44p55z",
    ]
    game = game_on(build_wall(hands, draws="9p1p9p9p5p"))
    act(game, 0, "discard 9p")
    act(game, 1, "discard 1p")
    act(game, 2, "discard 9p")
    act(game, 3, "discard 9p")
    act(game, 0, "discard 5p")
    act(game, 1, "ron")
    (win,) = wins(game)
    assert win.seat == 1 and win.how == "ron"
    assert "人胡" not in {row.name for row in win.breakdown}
    assert "門清" in {row.name for row in win.breakdown}


def last_tile_wall_game() -> MahjongGame:
    """Four drawable tiles (reserve 68): seat 3 draws the last one, a fourth 4s, and then
    discards 6p, of which seat 1 holds three. No replacement is left for any kong."""
    hands = [
        "5m1289m1289s1234567z",
        "666p1234p123m456m789m",
        "345m678m22z33z44z55z99p",
        "444s567m11p22p33p6p789s",
    ]
    rules = {"open_kong_from_left": False, "open_kong_replacement_win": False, "reserve": 68}
    game = game_on(build_wall(hands, draws="9p9s1m4s"), rules)
    act(game, 0, "discard 9p")
    act(game, 1, "discard 9s")
    act(game, 2, "discard 1m")
    return game


def test_no_concealed_kong_without_a_replacement_tile() -> None:
    # docs/RULES.md "Kongs": every kong is followed by a replacement draw from the tail and is
    # legal only while a tile may still be drawn.
    game = last_tile_wall_game()
    assert game.to_act() == (3,) and game.observation(3).drawn == "4s"
    assert game.s.wall.live() == 0
    assert "ckong 4s" not in legal_texts(game, 3)
    assert "discard 4s" in legal_texts(game, 3)


def test_no_open_kong_on_a_discard_without_a_replacement_tile() -> None:
    # The claim table: a kong needs three of the tile in hand and a replacement tile left; the
    # pon of that discard stays legal.
    game = last_tile_wall_game()
    act(game, 3, "discard 6p")
    assert legal_texts(game, 1) == ["pon", "pass"]


WAITS_ON_5P = "123m456m789m123s77z4p6p"
"""Sixteen concealed tiles waiting on 5p alone (4p 6p)."""


def test_a_concealed_kong_ends_the_first_go_around() -> None:
    # 地胡 is a non-dealer's self-draw on its first draw "before any call or kong"
    # (docs/RULES.md): after the dealer's concealed kong, seat 1's first draw wins as 門清自摸.
    hands = [
        "1111z5m289m289s23456z",
        WAITS_ON_5P,
        "99p345m678m22z33z44z55z",
        "11p22p33p567s567s88s99s",
    ]
    game = game_on(build_wall(hands, draws="8p5p", tail="9p"))
    act(game, 0, "ckong 1z")
    act(game, 0, "discard 9p")
    act(game, 1, "tsumo")
    (win,) = wins(game)
    rows = {row.name for row in win.breakdown}
    assert win.seat == 1 and "門清自摸" in rows and "地胡" not in rows


def test_a_pon_ends_the_first_go_around() -> None:
    # The same after seat 2's pon of the dealer's first discard: seat 3's first draw is no 地胡.
    hands = [
        "5m1289m1289s1234567z",
        "11p22p33p567s567s88s99s",
        "99p345m678m22z33z44z55z",
        WAITS_ON_5P,
    ]
    game = game_on(build_wall(hands, draws="9p5p"))
    act(game, 0, "discard 9p")
    act(game, 2, "pon")
    act(game, 2, "discard 2z")
    act(game, 3, "tsumo")
    (win,) = wins(game)
    rows = {row.name for row in win.breakdown}
    assert win.seat == 3 and "門清自摸" in rows and "地胡" not in rows


def test_a_self_draw_on_the_last_drawable_tile_scores_haidi() -> None:
    # 海底撈月: self-drawn on the last drawable tile (table 2-1; docs/RULES.md "Exhaustive
    # draw"). With a reserve of 68 four tiles are drawable, and seat 3 wins on the fourth.
    hands = [
        "5m1289m1289s1234567z",
        "11p22p33p567s567s88s99s",
        "99p345m678m22z33z44z55z",
        WAITS_ON_5P,
    ]
    game = game_on(build_wall(hands, draws="9p9s5z5p"), {"reserve": 68})
    act(game, 0, "discard 9p")
    act(game, 1, "discard 9s")
    act(game, 2, "discard 5z")
    act(game, 3, "tsumo")
    (win,) = wins(game)
    assert game.s.wall.live() == 0
    assert win.seat == 3 and "海底撈月" in {row.name for row in win.breakdown}


def hedi_game() -> MahjongGame:
    """Four drawable tiles (reserve 68), 河底撈魚 scored: seat 3 draws the last one (4s); seat 2
    waits on 1p or 4p, seat 1 holds three 6p and one 1p."""
    hands = [
        "5m1289m1289s1234567z",
        "666p1234p123m456m789m",
        "23p345m678m222z333z55z",
        "444s567m11p22p33p6p789s",
    ]
    rules = {"reserve": 68, "scoring": {"last_discard_tai": True}}
    game = game_on(build_wall(hands, draws="9p9s1m4s"), rules)
    act(game, 0, "discard 9p")
    act(game, 1, "discard 9s")
    act(game, 2, "discard 1m")
    assert game.s.wall.live() == 0
    return game


def test_a_win_on_the_discard_of_the_last_tile_scores_hedi() -> None:
    game = hedi_game()
    act(game, 3, "discard 1p")  # the discard of the 海底 tile
    act(game, 2, "ron")
    (win,) = wins(game)
    assert win.seat == 2 and "河底撈魚" in {row.name for row in win.breakdown}


def test_a_claimed_last_discard_ends_hedi_so_the_claimers_discard_is_no_last_discard() -> None:
    # Our reading (docs/RULES.md, the table of what the scorer is told): 河底撈魚 is a win on
    # the discard of the 海底 tile. Once that discard is claimed, the claimer's own discard
    # that follows is an ordinary one.
    game = hedi_game()
    act(game, 3, "discard 6p")  # the discard of the 海底 tile
    act(game, 1, "pon")
    act(game, 1, "discard 1p")
    act(game, 2, "ron")
    (win,) = wins(game)
    assert win.seat == 2 and "河底撈魚" not in {row.name for row in win.breakdown}
