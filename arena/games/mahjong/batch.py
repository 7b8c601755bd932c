"""Batch APIs for many hands at once (numpy): a block parser for compact notation and the waits
of (N, 34) count arrays, both checked row by row against the one-hand functions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from arena.games.mahjong.tables import HONOUR_PATTERNS, POW5, SUIT_PATTERNS, WIN_SUM, get_tables
from arena.games.mahjong.tiles import COPIES, NUM_KINDS

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[ord("1") : ord("9") + 1] = True
_SUIT = np.full(256, -1, dtype=np.int8)
for _suit, _letter in enumerate("mpsz"):
    _SUIT[ord(_letter)] = _suit
_PLAIN = _DIGIT | (_SUIT >= 0)
_PLAIN[[ord(" "), ord("\n")]] = True
_NEWLINE = ord("\n")


def parse_block(lines: list[bytes]) -> tuple[IntArray, BoolArray]:
    """Tile counts of many lines of plain compact notation at once, and which lines were plain.

    Plain means digits 1-9 each run closed by a suit letter, runs optionally separated by spaces,
    honours 1z-7z, at most four copies. Other lines (counts meaningless) are left to
    `parse_tiles`, which accepts the rarer forms such as tabs and explains every mistake.
    """
    n = len(lines)
    buf = np.frombuffer(b"\n".join(lines) + b"\n", dtype=np.uint8)
    newline = buf == _NEWLINE
    line_of = np.cumsum(newline) - newline
    bad = np.zeros(n, dtype=bool)
    bad[line_of[~_PLAIN[buf]]] = True

    digit = _DIGIT[buf]
    suit_at = _SUIT[buf]
    letters = np.flatnonzero(suit_at >= 0)
    # A letter at position 0 looks back at the final newline, which is no digit either.
    bad[line_of[letters[~digit[letters - 1]]]] = True

    positions = np.flatnonzero(digit)
    stop = ~digit
    stops = np.flatnonzero(stop)
    # Every digit belongs to the character that ends its run: at a digit, the number of stops so
    # far indexes the next stop, which the trailing newline guarantees.
    suit = suit_at[stops[np.cumsum(stop)[positions]]].astype(np.int64)
    rank = buf[positions].astype(np.int64) - ord("1")
    orphan = (suit < 0) | ((suit == 3) & (rank > 6))
    bad[line_of[positions[orphan]]] = True
    keep = ~orphan
    flat = line_of[positions[keep]] * NUM_KINDS + suit[keep] * 9 + rank[keep]
    counts = np.bincount(flat, minlength=n * NUM_KINDS).reshape(n, NUM_KINDS)
    bad |= (counts > COPIES).any(axis=1)
    return counts, ~bad


def waits_batch(counts: IntArray, own: IntArray | None = None) -> BoolArray:
    """(N, 34) counts of 3k+1 hands in, (N, 34) flags out: which tiles complete each hand.

    Adding a tile changes one component's pattern, so the hand wins when that component's new
    win flag plus the other three flags reaches the winning sum. Matches `waits` row by row,
    including the rule that a tile whose four copies are in the hand or the player's melds
    (``own``) is no wait.
    """
    tables = get_tables()
    c = counts.astype(np.int64)
    n = c.shape[0]
    codes = np.empty((n, 4), dtype=np.int64)
    codes[:, :3] = c[:, :27].reshape(n, 3, 9) @ POW5.astype(np.int64)
    codes[:, 3] = c[:, 27:] @ POW5[:7].astype(np.int64)
    flags = np.empty((n, 4), dtype=np.int64)
    flags[:, :3] = tables.suit_win[codes[:, :3]]
    flags[:, 3] = tables.honour_win[codes[:, 3]]
    others = flags.sum(axis=1, keepdims=True) - flags
    blocked = c + (0 if own is None else own) >= COPIES
    found = np.zeros((n, NUM_KINDS), dtype=bool)
    for t in range(NUM_KINDS):
        part, rank = divmod(t, 9)
        table, size = (
            (tables.honour_win, HONOUR_PATTERNS) if part == 3 else (tables.suit_win, SUIT_PATTERNS)
        )
        # A blocked tile's code would carry into the next rank or past the table; it is masked.
        grown = np.minimum(codes[:, part] + int(POW5[rank]), size - 1)
        found[:, t] = (others[:, part] + table[grown] == WIN_SUM) & ~blocked[:, t]
    return found
