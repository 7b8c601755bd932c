"""The deficiency number (進胡數, seed 003 §3) and the tiles that lower it.

The deficiency of a concealed hand is the fewest tiles that must still come in before it wins:
the minimum, over every winning hand ``W`` (the sets still needed plus a pair, at most four
copies of a kind), of the tiles of ``W`` the hand lacks. For a hand of ``3k+2`` tiles that is
the number of tiles to exchange; for ``3k+1`` tiles it is the number of draws (one more than the
exchanges, since the winning tile itself is a draw). It equals the ``mahjong`` package's
``calculate_shanten_for_regular_hand`` plus one on every 13- and 14-tile hand compared so far
(the tests compare tens of thousands, random and crowded with pairs and quads).

Exposed melds are complete sets. By default the number of sets still needed is read off the
concealed size (``3k+1`` or ``3k+2`` tiles need ``k`` sets), which is right for every legal hand
of the 16-tile game; ``melds`` states it instead as ``sets_total - melds``.

Each suit's pattern selects a class in `tables`, and the per-suit vectors "fewest tiles to add for
``m`` sets and ``e`` pairs" are combined by lookups in a merge table (their min-plus
combination), honours last: a hand costs four pattern indices and seven table lookups.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from arena.games.mahjong.speedups import c_deficiency, c_install
from arena.games.mahjong.tables import MAX_SETS, POW5, get_tables
from arena.games.mahjong.tiles import COPIES, NUM_KINDS, MahjongError, TileCountError

CountsLike = Sequence[int] | npt.NDArray[np.integer[Any]]
"""34 tile counts: a list (fastest), a tuple or a numpy vector."""

HAND_SETS = 5
"""Sets in a winning hand of the 16-tile game (plus a pair: 17 tiles)."""

_BATCH_ROWS = 1 << 16
"""Rows per chunk: bounds the temporary arrays (a few MB) while keeping numpy calls large."""

__all__ = [
    "HAND_SETS",
    "CountsLike",
    "deficiency",
    "deficiency_batch",
    "sets_needed",
    "useful_tiles",
]


class _Fast(NamedTuple):
    """The tables as flat Python-indexable buffers: indexing a numpy array from Python costs
    about ten times more than indexing a memoryview. A tuple, so the hot path unpacks it."""

    suit_class: memoryview
    honour_class: memoryview
    merge: memoryview
    final: memoryview
    n_suit: int
    n_honour: int


def _view(arr: npt.NDArray[np.generic]) -> memoryview:
    flat = np.ascontiguousarray(arr).reshape(-1)
    return flat.data.cast("B").cast(flat.dtype.char)


_FAST: _Fast | None = None


def _load_fast() -> _Fast:
    global _FAST
    t = get_tables()
    _FAST = _Fast(
        suit_class=_view(t.suit_class),
        honour_class=_view(t.honour_class),
        merge=_view(t.merge),
        final=_view(t.final),
        n_suit=t.n_suit_classes,
        n_honour=t.n_honour_classes,
    )
    if c_install is not None:
        # The C version checks the tables before it holds them; tables it refuses (a corrupt
        # cache) turn it off, and the Python lookups raise on them where they are wrong.
        try:
            c_install(
                t.suit_class,
                t.honour_class,
                t.merge,
                t.final,
                t.n_suit_classes,
                t.n_honour_classes,
                t.merge.shape[0],
            )
        except (ValueError, TypeError, BufferError, OverflowError):
            global c_deficiency
            c_deficiency = None
    return _FAST


def deficiency_implementation() -> str:
    """``"C"`` or ``"Python"``: which one `deficiency` uses in this process (the tables are
    loaded first, since the C one can refuse them)."""
    if _FAST is None:
        _load_fast()
    return "C" if c_deficiency is not None else "Python"


_SUIT_PATTERNS = 5**9
"""Count patterns of one suit's nine kinds: the base-5 place value of the next suit."""

_POW5 = tuple(5**rank for rank in range(9))
"""Place value of each rank in a suit's (or the honours') base-5 pattern index."""

_VALID_COUNTS = bytes(range(COPIES + 1))
_BASE5_DIGITS = bytes(ord("0") + i if i <= COPIES else ord("x") for i in range(256))


def _as_bytes(counts: CountsLike) -> bytes:
    """The 34 counts as bytes, validated.

    ``bytes()`` already rejects non-integers and values outside 0..255, and deleting the bytes
    0..4 must leave nothing: less than half the cost of ``max`` and ``min`` on a list, which
    matters in functions meant to be called for every candidate discard.
    """
    try:
        b = bytes(counts.tolist() if isinstance(counts, np.ndarray) else counts)
    except (TypeError, ValueError) as exc:
        raise TileCountError(f"counts must be integers in 0..{COPIES}: {exc}") from None
    if len(b) != NUM_KINDS:
        raise MahjongError(f"expected {NUM_KINDS} counts, got {len(b)}")
    if b.translate(None, _VALID_COUNTS):
        raise TileCountError(f"counts must lie in 0..{COPIES}, got {list(b)}")
    return b


def sets_needed(n_tiles: int, melds: int | None = None, sets_total: int = HAND_SETS) -> int:
    """Sets the concealed part must still form: from its size, or ``sets_total - melds``."""
    if melds is not None:
        sets = sets_total - melds
    elif n_tiles % 3 == 0:
        raise MahjongError(
            f"a concealed hand of {n_tiles} tiles does not say how many sets it needs; pass melds"
        )
    else:
        sets = (n_tiles - 1) // 3
    if not 0 <= sets <= MAX_SETS:
        raise MahjongError(f"{sets} sets needed; the tables cover 0..{MAX_SETS}")
    return sets


def deficiency(counts: CountsLike, melds: int | None = None, *, sets_total: int = HAND_SETS) -> int:
    """Fewest tiles that must still come in before this concealed hand wins (0: it has won)."""
    if c_deficiency is not None:
        # -1: the C version reads the sets off the size, as the Python one does without melds.
        # Other melds or totals than plain ints go to Python, which checks the counts first.
        if melds is None:
            sets = -1
        elif type(melds) is int and type(sets_total) is int and melds <= sets_total:
            sets = sets_total - melds
        else:
            sets = -2
        if -1 <= sets <= MAX_SETS:
            answer = c_deficiency(counts, sets)
            if answer is not None:
                return answer
    return _deficiency_python(counts, melds, sets_total=sets_total)


def _deficiency_python(
    counts: CountsLike, melds: int | None = None, *, sets_total: int = HAND_SETS
) -> int:
    """`deficiency` in Python: the reference for the C version, and its fallback."""
    # The pattern indices come from one int(text, 5) on the counts written backwards as digits,
    # split by divmod: a few C calls where Horner's rule in Python costs several times more,
    # and a count outside 0..4 becomes "x", which int() rejects, so the validation comes free.
    try:
        raw = bytes(counts if type(counts) is list else _as_bytes(counts))
        code = int(raw[::-1].translate(_BASE5_DIGITS), 5)
    except (TypeError, ValueError):
        _as_bytes(counts)  # raises the precise error
        raise
    if len(raw) != NUM_KINDS:
        _as_bytes(counts)
    code, m = divmod(code, _SUIT_PATTERNS)
    code, p = divmod(code, _SUIT_PATTERNS)
    h, s = divmod(code, _SUIT_PATTERNS)
    n_tiles = sum(raw)
    if melds is None and n_tiles % 3 and n_tiles <= 3 * MAX_SETS + 2:
        sets = (n_tiles - 1) // 3
    else:
        sets = sets_needed(n_tiles, melds, sets_total)
    sc, hc, merge, final, n, nh = _FAST or _load_fast()
    merged = merge[merge[sc[m] * n + sc[p]] * n + sc[s]]
    return final[(merged * nh + hc[h]) * (MAX_SETS + 1) + sets]


def _pattern_codes(c: bytes) -> tuple[int, int, int, int]:
    """Base-5 pattern indices of the three suits and the honours of validated counts."""
    digits = c[::-1].translate(_BASE5_DIGITS)
    return int(digits[25:34], 5), int(digits[16:25], 5), int(digits[7:16], 5), int(digits[0:7], 5)


def useful_tiles(
    counts: CountsLike,
    melds: int | None = None,
    visible: CountsLike | None = None,
    *,
    sets_total: int = HAND_SETS,
) -> list[tuple[int, int]]:
    """Tiles whose arrival lowers the deficiency, with the copies of each still unseen.

    ``visible`` is the 34-count of every tile this player can see (own hand, all discards, all
    exposed melds); without it only the own hand counts as seen. For a ``3k+2`` hand a tile is
    useful if, after the best discard, the hand is nearer to winning. A tile listed with zero
    unseen copies would help but cannot arrive.
    """
    c = _as_bytes(counts)
    seen = c if visible is None else _as_bytes(visible)
    if any(map(operator.lt, seen, c)):
        raise MahjongError("visible must include the player's own hand")
    sets = sets_needed(sum(c), melds, sets_total)
    sc, hc, merge, final, n, nh = _FAST or _load_fast()
    # final[(merged * nh + honour) * width + sets], with the parts that stay fixed while one
    # suit's (or the honours') pattern varies computed once.
    width = MAX_SETS + 1
    stride = nh * width
    *codes, honour_code = _pattern_codes(c)
    classes = [sc[code] for code in codes]
    honour = hc[honour_code]
    tail = honour * width + sets
    suits_merged = merge[merge[classes[0] * n + classes[1]] * n + classes[2]]
    base = final[suits_merged * stride + tail]
    found: list[tuple[int, int]] = []
    for suit in range(3):
        others = [classes[j] for j in range(3) if j != suit]
        rest = merge[others[0] * n + others[1]] * n
        code = codes[suit]
        for rank in range(9):
            t = suit * 9 + rank
            if c[t] < COPIES and final[merge[rest + sc[code + _POW5[rank]]] * stride + tail] < base:
                found.append((t, max(0, COPIES - seen[t])))
    honours_row = suits_merged * nh
    for rank in range(7):
        t = 27 + rank
        if c[t] >= COPIES:
            continue
        cls = hc[honour_code + _POW5[rank]]
        if final[(honours_row + cls) * width + sets] < base:
            found.append((t, max(0, COPIES - seen[t])))
    return found


def deficiency_batch(
    counts_array: npt.ArrayLike, melds: int | None = None, *, sets_total: int = HAND_SETS
) -> npt.NDArray[np.int8]:
    """`deficiency` of every row of an (N, 34) array of concealed counts."""
    arr = np.asarray(counts_array)
    if arr.ndim != 2 or arr.shape[1] != NUM_KINDS:
        raise MahjongError(f"expected an (N, {NUM_KINDS}) array, got shape {arr.shape}")
    if arr.size and (int(arr.max()) > COPIES or int(arr.min()) < 0):
        raise TileCountError(f"counts must lie in 0..{COPIES}")
    t = get_tables()
    out = np.empty(arr.shape[0], dtype=np.int8)
    for lo in range(0, arr.shape[0], _BATCH_ROWS):
        chunk = arr[lo : lo + _BATCH_ROWS].astype(np.int32)
        sizes = chunk.sum(axis=1)
        if melds is None:
            if np.any(sizes % 3 == 0):
                raise MahjongError("a hand of 3k tiles does not say how many sets it needs")
            sets = (sizes - 1) // 3
            if int(sets.max()) > MAX_SETS:
                raise MahjongError(f"a hand needs more than {MAX_SETS} sets")
        else:
            sets = np.full(chunk.shape[0], sets_needed(0, melds, sets_total))
        codes = chunk[:, :27].reshape(-1, 3, 9) @ POW5
        classes = t.suit_class[codes].astype(np.intp)
        honour = t.honour_class[chunk[:, 27:] @ POW5[:7]].astype(np.intp)
        merged = t.merge[t.merge[classes[:, 0], classes[:, 1]].astype(np.intp), classes[:, 2]]
        out[lo : lo + _BATCH_ROWS] = t.final[merged.astype(np.intp), honour, sets]
    return out
