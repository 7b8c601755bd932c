"""What a liar's dice strategy sees, and the small combinatorics every strategy shares.

`TableView` is read from the seat's observation; strategies never touch an engine state. The
combination counts generalise the seed's table 4.7 (hands of five dice holding at least k of a
given face: 7776, 4651, 1526, 276, 26, 1) to any number of dice and to wild ones, where a die
matches a face on two of its six sides.

Under the re-roll rule (seed 002 §2.2 extension 2) dice that a seat took out of its cup are
public: the view counts every seat's revealed dice as known (``counts``), so the odds run over
the other cups' hidden dice only (``hidden_dice``). Without re-rolls ``counts`` is our own dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb

from arena.dealing import RandomStream
from arena.games.liars_dice import FACES, Bid, face_counts, matching
from protocol.games.liars_dice import LiarsDiceObservation

FACE_RANGE = range(1, FACES + 1)
_TABLE_DICE = 5
"""Hands of up to this many dice are drawn with one ``randbelow`` from a precomputed table."""


@dataclass(frozen=True, slots=True)
class TableView:
    """One seat's knowledge at a decision: its dice, the dice counts and this round's bids."""

    seat: int
    dice: tuple[int, ...]
    """Own dice: those under our cup and those we revealed (re-roll rule), sorted."""
    counts: tuple[int, ...]
    """Known dice by face, index 0 unused: our own plus every other seat's revealed dice."""
    dice_counts: tuple[int, ...]
    bids: tuple[tuple[int, Bid], ...]
    ones_wild: bool
    min_open: int
    round: int = 0
    cup: tuple[int, ...] | None = None
    """Own dice still under our cup (the ones a re-roll may show); ``None``: all of ``dice``."""
    reroll: bool = False
    """Whether the re-roll rule is on."""
    must_bid: bool = False
    """We have re-rolled this turn: only a bid is legal."""
    mine_counts: tuple[int, ...] = field(init=False)
    """Known dice counting towards each face (wild ones included while wild), index 0 unused."""
    own_counts: tuple[int, ...] = field(init=False)
    """Own dice by face (cup and revealed), index 0 unused."""
    total_dice: int = field(init=False)
    hidden_dice: int = field(init=False)
    """Dice we cannot see: those under the other cups (the seed's two-player 'opponent hand',
    generalised); dice the others revealed are known and not among them."""

    def __post_init__(self) -> None:
        # Derived once: the strategies read these thousands of times per game.
        counts = tuple(matching(self.counts, face, self.ones_wild) for face in range(FACES + 1))
        object.__setattr__(self, "mine_counts", counts)
        object.__setattr__(self, "own_counts", tuple(face_counts(self.dice)))
        object.__setattr__(self, "total_dice", sum(self.dice_counts))
        object.__setattr__(self, "hidden_dice", self.total_dice - sum(self.counts[1:]))

    @classmethod
    def from_observation(cls, obs: LiarsDiceObservation) -> TableView:
        own_shown = obs.revealed[obs.seat] if obs.revealed else []
        known = [*obs.dice, *own_shown]
        for seat, shown in enumerate(obs.revealed):
            if seat != obs.seat:
                known.extend(shown)
        return cls(
            seat=obs.seat,
            dice=tuple(sorted([*obs.dice, *own_shown])),
            counts=tuple(face_counts(known)),
            dice_counts=tuple(obs.dice_counts),
            bids=tuple((b.seat, Bid(b.count, b.face)) for b in obs.bids),
            ones_wild=obs.ones_wild,
            min_open=obs.min_open,
            round=obs.round,
            cup=tuple(obs.dice),
            reroll=obs.reroll,
            must_bid=obs.must_bid,
        )

    @property
    def last_bid(self) -> Bid | None:
        return self.bids[-1][1] if self.bids else None

    @property
    def own_dice(self) -> int:
        return len(self.dice)

    @property
    def cup_dice(self) -> tuple[int, ...]:
        """Own dice under our cup (all our dice when nothing was revealed)."""
        return self.dice if self.cup is None else self.cup

    def mine(self, face: int) -> int:
        """Known dice counting towards ``face`` (wild ones included while wild): our own, plus
        the other seats' revealed dice under the re-roll rule."""
        return self.mine_counts[face]

    def shown_by_others(self, face: int, wild: bool) -> int:
        """Dice the other seats revealed (re-roll rule) that count towards ``face``."""
        return matching(self.counts, face, wild) - matching(self.own_counts, face, wild)

    def can_reroll(self) -> bool:
        """Whether a re-roll is legal now: the rule is on, we have not re-rolled this turn,
        a die would be left to roll, and a bid is left to make afterwards."""
        if not self.reroll or self.must_bid or not self.cup_dice:
            return False
        last = self.last_bid
        return last is None or last < Bid(self.total_dice, FACES)

    def wild_after(self, face: int) -> bool:
        """Whether ones stay wild once a bid on ``face`` is made (bidding ones ends it)."""
        return self.ones_wild and face != 1

    def opponents(self) -> list[int]:
        return [s for s, n in enumerate(self.dice_counts) if n and s != self.seat]


def matches(counts: Sequence[float], face: int, ones_wild: bool) -> float:
    """`matching` for imagined hands, whose counts may be real numbers (圖 6.1)."""
    if ones_wild and face != 1:
        return counts[face] + counts[1]
    return counts[face]


def matching_faces(face: int, ones_wild: bool) -> int:
    """Sides of a die that count as ``face``."""
    return 2 if ones_wild and face != 1 else 1


@cache
def exact_counts(dice: int, sides: int = 1) -> tuple[int, ...]:
    """Hands of ``dice`` dice (as ordered rolls) with exactly k dice matching, for k=0..dice,
    when ``sides`` of the six sides match: the binomial odds times ``6**dice``, as integers.
    ``exact_counts(5)`` is 3125, 3125, 1250, 250, 25, 1: the seed's C(5,k)(1/6)^k(5/6)^(5−k)
    of table 4.5 times 7776 (the table itself lists the tails, "k or more")."""
    return tuple(comb(dice, k) * sides**k * (FACES - sides) ** (dice - k) for k in range(dice + 1))


@cache
def tail_counts(dice: int, sides: int = 1) -> tuple[int, ...]:
    """Hands of ``dice`` dice (as ordered rolls) with at least k dice matching, for k=0..dice,
    when ``sides`` of the six sides match. ``tail_counts(5)`` is the seed's table 4.7."""
    exact = exact_counts(dice, sides)
    tails = [sum(exact[k:]) for k in range(dice + 1)]
    return tuple(tails)


def weighted_index(rng: RandomStream, weights: Sequence[int]) -> int:
    """An index drawn with probability proportional to its (non-negative integer) weight, with
    one ``randbelow`` from the stream; the weights must not all be 0."""
    pick = rng.randbelow(sum(weights))
    for index, weight in enumerate(weights):
        if pick < weight:
            return index
        pick -= weight
    raise AssertionError("unreachable: pick < sum(weights)")


def tail_weight(dice: int, sides: int, need: int) -> int:
    """Hands of ``dice`` dice holding at least ``need`` matches (0 when ``need`` > ``dice``)."""
    if need <= 0:
        return FACES**dice
    if need > dice:
        return 0
    return tail_counts(dice, sides)[need]


def tail_probability(dice: int, sides: int, need: int) -> float:
    return tail_weight(dice, sides, need) / FACES**dice


@cache
def _hand_table(dice: int) -> tuple[tuple[int, ...], ...]:
    """Face counts of every ordered roll of ``dice`` dice, indexed by the roll read in base 6."""
    table = []
    for index in range(FACES**dice):
        counts = [0] * (FACES + 1)
        for _ in range(dice):
            index, digit = divmod(index, FACES)
            counts[digit + 1] += 1
        table.append(tuple(counts))
    return tuple(table)


def random_counts(rng: RandomStream, dice: int) -> list[int]:
    """Face counts of ``dice`` fair dice; up to five dice cost one draw from the stream."""
    counts = [0] * (FACES + 1)
    left = dice
    while left > 0:
        chunk = min(left, _TABLE_DICE)
        drawn = _hand_table(chunk)[rng.randbelow(FACES**chunk)]
        for face in FACE_RANGE:
            counts[face] += drawn[face]
        left -= chunk
    return counts


def uniform(rng: RandomStream) -> float:
    """A uniform real in [0, 1) with 53 random bits."""
    return rng.randbelow(1 << 53) / (1 << 53)


def chance(rng: RandomStream, p: float) -> bool:
    """True with probability ``p``."""
    return uniform(rng) < p


def p_true(view: TableView, bid: Bid, wild: bool) -> float:
    """Probability that ``bid`` holds given our dice, the hidden dice being fair."""
    need = bid.count - matching(view.counts, bid.face, wild)
    return tail_probability(view.hidden_dice, matching_faces(bid.face, wild), need)


def likeliest_raise(view: TableView) -> Bid | None:
    """The raise (or opening) most likely to hold given our dice: the least raise on each face,
    the lowest such bid on ties; ``None`` when no raise is left."""
    best: Bid | None = None
    best_p = -1.0
    for face in FACE_RANGE:
        count = minimal_raise(view.last_bid, face, view.min_open)
        if count > view.total_dice:
            continue
        bid = Bid(count, face)
        p = p_true(view, bid, view.wild_after(face))
        if p > best_p or (p == best_p and best is not None and bid < best):
            best, best_p = bid, p
    return best


def minimal_raise(last: Bid | None, face: int, min_open: int) -> int:
    """The least count at which ``face`` may be bid after ``last``."""
    if last is None:
        return min_open
    return last.count if face > last.face else last.count + 1
