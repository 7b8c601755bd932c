"""Liar's dice actions as small immutable values with a text form that round-trips.

``bid 3x5`` claims that at least three dice over all cups show a 5; ``challenge`` calls the
last bid a lie. Bids are ordered by (count, face): a raise is a higher count with any face, or
the same count with a higher face (seed 002, 圖 2.3). Under the re-roll rule (§2.2 extension 2)
``reroll 66`` takes two 6s out of the cup, showing them to everyone, and re-rolls the rest;
``reroll -`` shows nothing and re-rolls every die in the cup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from arena.games.errors import InvalidActionError

FACES: Final = 6

# [0-9], not \d: \d also takes "３" or "٣", which another implementation of the protocol would
# refuse. Any length is read, so a count too large for the table gets the rule's own message.
_BID_RE = re.compile(r"bid\s+([0-9]+)\s*x\s*([0-9]+)")
_REROLL_RE = re.compile(r"reroll(?:\s+(-|[0-9 ]{1,40}))?")
_MAX_DIGITS: Final = 6
"""A count or face written with more digits than this is refused before `int` reads it."""
NO_REVEAL: Final = "-"
"""The text of a re-roll that shows no die (``reroll -``)."""


@dataclass(frozen=True, slots=True, order=True)
class Bid:
    """``count`` dice showing ``face``; the dataclass order is exactly the bidding order."""

    count: int
    face: int

    def __str__(self) -> str:
        return f"bid {self.count}x{self.face}"

    def beats(self, other: Bid | None) -> bool:
        return other is None or (self.count, self.face) > (other.count, other.face)


@dataclass(frozen=True, slots=True)
class Challenge:
    """Lift the cups: the last bid is judged against every die in play."""

    def __str__(self) -> str:
        return "challenge"


CHALLENGE: Final = Challenge()


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll rule: take the dice ``reveal`` (faces, sorted) out of the cup for everyone to
    see, and re-roll the dice left in the cup. ``reveal`` may be empty (``reroll -``)."""

    reveal: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "reveal", tuple(sorted(self.reveal)))

    def __str__(self) -> str:
        return "reroll " + ("".join(str(face) for face in self.reveal) or NO_REVEAL)


LiarsDiceAction = Bid | Challenge | Reroll


def parse_action(text: str) -> LiarsDiceAction:
    """Read ``challenge``, ``bid CxF`` or ``reroll FFF``/``reroll -`` (case and spacing are
    forgiven, nothing else is; the faces of a re-roll may come in any order)."""
    cleaned = " ".join(text.strip().lower().split())
    if cleaned == "challenge":
        return CHALLENGE
    reroll = _REROLL_RE.fullmatch(cleaned)
    if reroll is not None:
        return _parse_reroll(reroll.group(1))
    match = _BID_RE.fullmatch(cleaned)
    if match is None:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise InvalidActionError(
            f"cannot read {shown!r} as a liar's dice action: write 'challenge', 'bid CxF' "
            "(C dice showing face F, e.g. 'bid 3x5') or, under the re-roll rule, 'reroll F…' "
            "(the faces to show, e.g. 'reroll 66', or 'reroll -' to show none)"
        )
    count_text, face_text = match.group(1), match.group(2)
    if len(face_text.lstrip("0")) > 1:
        raise InvalidActionError(f"a die has faces 1 to {FACES}, not {_abridged(face_text)}")
    if len(count_text.lstrip("0")) > _MAX_DIGITS:
        raise InvalidActionError(
            f"a bid of {_abridged(count_text)} dice claims more dice than any table holds"
        )
    # Without its leading zeros: `int` refuses a text of over 4,300 digits.
    count, face = int(count_text.lstrip("0") or "0"), int(face_text.lstrip("0") or "0")
    if count < 1:
        raise InvalidActionError(f"a bid claims at least one die, not {count}")
    if not 1 <= face <= FACES:
        raise InvalidActionError(f"a die has faces 1 to {FACES}, not {face}")
    return Bid(count, face)


def _abridged(digits: str) -> str:
    return digits if len(digits) <= 12 else digits[:12] + "…"


def _parse_reroll(faces: str | None) -> Reroll:
    if faces is None:
        raise InvalidActionError(
            "a re-roll names the faces it shows: 'reroll 66' shows two 6s, 'reroll -' shows none"
        )
    if faces == NO_REVEAL:
        return Reroll(())
    digits = faces.replace(" ", "")
    for digit in digits:
        if not 1 <= int(digit) <= FACES:
            raise InvalidActionError(f"a die has faces 1 to {FACES}, not {digit} (in a re-roll)")
    return Reroll(tuple(int(digit) for digit in digits))


def face_counts(dice: Iterable[int]) -> list[int]:
    """Counts indexed by face (index 0 unused), so ``counts[5]`` is the number of fives."""
    counts = [0] * (FACES + 1)
    for die in dice:
        counts[die] += 1
    return counts


def matching(counts: Sequence[int], face: int, ones_wild: bool) -> int:
    """Dice that count towards ``face``: its own, plus the ones while ones are wild."""
    if ones_wild and face != 1:
        return counts[face] + counts[1]
    return counts[face]


def broken_bid_rule(bid: Bid, last: Bid | None, min_open: int, total_dice: int) -> str | None:
    """Which bidding rule ``bid`` breaks after ``last`` (``None``: the round's opening), in
    words, or ``None`` when it is a legal bid."""
    if not 1 <= bid.face <= FACES:
        return f"a die has faces 1 to {FACES}, not {bid.face}"
    if bid.count > total_dice:
        return f"{bid} claims more dice than the {total_dice} in play"
    if last is None:
        if bid.count < min_open:
            return f"the opening bid must claim at least {min_open} dice"
        return None
    if not bid.beats(last):
        return (
            f"{bid} does not raise {last}: a raise needs a higher count, "
            "or the same count with a higher face"
        )
    return None


@cache
def raises_after(last: Bid | None, min_open: int, total_dice: int) -> tuple[Bid, ...]:
    """Every bid that may follow ``last`` (or open the round), lowest first."""
    if last is None:
        return tuple(
            Bid(c, f) for c in range(min_open, total_dice + 1) for f in range(1, FACES + 1)
        )
    same = [Bid(last.count, f) for f in range(last.face + 1, FACES + 1)]
    higher = [Bid(c, f) for c in range(last.count + 1, total_dice + 1) for f in range(1, FACES + 1)]
    return tuple(same + higher)


@cache
def legal_texts(last: Bid | None, min_open: int, total_dice: int) -> tuple[str, ...]:
    """The text of every legal action after ``last``: ``challenge`` (when a bid stands) first."""
    head = () if last is None else (str(CHALLENGE),)
    return head + tuple(str(bid) for bid in raises_after(last, min_open, total_dice))
