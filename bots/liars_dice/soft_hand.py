"""The Bayesian player's imagined hand and limit array in real numbers (seed 002 ch. 6, beyond
the seed): "於是在假想牌組上或許也可以根據信賴度進行實數而非整數的加權" — weight the imagined
hand by the network's confidence in real numbers rather than whole dice.

With whole numbers (圖 4.11–4.17) a belief is taken or not: a believed bid fills its face to a
target, a disbelieved one caps it. Here every belief acts with its weight, the chance that the
network is used times the probability it gives (`Bayes` computes both):

* `believe` fills a face to ``weight × target`` (a believed "three 6s" with weight 0.6 imagines
  1.2 sixes);
* `doubt` caps a face between the whole-number limit (weight 1) and no cap at all (weight 0):
  ``limit + (1 − weight) × (hidden − limit)``.

Guesses then start from this hand exactly as the whole-number ones do: a face's guessed count is
its imagined count plus its piece of 圖 6.1's line over the dice the hand leaves free, under its
cap. With nothing believed and nothing capped the hand adds nothing, and the guesses are
random-guess's real-number guesses, draw for draw.
"""

from __future__ import annotations

from arena.games.liars_dice import FACES
from bots.liars_dice.view import FACE_RANGE


class SoftHand:
    """Imagined counts and caps by face (index 0 unused) over ``hidden`` hidden dice."""

    def __init__(self, hidden: int) -> None:
        self.hidden = hidden
        self.counts = [0.0] * (FACES + 1)
        self.caps = [float(hidden)] * (FACES + 1)
        """``hidden`` is no cap: no face can hold more than every hidden die."""

    def free(self) -> float:
        """Dice the imagined hand leaves to the line of 圖 6.1."""
        return max(0.0, self.hidden - sum(self.counts))

    def believe(self, face: int, target: int, weight: float) -> None:
        """A bid believed with ``weight``: ``face`` holds at least ``weight × target``. As with
        whole numbers, the belief lifts an older cap and takes no room the other faces hold."""
        room = self.hidden - (sum(self.counts) - self.counts[face])
        value = max(0.0, min(weight * max(target, 0), room))
        self.counts[face] = max(self.counts[face], value)
        self.caps[face] = max(self.caps[face], self.counts[face])

    def doubt(self, face: int, limit: int, weight: float) -> None:
        """A bid disbelieved with ``weight``: ``face`` is capped, between ``limit`` (certain) and
        no cap (no doubt). A cap lowers an older belief, as with whole numbers."""
        limit = max(0, min(limit, self.hidden))
        cap = limit + (1.0 - weight) * (self.hidden - limit)
        self.caps[face] = min(self.caps[face], cap)
        self.counts[face] = min(self.counts[face], self.caps[face])

    def guess(self, face: int, piece: float) -> float:
        """The guessed count of ``face``: its imagined count plus its ``piece`` of the free dice,
        no more than its cap."""
        return min(self.counts[face] + piece, max(self.caps[face], self.counts[face]))

    def complete(self, pieces: list[float]) -> list[float]:
        """A whole imagined hand: the imagined counts plus the free dice's ``pieces`` (by face).
        What a cap cuts off goes to the faces under their caps, in proportion to their pieces
        (evenly if those are all zero), so the hand still holds every hidden die. Caps that
        leave no face room contradict each other; the pieces then stand uncapped."""
        hand = [self.counts[f] + pieces[f] if f else 0.0 for f in range(FACES + 1)]
        capped: set[int] = set()
        for _ in FACE_RANGE:
            excess = 0.0
            for face in FACE_RANGE:
                if face not in capped and hand[face] > self.caps[face]:
                    excess += hand[face] - self.caps[face]
                    hand[face] = self.caps[face]
                    capped.add(face)
            open_faces = [f for f in FACE_RANGE if f not in capped]
            if excess <= 0.0:
                return hand
            if not open_faces:
                return [self.counts[f] + pieces[f] if f else 0.0 for f in range(FACES + 1)]
            shares = [pieces[f] for f in open_faces]
            total = sum(shares)
            for face, share in zip(open_faces, shares, strict=True):
                hand[face] += excess * (share / total if total > 0 else 1 / len(open_faces))
        return hand
