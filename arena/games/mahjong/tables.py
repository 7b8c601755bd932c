"""Per-suit lookup tables for win checks and the deficiency number (進胡數), cached on disk.

A suit's nine counts (each 0..4) are read as a base-5 number, rank 1 the least significant digit,
so every suit pattern has an index below 5**9; the seven honour counts likewise index 5**7
patterns. Seed 003 §3 builds its deficiency from such per-suit databases and handles the honours
apart, because honours form no chows.

Two kinds of table are built:

* win flags, by theorem 1 of seed 001 run on every pattern at once (the smallest tile starts a
  pung if it has three copies, otherwise a chow), with theorem 2's mod-3 rule choosing the pair
  candidates;
* distance vectors: for ``m`` sets (0..5) and ``e`` pairs (0 or 1), the fewest tiles that must be
  added to the pattern so that it contains ``m`` sets and ``e`` pairs with at most four copies of a
  kind. A hand's deficiency is the min-plus combination of its four components' vectors.

Only 187 distinct distance vectors occur among the 5**9 suit patterns (83 among honours), and
combining them closes over a few hundred vectors, so each pattern stores a class id and the
combination itself is a lookup in a small merge table.
"""

from __future__ import annotations

import os
import tempfile
import time
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from arena.files import replace_file
from arena.games.mahjong.tiles import MahjongError

TABLE_VERSION = 1
MAX_SETS = 5
"""Sets a winning hand needs in the 16-tile game; the tables cover 0..MAX_SETS sets."""

SUIT_PATTERNS = 5**9
HONOUR_PATTERNS = 5**7
POW5 = np.array([5**i for i in range(9)], dtype=np.int32)

SETS_FLAG = 1
"""Win-flag value of a pattern that splits into sets only (the empty pattern included)."""
PAIR_FLAG = 4
"""Win-flag value of a pattern that splits into sets and one pair.

With values 0, 1 and 4, four components sum to 7 exactly when three are sets-only and one holds
the pair, so a batch win check is one sum and one comparison.
"""
WIN_SUM = 3 * SETS_FLAG + PAIR_FLAG

_INF = 60
"""Larger than any real distance (at most 3 * 5 + 2) yet safe from uint8 overflow when added to."""

U8 = npt.NDArray[np.uint8]
U16 = npt.NDArray[np.uint16]


@dataclass(frozen=True)
class HandTables:
    """Everything the analysis needs, as plain arrays (what the cache file holds)."""

    suit_win: U8
    """(5**9,) win flag of each suit pattern: 0, SETS_FLAG or PAIR_FLAG."""
    honour_win: U8
    """(5**7,) the same for honour patterns."""
    suit_class: U16
    """(5**9,) class id of each suit pattern's distance vector; ids index `vectors`."""
    honour_class: U16
    """(5**7,) class id of each honour pattern; ids index `honour_vectors`."""
    vectors: U8
    """(K, 6, 2) distance by [sets, pairs] of every class; suit classes come first."""
    honour_vectors: U8
    """(H, 6, 2) distance vectors of the honour classes."""
    merge: U16
    """(K, S) class of the combination of class ``k`` with suit class ``s``."""
    final: U8
    """(K, H, 6) deficiency of class ``k`` combined with honour class ``h``, for 0..5 sets."""

    @property
    def n_suit_classes(self) -> int:
        return int(self.merge.shape[1])

    @property
    def n_honour_classes(self) -> int:
        return int(self.honour_vectors.shape[0])


def pattern_digits(n_ranks: int) -> npt.NDArray[np.int8]:
    """(5**n_ranks, n_ranks) counts of every pattern, rank 1 first."""
    codes = np.arange(5**n_ranks, dtype=np.int32)
    return ((codes[:, None] // POW5[None, :n_ranks]) % 5).astype(np.int8)


def _sets_only(digits: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
    """Theorem 1 without a pair, on many suit patterns at once.

    Scanning ranks upwards, the copies left at a rank after the chows already running through it
    must open ``left % 3`` new chows (a pung takes three copies first); ranks 8 and 9 open none.
    """
    n = digits.shape[0]
    ok = np.ones(n, dtype=bool)
    older = np.zeros(n, dtype=np.int8)
    newer = np.zeros(n, dtype=np.int8)
    for rank in range(9):
        left = digits[:, rank] - older - newer
        ok &= left >= 0
        opened = np.where(left >= 0, left % 3, 0).astype(np.int8)
        if rank >= 7:
            ok &= opened == 0
        older, newer = newer, opened
    return ok


def _suit_win_flags(digits: npt.NDArray[np.int8]) -> U8:
    total = digits.sum(axis=1, dtype=np.int32)
    sets = (total % 3 == 0) & _sets_only(digits)
    # Theorem 2: chows add one tile to each of the groups 147, 258, 369 and pungs three to one,
    # so the pair sits in the group whose count differs mod 3 from the other two.
    residues = [digits[:, g::3].sum(axis=1, dtype=np.int32) % 3 for g in range(3)]
    group = np.where(
        residues[0] == residues[1], 2, np.where(residues[0] == residues[2], 1, 0)
    ).astype(np.int32)
    rows = np.arange(digits.shape[0])
    pair = np.zeros(digits.shape[0], dtype=bool)
    for step in range(3):
        rank = group + 3 * step
        has = digits[rows, rank] >= 2
        without = digits.copy()
        without[rows, rank] -= (2 * has).astype(np.int8)
        pair |= has & _sets_only(without)
    pair &= total % 3 == 2
    return (sets * SETS_FLAG + pair * PAIR_FLAG).astype(np.uint8)


def _honour_win_flags(digits: npt.NDArray[np.int8]) -> U8:
    as_set = (digits == 0) | (digits == 3)
    pairs = (digits == 2).sum(axis=1)
    fits = (as_set | (digits == 2)).all(axis=1)
    sets = fits & (pairs == 0)
    pair = fits & (pairs == 1)
    return (sets * SETS_FLAG + pair * PAIR_FLAG).astype(np.uint8)


def _distance_table(n_ranks: int, chows: bool) -> U8:
    """(5**n_ranks, 6, 2) fewest tiles to add for [sets, pairs], every pattern at once.

    A dynamic programme over ranks whose rows are the patterns' prefixes: after rank ``i`` the
    rows are the 5**(i+1) prefixes, and the state is the number of chows opened at the two
    previous ranks (they still need tiles ahead), the sets so far and the pair so far. At each
    rank the target holds ``running chows + new chows + 3 * pung + 2 * pair`` copies (at most 4),
    and the cost is the part of it the pattern lacks.
    """
    states: list[tuple[int, int]] = [(0, 0)]
    table = np.full((1, 1, MAX_SETS + 1, 2), _INF, dtype=np.uint8)
    table[0, 0, 0, 0] = 0
    for rank in range(n_ranks):
        max_open = 4 if chows and rank <= n_ranks - 3 else 0
        new_states = sorted(
            {(b, k) for a, b in states for k in range(max_open + 1) if a + b + k <= 4}
        )
        where = {s: j for j, s in enumerate(new_states)}
        prefixes = table.shape[0]
        nxt = np.full((5, prefixes, len(new_states), MAX_SETS + 1, 2), _INF, dtype=np.uint8)
        for si, (a, b) in enumerate(states):
            src = table[:, si]
            for k in range(max_open + 1):
                for pung in (0, 1):
                    gained = k + pung
                    if gained > MAX_SETS:
                        continue
                    for pair in (0, 1):
                        need = a + b + k + 3 * pung + 2 * pair
                        if need > 4:
                            continue
                        tj = where[(b, k)]
                        part = (
                            src[:, : MAX_SETS + 1 - gained, 0]
                            if pair
                            else src[:, : MAX_SETS + 1 - gained, :]
                        )
                        for have in range(5):
                            cost = np.uint8(max(need - have, 0))
                            view = (
                                nxt[have, :, tj, gained:, 1]
                                if pair
                                else nxt[have, :, tj, gained:, :]
                            )
                            np.minimum(view, part + cost, out=view)
        table = nxt.reshape(5 * prefixes, len(new_states), MAX_SETS + 1, 2)
        states = new_states
    return np.ascontiguousarray(table[:, states.index((0, 0))])


def _min_plus(left: npt.NDArray[np.uint8], right: npt.NDArray[np.uint8]) -> U8:
    """(L, R, 6, 2) combination of every left vector with every right vector."""
    a = left.astype(np.int16)[:, None]
    b = right.astype(np.int16)[None, :]
    out = np.full((left.shape[0], right.shape[0], MAX_SETS + 1, 2), _INF, dtype=np.int16)
    for i in range(MAX_SETS + 1):
        for j in range(MAX_SETS + 1 - i):
            k = i + j
            np.minimum(out[:, :, k, 0], a[:, :, i, 0] + b[:, :, j, 0], out=out[:, :, k, 0])
            np.minimum(out[:, :, k, 1], a[:, :, i, 0] + b[:, :, j, 1], out=out[:, :, k, 1])
            np.minimum(out[:, :, k, 1], a[:, :, i, 1] + b[:, :, j, 0], out=out[:, :, k, 1])
    return np.minimum(out, _INF).astype(np.uint8)


def _keys(vectors: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]:
    """One integer per (…, 6, 2) vector: twelve 5-bit fields, so np.unique works on scalars."""
    if vectors.size and int(vectors.max()) >= 32:
        raise MahjongError("a distance does not fit the 5-bit key; the table generator is wrong")
    flat = vectors.reshape(-1, 12)
    keys = np.zeros(flat.shape[0], dtype=np.uint64)
    for field in range(12):
        keys |= flat[:, field].astype(np.uint64) << np.uint64(5 * field)
    return keys


def _classify(vectors: npt.NDArray[np.uint8]) -> tuple[U8, U16]:
    keys = _keys(vectors)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    classes = vectors.reshape(-1, MAX_SETS + 1, 2)[first]
    return np.ascontiguousarray(classes), inverse.astype(np.uint16).reshape(-1)


def build_tables() -> HandTables:
    """Generate every table from scratch (about a second)."""
    suit_digits = pattern_digits(9)
    honour_digits = pattern_digits(7)
    suit_win = _suit_win_flags(suit_digits)
    honour_win = _honour_win_flags(honour_digits)
    del suit_digits

    suit_vectors, suit_class = _classify(_distance_table(9, chows=True))
    honour_vectors, honour_class = _classify(_distance_table(7, chows=False))

    # Close the class set under combination with a suit; suit classes keep ids 0..S-1 so that a
    # suit's class id is also a valid left operand.
    known = {int(k): i for i, k in enumerate(_keys(suit_vectors))}
    vectors = [suit_vectors]
    frontier = suit_vectors
    while len(frontier):
        combined = _min_plus(frontier, suit_vectors)
        fresh: list[npt.NDArray[np.uint8]] = []
        for key, vec in zip(_keys(combined), combined.reshape(-1, MAX_SETS + 1, 2), strict=True):
            if int(key) not in known:
                known[int(key)] = len(known)
                fresh.append(vec)
        frontier = np.stack(fresh) if fresh else np.zeros((0, MAX_SETS + 1, 2), np.uint8)
        vectors.append(frontier)
    all_vectors = np.ascontiguousarray(np.concatenate(vectors))

    combined = _min_plus(all_vectors, suit_vectors)
    merge = np.array([known[int(k)] for k in _keys(combined)], dtype=np.uint16).reshape(
        len(all_vectors), len(suit_vectors)
    )
    final = np.ascontiguousarray(_min_plus(all_vectors, honour_vectors)[:, :, :, 1])
    return HandTables(
        suit_win=suit_win,
        honour_win=honour_win,
        suit_class=suit_class,
        honour_class=honour_class,
        vectors=all_vectors,
        honour_vectors=honour_vectors,
        merge=merge,
        final=final,
    )


def cache_dir() -> Path:
    """``$ARENA_CACHE_DIR``, else ``$XDG_CACHE_HOME/table-arena``, else ``~/.cache/table-arena``."""
    explicit = os.environ.get("ARENA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "table-arena"


def cache_path() -> Path:
    return cache_dir() / f"mahjong-tables-v{TABLE_VERSION}.npz"


_FIELDS = tuple(HandTables.__dataclass_fields__)


def save_tables(tables: HandTables, path: Path) -> None:
    """Write atomically, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            arrays = {name: getattr(tables, name) for name in _FIELDS}
            np.savez(fh, version=np.array(TABLE_VERSION), **arrays)
        replace_file(Path(tmp), path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_tables(path: Path) -> HandTables:
    """Load a cache file; raises `MahjongError` if it is unreadable or of another version."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if int(data["version"]) != TABLE_VERSION:
                raise MahjongError(f"{path} holds tables of another version")
            tables = HandTables(**{name: data[name] for name in _FIELDS})
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        # a file cut short by a crash or a full disk: rebuilt by load_tables, never a traceback
        raise MahjongError(f"cannot read mahjong tables from {path}: {exc}") from exc
    if tables.suit_win.shape != (SUIT_PATTERNS,) or tables.honour_win.shape != (HONOUR_PATTERNS,):
        raise MahjongError(f"{path} holds tables of the wrong shape")
    return tables


@dataclass(frozen=True)
class LoadReport:
    """How the tables were obtained, for the benchmark and for diagnostics."""

    path: Path
    source: str
    """``"cache"``, ``"built"`` (and saved) or ``"built, not saved"`` (cache not writable)."""
    seconds: float


def load_tables(path: Path | None = None) -> tuple[HandTables, LoadReport]:
    """Read the cache, or build the tables and try to save them for next time."""
    target = path or cache_path()
    start = time.perf_counter()
    if target.exists():
        try:
            tables = read_tables(target)
        except MahjongError:
            pass
        else:
            return tables, LoadReport(target, "cache", time.perf_counter() - start)
    tables = build_tables()
    source = "built"
    try:
        save_tables(tables, target)
    except OSError:
        # A read-only home must not stop analysis; the tables then live only in this process.
        source = "built, not saved"
    return tables, LoadReport(target, source, time.perf_counter() - start)


@cache
def get_tables() -> HandTables:
    """The process-wide tables, loaded (or built) on first use."""
    return load_tables()[0]
