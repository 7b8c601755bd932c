"""The dealer audit: deal many times, tally, and test the tallies against exact probabilities.

Each audit deals through the code the games run (`bridge.deal_bridge`'s shuffle via the batch
dealer that reproduces it exactly, `deals.shuffled_wall`, `deals.roll_dice`) and returns a
report (`audit_report`): chi-square tests (`stats`) and tallies side by side with their exact
probabilities (`exact`). The tally classes take deals from anywhere, so a test can feed them a
planted biased shuffle and watch the audit catch it.

The bridge report also carries `seed_fit`'s findings: seed 000's published tables (their data
in `seed_table`) against the same exact laws, with the tests a sample of their size would get,
so that what the seed measured is checked, not only what we deal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.dealing import exact, seed_fit, stats
from arena.dealing.audit_report import AUDIT_CHUNK, Progress, Report, check_deals
from arena.dealing.batch import DEFAULT_CHUNK, Orders, iter_orders
from arena.dealing.bridge import DECK, HCP_BY_CARD, SEATS, SUIT_SIZE, bridge_label
from arena.dealing.deals import roll_dice, shuffled_wall
from arena.dealing.seed_table import seed_counts
from arena.dealing.streams import BlockHasher, DealingError, MatchSeed, RandomStream, label
from arena.games.mahjong.analysis import deficiency_batch
from arena.games.mahjong.rules import DEALT, HAND_SIZE
from arena.games.mahjong.rules import SEATS as MAHJONG_PLAYERS
from arena.games.mahjong.tiles import COPIES, NUM_KINDS
from arena.games.mahjong.wall import WALL_TILES

IntArray = npt.NDArray[np.int64]
Shuffle = Callable[[RandomStream, Sequence[int]], list[int]]
DiceRoll = Callable[[RandomStream, int, int], list[int]]

MAHJONG_KINDS = NUM_KINDS
MAHJONG_TILES: tuple[int, ...] = WALL_TILES

_SEATS = len(SEATS)
_SUIT_OF_CARD = np.arange(DECK) // SUIT_SIZE
_HCP = np.array(HCP_BY_CARD, dtype=np.int64)
_POSITIONS = np.arange(DECK)


def _pattern_lookup() -> IntArray:
    """Pattern index by ``a·196 + b·14 + c`` of the three longest suit lengths (a ≥ b ≥ c)."""
    table = np.full(14**3, -1, dtype=np.int64)
    for i, key in enumerate(exact.patterns()):
        table[key[0] * 196 + key[1] * 14 + key[2]] = i
    return table


_PATTERN_LOOKUP = _pattern_lookup()


def _chunks(deals: int, chunk: int) -> Iterator[range]:
    """The deal indices ``0 … deals-1``, ``chunk`` at a time."""
    for first in range(0, deals, chunk):
        yield range(first, min(deals, first + chunk))


def _added(total: IntArray, counts: IntArray) -> IntArray:
    """``total + counts`` for tallies of different lengths (a bincount is as long as its largest
    value needs): the shorter one padded with zeros."""
    size = max(len(total), len(counts))
    return np.pad(total, (0, size - len(total))) + np.pad(counts, (0, size - len(counts)))


# --------------------------------------------------------------------------------------- bridge


@dataclass
class BridgeTally:
    """Running tallies of bridge deals given as shuffled decks (position → card)."""

    deals: int = 0
    patterns: IntArray = field(default_factory=lambda: np.zeros(39, dtype=np.int64))
    hcp_hand: IntArray = field(
        default_factory=lambda: np.zeros(exact.MAX_HCP_HAND + 1, dtype=np.int64)
    )
    hcp_partnership: IntArray = field(
        default_factory=lambda: np.zeros(exact.TOTAL_HCP + 1, dtype=np.int64)
    )
    card_seat: IntArray = field(default_factory=lambda: np.zeros((DECK, _SEATS), dtype=np.int64))
    card_position: IntArray = field(default_factory=lambda: np.zeros((DECK, DECK), dtype=np.int64))

    def add(self, orders: Orders | Sequence[Sequence[int]]) -> None:
        decks = np.asarray(orders, dtype=np.int64)
        if decks.ndim != 2 or decks.shape[1] != DECK:
            raise DealingError(f"expected decks of {DECK} cards, got shape {decks.shape}")
        count = decks.shape[0]
        # Position p goes to seat p % 4, so a (count, 13, 4) view holds the hands by seat.
        hands = decks.reshape(count, SUIT_SIZE, _SEATS)
        hand_id = np.arange(count * _SEATS).reshape(count, 1, _SEATS)
        lengths = np.bincount(
            (hand_id * 4 + _SUIT_OF_CARD[hands]).ravel(), minlength=count * _SEATS * 4
        ).reshape(count * _SEATS, 4)
        lengths = -np.sort(-lengths, axis=1)
        ids = _PATTERN_LOOKUP[lengths[:, 0] * 196 + lengths[:, 1] * 14 + lengths[:, 2]]
        self.patterns += np.bincount(ids, minlength=len(self.patterns))
        points = _HCP[hands].sum(axis=1)
        self.hcp_hand += np.bincount(points.ravel(), minlength=len(self.hcp_hand))
        self.hcp_partnership += np.bincount(
            points[:, 0] + points[:, 2], minlength=len(self.hcp_partnership)
        )
        self.card_position += np.bincount(
            (decks * DECK + _POSITIONS).ravel(), minlength=DECK * DECK
        ).reshape(DECK, DECK)
        self.card_seat += self.card_position_delta_to_seats(decks)
        self.deals += count

    @staticmethod
    def card_position_delta_to_seats(decks: IntArray) -> IntArray:
        seat = _POSITIONS % _SEATS
        return np.bincount((decks * _SEATS + seat).ravel(), minlength=DECK * _SEATS).reshape(
            DECK, _SEATS
        )


def bridge_report(tally: BridgeTally, seed: str) -> Report:
    pattern_p = [float(p) for p in exact.pattern_probabilities()]
    hand_p = [float(p) for p in exact.hcp_distribution(SUIT_SIZE)]
    pair_p = [float(p) for p in exact.hcp_distribution(2 * SUIT_SIZE)]
    tests = [
        stats.pooled_test(
            "hand patterns (all four hands)",
            tally.patterns.tolist(),
            pattern_p,
            exact.pattern_pair_joint(),
            _SEATS,
            ordered=False,
            labels=[exact.pattern_text(key) for key in exact.patterns()],
        ),
        stats.pooled_test(
            "HCP of one hand (all four hands)",
            tally.hcp_hand.tolist(),
            hand_p,
            exact.hcp_pair_joint(),
            _SEATS,
            ordered=True,
            labels=[f"{points} HCP" for points in range(len(hand_p))],
        ),
        stats.independent_test(
            "HCP of the N+S partnership",
            tally.hcp_partnership.tolist(),
            pair_p,
            ordered=True,
            labels=[f"{points} HCP" for points in range(len(pair_p))],
        ),
        stats.permutation_table_test(
            "card × seat", tally.card_seat, [1] * DECK, [SUIT_SIZE] * _SEATS
        ),
        stats.permutation_table_test(
            "card × deck position", tally.card_position, [1] * DECK, [1] * DECK
        ),
    ]
    seed_rows = seed_counts()
    seed_z = seed_fit.seed_pattern_z()
    hands = tally.deals * _SEATS
    # The four hands of a deal are dependent, so a pooled count's SE is not √expected (it is
    # 0.91–0.97 of it for the commonest patterns).
    pattern_z = seed_fit.pooled_z(
        tally.patterns.tolist(), pattern_p, np.diag(exact.pattern_pair_joint()).tolist(), _SEATS
    )
    hand_z = seed_fit.pooled_z(
        tally.hcp_hand.tolist(), hand_p, np.diag(exact.hcp_pair_joint()).tolist(), _SEATS
    )
    pattern_rows = []
    for key, count, p, z in zip(
        exact.patterns(), tally.patterns.tolist(), pattern_p, pattern_z.tolist(), strict=True
    ):
        name = exact.pattern_text(key)
        pattern_rows.append(
            {
                "pattern": name,
                "observed": count,
                "expected": hands * p,
                "expected_probability": p,
                "z": z,
                "seed_count": seed_rows.get(name),
                "seed_z": seed_z[name] if name in seed_rows else None,
            }
        )
    seed_tallies, notes = seed_fit.findings()
    return Report(
        "bridge",
        tally.deals,
        seed,
        tests,
        {
            "patterns": pattern_rows,
            "hcp_hand": _rows("hcp", tally.hcp_hand.tolist(), hand_p, hand_z.tolist()),
            "hcp_partnership": _rows("hcp", tally.hcp_partnership.tolist(), pair_p),
            **seed_tallies,
        },
        notes,
    )


def audit_bridge(
    seed: MatchSeed,
    deals: int,
    chunk: int = DEFAULT_CHUNK,
    shuffle: Shuffle | None = None,
    *,
    progress: Progress | None = None,
) -> Report:
    """Deals ``0 … deals-1`` of stream ``bridge/<k>``, tallied and tested, ``chunk`` at a time.

    The games' shuffle runs through the batch dealer (identical deals, much faster); any other
    ``shuffle`` (a planted biased one) runs one deal at a time on the same streams.
    """
    check_deals(deals, chunk)
    tally = BridgeTally()
    if shuffle is None:
        chunks: Iterator[Orders | list[list[int]]] = iter_orders(seed, deals, chunk=chunk)
    else:
        hasher = BlockHasher(seed)
        chunks = (
            [shuffle(RandomStream(seed, bridge_label(k), hasher), range(DECK)) for k in indices]
            for indices in _chunks(deals, chunk)
        )
    for orders in chunks:
        tally.add(orders)
        if progress is not None:
            progress(tally.deals, deals)
    return bridge_report(tally, seed.hex())


def _rows(
    key: str,
    observed: Sequence[int],
    probabilities: Sequence[float],
    z: Sequence[float] | None = None,
) -> list[dict[str, Any]]:
    """Tally rows; ``z`` defaults to that of independent draws (`independent_z`)."""
    total = sum(observed)
    zs = independent_z(observed, probabilities).tolist() if z is None else z
    return [
        {key: i, "observed": n, "expected": total * p, "expected_probability": p, "z": zi}
        for i, (n, p, zi) in enumerate(zip(observed, probabilities, zs, strict=True))
    ]


def independent_z(
    observed: Sequence[int], probabilities: Sequence[float]
) -> npt.NDArray[np.float64]:
    """(observed − expected) / SE of counts of independent draws: each count is binomial, with
    variance expected · (1 − p), not the Poisson expected. Impossible cells get z = 0."""
    # One draw per "deal": pooled_z's term for two draws of one deal vanishes.
    return seed_fit.pooled_z(observed, probabilities, [0.0] * len(probabilities), 1)


# -------------------------------------------------------------------------------------- mahjong

BatchDeficiency = Callable[[IntArray], npt.NDArray[np.integer[Any]]]
"""Deficiency numbers of the rows of an (n, 34) array of tile counts."""


def audit_mahjong(
    seed: MatchSeed,
    deals: int,
    shuffle: Shuffle = shuffled_wall,
    deficiency: BatchDeficiency = deficiency_batch,
    *,
    chunk: int = AUDIT_CHUNK,
    progress: Progress | None = None,
) -> Report:
    """The walls of rounds ``0 … deals-1`` (the engine's ``round_wall``): position × kind, and
    the starting hands; ``chunk`` walls are dealt and tallied at a time.

    Starting hands are dealt as the engine deals them (`arena.games.mahjong.wall`): position
    ``k`` takes ``wall[16k : 16k + 16]`` and the dealer's first draw is ``wall[64]``, so the
    dealer holds 17 tiles and the others 16 when play starts.
    """
    check_deals(deals, chunk)
    hasher = BlockHasher(seed)
    size = len(MAHJONG_TILES)
    table = np.zeros((size, MAHJONG_KINDS), dtype=np.int64)
    hands = DeficiencyCounts()
    for indices in _chunks(deals, chunk):
        walls = np.empty((len(indices), size), dtype=np.int64)
        for row, k in enumerate(indices):
            stream = RandomStream(seed, label("mahjong", "round", k, "wall"), hasher)
            walls[row] = shuffle(stream, MAHJONG_TILES)
        table += np.bincount(
            (np.arange(size) * MAHJONG_KINDS + walls).ravel(), minlength=size * MAHJONG_KINDS
        ).reshape(size, MAHJONG_KINDS)
        hands.add(walls, deficiency)
        if progress is not None:
            progress(indices.stop, deals)
    tests = [
        stats.permutation_table_test(
            "wall position × tile kind", table, [1] * size, [COPIES] * MAHJONG_KINDS
        )
    ]
    worst = worst_cell(table, deals)
    tallies: dict[str, Any] = {"worst_cell": worst, "deficiency": hands.rows()}
    notes = [
        "deficiency as arena.games.mahjong.deficiency defines it: for the dealer's 17 tiles the "
        "tiles to exchange, for a 16-tile hand the draws still needed (one more than exchanges)"
    ]
    scans = [(f"largest of {table.size} cells (exact binomial, Bonferroni)", worst["p_adjusted"])]
    return Report("mahjong", deals, seed.hex(), tests, tallies, notes, scans)


def worst_cell(table: IntArray, walls: int) -> dict[str, Any]:
    """The cell of a position × kind table least likely under a uniform wall, and how unlikely.

    Walls are independent and a position holds a given kind with probability 4/136 = 1/34, so
    each cell's count is exactly Binomial(walls, 1/34); the normal tail is lighter than the
    binomial's upper tail at the few dozen expected per cell of the audit's smallest sizes, and
    made fair walls look suspicious. (The M/(M − 1) factor of the
    table test belongs to the X² of the whole table, whose cells are dependent, not to a cell.)
    ``p_adjusted`` is the cell's two-sided exact p-value times the number of cells (Bonferroni),
    so a fair dealer gives ``p_adjusted`` < α with probability at most α.
    """
    from scipy.stats import binom  # here, not at the top: see `arena.matches.stats`

    p = 1 / MAHJONG_KINDS
    upper = binom.sf(table - 1, walls, p)
    lower = binom.cdf(table, walls, p)
    two_sided = np.minimum(1.0, 2 * np.minimum(upper, lower))
    worst = np.unravel_index(int(two_sided.argmin()), table.shape)
    expected = walls * p
    return {
        "position": int(worst[0]),
        "kind": int(worst[1]),
        "observed": int(table[worst]),
        "expected": expected,
        # A display figure on the binomial's own scale; the p-values come from the exact tail.
        "z": float((table[worst] - expected) / np.sqrt(expected * (1 - p))),
        "p_two_sided": float(two_sided[worst]),
        "p_adjusted": min(1.0, table.size * float(two_sided[worst])),
    }


def starting_hand_counts(walls: IntArray) -> tuple[IntArray, IntArray]:
    """Tile counts of the dealer's 17 tiles and of the other three 16-tile hands."""
    deals = walls.shape[0]
    others = walls[:, HAND_SIZE:DEALT].reshape(deals * (MAHJONG_PLAYERS - 1), HAND_SIZE)
    dealer = np.concatenate([walls[:, :HAND_SIZE], walls[:, DEALT : DEALT + 1]], axis=1)
    return _counts(dealer), _counts(others)


def _counts(hands: IntArray) -> IntArray:
    rows = np.repeat(np.arange(hands.shape[0]), hands.shape[1])
    flat = np.bincount(
        rows * MAHJONG_KINDS + hands.ravel(), minlength=hands.shape[0] * MAHJONG_KINDS
    )
    return flat.reshape(hands.shape[0], MAHJONG_KINDS)


@dataclass
class DeficiencyCounts:
    """How many starting hands have each deficiency, dealer and other seats apart, over the
    walls added so far (index: the deficiency)."""

    dealer: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    others: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def add(self, walls: IntArray, fn: BatchDeficiency) -> None:
        dealer, others = (np.asarray(fn(c), dtype=np.int64) for c in starting_hand_counts(walls))
        self.dealer = _added(self.dealer, np.bincount(dealer))
        self.others = _added(self.others, np.bincount(others))

    def rows(self) -> list[dict[str, Any]]:
        top = max(len(self.dealer), len(self.others))
        dealer_n = _added(self.dealer, np.zeros(top, dtype=np.int64)).tolist()
        others_n = _added(self.others, np.zeros(top, dtype=np.int64)).tolist()
        dealers, others = sum(dealer_n), sum(others_n)
        return [
            {
                "deficiency": d,
                "dealer": dealer_n[d],
                "dealer_share": dealer_n[d] / dealers,
                "others": others_n[d],
                "others_share": others_n[d] / others,
            }
            for d in range(top)
            if dealer_n[d] or others_n[d]
        ]


def deficiency_tally(walls: IntArray, fn: BatchDeficiency) -> list[dict[str, Any]]:
    """How many starting hands of ``walls`` have each deficiency, dealer and other seats apart."""
    counts = DeficiencyCounts()
    counts.add(walls, fn)
    return counts.rows()


# ----------------------------------------------------------------------------------------- dice


def audit_dice(
    seed: MatchSeed,
    deals: int,
    dice: int = 5,
    faces: int = 6,
    roll: DiceRoll = roll_dice,
    *,
    chunk: int = AUDIT_CHUNK,
    progress: Progress | None = None,
) -> Report:
    """Rolls ``dice/<k>`` of ``dice`` dice: every face, and each roll's sum; ``chunk`` rolls
    are made and tallied at a time."""
    check_deals(deals, chunk)
    hasher = BlockHasher(seed)
    sum_dist = [float(p) for p in exact.dice_sum_distribution(dice, faces)]
    # Seed 002 table 4.6: the hand types of five dice, counted over all 7,776 rolls.
    ways = exact.dice_hand_type_counts() if (dice, faces) == (5, 6) else None
    face_counts = np.zeros(faces, dtype=np.int64)
    sum_counts = np.zeros(len(sum_dist), dtype=np.int64)
    type_counts = np.zeros(0 if ways is None else len(ways), dtype=np.int64)
    # A die off the faces cannot come from a fair roller: it is tallied apart, as an impossible
    # outcome that fails every test it touches, rather than crashing the tallies.
    faces_off = rolls_off = 0
    for indices in _chunks(deals, chunk):
        rolls = np.empty((len(indices), dice), dtype=np.int64)
        for row, k in enumerate(indices):
            rolled = roll(RandomStream(seed, label("dice", k), hasher), dice, faces)
            if len(rolled) != dice:
                raise DealingError(f"the roller gave {len(rolled)} dice for dice/{k}, not {dice}")
            rolls[row] = rolled
        on_faces = (rolls >= 1) & (rolls <= faces)
        whole = on_faces.all(axis=1)
        faces_off += int((~on_faces).sum())
        rolls_off += int((~whole).sum())
        face_counts = _added(face_counts, np.bincount(rolls[on_faces] - 1, minlength=faces))
        sum_counts = _added(sum_counts, np.bincount(rolls[whole].sum(axis=1)))
        if ways is not None:
            type_counts = _added(type_counts, np.bincount(exact.dice_hand_types(rolls[whole])))
        if progress is not None:
            progress(indices.stop, deals)
    face_p = [1.0 / faces] * faces
    face_z = independent_z(face_counts.tolist(), face_p).tolist()
    off_label = f"a face outside 1–{faces}"
    tests = [
        stats.independent_test(
            "faces of every die",
            [*face_counts.tolist(), faces_off],
            [*face_p, 0.0],
            ordered=False,
            labels=[*(f"face {f + 1}" for f in range(faces)), off_label],
        ),
        stats.independent_test(
            f"sum of {dice} dice",
            [*sum_counts.tolist(), rolls_off],
            [*sum_dist, 0.0],
            ordered=True,
            labels=[
                *(f"sum {total}" for total in range(len(sum_dist))),
                f"a roll with {off_label}",
            ],
        ),
    ]
    tallies: dict[str, Any] = {}
    if ways is not None:
        type_p = [n / 6**5 for n in ways]
        type_z = independent_z(type_counts.tolist(), type_p).tolist()
        tests.append(
            stats.independent_test(
                "hand types of five dice",
                [*type_counts.tolist(), rolls_off],
                [*type_p, 0.0],
                ordered=False,
                labels=[*exact.DICE_HAND_TYPES, f"a roll with {off_label}"],
            )
        )
        tallies["hand_types"] = [
            {
                "hand": name,
                "ways": n,
                "observed": int(seen),
                "expected": deals * p,
                "expected_probability": p,
                "z": z,
            }
            for name, n, seen, p, z in zip(
                exact.DICE_HAND_TYPES, ways, type_counts.tolist(), type_p, type_z, strict=True
            )
        ]
    face_rows = [
        {
            "face": f + 1,
            "observed": int(n),
            "expected": deals * dice / faces,
            "expected_probability": 1.0 / faces,
            "z": face_z[f],
        }
        for f, n in enumerate(face_counts.tolist())
    ]
    sum_rows = _rows("sum", sum_counts.tolist(), sum_dist)
    return Report(
        "dice",
        deals,
        seed.hex(),
        tests,
        {
            "faces": face_rows,
            "sums": [r for r in sum_rows if r["expected_probability"] > 0],
            **tallies,
        },
    )
