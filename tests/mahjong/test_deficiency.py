"""The deficiency number (進胡數) against brute force and the mahjong package's shanten."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.shanten import Shanten

from arena.games.mahjong import tables as tables_module
from arena.games.mahjong.analysis import (
    deficiency,
    deficiency_batch,
    is_winning,
    useful_tiles,
)
from arena.games.mahjong.deficiency import sets_needed
from arena.games.mahjong.tables import (
    TABLE_VERSION,
    HandTables,
    cache_dir,
    get_tables,
    load_tables,
    read_tables,
    save_tables,
)
from arena.games.mahjong.tiles import MahjongError, TileCountError, parse_tiles, to_counts

shanten = Shanten.calculate_shanten_for_regular_hand


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


# --- brute force: the definition itself, over every winning hand of the target size ----------


def _set_vectors() -> np.ndarray:
    rows = []
    for t in range(34):
        v = np.zeros(34, dtype=np.int8)
        v[t] = 3
        rows.append(v)
    for suit in range(3):
        for rank in range(7):
            v = np.zeros(34, dtype=np.int8)
            v[suit * 9 + rank : suit * 9 + rank + 3] = 1
            rows.append(v)
    return np.array(rows)


@cache
def winning_hands(sets: int) -> np.ndarray:
    """Every winning hand of ``sets`` sets and a pair (at most four copies), as 34-counts."""
    set_vectors = _set_vectors()
    combos = list(itertools.combinations_with_replacement(range(len(set_vectors)), sets))
    bodies = (
        set_vectors[np.array(combos)].sum(axis=1, dtype=np.int8)
        if sets
        else np.zeros((1, 34), dtype=np.int8)
    )
    pairs = 2 * np.eye(34, dtype=np.int8)
    hands = (bodies[:, None, :] + pairs[None, :, :]).reshape(-1, 34)
    return hands[hands.max(axis=1) <= 4]


def brute_deficiency(hand: list[int], sets: int) -> int:
    """Fewest tiles of some winning hand that this hand lacks."""
    targets = winning_hands(sets)
    overlap = np.minimum(targets, np.array(hand, dtype=np.int8)).sum(axis=1, dtype=np.int32)
    return 3 * sets + 2 - int(overlap.max())


def random_hand(size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 135), unique=True, min_size=size, max_size=size).map(
        lambda ids: to_counts(i // 4 for i in ids)
    )


@st.composite
def crowded_hand(draw: st.DrawFn, size: int) -> list[int]:
    """A hand from a few kinds only: many pairs, pungs and quads, where four-copy limits bite."""
    kinds = draw(
        st.lists(st.integers(0, 33), unique=True, min_size=max(1, (size + 3) // 4), max_size=8)
    )
    ids = draw(
        st.lists(
            st.sampled_from([k * 4 + i for k in kinds for i in range(4)]),
            unique=True,
            min_size=size,
            max_size=size,
        )
    )
    return to_counts(i // 4 for i in ids)


def any_hand(size: int) -> st.SearchStrategy[list[int]]:
    return st.one_of(random_hand(size), crowded_hand(size))


# --- examples ----------------------------------------------------------------------------------


def test_seed_003_figure_3_1() -> None:
    """Seed 003 §3, 圖三-1: the 17 tiles the seed labels '000000000', '111111111',
    '110030001', '0001001' have deficiency 2. Only that final figure is checked: the seed gets
    it from per-suit database labels ('000', '300', '101', '000', summed to '401': four sets,
    no pair, one partial set), which our min-plus tables do not produce."""
    hand = counts_of("123456789p 125559s 47z")
    assert sum(hand) == 17
    assert deficiency(hand) == 2


def test_examples() -> None:
    assert deficiency(counts_of("123m 456p 789s 111z 234m 77z")) == 0
    assert deficiency(counts_of("123m 456p 789s 111z 234m 7z")) == 1  # ready, 16 tiles
    assert deficiency(counts_of("123m 456p 789s 1122z 5m")) == 1
    assert deficiency(counts_of("1111z 2222z 3333z 44z")) == 3  # each quad's spare must go
    # 7 tiles towards 2 sets and a pair: the fourth 1m can pair only with a fifth, so 2, not 1.
    assert deficiency(counts_of("1111m 234p"), melds=3) == 2


def test_sets_needed_rules() -> None:
    assert [sets_needed(n) for n in (1, 2, 4, 5, 13, 14, 16, 17)] == [0, 0, 1, 1, 4, 4, 5, 5]
    assert sets_needed(3, melds=4) == 1
    with pytest.raises(MahjongError):
        sets_needed(15)
    with pytest.raises(MahjongError):
        sets_needed(20)
    with pytest.raises(MahjongError):
        deficiency(counts_of("123m"))
    with pytest.raises(TileCountError):
        deficiency([5] + [0] * 33)
    with pytest.raises(TileCountError):
        deficiency([-1, 3] + [0] * 32)
    with pytest.raises(MahjongError):
        deficiency([0] * 33)
    with pytest.raises(MahjongError):
        deficiency([0] * 34 + [1])
    with pytest.raises(TileCountError):
        deficiency([1.5] + [0] * 33)  # type: ignore[arg-type]  # a non-integer count, on purpose
    hand = counts_of("123m 456p 789s 1122z 5m")
    assert deficiency(tuple(hand)) == deficiency(np.array(hand, dtype=np.int8)) == 1


@settings(max_examples=250, deadline=None)
@given(st.sampled_from([1, 2, 4, 5, 7, 8]).flatmap(any_hand))
def test_small_hands_match_brute_force(hand: list[int]) -> None:
    assert deficiency(hand) == brute_deficiency(hand, sets_needed(sum(hand)))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2), st.integers(0, 9).flatmap(any_hand))
def test_any_size_against_any_target(sets: int, hand: list[int]) -> None:
    """With ``melds`` the target is fixed, so the hand may be short or long of it."""
    assert deficiency(hand, melds=5 - sets) == brute_deficiency(hand, sets)


def test_eleven_tile_hands_match_brute_force() -> None:
    rng = np.random.default_rng(11)
    for size in (10, 11):
        for _ in range(12):
            hand = to_counts(rng.permutation(136)[:size] // 4)
            assert deficiency(hand) == brute_deficiency(hand, 3)


# --- against the mahjong package ---------------------------------------------------------------


def _random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    ids = np.argsort(rng.random((n, 136)), axis=1)[:, :size] // 4
    hands = np.zeros((n, 34), dtype=np.int8)
    np.add.at(hands, (np.repeat(np.arange(n), size), ids.reshape(-1)), 1)
    return hands


@pytest.mark.parametrize(("size", "n"), [(14, 20_000), (13, 5_000)])
def test_matches_shanten_on_many_random_hands(size: int, n: int) -> None:
    hands = _random_hands(np.random.default_rng(size), n, size)
    as_lists = hands.tolist()
    expected = np.array([shanten(h) + 1 for h in as_lists])
    ours = np.array([deficiency(h) for h in as_lists])
    assert np.array_equal(ours, expected)
    assert np.array_equal(deficiency_batch(hands), expected)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([13, 14]).flatmap(any_hand))
def test_matches_shanten(hand: list[int]) -> None:
    assert deficiency(hand) == shanten(hand) + 1


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([14, 17]).flatmap(any_hand))
def test_zero_exactly_when_winning(hand: list[int]) -> None:
    assert (deficiency(hand) == 0) == is_winning(hand)


def test_batch_with_melds_and_bad_input() -> None:
    hands = _random_hands(np.random.default_rng(3), 200, 11)
    assert np.array_equal(
        deficiency_batch(hands, melds=2), [deficiency(h, melds=2) for h in hands.tolist()]
    )
    with pytest.raises(MahjongError):
        deficiency_batch(_random_hands(np.random.default_rng(3), 5, 12))
    with pytest.raises(TileCountError):
        deficiency_batch(np.full((1, 34), 7))
    with pytest.raises(MahjongError):
        deficiency_batch(np.zeros((2, 30), dtype=np.int8))


# --- useful tiles --------------------------------------------------------------------------------


def test_useful_tiles_example() -> None:
    hand = counts_of("123m 456p 789s 1122z 5m")
    assert useful_tiles(hand) == [(27, 2), (28, 2)]
    visible = counts_of("123m 456p 789s 11122z 5m 9m")
    assert useful_tiles(hand, visible=visible) == [(27, 1), (28, 2)]
    with pytest.raises(MahjongError):
        useful_tiles(hand, visible=[0] * 34)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([13, 14, 16, 17]).flatmap(any_hand), st.data())
def test_useful_tiles_follow_the_definition(hand: list[int], data: st.DataObject) -> None:
    extra = data.draw(random_hand(6))
    visible = [min(4, a + b) for a, b in zip(hand, extra, strict=True)]
    sets = sets_needed(sum(hand))
    base = deficiency(hand)
    expected = []
    for t in range(34):
        if hand[t] < 4:
            hand[t] += 1
            if deficiency(hand, melds=5 - sets) < base:
                expected.append((t, 4 - visible[t]))
            hand[t] -= 1
    assert useful_tiles(hand, visible=visible) == expected
    if base > 0:
        assert expected  # any tile of a nearest winning hand that is missing helps


# --- the table cache ---------------------------------------------------------------------------


def _same(a: HandTables, b: HandTables) -> bool:
    return all(
        np.array_equal(getattr(a, name), getattr(b, name))
        for name in HandTables.__dataclass_fields__
    )


def test_cache_round_trip_and_rebuild(tmp_path: Path) -> None:
    tables = get_tables()
    path = tmp_path / "tables.npz"
    save_tables(tables, path)
    assert _same(read_tables(path), tables)
    loaded, report = load_tables(path)
    assert report.source == "cache" and _same(loaded, tables)

    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["version"] = np.array(TABLE_VERSION + 1)
    np.savez(path, **arrays)
    with pytest.raises(MahjongError):
        read_tables(path)
    rebuilt, report = load_tables(path)
    assert report.source == "built" and _same(rebuilt, tables)
    assert _same(read_tables(path), tables)  # the stale file was replaced

    path.write_bytes(b"not a numpy file")
    with pytest.raises(MahjongError):
        read_tables(path)  # which load_tables treats like a stale version, as above

    # a cache cut short by a crash or a full disk: a zip with no end, or nothing at all
    save_tables(tables, path)
    whole = path.read_bytes()
    for damaged in (whole[: len(whole) // 2], b""):
        path.write_bytes(damaged)
        with pytest.raises(MahjongError, match="cannot read mahjong tables"):
            read_tables(path)
        rebuilt, report = load_tables(path)
        assert report.source == "built" and _same(rebuilt, tables)


def test_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path / "arena"))
    assert cache_dir() == tmp_path / "arena"
    monkeypatch.delenv("ARENA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "table-arena"
    assert tables_module.cache_path().parent == cache_dir()
