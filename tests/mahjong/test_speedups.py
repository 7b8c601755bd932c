"""The C one-hand checks (``_speedups.c``) against their Python reference, input by input.

Every other mahjong test runs through whichever implementation this process uses; these compare
the two directly, answers and exceptions alike, on valid hands of every size and on every kind
of bad input, and check that a machine with a C compiler really built the C one.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.mahjong import analysis, speedups
from arena.games.mahjong.deficiency import _deficiency_python, deficiency
from arena.games.mahjong.tables import get_tables
from arena.games.mahjong.tiles import parse_tiles, to_counts

# The module itself: the package exports a function of the same name.
deficiency_module: Any = importlib.import_module("arena.games.mahjong.deficiency")

needs_c = pytest.mark.skipif(
    speedups.c_is_winning is None, reason="the C checks are not built in this environment"
)


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """What a call gives: its value and that value's type, or the exception it raises."""
    try:
        value = fn(*args, **kwargs)
    except Exception as exc:
        return ("raises", type(exc), str(exc))
    return ("returns", type(value), value)


def both_agree(
    counts: Any, sets_needed: Any = None, melds: Any = None, sets_total: int = 5
) -> None:
    assert outcome(analysis.is_winning, counts, sets_needed) == outcome(
        analysis._is_winning_python, counts, sets_needed
    ), (counts, sets_needed)
    assert outcome(deficiency, counts, melds, sets_total=sets_total) == outcome(
        _deficiency_python, counts, melds, sets_total=sets_total
    ), (counts, melds, sets_total)


def test_a_machine_with_a_c_compiler_builds_the_c_checks() -> None:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: the Python checks are the ones in use")
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("no Python headers here: the Python checks are the ones in use")
    if os.environ.get(speedups.PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        pytest.skip(f"{speedups.PURE_PYTHON_VARIABLE} is set")
    assert speedups.IMPLEMENTATION == "C", (
        "a C compiler is here but arena.games.mahjong._speedups did not import: run "
        "scripts/ensure-env.sh (or pip install -e .) to build it"
    )


@needs_c
@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=34, max_size=34),
    st.sampled_from([None, 0, 1, 3, 4, 5]),
    st.sampled_from([None, 0, 1, 2, 5, 6, -1]),
)
def test_random_counts_agree(counts: list[int], sets_needed: int | None, melds: int | None) -> None:
    both_agree(counts, sets_needed, melds)
    both_agree(tuple(counts), sets_needed, melds)


def winning_shape(rng: np.random.Generator, sets: int) -> list[int]:
    """A pair and ``sets`` random chows or pungs: a winning shape, but copies may exceed four."""
    counts = [0] * 34
    counts[int(rng.integers(34))] += 2
    for _ in range(sets):
        t = int(rng.integers(34))
        if t < 27 and t % 9 < 7 and rng.random() < 0.5:
            for k in range(3):
                counts[t + k] += 1
        else:
            counts[t] += 3
    return counts


@needs_c
def test_hands_of_every_size_agree() -> None:
    """Hands of 0 to 18 tiles drawn from the wall, a third of them built to win."""
    rng = np.random.default_rng(7)
    for size in range(19):
        for round_ in range(300):
            if round_ % 3 == 0 and size % 3 == 2:
                counts = winning_shape(rng, (size - 2) // 3)
                if max(counts) > 4:
                    continue
            else:
                tiles = rng.permutation(136)[:size] // 4
                counts = np.bincount(tiles, minlength=34).tolist()
            for sets_needed in (None, (size - 2) // 3):
                both_agree(counts, sets_needed)
            for melds in (None, 0, 5 - (size - 1) // 3):
                both_agree(counts, None, melds)


@needs_c
def test_a_winning_hand_agrees_and_wins() -> None:
    winning = to_counts(parse_tiles("1m1m1m 2m3m4m 5p6p7p 9s9s9s 1z1z1z 5s5s"))
    assert analysis.is_winning(winning) is True
    assert deficiency(winning) == 0
    both_agree(winning, 4)
    both_agree(winning, 5)


def _mismatches(hands: Iterator[list[int]]) -> list[list[int]]:
    """Hands on which the C checks, called directly, differ from the Python reference."""
    c_win, c_def = speedups.c_is_winning, speedups.c_deficiency
    assert c_win is not None and c_def is not None
    python_win, python_def = analysis._is_winning_python, _deficiency_python
    wrong = []
    for hand in hands:
        size = sum(hand)
        win_differs = c_win(hand, None) != python_win(hand)
        if win_differs or (size % 3 and size <= 17 and c_def(hand, -1) != python_def(hand)):
            wrong.append(hand)
    return wrong


@needs_c
def test_every_pattern_of_one_suit_and_of_the_honours_agrees() -> None:
    """Every 5**9 count pattern of a suit, alone and beside an honour pair (so the suit must hold
    the pair, or sets only), and every 5**7 honour pattern beside nothing, a suit pair
    or a suit chow: the whole of each theorem's input space, quads and double pairs included."""
    deficiency([0] * 33 + [2])  # loads the tables, for the C deficiency too
    rests = ([0] * 25, [0] * 18 + [2] + [0] * 6)
    suits = (list(pattern) + rest for pattern in product(range(5), repeat=9) for rest in rests)
    assert _mismatches(suits) == []
    prefixes = ([0] * 27, [2] + [0] * 26, [1, 1, 1] + [0] * 24)
    honours = (
        prefix + list(pattern) for pattern in product(range(5), repeat=7) for prefix in prefixes
    )
    assert _mismatches(honours) == []


@needs_c
def test_winning_hands_changed_by_a_count_or_two_agree() -> None:
    """Winning hands with one or two counts moved, quads made, pairs doubled: the near misses
    where a wrong rule would first answer True."""
    rng = np.random.default_rng(11)

    def near_misses() -> Iterator[list[int]]:
        for _ in range(20_000):
            hand = winning_shape(rng, int(rng.integers(0, 6)))
            for _ in range(int(rng.integers(0, 3))):
                hand[int(rng.integers(34))] += int(rng.choice([-2, -1, 1, 2]))
            if min(hand) >= 0 and max(hand) <= 4:
                yield hand

    assert _mismatches(near_misses()) == []


class Index:
    """An object Python arithmetic rejects but ``operator.index`` accepts."""

    def __index__(self) -> int:
        return 4


@needs_c
@pytest.mark.parametrize(
    "odd", [np.int64(4), np.int64(5), Index(), True, 2**70, -(2**70), -1, 44, 45]
)
def test_odd_set_and_meld_numbers_agree(odd: Any) -> None:
    winning = to_counts(parse_tiles("1m1m1m 2m3m4m 5p6p7p 9s9s9s 1z1z1z 5s5s"))
    for counts in (winning, [5] + [0] * 33, [1] * 13 + [0] * 21):
        both_agree(counts, odd, odd)
        assert outcome(deficiency, counts, 1, sets_total=odd) == outcome(
            _deficiency_python, counts, 1, sets_total=odd
        )


@needs_c
def test_the_c_deficiency_refuses_tables_that_would_send_it_out_of_bounds() -> None:
    install = speedups.c_install
    assert install is not None
    t = get_tables()
    args = (t.n_suit_classes, t.n_honour_classes, t.merge.shape[0])
    try:
        broken = t.suit_class.copy()
        broken[123] = t.n_suit_classes  # one class past the merge table's columns
        with pytest.raises(ValueError, match=r"suit_class\[123\]"):
            install(broken, t.honour_class, t.merge, t.final, *args)
        # Refused, the C deficiency is off: the Python one answers.
        assert speedups.c_deficiency is not None
        assert speedups.c_deficiency([0] * 33 + [2], -1) is None
        with pytest.raises(ValueError, match="class counts"):
            install(t.suit_class, t.honour_class, t.merge, t.final, 2**40, 1, 1)
        with pytest.raises(ValueError, match="merge"):
            install(t.suit_class, t.honour_class, t.merge[:-1], t.final, *args)
        with pytest.raises(ValueError, match="unsigned"):
            install(t.suit_class.astype(np.int16), t.honour_class, t.merge, t.final, *args)
    finally:
        install(t.suit_class, t.honour_class, t.merge, t.final, *args)
    assert speedups.c_deficiency([0] * 33 + [2], -1) == 0


class NeverEqual(int):
    """An int that is equal to nothing: the Python win check asks ``1 in honours``."""

    __hash__ = int.__hash__

    def __eq__(self, other: object) -> bool:
        return False


class AddsOneMore(int):
    """An int that adds as one more than it is: the Python win check sums each suit."""

    def __add__(self, other: int) -> int:
        return int(self) + 1 + other

    __radd__ = __add__


@needs_c
@pytest.mark.parametrize(
    ("counts", "sets_needed"),
    [
        # A lone honour the Python check cannot see: it answers True, the C one read 1: False.
        ([2] + [0] * 26 + [NeverEqual(1)] + [0] * 6, None),
        # A sou that sums to 1 in Python (no win) and to 0 in C (an honour pair: a win).
        ([0] * 26 + [AddsOneMore(0)] + [0] * 5 + [2, 0], 0),
    ],
)
def test_int_subclasses_in_the_counts_are_left_to_python(
    counts: list[int], sets_needed: int | None
) -> None:
    """Found by fuzzing the C checks: an int subclass can change the arithmetic the Python win
    check does on the counts, so the C one must not read it as the plain int it holds."""
    for container in (list, tuple):
        both_agree(container(counts), sets_needed)
        assert speedups.c_is_winning is not None
        assert speedups.c_is_winning(container(counts), sets_needed) is None


BAD_COUNTS: list[Any] = [
    [0] * 33,
    [0] * 35,
    [5] + [0] * 33,
    [-1] + [0] * 33,
    [2**70] + [0] * 33,
    [-(2**70)] + [0] * 33,
    [1.0] + [0] * 33,
    ["1"] + [0] * 33,
    [None] + [0] * 33,
    [True, True] + [0] * 32,
    [np.int64(2)] + [0] * 33,
    np.zeros(34, dtype=np.int64),
    np.array([2] + [0] * 33, dtype=np.int8),
    bytes(34),
    "x" * 34,
    None,
    42,
    [[0]] * 34,
]


@needs_c
@pytest.mark.parametrize("counts", BAD_COUNTS, ids=range(len(BAD_COUNTS)))
@pytest.mark.parametrize("sets_needed", [None, 0, 4.0, "4"])
def test_bad_counts_give_the_same_answer_or_error(counts: Any, sets_needed: Any) -> None:
    both_agree(counts, sets_needed, None)
    both_agree(counts, sets_needed, 1)


@needs_c
@pytest.mark.parametrize("melds", [None, 0, 5, 6, -1, 1.0, "1", 2**70])
@pytest.mark.parametrize("sets_total", [5, 4, 0, 7])
def test_odd_melds_and_set_totals_agree(melds: Any, sets_total: int) -> None:
    for counts in ([1] * 13 + [0] * 21, [2] * 7 + [0] * 27, [0] * 34, [3] * 6 + [0] * 28):
        both_agree(counts, None, melds, sets_total)


def test_pure_python_switch_leaves_the_c_checks_out() -> None:
    code = (
        "from arena.games.mahjong import speedups, analysis\n"
        "from arena.games.mahjong.deficiency import deficiency\n"
        "from arena.games.mahjong.tiles import parse_tiles, to_counts\n"
        "c = to_counts(parse_tiles('1m1m1m 2m3m4m 5p6p7p 9s9s9s 1z1z1z 5s5s'))\n"
        "print(speedups.IMPLEMENTATION, analysis.is_winning(c), deficiency(c))\n"
    )
    env = {**os.environ, speedups.PURE_PYTHON_VARIABLE: "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["Python", "True", "0"]


@needs_c
def test_tables_changed_after_install_give_python_its_say_not_a_stray_read() -> None:
    """The tables stay writable from Python: an entry changed after install must make the C
    lookup hand back (the Python one then raises), never read outside a table."""
    install = speedups.c_install
    assert install is not None and speedups.c_deficiency is not None
    t = get_tables()
    args = (t.n_suit_classes, t.n_honour_classes, t.merge.shape[0])
    merge = t.merge.copy()
    hand = [0] * 33 + [2]
    try:
        install(t.suit_class, t.honour_class, merge, t.final, *args)
        assert speedups.c_deficiency(hand, -1) == 0
        merge[:] = np.iinfo(merge.dtype).max
        assert speedups.c_deficiency(hand, -1) is None
    finally:
        install(t.suit_class, t.honour_class, t.merge, t.final, *args)
    assert speedups.c_deficiency(hand, -1) == 0


@needs_c
def test_tables_the_c_deficiency_refuses_leave_it_to_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = get_tables()
    broken = t.suit_class.copy()
    broken[0] = t.n_suit_classes
    monkeypatch.setattr(deficiency_module, "c_deficiency", deficiency_module.c_deficiency)
    monkeypatch.setattr(deficiency_module, "_FAST", None)
    monkeypatch.setattr(
        deficiency_module, "get_tables", lambda: dataclasses.replace(t, suit_class=broken)
    )
    try:
        assert deficiency_module.deficiency_implementation() == "Python"
        assert deficiency_module.c_deficiency is None
        # Python answers from the same tables: the hand below never reads the broken entry.
        assert deficiency([1, 1] + [0] * 31 + [2]) == deficiency_module._deficiency_python(
            [1, 1] + [0] * 31 + [2]
        )
    finally:
        monkeypatch.undo()
        deficiency_module._FAST = None
        deficiency_module._load_fast()
    assert deficiency_module.deficiency_implementation() == "C"
