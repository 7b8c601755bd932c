"""Bridge deals the way seed 000 describes: shuffle 52 cards, then deal them round the table.

Cards are numbered as in the seed, less one so that they index arrays: ♠A ♠2 … ♠K are 0 … 12,
then ♥ 13 … 25, ♦ 26 … 38, ♣ 39 … 51. After the shuffle, position ``p`` (0-based) goes to seat
``p % 4`` in the order N E S W: the seed's positions 1, 5, 9 … to North, 2, 6, 10 … to East.

The shuffle is `RandomStream.shuffle`, the same Fisher–Yates the mahjong wall uses, on stream
``bridge/<index>`` of the match seed, so the dealer audit measures the code the games run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.dealing.streams import BlockHasher, DealingError, MatchSeed, RandomStream, label

Card = int

DECK = 52
SUIT_SIZE = 13
SEATS: tuple[str, ...] = ("N", "E", "S", "W")
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_LETTERS = "SHDC"
RANK_TEXT: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Rank text by rank index within a suit (the seed's order: ace first)."""

HCP_BY_RANK: tuple[int, ...] = (4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3)
"""Milton Work points by rank index: A 4, K 3, Q 2, J 1."""

HCP_BY_CARD: tuple[int, ...] = tuple(HCP_BY_RANK[c % SUIT_SIZE] for c in range(DECK))

_PBN_RANKS = {"A": 0, "K": 12, "Q": 11, "J": 10, "T": 9}
_PBN_RANKS.update({str(n): n - 1 for n in range(2, 10)})


def bridge_label(index: int) -> str:
    """The stream label of deal ``index`` of a match: ``bridge/<index>``."""
    return label("bridge", index)


def suit_of(card: Card) -> int:
    return card // SUIT_SIZE


def rank_of(card: Card) -> int:
    """Rank index within the suit: 0 is the ace, 1 … 12 are 2 … K."""
    return card % SUIT_SIZE


def strength(card: Card) -> int:
    """2 … 14 (ace high), the order a hand is shown in."""
    r = rank_of(card)
    return 14 if r == 0 else r + 1


def card_text(card: Card, symbols: bool = True) -> str:
    if not 0 <= card < DECK:
        raise DealingError(f"no card {card}: cards are 0 … {DECK - 1}")
    suit = SUIT_SYMBOLS[suit_of(card)] if symbols else SUIT_LETTERS[suit_of(card)]
    return suit + RANK_TEXT[rank_of(card)]


def pattern_of(lengths: Iterable[int]) -> str:
    """The hand pattern: suit lengths longest first, e.g. ``4-4-3-2``."""
    return "-".join(str(n) for n in sorted(lengths, reverse=True))


def hcp_of(cards: Iterable[Card]) -> int:
    return sum(HCP_BY_CARD[c] for c in cards)


def deal_order(stream: RandomStream) -> list[Card]:
    """The shuffled deck: ``order[p]`` is the card at position ``p``."""
    return stream.shuffled(range(DECK))


@dataclass(frozen=True, slots=True)
class BridgeDeal:
    """Four hands of 13 cards, by seat N E S W, each sorted by suit then strength."""

    hands: tuple[tuple[Card, ...], ...]

    def __post_init__(self) -> None:
        if len(self.hands) != len(SEATS) or any(len(h) != SUIT_SIZE for h in self.hands):
            raise DealingError("a bridge deal is four hands of 13 cards")
        seen = [c for h in self.hands for c in h]
        if sorted(seen) != list(range(DECK)):
            twice = sorted({c for c in seen if seen.count(c) > 1})
            missing = sorted(set(range(DECK)) - set(seen))
            raise DealingError(
                "a bridge deal holds every card once; "
                f"twice: {' '.join(map(card_text, twice)) or 'none'}, "
                f"missing: {' '.join(map(card_text, missing)) or 'none'}"
            )

    @classmethod
    def from_order(cls, order: Sequence[Card]) -> BridgeDeal:
        """Deal a shuffled deck round the table: position ``p`` to seat ``p % 4``."""
        if len(order) != DECK:
            raise DealingError(f"a deck has {DECK} cards, got {len(order)}")
        return cls(tuple(_sorted_hand(order[seat :: len(SEATS)]) for seat in range(len(SEATS))))

    @classmethod
    def from_pbn(cls, text: str) -> BridgeDeal:
        """Read a PBN deal such as ``N:AKT76.QT97.A3.KT 982..JT542.Q9864 …``.

        PBN lists the hands clockwise from the named seat, suits ♠.♥.♦.♣, ``T`` for ten (``10``
        is accepted too, as the seed writes it).
        """
        text = text.strip()
        if len(text) < 2 or text[1] != ":" or text[0].upper() not in SEATS:
            raise DealingError(f"a PBN deal starts with a seat and a colon, got {text[:8]!r}")
        first = SEATS.index(text[0].upper())
        parts = text[2:].split()
        if len(parts) != len(SEATS):
            raise DealingError(f"a PBN deal has four hands, got {len(parts)}")
        hands: list[tuple[Card, ...]] = [()] * len(SEATS)
        for offset, part in enumerate(parts):
            hands[(first + offset) % len(SEATS)] = _sorted_hand(_parse_pbn_hand(part))
        return cls(tuple(hands))

    def hand(self, seat: int | str) -> tuple[Card, ...]:
        return self.hands[_seat_index(seat)]

    def suit_lengths(self, seat: int | str) -> tuple[int, int, int, int]:
        """Lengths in ♠ ♥ ♦ ♣ order."""
        counts = [0, 0, 0, 0]
        for c in self.hand(seat):
            counts[suit_of(c)] += 1
        return counts[0], counts[1], counts[2], counts[3]

    def pattern(self, seat: int | str) -> str:
        return pattern_of(self.suit_lengths(seat))

    def hcp(self, seat: int | str) -> int:
        return hcp_of(self.hand(seat))

    def suit_text(self, seat: int | str, suit: int, symbols: bool = True) -> str:
        """One line of a diagram, e.g. ``♠ A K 10 7 6``; a void is ``—``."""
        ranks = [RANK_TEXT[rank_of(c)] for c in self.hand(seat) if suit_of(c) == suit]
        head = SUIT_SYMBOLS[suit] if symbols else SUIT_LETTERS[suit]
        return f"{head} {' '.join(ranks) if ranks else '—'}"

    def to_pbn(self, first: str = "N") -> str:
        start = _seat_index(first)
        hands = []
        for offset in range(len(SEATS)):
            seat = (start + offset) % len(SEATS)
            suits = []
            for suit in range(len(SUIT_SYMBOLS)):
                ranks = [RANK_TEXT[rank_of(c)] for c in self.hands[seat] if suit_of(c) == suit]
                suits.append("".join("T" if r == "10" else r for r in ranks))
            hands.append(".".join(suits))
        return f"{SEATS[start]}:{' '.join(hands)}"

    def diagram(self, symbols: bool = True, summary: bool = True) -> str:
        """The deal as a newspaper column prints it: North on top, West left, East right."""
        lines = {s: [self.suit_text(s, suit, symbols) for suit in range(4)] for s in range(4)}
        west_width = max(len(x) for x in lines[3])
        box = ["┌─── N ───┐", "│W       E│", "│         │", "└─── S ───┘"]
        left = max(west_width, 12) + 2
        indent = " " * left
        out = [indent + x for x in lines[0]]
        for row in range(4):
            out.append(f"{lines[3][row]:<{left}}{box[row]}  {lines[1][row]}".rstrip())
        out += [indent + x for x in lines[2]]
        if summary:
            out.append("")
            out.append(
                "  ".join(f"{SEATS[s]} {self.pattern(s)} {self.hcp(s)} HCP" for s in range(4))
            )
        return "\n".join(out)


def deal_bridge(seed: MatchSeed, index: int, hasher: BlockHasher | None = None) -> BridgeDeal:
    """Deal ``index`` of a match, one by one (the reference the batch dealer must equal)."""
    return BridgeDeal.from_order(deal_order(RandomStream(seed, bridge_label(index), hasher)))


def _seat_index(seat: int | str) -> int:
    if isinstance(seat, str):
        key = seat.strip().upper()[:1]
        if key not in SEATS:
            raise DealingError(f"no seat {seat!r}: seats are N E S W")
        return SEATS.index(key)
    if not 0 <= seat < len(SEATS):
        raise DealingError(f"no seat {seat}: seats are 0 … 3 (N E S W)")
    return seat


def _sorted_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: (suit_of(c), -strength(c))))


def _parse_pbn_hand(text: str) -> list[Card]:
    suits = text.split(".")
    if len(suits) != len(SUIT_LETTERS):
        raise DealingError(f"a PBN hand has four suits separated by '.', got {text!r}")
    cards: list[Card] = []
    for suit, ranks in enumerate(suits):
        i = 0
        while i < len(ranks):
            token = ranks[i].upper()
            if ranks.startswith("10", i):
                token, i = "T", i + 2
            else:
                i += 1
            if token not in _PBN_RANKS:
                raise DealingError(f"no rank {token!r} in PBN hand {text!r}")
            cards.append(suit * SUIT_SIZE + _PBN_RANKS[token])
    if len(cards) != SUIT_SIZE:
        raise DealingError(f"a hand has {SUIT_SIZE} cards, {text!r} has {len(cards)}")
    return cards
