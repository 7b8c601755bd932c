"""The 32 test personalities of seed 002 §5.1 and a probability-only baseline.

Each personality is five two-way traits (the seed's wording in brackets):

1. honest / liar (誠實/說謊): whenever it bids, opening included (每次的喊牌), an honest bidder
   names, with probability 0.7, the face it believes most plentiful, else (0.3) a face it holds
   none of (缺門); a liar the other way round. The count is the least legal one for that face.
2. trusting / suspicious (信賴/猜忌): facing "x of y", a trusting player believes the bidder holds
   x or x−1 of y (even odds), a suspicious one x−1 or x−2.
3. high / low cap (上限高/低): the largest count it tolerates, drawn once per game from {5, 6}
   (high) or {4, 5} (low). A standing bid of that count or more is always challenged, and it never
   bids above its cap.
4. strong / weak attack (攻擊強/弱): when it bids, a strong player jumps one count above the least
   raise with probability 1/2; a weak one never jumps.
5. prefers challenging / bidding (傾向抓牌/叫牌): it decides both (challenge: believed total
   below the bid; bid: as in 1 and 4) and takes its preferred one when available.

The believed count of a face is its own count, plus, for the face of the standing bid, what it
believes the bidder holds (圖 5.1: two 5s in hand and "the bidder has one" → three 5s).

Names follow the seed's appendix order: type1–8 honest, type9–16 liars, both preferring to
challenge; type17–32 repeat that pattern preferring to bid. The appendix prints type31 as "liar,
suspicious, low cap, strong attack", a duplicate of type32; the pattern of the other 31 rows makes
it the weak-attack one, which is what we use.

The personalities never re-roll (the seed's tests play the basic rules); under the re-roll rule
they count the dice the others revealed as known, through `TableView`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.dealing import RandomStream
from arena.games.liars_dice import (
    CHALLENGE,
    FACES,
    Bid,
    LiarsDiceAction,
    Reroll,
    matching,
)
from bots.liars_dice.strategy import Strategy
from bots.liars_dice.view import (
    FACE_RANGE,
    TableView,
    chance,
    likeliest_raise,
    minimal_raise,
    p_true,
    tail_probability,
)

PLAIN_SHARE = 0.7
"""How often an honest player bids its strongest face, and a liar a face it lacks (§5.1)."""


@dataclass(frozen=True, slots=True)
class Traits:
    honest: bool
    trusting: bool
    high_cap: bool
    strong_attack: bool
    prefers_challenge: bool

    def words(self) -> tuple[str, ...]:
        """The five traits in words, one wording for every command (`arena liars-dice
        personalities`, the gauntlet's table, the JSON)."""
        return (
            "honest" if self.honest else "liar",
            "trusting" if self.trusting else "suspicious",
            "high cap" if self.high_cap else "low cap",
            "strong attack" if self.strong_attack else "weak attack",
            "prefers challenge" if self.prefers_challenge else "prefers bid",
        )

    def describe(self) -> str:
        return ", ".join(self.words())

    @property
    def group(self) -> str:
        """The group the figures of docs/STRATEGIES.md are given by: honest or liar, and the
        decision it prefers, e.g. ``honest → challenge``. These two traits split the
        personalities' results most (random-guess wins about 56% against the honest types that
        prefer to challenge, 81% against the liars that prefer to bid)."""
        return (
            f"{'honest' if self.honest else 'liar'} → "
            f"{'challenge' if self.prefers_challenge else 'bid'}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "honest": self.honest,
            "trusting": self.trusting,
            "high_cap": self.high_cap,
            "strong_attack": self.strong_attack,
            "prefers_challenge": self.prefers_challenge,
            "describe": self.describe(),
            "group": self.group,
        }


def _appendix_traits(index: int) -> Traits:
    """Traits of type<index+1> in the order of the seed's appendix table."""
    return Traits(
        honest=index % 16 < 8,
        trusting=index % 8 < 4,
        high_cap=index % 4 < 2,
        strong_attack=index % 2 == 1,
        prefers_challenge=index < 16,
    )


PERSONALITIES: dict[str, Traits] = {f"type{i + 1}": _appendix_traits(i) for i in range(32)}

GROUPS: tuple[str, ...] = tuple(dict.fromkeys(traits.group for traits in PERSONALITIES.values()))
"""The four groups (`Traits.group`) in the appendix's order: honest → challenge, liar →
challenge, honest → bid, liar → bid."""


def group_members(names: Iterable[str]) -> dict[str, list[str]]:
    """``names`` by group (`GROUPS` order), personalities only; a group none of them is in is
    left out."""
    chosen = [name for name in names if name in PERSONALITIES]
    members = {
        group: [name for name in chosen if PERSONALITIES[name].group == group] for group in GROUPS
    }
    return {group: members_of for group, members_of in members.items() if members_of}


class Personality(Strategy):
    """A §5.1 test program with the given traits."""

    def __init__(self, name: str, traits: Traits) -> None:
        super().__init__()
        self.name = name
        self.traits = traits
        self.cap = 6

    def begin_game(self, rng: RandomStream, seat: int, players: Sequence[str]) -> None:
        super().begin_game(rng, seat, players)
        self.cap = rng.randint(5, 6) if self.traits.high_cap else rng.randint(4, 5)

    def decide(self, view: TableView) -> LiarsDiceAction:
        last = view.last_bid
        if last is None:
            opening = self.choose_bid(view, None, 0)
            return opening if opening is not None else Bid(view.min_open, 1)
        if last.count >= self.cap:
            return CHALLENGE
        believed_bidder = self.believed_holding(view, last)
        challenge = view.mine(last.face) + believed_bidder < last.count
        bid = self.choose_bid(view, last, believed_bidder)
        if self.traits.prefers_challenge:
            return CHALLENGE if challenge or bid is None else bid
        return bid if bid is not None else CHALLENGE

    def believed_holding(self, view: TableView, last: Bid) -> int:
        """What the bidder of ``last`` is believed to hold of its face."""
        less = self.rng.randbelow(2) + (0 if self.traits.trusting else 1)
        return max(0, min(view.hidden_dice, last.count - less))

    def choose_bid(self, view: TableView, last: Bid | None, believed_bidder: int) -> Bid | None:
        believed = [view.mine(face) for face in range(len(view.counts))]
        if last is not None:
            believed[last.face] += believed_bidder
        strongest = chance(self.rng, PLAIN_SHARE) == self.traits.honest
        if strongest:
            top = max(believed[face] for face in FACE_RANGE)
            faces = [face for face in FACE_RANGE if believed[face] == top]
        else:
            # A face it holds none of (its own dice: cup and revealed); any face if it has all.
            faces = [f for f in FACE_RANGE if view.own_counts[f] == 0] or list(FACE_RANGE)
        face = self.rng.choice(faces)
        count = minimal_raise(last, face, view.min_open)
        ceiling = min(self.cap, view.total_dice)
        if count > ceiling:
            return None
        if self.traits.strong_attack and self.rng.randbelow(2) and count + 1 <= ceiling:
            count += 1
        return Bid(count, face)


class Probability(Strategy):
    """Baseline: judge bids by the binomial odds of the hidden dice alone, given the known dice
    (our own, and under the re-roll rule every seat's revealed dice).

    Challenge when the standing bid is less likely than not; otherwise bid the raise most likely
    to be true (the least raise on each face, the lowest such bid on ties).

    Re-roll policy (only under the re-roll rule, and only with ``reroll`` on): before acting it
    weighs a re-roll for each face — show every die of its cup that counts for the face (wild
    ones included while wild), re-roll the others, then bid the face's least legal raise — by the
    odds that this raise holds, counted before the roll (the shown dice stay; the re-rolled ones
    become fair chances instead of known misses). When the best such re-roll is likelier to be
    right than its plain choice (a challenge: the odds the standing bid is false; a raise: the
    odds it holds), it re-rolls; after the re-roll it bids its likeliest raise given the new dice.
    """

    name = "probability"

    def __init__(self, reroll: bool = True) -> None:
        super().__init__()
        self.reroll = reroll
        """Whether to re-roll when the rule allows it (the policy above)."""

    def decide(self, view: TableView) -> LiarsDiceAction:
        last = view.last_bid
        best = likeliest_raise(view)
        if view.must_bid and best is not None:
            return best
        p_last = None if last is None else p_true(view, last, view.ones_wild)
        challenge = p_last is not None and (p_last < 0.5 or best is None)
        if self.reroll and view.can_reroll():
            if challenge:
                p_plain = 1.0 - (p_last or 0.0)
            else:
                p_plain = -1.0 if best is None else p_true(view, best, view.wild_after(best.face))
            plan = best_reroll(view)
            if plan is not None and plan[1] > p_plain:
                return plan[0]
        return CHALLENGE if challenge or best is None else best


def best_reroll(view: TableView) -> tuple[Reroll, float] | None:
    """The re-roll for the face whose least legal raise is likeliest to hold once the cup's
    other dice are re-rolled, with those odds (taken before the roll); ``None`` when no face
    leaves a die to roll. Ties go to the lowest bid."""
    best: tuple[Reroll, float] | None = None
    best_bid = Bid(view.total_dice + 1, FACES)
    cup = view.cup_dice
    for face in FACE_RANGE:
        count = minimal_raise(view.last_bid, face, view.min_open)
        if count > view.total_dice:
            continue
        wild = view.wild_after(face)
        shown = tuple(die for die in cup if die == face or (wild and die == 1))
        rolled = len(cup) - len(shown)
        if rolled == 0:
            continue
        need = count - matching(view.counts, face, wild)
        sides = 2 if wild else 1
        p = tail_probability(view.hidden_dice + rolled, sides, need)
        bid = Bid(count, face)
        if best is None or p > best[1] or (p == best[1] and bid < best_bid):
            best, best_bid = (Reroll(shown), p), bid
    return best
