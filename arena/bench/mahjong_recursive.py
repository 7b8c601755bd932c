"""The baselines seed 001 compares its theorem 1 with, for ``arena bench mahjong``: written
plainly in Python, with no tables, memoisation or pruning, on 34 counts as the analysis takes.

- `recursive_is_winning`: the "usual" method the seed calls inefficient (一般都是刪除「一刻」或
  「一順」……再利用「遞迴」程序處理): try every possible pair, then remove a pung or a chow
  starting at the lowest tile left, recursively, backtracking when a branch fails.
- `theorem_one_is_winning`: the seed's theorem 1 spelt out the same plain way: try every
  possible pair (no theorem 2), then one upward pass where the lowest tile left starts a pung
  if it has three copies, else a chow. Against `recursive_is_winning` it isolates the
  algorithm from our implementation's tables and C code.
- `recursive_waits`: the plain wait search: add each of the 34 kinds in turn (while a copy is
  left) and run `recursive_is_winning`.
- `set_removals`: the work of the two checks counted rather than timed, so the comparison does
  not move with the machine's load: the sets each removes on a hand, the recursion's undone ones
  included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_KINDS = 34
_SUITED = 27
"""Tiles 0 … 26 are the three suits of nine ranks; 27 … 33 the honours, which make no chow."""


def _chow_starts(t: int) -> bool:
    return t < _SUITED and t % 9 <= 6


def _remove_sets(c: list[int], start: int = 0) -> bool:
    """Can ``c`` (tiles below ``start`` already used up) split into sets only? Recursion with
    backtracking: the lowest tile left is in a pung or starts a chow; try both."""
    t = start
    while t < _KINDS and c[t] == 0:
        t += 1
    if t == _KINDS:
        return True
    if c[t] >= 3:
        c[t] -= 3
        found = _remove_sets(c, t)
        c[t] += 3
        if found:
            return True
    if _chow_starts(t) and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        found = _remove_sets(c, t)
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1
        if found:
            return True
    return False


def _some_pair_and_sets(counts: Sequence[int], sets_only: Callable[[list[int]], bool]) -> bool:
    """Is this hand of 34 counts some sets and a pair? Every possible pair in turn, the tiles
    left checked by ``sets_only``, up to the first pair that leaves sets only."""
    c = list(counts)
    if sum(c) % 3 != 2:
        return False
    for pair in range(_KINDS):
        if c[pair] >= 2:
            c[pair] -= 2
            found = sets_only(c)
            c[pair] += 2
            if found:
                return True
    return False


def recursive_is_winning(counts: Sequence[int]) -> bool:
    """Is this hand of 34 counts some sets and a pair? Every pair, then recursive removal."""
    return _some_pair_and_sets(counts, _remove_sets)


def _greedy_sets(c: Sequence[int]) -> bool:
    """Theorem 1 without the pair, in one upward pass and no choice ever undone: at each tile
    the copies left after the chows already running through it take a pung when there are three,
    and the rest start chows (``opened`` at this tile, ``running`` the ones opened just below)."""
    opened = running = 0
    for t in range(_KINDS):
        left = c[t] - opened - running
        if left < 0:
            return False
        if left >= 3:
            left -= 3
        if left and not _chow_starts(t):
            return False
        running, opened = opened, left
    return True


def theorem_one_is_winning(counts: Sequence[int]) -> bool:
    """Is this hand of 34 counts some sets and a pair? Every pair, then theorem 1."""
    return _some_pair_and_sets(counts, _greedy_sets)


def recursive_waits(counts: Sequence[int]) -> list[int]:
    """The tiles that complete a ``3k+1`` hand: each kind with a copy left, added in turn and
    checked by `recursive_is_winning`."""
    c = list(counts)
    found = []
    for t in range(_KINDS):
        if c[t] < 4:
            c[t] += 1
            if recursive_is_winning(c):
                found.append(t)
            c[t] -= 1
    return found


def _removals(c: list[int], start: int, backtrack: bool) -> tuple[bool, int]:
    """Can ``c`` split into sets only, and how many sets were removed finding out? With
    ``backtrack`` as `_remove_sets` (a failed pung branch is undone and a chow tried); without,
    theorem 1 (three copies or more: the pung, no other choice)."""
    t = start
    while t < _KINDS and c[t] == 0:
        t += 1
    if t == _KINDS:
        return True, 0
    removed = 0
    if c[t] >= 3:
        c[t] -= 3
        found, after = _removals(c, t, backtrack)
        c[t] += 3
        removed += 1 + after
        if found or not backtrack:
            return found, removed
    if _chow_starts(t) and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        found, after = _removals(c, t, backtrack)
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1
        return found, removed + 1 + after
    return False, removed


def set_removals(counts: Sequence[int], backtrack: bool) -> tuple[bool, int]:
    """Whether the hand of 34 counts wins, and how many sets the check removed on the way:
    every pair in the order both checks try them, up to the first that wins, then the recursion
    (``backtrack``) or theorem 1's pass. Theorem 1's pass is the recursion's first branch, so
    the difference is the work the recursion undoes."""
    c = list(counts)
    if sum(c) % 3 != 2:
        return False, 0
    removed = 0
    for pair in range(_KINDS):
        if c[pair] >= 2:
            c[pair] -= 2
            found, spent = _removals(c, 0, backtrack)
            c[pair] += 2
            removed += spent
            if found:
                return True, removed
    return False, removed
