"""Win detection, decompositions and waits against seed 001 and a brute-force reference."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.games.mahjong.analysis import (
    Decomposition,
    _sets_only,
    is_winning,
    is_winning_batch,
    waits,
    winning_decompositions,
)
from arena.games.mahjong.census import one_suit_waits
from arena.games.mahjong.tables import PAIR_FLAG, SETS_FLAG, get_tables, pattern_digits
from arena.games.mahjong.tiles import MahjongError, TileCountError, parse_tiles, to_counts


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


# --- a slow reference: try every pair, then every pung or chow of the smallest tile ----------


@cache
def _ref_sets(c: tuple[int, ...]) -> frozenset[tuple[tuple[str, int], ...]]:
    """Every split of ``c`` into sets (as sorted tuples), by plain recursion."""
    nonzero = [t for t in range(34) if c[t]]
    if not nonzero:
        return frozenset({()})
    t = nonzero[0]
    out: set[tuple[tuple[str, int], ...]] = set()
    if c[t] >= 3:
        rest = list(c)
        rest[t] -= 3
        out |= {tuple(sorted((("pung", t), *s))) for s in _ref_sets(tuple(rest))}
    if t < 27 and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        rest = list(c)
        for k in (t, t + 1, t + 2):
            rest[k] -= 1
        out |= {tuple(sorted((("chow", t), *s))) for s in _ref_sets(tuple(rest))}
    return frozenset(out)


def ref_decompositions(c: list[int]) -> set[tuple[int, tuple[tuple[str, int], ...]]]:
    found = set()
    for pair in range(34):
        if c[pair] >= 2:
            rest = list(c)
            rest[pair] -= 2
            found |= {(pair, s) for s in _ref_sets(tuple(rest))}
    return found


def ref_winning(c: list[int]) -> bool:
    return sum(c) % 3 == 2 and bool(ref_decompositions(c))


# --- hand strategies --------------------------------------------------------------------------


def random_hand(size: int) -> st.SearchStrategy[list[int]]:
    """A hand drawn from the 136 physical tiles."""
    return st.lists(st.integers(0, 135), unique=True, min_size=size, max_size=size).map(
        lambda ids: to_counts(i // 4 for i in ids)
    )


@st.composite
def near_winning_hand(draw: st.DrawFn, sets: int) -> list[int]:
    """Sets and a pair, then possibly one tile swapped: wins often, fails narrowly otherwise."""
    c = [0] * 34
    for _ in range(sets):
        if draw(st.booleans()):
            start = draw(st.integers(0, 2)) * 9 + draw(st.integers(0, 6))
            for t in (start, start + 1, start + 2):
                c[t] += 1
        else:
            c[draw(st.integers(0, 33))] += 3
    c[draw(st.integers(0, 33))] += 2
    if draw(st.booleans()):
        held = [t for t in range(34) if c[t]]
        c[draw(st.sampled_from(held))] -= 1
        c[draw(st.integers(0, 33))] += 1
    assume(max(c) <= 4)
    return c


def hands_of(size: int) -> st.SearchStrategy[list[int]]:
    return st.one_of(random_hand(size), near_winning_hand((size - 2) // 3))


# --- seed 001's examples ----------------------------------------------------------------------


def test_seed_examples() -> None:
    assert is_winning(counts_of("33345678m"))  # example 1
    # Example 2 is already 3k+2 (11 tiles), so only its splits can reject it; the control, one
    # tile changed, shows an 11-tile hand is not turned away by its size.
    assert not is_winning(counts_of("55666777889m"))
    assert is_winning(counts_of("55666777888m"))
    assert is_winning(counts_of("23333444455556666m"))  # theorem 2's pair is 44
    assert is_winning(counts_of("22233344m"))
    assert not is_winning(counts_of("22233346m"))
    assert waits(counts_of("3456667888m")) == [1, 4, 5, 6, 7, 8]  # example 3: 2 5 6 7 8 9
    assert waits(counts_of("1112345678999m")) == list(range(9))  # 九連寶燈


def test_seed_example_two_fails_for_every_pair() -> None:
    # The seed tries 55, 66 and 77 as the eye (88 too is a pair): theorem 1 then fails each time.
    hand = counts_of("55666777889m")
    pairs = [t for t in range(34) if hand[t] >= 2]
    assert pairs == [4, 5, 6, 7]
    for pair in pairs:
        rest = hand.copy()
        rest[pair] -= 2
        assert not _sets_only(rest[:9])
    assert winning_decompositions(hand) == []


def test_theorem_two_example_decomposition() -> None:
    """Seed 001, theorem 2: 23333444455556666 holds 4, 5 and 8 tiles of ranks 147, 258 and 369
    (remainders 1, 2, 2), so the eye is 44; then 234 333 456 555 666, and no other split."""
    hand = counts_of("23333444455556666m")
    assert [sum(hand[r:9:3]) for r in range(3)] == [4, 5, 8]
    decompositions = winning_decompositions(hand)
    assert decompositions == [
        Decomposition(3, (("chow", 1), ("pung", 2), ("chow", 3), ("pung", 4), ("pung", 5)))
    ]
    assert str(decompositions[0]) == "44m 234m 333m 456m 555m 666m"


def test_mixed_suits_and_honours() -> None:
    assert is_winning(counts_of("123m 456p 789s 11122z 555z"))
    assert is_winning(counts_of("123m 456p 789s 111z 234m 77z"))
    assert not is_winning(counts_of("123m 456p 789s 11z 22z 33z"))
    assert not is_winning(counts_of("1111z 123m 456p 78s 9s"))
    assert is_winning(counts_of("11m"))  # no sets needed at all
    assert not is_winning([0] * 34)


def test_sets_needed() -> None:
    hand = counts_of("123m 456p 789s 111z 22z")
    assert is_winning(hand, sets_needed=4)
    assert not is_winning(hand, sets_needed=5)
    hand17 = counts_of("123m 456p 789s 111z 234m 77z")
    assert is_winning(hand17, sets_needed=5)
    assert is_winning(hand17)


def test_invalid_counts() -> None:
    five = [0] * 34
    five[0:4] = [5, 1, 1, 1]  # would split as 11m 111m 234m
    with pytest.raises(TileCountError):
        is_winning(five)
    with pytest.raises(MahjongError):
        is_winning([0] * 10)
    with pytest.raises(TileCountError):
        waits([5] + [0] * 33)


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands_of(14), hands_of(17)))
def test_is_winning_matches_brute_force(hand: list[int]) -> None:
    assert is_winning(hand) == ref_winning(hand)
    assert is_winning(tuple(hand)) == ref_winning(hand)
    assert is_winning(np.array(hand)) == ref_winning(hand)


@settings(max_examples=200, deadline=None)
@given(st.one_of(hands_of(14), hands_of(17), hands_of(11)))
def test_decompositions_match_brute_force(hand: list[int]) -> None:
    ours = winning_decompositions(hand)
    assert {(d.pair, tuple(sorted(d.sets))) for d in ours} == ref_decompositions(hand)
    assert all(list(d.sets) == sorted(d.sets, key=lambda s: (s[1], s[0])) for d in ours)
    assert len(ours) == len(set(ours))


def test_decomposition_examples() -> None:
    decs = winning_decompositions(counts_of("111222333m 11p"))
    assert sorted(str(d) for d in decs) == ["11p 111m 222m 333m", "11p 123m 123m 123m"]
    d = next(d for d in decs if d.chows)
    assert d.pungs == () and d.chows == (0, 0, 0) and d.pair == 9
    assert winning_decompositions(counts_of("123m 456p 789s 11z 23z")) == []
    only = winning_decompositions(counts_of("123m 456p 789s 555z 77z"))
    assert only == [
        Decomposition(33, (("chow", 0), ("chow", 12), ("chow", 24), ("pung", 31))),
    ]


def test_waits_respect_visible_copies() -> None:
    assert waits(counts_of("1m")) == [0]
    melds = counts_of("111m")
    assert waits(counts_of("1m"), melds) == []  # the other three are in the player's own pon
    assert waits(counts_of("1112m")) == [1, 2]
    assert waits(counts_of("1111m 234p")) == []  # only a fifth 1m would complete it
    with pytest.raises(MahjongError):
        waits(counts_of("11m"))


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands_of(14), hands_of(17)), st.data())
def test_waits_match_brute_force(hand: list[int], data: st.DataObject) -> None:
    held = [t for t in range(34) if hand[t]]
    hand[data.draw(st.sampled_from(held))] -= 1
    expected = []
    for t in range(34):
        if hand[t] < 4:
            hand[t] += 1
            if ref_winning(hand):
                expected.append(t)
            hand[t] -= 1
    assert waits(hand) == expected


def test_seed_001_wait_counts() -> None:
    """Seed 001: among one-suit hands, 13 tiles: 1 waits on 9 tiles, 16 on 8, 79 on 7;
    16 tiles: 11, 94 and 532.

    Counting convention that reproduces the seed exactly: a hand is a multiset of one suit's
    tiles (at most four of a kind), counted once, and its waits are the distinct ranks that
    complete it, a rank the hand already holds four times not counting (no fifth copy). Counting
    such a rank as a wait would give 8/44/155 and 108/371/1186 instead.

    Every one-suit pattern is enumerated through the per-suit table of theorem-1 flags
    (`census.one_suit_waits`, which ``arena mahjong census`` prints); the public `waits` must
    agree on every hand with seven or more waits.
    """
    expected = {13: {9: 1, 8: 16, 7: 79}, 16: {9: 11, 8: 94, 7: 532}}
    fifth = {13: {9: 8, 8: 44, 7: 155}, 16: {9: 108, 8: 371, 7: 1186}}
    for size, wanted in expected.items():
        hands, n_waits = one_suit_waits(size)
        assert {k: int((n_waits == k).sum()) for k in wanted} == wanted
        _, n_fifth = one_suit_waits(size, fifth_copy=True)
        assert {k: int((n_fifth == k).sum()) for k in wanted} == fifth[size]
        many = n_waits >= 7
        for counts, n in zip(hands[many].tolist(), n_waits[many].tolist(), strict=True):
            assert len(waits([*counts, *([0] * 25)])) == n


SEED_NINE_WAITS_16 = (
    "1122233345678999",
    "1112345667788999",
    "1112345666777888",
    "1112345566778999",
    "1112344556678999",
)
"""Seed 001's sixteen-tile hands that wait on nine tiles, "or their shifts and reflections"."""


def _shifts_and_reflections(counts: tuple[int, ...]) -> set[tuple[int, ...]]:
    """A one-suit hand's nine counts moved up or down the suit, and mirrored (rank r ↔ 10 − r)."""
    out = set()
    for hand in (counts, counts[::-1]):
        held = [r for r, n in enumerate(hand) if n]
        for shift in range(-held[0], 9 - held[-1]):
            moved = [0] * 9
            for r in held:
                moved[r + shift] = hand[r]
            out.add(tuple(moved))
    return out


def test_seed_001_sixteen_tile_nine_waits_are_its_five_and_their_variants() -> None:
    for text in SEED_NINE_WAITS_16:
        assert waits(counts_of(text + "m")) == list(range(9)), text
    listed = {tuple(counts_of(text + "m")[:9]) for text in SEED_NINE_WAITS_16}
    variants = set().union(*(_shifts_and_reflections(c) for c in listed))
    hands, n_waits = one_suit_waits(16)
    nine = {tuple(c) for c in hands[n_waits == 9].tolist()}
    assert len(nine) == 11
    assert nine == variants
    assert listed <= nine and len(listed) == 5


def test_table_flags_follow_theorem_one() -> None:
    tables = get_tables()
    rng = np.random.default_rng(7)
    digits = pattern_digits(9)
    for code in rng.integers(0, 5**9, 3000):
        c = digits[code].tolist()
        total = sum(c)
        flag = int(tables.suit_win[code])
        hand = c + [0] * 25
        assert (flag == PAIR_FLAG) == (total % 3 == 2 and ref_winning(hand))
        if total % 3 == 0:
            plus_pair = hand.copy()
            plus_pair[27] = 2
            assert (flag == SETS_FLAG) == ref_winning(plus_pair)


def test_theorem_one_automaton_matches_the_vectorised_tables() -> None:
    """The one-hand check (`_sets_only`) and the table generator implement theorem 1 apart."""
    tables = get_tables()
    digits = pattern_digits(9)
    codes = np.random.default_rng(1).choice(5**9, 100_000, replace=False)
    for code, c in zip(codes.tolist(), digits[codes].tolist(), strict=True):
        assert _sets_only(c) == (tables.suit_win[code] == SETS_FLAG)


def _batch_hands(rng: np.random.Generator, n: int, sets: int) -> np.ndarray:
    rows: list[np.ndarray] = []
    while len(rows) < n:
        c = np.zeros(34, dtype=np.int8)
        for _ in range(sets):
            if rng.random() < 0.6:
                start = rng.integers(3) * 9 + rng.integers(7)
                c[start : start + 3] += 1
            else:
                c[rng.integers(34)] += 3
        c[rng.integers(34)] += 2
        if rng.random() < 0.5:
            c[rng.choice(np.flatnonzero(c))] -= 1
            c[rng.integers(34)] += 1
        if c.max() <= 4:
            rows.append(c)
    randoms = np.zeros((n, 34), dtype=np.int8)
    for i in range(n):
        np.add.at(randoms[i], rng.permutation(136)[: 3 * sets + 2] // 4, 1)
    return np.concatenate([np.array(rows), randoms])


@pytest.mark.parametrize("sets", [4, 5])
def test_batch_matches_single(sets: int) -> None:
    hands = _batch_hands(np.random.default_rng(sets), 1500, sets)
    expected = np.array([is_winning(h.tolist()) for h in hands])
    assert expected.any() and not expected.all()
    assert np.array_equal(is_winning_batch(hands), expected)
    assert np.array_equal(is_winning_batch(hands, sets_needed=sets), expected)
    assert not is_winning_batch(hands, sets_needed=sets + 1).any()


def test_batch_rejects_bad_input() -> None:
    with pytest.raises(MahjongError):
        is_winning_batch(np.zeros((3, 33), dtype=np.int8))
    with pytest.raises(TileCountError):
        is_winning_batch(np.full((2, 34), 5, dtype=np.int8))
    assert is_winning_batch(np.zeros((0, 34), dtype=np.int8)).shape == (0,)
