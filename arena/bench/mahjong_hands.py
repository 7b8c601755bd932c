"""``arena bench mahjong``: hand analysis against the ``mahjong`` PyPI package, in one run.

Measured side by side on the same hands: the one-hand win check against ``Agari.is_agari`` and
the deficiency number against ``Shanten.calculate_shanten_for_regular_hand`` (14-tile hands,
since the package knows only the 4-set game), the batch win check and batch deficiency, one
17-tile deficiency, and the table generation and cache load times.

Random hands are nearly all easy rejects, so a third of the hands are winning, a third are
ready hands plus one drawn tile (near misses that need the full check) and a third are random;
the report says how many of each and how many win. One-call timings keep, for every block of
500 hands, the best of several rounds with the two sides alternating, so that a loaded machine
hurts neither side more than the other.

Two comparisons are shown beside the design's literal ones, because those flatter us:
``Agari.is_agari`` also tries seven pairs and thirteen orphans, which the 16-tile game does not
have, so the win check is also timed against the package's own code with those two checks cut
out (`regular_form_agari`); and the batch functions take numpy arrays, while the one-call
baselines take the Python lists, so the batch rows are also timed from those same lists,
conversion included (`lists_to_array`, the cheapest conversion measured).

Seed 001 claims its theorem 1 is much faster than the usual recursive set removal; on the same
hands (and on one-suit hands, where recursion backtracks most) the win check is also timed
against that method and against theorem 1 spelt out as plainly (`arena.bench.mahjong_recursive`,
no need of the ``mahjong`` package), and `waits` against adding each of the 34 kinds and running
the recursive check, on ready 16-tile hands (`_against_recursion`).
"""

from __future__ import annotations

import inspect
import platform
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena.bench.mahjong_hands_report import judge
from arena.bench.mahjong_recursive import (
    recursive_is_winning,
    recursive_waits,
    set_removals,
    theorem_one_is_winning,
)
from arena.errors import ArenaError
from arena.games.mahjong import analysis
from arena.games.mahjong.analysis import (
    _is_winning_python,
    deficiency,
    is_winning,
    is_winning_batch,
    waits,
)
from arena.games.mahjong.deficiency import (
    _deficiency_python,
    deficiency_batch,
    deficiency_implementation,
)
from arena.games.mahjong.speedups import IMPLEMENTATION
from arena.games.mahjong.tables import (
    build_tables,
    cache_path,
    load_tables,
    read_tables,
    save_tables,
)

Hand = list[int]


def _via_np_array(hands: Sequence[Hand]) -> np.ndarray:
    return np.array(hands, dtype=np.int8)


def _via_bytes(hands: Sequence[Hand]) -> np.ndarray:
    # bytes() of a count list is one C loop per hand, and counts (0 … 4) each fit a byte.
    return np.frombuffer(b"".join(map(bytes, hands)), dtype=np.int8).reshape(len(hands), -1)


CONVERSIONS: dict[str, Callable[[Sequence[Hand]], np.ndarray]] = {
    "np.array(hands, dtype=np.int8)": _via_np_array,
    "np.frombuffer(b''.join(map(bytes, hands)), np.int8)": _via_bytes,
}
"""Ways a caller holding Python lists of counts gets the (n, 34) int8 array the batch functions
take. The bench times each in the run and charges the batch rows "from lists" the fastest."""


def regular_form_agari() -> Callable[[Sequence[int]], bool] | None:
    """``Agari.is_agari`` without its seven-pairs and thirteen-orphans checks: the package's own
    code with the lines from its ``# 13 orphans`` comment up to its ``if j & 2:`` test cut out,
    compiled in the package module's namespace. The package has no regular-form-only win check;
    this one does the work ours does (four sets and a pair), the package's way. ``None`` when
    the installed version's source no longer has those markers (the figure is then not shown).
    """
    from mahjong import agari as module

    try:
        source = textwrap.dedent(inspect.getsource(module.Agari.is_agari))
    except (OSError, TypeError):
        return None
    code = source.removeprefix("@staticmethod\n")
    start, end = code.find("    # 13 orphans"), code.find("    if j & 2:")
    if not code.startswith("def is_agari(") or not 0 < start < end:
        return None
    code = code[:start] + code[end:]
    namespace = dict(vars(module))
    exec(code.replace("def is_agari(", "def is_agari_regular(", 1), namespace)
    fn: Callable[[Sequence[int]], bool] = namespace["is_agari_regular"]
    return fn


class MissingBaselineError(ArenaError):
    """The ``mahjong`` package, the baseline of this benchmark, is not installed."""


def _random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``n`` hands of ``size`` tiles drawn from the 136-tile set (so at most four copies)."""
    order = np.argsort(rng.random((n, 136)), axis=1)[:, :size]
    counts = np.zeros((n, 34), dtype=np.int8)
    np.add.at(counts, (np.repeat(np.arange(n), size), (order // 4).reshape(-1)), 1)
    return counts


def _winning_hand(rng: np.random.Generator, sets: int) -> Hand:
    while True:
        c = [0] * 34
        for _ in range(sets):
            if rng.random() < 0.6:
                t = int(rng.integers(3)) * 9 + int(rng.integers(7))
                c[t] += 1
                c[t + 1] += 1
                c[t + 2] += 1
            else:
                c[int(rng.integers(34))] += 3
        c[int(rng.integers(34))] += 2
        if max(c) <= 4:
            return c


def _near_hand(rng: np.random.Generator, winner: Hand) -> Hand:
    """A winning hand less one tile (a ready hand) plus one random drawable tile."""
    c = list(winner)
    held = [t for t in range(34) for _ in range(c[t])]
    c[held[int(rng.integers(len(held)))]] -= 1
    free = [t for t in range(34) for _ in range(4 - c[t])]
    c[free[int(rng.integers(len(free)))]] += 1
    return c


def _mixed_hands(
    rng: np.random.Generator, n: int, sets: int
) -> tuple[list[Hand], list[str], dict[str, int]]:
    """A shuffled third each of winning, ready-plus-draw and random hands, with their kinds."""
    n_win = n // 3
    n_near = n // 3
    n_random = n - n_win - n_near
    winners = [_winning_hand(rng, sets) for _ in range(n_win)]
    near = [_near_hand(rng, winners[i % max(n_win, 1)]) for i in range(n_near)] if n_win else []
    randoms = _random_hands(rng, n_random, 3 * sets + 2).tolist()
    hands = winners + near + randoms
    kinds = ["winning"] * n_win + ["ready_plus_draw"] * len(near) + ["random"] * n_random
    order = rng.permutation(len(hands))
    mix = {"winning": n_win, "ready_plus_draw": len(near), "random": n_random}
    return [hands[i] for i in order], [kinds[i] for i in order], mix


def _best_of(rounds: int, *timed: Callable[[], object]) -> list[float]:
    """Best wall time of each callable, alternating between them in every round."""
    best = [float("inf")] * len(timed)
    for _ in range(rounds):
        for i, fn in enumerate(timed):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


_BLOCK = 500
"""Hands per timed block: short enough that a block usually runs without being preempted."""


def _per_call(
    rounds: int, fns: Sequence[Callable[[Hand], object]], hands: Sequence[Hand]
) -> list[float]:
    """Total seconds each function needs for all hands, one call per hand.

    Every block of hands is timed ``rounds`` times per function, alternating, and the best time
    of each block is kept: on a loaded machine, other processes only ever add time.
    """
    totals = [0.0] * len(fns)
    for lo in range(0, len(hands), _BLOCK):
        block = hands[lo : lo + _BLOCK]
        best = [float("inf")] * len(fns)
        for _ in range(rounds):
            for i, fn in enumerate(fns):
                start = time.perf_counter()
                for h in block:
                    fn(h)
                best[i] = min(best[i], time.perf_counter() - start)
        totals = [t + b for t, b in zip(totals, best, strict=True)]
    return totals


def run_hand_bench(n_hands: int = 20_000, seed: int = 2024, rounds: int = 5) -> dict[str, Any]:
    """Measure everything once; returns plain numbers (see `mahjong_hands_report.render`)."""
    try:
        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError as exc:
        raise MissingBaselineError(
            "the mahjong benchmark compares against the `mahjong` package: "
            "pip install 'table-arena[dev]' (or pip install mahjong)"
        ) from exc
    if n_hands < 3:
        raise ValueError("n_hands must be at least 3")

    start = time.perf_counter()
    build_tables()
    generation = time.perf_counter() - start
    tables, report = load_tables()
    with tempfile.TemporaryDirectory() as scratch:
        load_path = report.path
        if report.source == "built, not saved":
            # Unwritable cache directory: time the load from a scratch copy instead.
            load_path = Path(scratch) / cache_path().name
            save_tables(tables, load_path)
        start = time.perf_counter()
        read_tables(load_path)
        load = time.perf_counter() - start

    rng = np.random.default_rng(seed)
    hands14, kinds14, mix14 = _mixed_hands(rng, n_hands, 4)
    hands17, kinds17, mix17 = _mixed_hands(rng, n_hands, 5)

    agari = Agari().is_agari
    regular = regular_form_agari()
    shanten = Shanten.calculate_shanten_for_regular_hand
    ours_win = [is_winning(h) for h in hands14]
    theirs_win = [agari(h) for h in hands14]
    # Agari also accepts seven pairs and thirteen orphans, which the 16-tile game does not.
    special = [
        Shanten.calculate_shanten_for_chiitoitsu_hand(h) == -1
        or Shanten.calculate_shanten_for_kokushi_hand(h) == -1
        for h in hands14
    ]
    win_disagree = sum(
        a != b for a, b, sp in zip(ours_win, theirs_win, special, strict=True) if not sp
    )
    regular_disagree = (
        None
        if regular is None
        else sum(regular(h) != w for h, w in zip(hands14, ours_win, strict=True))
    )
    win_fns: list[Callable[[Hand], object]] = [is_winning, agari]
    if regular is not None:
        win_fns.append(regular)
    t_ours, t_agari, *t_rest = _per_call(rounds, win_fns, hands14)
    t_regular = t_rest[0] if t_rest else None
    # With the C checks in use, the Python reference is timed too (the figure a machine without
    # a C compiler gets), alternating with the same baseline as the C one: what runs between
    # the blocks decides which tables stay in the processor's caches.
    with_python = IMPLEMENTATION != "Python"
    t_win_python = (
        _per_call(rounds, [_is_winning_python, agari], hands14)[0] if with_python else t_ours
    )
    win_by_kind: dict[str, dict[str, float]] = {}
    for kind in mix14:
        subset = [h for h, k in zip(hands14, kinds14, strict=True) if k == kind]
        if subset:
            ours_k, agari_k, *regular_k = _per_call(rounds, win_fns, subset)
            win_by_kind[kind] = {
                "ours_us": ours_k / len(subset) * 1e6,
                "agari_us": agari_k / len(subset) * 1e6,
                "ratio": agari_k / ours_k,
            }
            if regular_k:
                win_by_kind[kind]["agari_regular_us"] = regular_k[0] / len(subset) * 1e6
                win_by_kind[kind]["ratio_regular"] = regular_k[0] / ours_k

    ours_def = [deficiency(h) for h in hands14]
    theirs_def = [shanten(h) + 1 for h in hands14]
    def_disagree = sum(a != b for a, b in zip(ours_def, theirs_def, strict=True))
    array14 = np.array(hands14, dtype=np.int8)
    batch_def_disagree = int((deficiency_batch(array14) != np.array(ours_def)).sum())
    for convert in CONVERSIONS.values():
        if not np.array_equal(convert(hands14), array14):
            raise ArenaError("a list-to-array conversion of the bench differs from np.array")
    t_def, t_shanten = _per_call(rounds, [deficiency, shanten], hands14)
    t_def_python = (
        _per_call(rounds, [_deficiency_python, shanten], hands14)[0]
        if deficiency_implementation() == "C"
        else t_def
    )
    # From ready arrays (a caller whose hands already live in numpy) and from the same Python
    # lists the one-call functions took, the conversion charged to the batch.
    t_def_batch, *t_lists = _best_of(
        rounds,
        lambda: deficiency_batch(array14),
        *(_then(deficiency_batch, convert, hands14) for convert in CONVERSIONS.values()),
        *(_then(_same, convert, hands14) for convert in CONVERSIONS.values()),
    )
    conversions = list(CONVERSIONS)
    t_def_lists_each, t_convert = t_lists[: len(conversions)], t_lists[len(conversions) :]
    fastest = min(range(len(conversions)), key=lambda i: t_def_lists_each[i])
    t_def_lists = t_def_lists_each[fastest]
    (t_def17,) = _per_call(rounds, [deficiency], hands17)

    array17 = np.array(hands17, dtype=np.int8)
    batch_disagree = int(
        (is_winning_batch(array17) != np.array([is_winning(h) for h in hands17])).sum()
    )
    repeat = max(1, 300_000 // len(hands17))
    big17 = np.tile(array17, (repeat, 1))
    lists17 = hands17 * repeat
    t_batch, *t_batch_lists_each = _best_of(
        rounds,
        lambda: is_winning_batch(big17),
        *(_then(is_winning_batch, convert, lists17) for convert in CONVERSIONS.values()),
    )
    t_batch_lists = min(t_batch_lists_each)

    n = len(hands14)
    results: dict[str, Any] = {
        "seed": seed,
        "n_hands": n,
        "mix_14": mix14,
        "mix_17": mix17,
        "wins_14": sum(ours_win),
        "wins_17": int(is_winning_batch(array17).sum()),
        "special_14": sum(special),
        "win_us": t_ours / n * 1e6,
        "agari_us": t_agari / n * 1e6,
        "win_ratio": t_agari / t_ours,
        "agari_regular_us": None if t_regular is None else t_regular / n * 1e6,
        "win_ratio_regular": None if t_regular is None else t_regular / t_ours,
        "implementation": IMPLEMENTATION,
        "deficiency_implementation": deficiency_implementation(),
        "win_python_us": t_win_python / n * 1e6,
        "win_python_ratio": t_agari / t_win_python,
        "win_disagreements": win_disagree,
        "agari_regular_disagreements": regular_disagree,
        "win_by_kind": win_by_kind,
        "batch_hands": len(big17),
        "batch_hands_per_second": len(big17) / t_batch,
        "batch_from_lists_hands_per_second": len(big17) / t_batch_lists,
        "batch_disagreements": batch_disagree,
        "deficiency_us": t_def / n * 1e6,
        "shanten_us": t_shanten / n * 1e6,
        "deficiency_ratio": t_shanten / t_def,
        "deficiency_python_us": t_def_python / n * 1e6,
        "deficiency_python_ratio": t_shanten / t_def_python,
        "deficiency_batch_us": t_def_batch / n * 1e6,
        "deficiency_batch_ratio": t_shanten / t_def_batch,
        "deficiency_batch_from_lists_us": t_def_lists / n * 1e6,
        "deficiency_batch_from_lists_ratio": t_shanten / t_def_lists,
        "conversion": conversions[fastest],
        "conversions_us": {
            name: t / n * 1e6 for name, t in zip(conversions, t_convert, strict=True)
        },
        "deficiency_disagreements": def_disagree,
        "deficiency_batch_disagreements": batch_def_disagree,
        "deficiency_17_us": t_def17 / len(hands17) * 1e6,
        "generation_seconds": generation,
        "load_seconds": load,
        "cache_path": str(report.path),
        "cache_source": report.source,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": platform.processor() or platform.machine(),
    }
    # Drawn after every hand above, so that those stay the hands of earlier runs.
    results.update(_against_recursion(rng, rounds, hands14, kinds14, hands17, kinds17))
    results["targets"] = judge(results)
    return results


def _same(array: np.ndarray) -> np.ndarray:
    return array


def _then(
    batch: Callable[[np.ndarray], object],
    convert: Callable[[Sequence[Hand]], np.ndarray],
    hands: Sequence[Hand],
) -> Callable[[], object]:
    return lambda: batch(convert(hands))


def _one_suit_hands(rng: np.random.Generator, n: int, sets: int) -> tuple[list[Hand], list[str]]:
    """Hands all in the characters suit, where the recursion has the most choices to undo: the
    first half winning, the rest a winning hand with one tile swapped for another of the suit."""
    hands: list[Hand] = []
    while len(hands) < (n + 1) // 2:
        c = [0] * 34
        for _ in range(sets):
            if rng.random() < 0.5:
                t = int(rng.integers(7))
                c[t] += 1
                c[t + 1] += 1
                c[t + 2] += 1
            else:
                c[int(rng.integers(9))] += 3
        c[int(rng.integers(9))] += 2
        if max(c) <= 4:
            hands.append(c)
    for winner in hands[: n - len(hands)]:
        c = list(winner)
        held = [t for t in range(9) for _ in range(c[t])]
        c[held[int(rng.integers(len(held)))]] -= 1
        free = [t for t in range(9) for _ in range(4 - c[t])]
        c[free[int(rng.integers(len(free)))]] += 1
        hands.append(c)
    kinds = ["winning"] * ((n + 1) // 2) + ["ready_plus_draw"] * (n - (n + 1) // 2)
    return hands, kinds


def _waits_in_python(hand: Hand) -> list[int]:
    """`waits` with its win checks in Python (what a machine without the C ones runs)."""
    saved = analysis.c_is_winning
    analysis.c_is_winning = None
    try:
        return waits(hand)
    finally:
        analysis.c_is_winning = saved


_KIND_ORDER = ["winning", "ready_plus_draw", "random"]

_AGAINST_RECURSION = ("ours", "theorem1_plain", "recursive", "ours_python")

RECURSIVE_BASELINE = (
    "recursive: every pair, then a pung or chow of the lowest tile removed recursively, "
    "backtracking; theorem1_plain: every pair, then seed 001's theorem 1 in one pass; both plain "
    "Python (arena/bench/mahjong_recursive.py); each *_ratio is the recursive time over that one's"
)
"""What the ``win_vs_recursive`` figures compare, carried in the JSON beside them."""


def _timed_against_recursion(
    rounds: int, fns: Sequence[Callable[[Hand], object]], hands: Sequence[Hand]
) -> dict[str, float]:
    """µs per hand of ours, plain theorem 1, the recursion (and ours in Python when ``fns`` has
    it, else the same as ours), and the recursion's time over each of the others'."""
    times = _per_call(rounds, fns, hands)
    us = {name: t / len(hands) * 1e6 for name, t in zip(_AGAINST_RECURSION, times, strict=False)}
    us.setdefault("ours_python", us["ours"])
    row = {f"{name}_us": v for name, v in us.items()}
    for name in ("ours", "ours_python", "theorem1_plain"):
        row[f"{name}_ratio"] = us["recursive"] / us[name]
    return row


def _counted_against_recursion(hands: Sequence[Hand], wins: Sequence[bool]) -> dict[str, Any]:
    """The sets removed per hand by the recursion and by theorem 1 (`set_removals`): counted,
    so the same on every run and machine, unlike the times. ``disagreements``: hands where a
    counting check's verdict differs from ``wins``."""
    recursive = theorem1 = disagreements = 0
    for hand, wins_it in zip(hands, wins, strict=True):
        by_recursion, spent_recursion = set_removals(hand, backtrack=True)
        by_theorem, spent_theorem = set_removals(hand, backtrack=False)
        recursive += spent_recursion
        theorem1 += spent_theorem
        disagreements += by_recursion != wins_it or by_theorem != wins_it
    return {
        "recursive_per_hand": recursive / len(hands),
        "theorem1_per_hand": theorem1 / len(hands),
        "recursive_over_theorem1": recursive / theorem1 if theorem1 else None,
        "disagreements": disagreements,
    }


def _against_recursion(
    rng: np.random.Generator,
    rounds: int,
    hands14: list[Hand],
    kinds14: list[str],
    hands17: list[Hand],
    kinds17: list[str],
) -> dict[str, Any]:
    """Seed 001's comparison, on the bench's 14- and 17-tile hands and on one-suit 17-tile
    hands: our win check (and its Python reference) and plain theorem 1 against the plain
    recursive removal; then `waits` on ready 16-tile hands (the 17-tile winning hands less one
    tile) against the recursive check of each of the 34 kinds added."""
    one_suit, one_suit_kinds = _one_suit_hands(rng, max(2, len(hands17) // 2), 5)
    fns: list[Callable[[Hand], object]] = [is_winning, theorem_one_is_winning, recursive_is_winning]
    if IMPLEMENTATION != "Python":
        fns.append(_is_winning_python)
    families: dict[str, Any] = {}
    disagreements = 0
    for family, hands, kinds in (
        ("hands_14", hands14, kinds14),
        ("hands_17", hands17, kinds17),
        ("one_suit_17", one_suit, one_suit_kinds),
    ):
        wins = [is_winning(h) for h in hands]
        disagreements += sum(
            recursive_is_winning(h) != w or theorem_one_is_winning(h) != w
            for h, w in zip(hands, wins, strict=True)
        )
        row: dict[str, Any] = {"hands": len(hands), "wins": sum(wins)}
        row.update(_timed_against_recursion(rounds, fns, hands))
        row["set_removals"] = _counted_against_recursion(hands, wins)
        disagreements += row["set_removals"].pop("disagreements")
        row["by_kind"] = {}
        for kind in sorted(set(kinds), key=_KIND_ORDER.index):
            subset = [h for h, k in zip(hands, kinds, strict=True) if k == kind]
            row["by_kind"][kind] = _timed_against_recursion(rounds, fns, subset)
        families[family] = row

    ready = []
    for hand, kind in zip(hands17, kinds17, strict=True):
        if kind == "winning":
            c = list(hand)
            held = [t for t in range(34) for _ in range(c[t])]
            c[held[int(rng.integers(len(held)))]] -= 1
            ready.append(c)
    found = [waits(h) for h in ready]
    waits_row: dict[str, Any] = {
        "hands": len(ready),
        "waits_per_hand": sum(map(len, found)) / max(len(ready), 1),
        "disagreements": sum(
            recursive_waits(h) != w or _waits_in_python(h) != w
            for h, w in zip(ready, found, strict=True)
        ),
    }
    wait_fns: list[Callable[[Hand], object]] = [waits, recursive_waits]
    if IMPLEMENTATION != "Python":
        wait_fns.append(_waits_in_python)
    t_ours, t_recursive, *t_python = _per_call(rounds, wait_fns, ready)
    t_ours_python = t_python[0] if t_python else t_ours
    waits_row.update(
        ours_us=t_ours / len(ready) * 1e6,
        ours_python_us=t_ours_python / len(ready) * 1e6,
        recursive_us=t_recursive / len(ready) * 1e6,
        ours_ratio=t_recursive / t_ours,
        ours_python_ratio=t_recursive / t_ours_python,
    )
    return {
        "win_vs_recursive": {
            "baseline": RECURSIVE_BASELINE,
            "families": families,
            "disagreements": disagreements,
        },
        "waits_vs_recursive": waits_row,
    }
