"""Tiles, notation and melds: constants, round trips, and errors that point at the mistake."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games.errors import GameError, InvalidActionError
from arena.games.mahjong.actions import parse_action
from arena.games.mahjong.tiles import (
    DRAGONS,
    EAST,
    GREEN,
    HONOURS,
    NORTH,
    NUM_KINDS,
    RED,
    SOUTH,
    TERMINALS,
    WEST,
    WHITE,
    WINDS,
    MahjongError,
    Meld,
    MeldError,
    MeldKind,
    NotationError,
    TileCountError,
    format_melds,
    format_tiles,
    format_tiles_zh,
    from_counts,
    is_honour,
    is_terminal,
    is_terminal_or_honour,
    parse_melds,
    parse_tile,
    parse_tiles,
    parse_wind,
    rank_of,
    suit_of,
    tile_from,
    tile_name_zh,
    to_counts,
    wind_letter,
)

# Any multiset of at most four copies per kind: a sample of the 136 physical tiles.
tile_lists = st.lists(st.integers(0, 135), unique=True, max_size=40).map(
    lambda ids: [i // 4 for i in ids]
)


def test_layout_and_constants() -> None:
    assert NUM_KINDS == 34
    assert tuple(range(27, 34)) == (EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED)
    assert WINDS == (27, 28, 29, 30)
    assert DRAGONS == (31, 32, 33)
    assert HONOURS == WINDS + DRAGONS
    assert TERMINALS == (0, 8, 9, 17, 18, 26)
    assert [suit_of(t) for t in (0, 8, 9, 17, 18, 26, 27, 33)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [rank_of(t) for t in (0, 8, 9, 26, 27, 33)] == [1, 9, 1, 9, 1, 7]
    assert all(tile_from(suit_of(t), rank_of(t)) == t for t in range(NUM_KINDS))
    assert [t for t in range(NUM_KINDS) if is_honour(t)] == list(HONOURS)
    assert [t for t in range(NUM_KINDS) if is_terminal(t)] == list(TERMINALS)
    assert [t for t in range(NUM_KINDS) if is_terminal_or_honour(t)] == [*TERMINALS, *HONOURS]


def test_parse_and_format_examples() -> None:
    tiles = parse_tiles("123m 456p789s 1234567z")
    assert tiles == [0, 1, 2, 12, 13, 14, 24, 25, 26, *range(27, 34)]
    assert parse_tiles("9s1m") == [26, 0]  # input order is kept
    assert format_tiles([33, 0, 26, 9, 0]) == "11m1p9s7z"
    assert format_tiles([]) == ""
    assert parse_tiles("") == []
    assert parse_tile("5m") == 4
    assert parse_tile("7z") == RED
    assert [parse_wind(w) for w in "ESWN"] == list(WINDS)
    assert parse_wind("s") == SOUTH
    assert parse_wind("3z") == WEST
    assert [wind_letter(w) for w in WINDS] == ["E", "S", "W", "N"]


@given(tile_lists)
def test_notation_round_trip(tiles: list[int]) -> None:
    text = format_tiles(tiles)
    assert parse_tiles(text) == sorted(tiles)
    assert format_tiles(parse_tiles(text)) == text


@given(tile_lists)
def test_counts_round_trip(tiles: list[int]) -> None:
    counts = to_counts(tiles)
    assert len(counts) == NUM_KINDS
    assert from_counts(counts) == sorted(tiles)
    assert Counter(tiles) == Counter(from_counts(counts))


@pytest.mark.parametrize(
    ("text", "position", "char"),
    [
        ("12 3m", 2, " "),
        ("0m", 0, "0"),
        ("123m0p", 4, "0"),
        ("m", 0, "m"),
        ("11m p", 4, "p"),
        ("123", 0, "1"),
        ("45m67", 3, "6"),
        ("18z", 1, "8"),
        ("1x", 1, "x"),
        ("12M", 2, "M"),
    ],
)
def test_parse_errors_name_character_and_position(text: str, position: int, char: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_tiles(text)
    err = info.value
    assert err.position == position
    assert err.text == text
    assert f"{char!r} at position {position}" in str(err)


def test_error_tree() -> None:
    assert issubclass(NotationError, MahjongError)
    assert issubclass(NotationError, InvalidActionError)
    assert issubclass(MahjongError, GameError)
    assert issubclass(TileCountError, MahjongError)
    assert issubclass(MahjongError, ValueError)


def test_fifth_copy() -> None:
    with pytest.raises(TileCountError, match="fifth copy of 1m at position 4"):
        parse_tiles("11111m")
    with pytest.raises(TileCountError):
        parse_tiles("1111m 1m")
    with pytest.raises(TileCountError):
        to_counts([5, 5, 5, 5, 5])
    with pytest.raises(TileCountError):
        from_counts([5] + [0] * 33)
    with pytest.raises(MahjongError):
        to_counts([34])


def test_parse_tile_and_wind_reject_other_text() -> None:
    with pytest.raises(NotationError):
        parse_tile("12m")
    with pytest.raises(NotationError):
        parse_tile("")
    with pytest.raises(NotationError):
        parse_wind("5z")
    with pytest.raises(NotationError):
        parse_wind("X")


def test_chinese_names() -> None:
    assert tile_name_zh(0) == "一萬"
    assert tile_name_zh(8) == "九萬"
    assert tile_name_zh(9) == "一筒"
    assert tile_name_zh(22) == "五條"
    assert [tile_name_zh(t) for t in HONOURS] == ["東", "南", "西", "北", "白板", "青發", "紅中"]
    assert format_tiles_zh(parse_tiles("7z1m")) == "一萬 紅中"
    assert len({tile_name_zh(t) for t in range(NUM_KINDS)}) == NUM_KINDS


def test_melds() -> None:
    chi = Meld(MeldKind.CHI, (2, 0, 1))
    assert chi.tiles == (0, 1, 2)
    assert str(chi) == "chi:123m"
    assert not chi.is_kong
    pon = Meld.parse("pon:999p")
    assert pon == Meld(MeldKind.PON, (17, 17, 17))
    kong = Meld.parse("ckong:1111z")
    assert kong.is_kong and kong.is_concealed
    assert Meld.parse("kong:5555s").is_kong and not Meld.parse("kong:5555s").is_concealed
    assert Meld.parse("akong:2222m").is_kong and not Meld.parse("akong:2222m").is_concealed
    text = "chi:123m,pon:999p,kong:5555s,ckong:1111z,akong:2222m"
    melds = parse_melds(text)
    assert format_melds(melds) == text
    assert parse_melds(" chi:789s , pon:777z ") == (
        Meld(MeldKind.CHI, (24, 25, 26)),
        Meld(MeldKind.PON, (33, 33, 33)),
    )
    assert parse_melds("") == ()


@pytest.mark.parametrize(
    ("kind", "tiles"),
    [
        (MeldKind.CHI, (0, 1, 3)),
        (MeldKind.CHI, (7, 8, 9)),  # 8m 9m 1p: no wrapping across suits
        (MeldKind.CHI, (27, 28, 29)),  # honours form no chows
        (MeldKind.PON, (0, 0, 1)),
        (MeldKind.PON, (0, 0)),
        (MeldKind.KONG, (5, 5, 5)),
        (MeldKind.CONCEALED_KONG, (5, 5, 5, 6)),
    ],
)
def test_invalid_melds(kind: MeldKind, tiles: tuple[int, ...]) -> None:
    with pytest.raises(MeldError):
        Meld(kind, tiles)


def test_meld_notation_errors_point_into_the_whole_text() -> None:
    with pytest.raises(NotationError) as info:
        parse_melds("chi:123m,foo:111p")
    assert info.value.position == 9
    with pytest.raises(NotationError) as info:
        parse_melds("chi:123m,pon:1x1p")
    assert info.value.position == 14
    with pytest.raises(NotationError) as info:
        parse_melds("pon 111m")
    assert info.value.position == 3
    with pytest.raises(NotationError):
        parse_melds("chi:123m,,pon:111p")


melds_strategy = st.one_of(
    st.builds(
        lambda s, r: Meld(MeldKind.CHI, (s * 9 + r, s * 9 + r + 1, s * 9 + r + 2)),
        st.integers(0, 2),
        st.integers(0, 6),
    ),
    st.builds(lambda t: Meld(MeldKind.PON, (t,) * 3), st.integers(0, 33)),
    st.builds(
        lambda k, t: Meld(k, (t,) * 4),
        st.sampled_from([MeldKind.KONG, MeldKind.CONCEALED_KONG, MeldKind.ADDED_KONG]),
        st.integers(0, 33),
    ),
)


@given(st.lists(melds_strategy, max_size=5))
def test_meld_round_trip(melds: list[Meld]) -> None:
    assert parse_melds(format_melds(melds)) == tuple(melds)
    for m in melds:
        assert Meld.parse(str(m)) == m


def test_flower_notation_round_trips_with_chinese_names() -> None:
    flowers = parse_tiles("1234f 5678f")
    assert flowers == list(range(NUM_KINDS, NUM_KINDS + 8))
    assert format_tiles(flowers) == "12345678f"
    assert format_tiles(parse_tiles("5f1m7z1f")) == "1m7z15f"
    assert tile_name_zh(parse_tile("1f")) == "春" and tile_name_zh(parse_tile("8f")) == "竹"
    assert format_tiles_zh(parse_tiles("2345f")) == "夏 秋 冬 梅"


@pytest.mark.parametrize(
    ("text", "position", "char"),
    [("9f", 0, "9"), ("123m49f", 5, "9"), ("1g", 1, "g")],
)
def test_flower_parse_errors_name_the_character(text: str, position: int, char: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_tiles(text)
    assert f"{char!r} at position {position}" in str(info.value)


def test_flowers_stay_out_of_hands_and_sets() -> None:
    with pytest.raises(TileCountError, match="second copy of 3f at position 1"):
        parse_tiles("33f")
    with pytest.raises(MahjongError, match="flower 1f is never part of a hand"):
        to_counts(parse_tiles("1m1f"))
    with pytest.raises(MahjongError):
        Meld(MeldKind.PON, (NUM_KINDS,) * 3)


def test_actions_naming_a_flower_say_why() -> None:
    with pytest.raises(InvalidActionError, match="flowers are exposed and replaced"):
        parse_action("discard 5f")
