"""An independent implementation of seed 002's gauntlet, used as an oracle for ours.

It was written from the seed's text alone, by a helper that did not read any of this project's
code or documents: two-player common-hand liar's dice (basic rules), the random-guess player of
§4.2 and the 32 test personalities of §5.1. It shares nothing with `bots/liars_dice` (its own
dice, its own random stream), so where the two agree the agreement is evidence that both read
the text the same way, and where the seed's figures differ from both, the difference is not a
slip of one implementation. `tests/liars_dice/test_ld_independent.py` compares the two.

Bids are (count, face); hands are six counts (index 0 = face 1). The choices it made where the
text leaves one open (the helper's list, kept as written):

D1 ones not wild; opening count ≥ 2; one challenge ends the game (§2.2, extensions excluded).
D2 「找出所有大於…的牌組當做候選叫牌」: every legal bid above the current one whose count ≤ own +
   sampled total of that face (all counts, not one per face); 圖 4.4's "2x,2x,2x,3x" follows.
D3 「依照成立機率的比列」: weight = table 4.7's cumulative count for the k = max(0, c − own) dice
   the opponent must supply (7776/4651/1526/276/26/1).
D4 the text's 4561 for "≥ 1 five" is table 4.7's 4651 (= 7776 − 3125).
D5 「猜測對手的想法」: the opponent's total = a uniform 0–5 guess of our count + the sampled
   hand's count of the face; it challenges iff the total < c; the bid is kept only then.
D6 one candidate per attempt; if it fails the test the attempt has no bid (無牌可叫).
D7 the opener repeats the bid procedure (with D5's test) until it yields a bid.
D8 §4.2.3: each retry draws the challenge guess and a sampled hand afresh.
D9 a retry safety valve of 100,000 (never reached).
D10 「對於一局遊戲…上限」: the cap is drawn once per game (high 5/6, low 4/5).
D11 「到達某個上限個數就必定會抓」: a bid count ≥ the cap is challenged (圖 5.1: cap 4 > 3, no).
D12 「對手所喊的」 is the bid count x; trusting believes x or x−1, suspicious x−1 or x−2 (even
    odds), clamped to 0–5; it challenges iff its own count + the belief < x.
D13 「擁有個數最高的牌」 with 圖 5.1's 「認為總共有三個」: a face's score is its own count, plus the
    believed count for the standing bid's face; ties uniform.
D14 「缺門」: the faces with no die in its hand (never none with five dice); uniform.
D15 weak attack bids the least legal count of the face; strong adds one with probability ½.
D16 「優先選擇何者」 matters only when it would challenge and has a bid; below the cap a bid always
    exists, so the types that prefer to bid challenge only at the cap.
D17 a personality's opening: face by trait 1 on its own hand, count 2 (strong: 3 half the time).
D18 type31 = liar, suspicious, low cap, weak attack, prefers bid (the appendix misprints it).
"""

from __future__ import annotations

import random
from collections.abc import Callable

Bid = tuple[int, int]
Hand = list[int]
Traits = tuple[bool, bool, bool, bool, bool]
"""(honest, trusting, high cap, strong attack, prefers challenge)"""

FACES = range(1, 7)
CUMULATIVE = [7776, 4651, 1526, 276, 26, 1]
"""Table 4.7: five-dice hands with at least k dice of a given face (D3, D4)."""
MAX_RETRY = 100_000


def roll(rng: random.Random) -> Hand:
    counts = [0] * 6
    for _ in range(5):
        counts[rng.randrange(6)] += 1
    return counts


def is_higher(new: Bid, current: Bid | None) -> bool:
    """§2.2: a higher count (any face), or the same count and a higher face."""
    if current is None:
        return new[0] >= 2
    return new[0] > current[0] or (new[0] == current[0] and new[1] > current[1])


def min_legal_count(face: int, current: Bid | None) -> int:
    if current is None:
        return 2
    count, bid_face = current
    return count if face > bid_face else count + 1


# -- the random-guess player (§4.2) ---------------------------------------------------------------


def rg_challenge(own: Hand, current: Bid, rng: random.Random) -> bool:
    """§4.2.1: guess the opponent's count of the face uniformly 0–5; challenge if short."""
    count, face = current
    return own[face - 1] + rng.randint(0, 5) < count


def rg_candidates(own: Hand, sampled: Hand, current: Bid | None) -> tuple[list[Bid], list[int]]:
    """Every bid above ``current`` true for own + sampled hand, weighted by table 4.7 (D2, D3)."""
    candidates, weights = [], []
    for face in FACES:
        total = own[face - 1] + sampled[face - 1]
        for count in range(min_legal_count(face, current), total + 1):
            candidates.append((count, face))
            weights.append(CUMULATIVE[max(0, count - own[face - 1])])
    return candidates, weights


def rg_bid(
    own: Hand, current: Bid | None, rng: random.Random, sampled: Hand | None = None
) -> Bid | None:
    """§4.2.2, one attempt: a bid, or None (no bid this attempt)."""
    if sampled is None:
        sampled = roll(rng)
    candidates, weights = rg_candidates(own, sampled, current)
    if not candidates:
        return None
    count, face = rng.choices(candidates, weights)[0]
    if rng.randint(0, 5) + sampled[face - 1] < count:  # D5: the opponent would challenge
        return (count, face)
    return None  # D6


def rg_act(own: Hand, current: Bid | None, rng: random.Random) -> Bid | None:
    """§4.2.3: a bid, or None for a challenge."""
    for _ in range(MAX_RETRY):
        bid = rg_bid(own, current, rng)
        if current is None:
            if bid is not None:
                return bid
            continue
        challenge = rg_challenge(own, current, rng)
        if not challenge and bid is not None:  # case 1
            return bid
        if challenge and bid is None:  # case 2
            return None
        # cases 3 and 4: discard both and decide again
    return None if current is not None else (2, 1)


# -- the personalities (§5.1) ---------------------------------------------------------------------

TRAITS: list[Traits] = [
    (honest, trusting, high_cap, strong, prefers_challenge)
    for prefers_challenge in (True, False)
    for honest in (True, False)
    for trusting in (True, False)
    for high_cap in (True, False)
    for strong in (False, True)
]
"""TRAITS[i] is type<i+1>, in the appendix's order (D18)."""


def draw_cap(traits: Traits, rng: random.Random) -> int:
    return rng.choice((5, 6)) if traits[2] else rng.choice((4, 5))


def personality_act(
    traits: Traits,
    own: Hand,
    current: Bid | None,
    cap: int,
    rng: random.Random,
    trace: Callable[[str], None] = lambda line: None,
) -> Bid | None:
    """圖 5.1's five steps: a bid, or None for a challenge."""
    honest, trusting, _high_cap, strong, prefers_challenge = traits
    believed = 0
    challenge = False
    if current is not None:
        count, face = current
        if count >= cap:  # step 1 (D11)
            trace(f"cap {cap} <= count {count}: challenge")
            return None
        trace(f"cap {cap} > count {count}: no forced challenge")
        believed = rng.choice((count, count - 1) if trusting else (count - 1, count - 2))
        believed = max(0, min(5, believed))  # step 2 (D12)
        challenge = own[face - 1] + believed < count
        trace(f"believes {believed} of {face}, total {own[face - 1] + believed}: {challenge=}")
    score = list(own)  # step 3 (D13, D14)
    if current is not None:
        score[current[1] - 1] += believed
    top = [f for f in FACES if score[f - 1] == max(score)]
    missing = [f for f in FACES if own[f - 1] == 0]
    face = rng.choice(top) if rng.random() < (0.7 if honest else 0.3) else rng.choice(missing)
    count = min_legal_count(face, current)  # step 4 (D15)
    if strong and rng.random() < 0.5:
        count += 1
    bid = (count, face) if count <= 10 else None
    trace(f"face {face} (score {score[face - 1]}): bid {bid}")
    if current is None:
        return bid
    if challenge and (prefers_challenge or bid is None):  # step 5 (D16)
        return None
    return bid


# -- the gauntlet --------------------------------------------------------------------------------


def play(traits: Traits, rg_first: bool, rng: random.Random) -> bool:
    """One game; whether the random-guess player wins."""
    hands = [roll(rng), roll(rng)]  # 0: random-guess, 1: the personality
    cap = draw_cap(traits, rng)
    current: Bid | None = None
    bidder = -1
    turn = 0 if rg_first else 1
    while True:
        if turn == 0:
            bid = rg_act(hands[0], current, rng)
        else:
            bid = personality_act(traits, hands[1], current, cap, rng)
        if bid is None:
            assert current is not None
            count, face = current
            holds = hands[0][face - 1] + hands[1][face - 1] >= count
            return (bidder if holds else turn) == 0
        assert is_higher(bid, current), (bid, current)
        current, bidder = bid, turn
        turn = 1 - turn


def gauntlet(games: int, seed: int = 20240601) -> list[float]:
    """random-guess's win rate against type1 … type32, the first player alternating."""
    rng = random.Random(seed)
    return [sum(play(traits, k % 2 == 0, rng) for k in range(games)) / games for traits in TRAITS]
