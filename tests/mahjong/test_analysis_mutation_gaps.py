"""One-hand analysis, tables, wall, payments and the greedy bot: cases the other tests left open
(found by a mutation audit).

Each expectation is worked out by hand from seed 001 (theorems 1 and 2), seed 003 §3 (the
deficiency) and docs/RULES.md / docs/STRATEGIES.md, not read off the code. The one-hand checks
run in C when the extension is built; run this file with ``ARENA_PURE_PYTHON=1`` as well to hold
the Python versions to the same answers.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
from mahjong_table.mjt_walls import (
    COMPETITION,
    FLOWER_RULES,
    act,
    build_flower_wall,
    build_wall,
    game_on,
)

from arena.games.mahjong.analysis import (
    is_winning,
    is_winning_batch,
    pair_candidates,
    winning_decompositions,
)
from arena.games.mahjong.deficiency import deficiency_batch
from arena.games.mahjong.engine import MahjongGame
from arena.games.mahjong.tables import get_tables, read_tables, save_tables
from arena.games.mahjong.tiles import (
    MahjongError,
    TileCountError,
    format_tiles,
    parse_tiles,
    to_counts,
)
from arena.games.mahjong.wall import WALL_TILES, Wall
from bots.mahjong import choose
from bots.mahjong.view import read
from protocol.games.mahjong import MahjongObservation, MeldView, Win


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


# --- win checks and decompositions ------------------------------------------------------------


def test_an_honour_pair_and_a_suit_pair_together_do_not_win() -> None:
    # 123m 11p 55z: two pairs and one set. Theorem 2 allows one component at 2 mod 3; with the
    # pair in the honours, the pinzu's remainder 2 already rules the hand out.
    assert not is_winning(counts_of("123m11p55z"))
    assert not is_winning(counts_of("123m456m789m123s11p55z"))


def test_pair_candidates_are_none_when_a_component_is_at_one_mod_three() -> None:
    # 11m 1p: the manzu is at 2 mod 3 but the pinzu at 1, which sets and one pair never leave.
    assert pair_candidates(counts_of("11m1p")) == []
    assert pair_candidates(counts_of("11m")) == [0]


def test_pair_candidates_refuse_a_negative_count() -> None:
    with pytest.raises(TileCountError):
        pair_candidates([-1] + [0] * 33)


def test_winds_never_form_a_chow_in_a_decomposition() -> None:
    # 111z 222z 333z could be read as three E-S-W "chows" if honours ran like suits; they do not.
    (only,) = winning_decompositions(counts_of("111z222z333z123m456m55m"))
    assert only.pair == 4  # 5m
    assert sorted(only.sets) == [("chow", 0), ("chow", 3), ("pung", 27), ("pung", 28), ("pung", 29)]


# --- the numpy batch checks, whose flags come from the tables ---------------------------------


def test_batch_win_respects_the_number_of_sets() -> None:
    hand = counts_of("123m456m789m123p456p55s")  # five sets and a pair: 17 tiles
    assert is_winning_batch([hand], sets_needed=5).tolist() == [True]
    assert is_winning_batch([hand], sets_needed=4).tolist() == [False]


def test_batch_win_refuses_two_honour_pairs() -> None:
    hand = counts_of("123m456m789m123p456p55z66z")
    assert not is_winning(hand)
    assert is_winning_batch([hand]).tolist() == [False]


def test_batch_win_refuses_four_of_an_honour() -> None:
    # Honours form no chow, so four of one are a pung and a stray tile, never a set.
    hand = counts_of("123m456m789m1111z55p")
    assert not is_winning(hand)
    assert is_winning_batch([hand]).tolist() == [False]


def test_batch_deficiency_refuses_hands_beyond_five_sets() -> None:
    twenty = np.array([[4] * 5 + [0] * 29])  # 20 tiles: six sets, more than the tables hold
    with pytest.raises(MahjongError):
        deficiency_batch(twenty)


def test_a_cache_file_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    tables = get_tables()
    short = dataclasses.replace(tables, suit_win=tables.suit_win[:100])
    path = tmp_path / "short.npz"
    save_tables(short, path)
    with pytest.raises(MahjongError, match="wrong shape"):
        read_tables(path)


# --- the wall ---------------------------------------------------------------------------------


def test_per_seat_haidi_is_the_last_tile_of_the_own_sub_wall() -> None:
    # 136 - 64 dealt - 16 reserve = 56: four sub-walls of 14 (docs/RULES.md, "Per-seat draws").
    wall = Wall(list(WALL_TILES), reserve=16, per_seat=True)
    flags = [wall.draw(2, replacement=False)[1] for _ in range(14)]
    assert flags == [False] * 13 + [True]
    assert not wall.can_draw(2) and wall.can_draw(1)


# --- win contexts -----------------------------------------------------------------------------

SEAT1 = "59m789p12345678s567z"
SEAT2 = "6688m99p223344s6677z"
SEAT3 = "379m78p56789s123456z"
"""Sixteen tiles each that never win in these scripts (as in test_mjt_flowers)."""
TENPAI = "111m234m567m123p456p9s"
"""111m 234m 567m 123p 456p and a single wait on 9s."""


def the_win(game: MahjongGame) -> Win:
    (win,) = [e.payload for e in game.drain_events() if isinstance(e.payload, Win)]
    return win


def test_an_earthly_win_on_a_flower_replacement_is_no_kong_replacement() -> None:
    # Seat 1's first draw is 1f; its replacement 9s completes the hand on its first turn: 地胡,
    # which takes the place of 槓上開花 (docs/RULES.md, "Flowers"), as 天胡 does for the dealer.
    wall = build_flower_wall([SEAT1, TENPAI, SEAT2, SEAT3], draws="1z1f", tail="9s")
    game = game_on(wall, FLOWER_RULES)
    act(game, 0, "discard 1z")
    assert game.observation(1).drawn == "9s"
    act(game, 1, "tsumo")
    rows = [row.name for row in the_win(game).breakdown]
    assert "地胡" in rows and "槓上開花" not in rows


def test_the_round_wind_is_the_rounds_not_the_hands() -> None:
    # Round 0, hand 1: seat 1 deals (East) and the round wind is still East, so with the
    # 圈風刻 option the dealer's 111z pays both 門風刻 and 圈風刻.
    rules = dataclasses.replace(
        COMPETITION, scoring=dataclasses.replace(COMPETITION.scoring, round_wind_tai=True)
    )
    wall = build_wall(["111z234m567m123p456p9s", SEAT1, SEAT2, SEAT3], draws="9s")
    game = game_on(wall, rules, dealer=1)
    act(game, 1, "tsumo")
    rows = [row.name for row in the_win(game).breakdown]
    assert "門風刻" in rows and "圈風刻" in rows


# --- the greedy bot and its view --------------------------------------------------------------


def observation(
    tiles: str,
    *,
    phase: Literal["discard", "claim"] = "claim",
    claim_tile: str | None = None,
    drawn: str | None = None,
    melds: list[list[MeldView]] | None = None,
    seat: int = 0,
) -> MahjongObservation:
    """``seat``'s view with nothing else on the table; in a claim phase seat 3 discarded."""
    return MahjongObservation(
        seat=seat,
        round=0,
        hand=0,
        dealer=0,
        seat_wind="E",
        tiles=tiles,
        drawn=drawn,
        melds=melds or [[], [], [], []],
        discards=[[], [], [], []],
        concealed_counts=[16, 16, 16, 16],
        flowers=None,
        wall=50,
        scores=[0, 0, 0, 0],
        phase=phase,
        turn=3 if phase == "claim" else seat,
        claim_tile=claim_tile,
        last=None,
    )


def test_greedy_pons_when_the_best_discard_after_it_is_an_honour() -> None:
    # 123456789m 55s 79p 1z 3z 5z: 3 from winning (79p, and a set and a pair from the rest).
    # pon 5s and throw an honour: 123456789m 79p + two honours, 4 sets wanted: 2 away.
    obs = observation("123456789m79p55s135z", claim_tile="5s")
    assert choose(obs, ["pon", "pass"]) == "pon"


def test_greedy_pons_rather_than_kongs_when_the_third_copy_makes_a_run() -> None:
    # 123456789m 555s 67s 1z 3z, 2 from winning. pon 5s keeps 567s (throw 1z: 1 away);
    # kong 5s takes all three and leaves 67s and the honours (2 away, no better than passing).
    obs = observation("123456789m55567s13z", claim_tile="5s")
    assert choose(obs, ["kong", "pon", "pass"]) == "pon"


def test_greedy_keeps_four_tiles_that_are_worth_more_than_a_kong() -> None:
    # Without the four 1m (a concealed kong takes them away) the hand is 6 from winning; the best
    # discard leaves it 5 away, so the bot discards (STRATEGIES.md: kong only when no further).
    tiles = "111123338m677p148s23z"
    discards = [f"discard {format_tiles([t])}" for t in sorted(set(parse_tiles(tiles)))]
    obs = observation(tiles, phase="discard", drawn="8m")
    assert choose(obs, ["ckong 1m", *discards]).startswith("discard ")


def test_the_view_reads_own_melds_drawn_tile_and_no_claim_on_ones_turn() -> None:
    own_pon = MeldView(kind="pon", tiles="999p", from_seat=1)
    other_pons = [
        MeldView(kind="pon", tiles="111s", from_seat=1),
        MeldView(kind="pon", tiles="222s", from_seat=3),
    ]
    # Seat 2 looks: one set of its own, two of seat 0's.
    melds = [other_pons, [], [own_pon], []]
    tiles = "123m456m789m1z2z3z4z5z"
    view = read(observation(tiles, phase="discard", drawn="5z", melds=melds, seat=2))
    assert view.melds == 1
    assert view.drawn == 31 and view.claim_tile == -1  # 5z
    assert view.visible[17] == 3 and view.visible[18:20] == [3, 3]
