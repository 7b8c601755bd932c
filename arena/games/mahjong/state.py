"""The mutable state of one hand, and the queries the engine and the payload builders share.

Hands are 34-count lists (one per seat): every rule below is a count test, and the win check
reads counts directly. A set on the table keeps its wire views, built once, because every
observation of the hand shows it again.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from arena.games.mahjong.actions import MahjongAction
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.rules import SEATS, MahjongRules
from arena.games.mahjong.tiles import ALL_KINDS, FLOWER_BASE, WINDS, Meld, format_tiles
from arena.games.mahjong.wall import Wall
from protocol.games.mahjong import MeldView

Phase = Literal["discard", "claim", "rob_kong", "over"]
WindLetter = Literal["E", "S", "W", "N"]

DISCARD: Final = "discard"
CLAIM: Final = "claim"
ROB: Final = "rob_kong"
OVER: Final = "over"

TILE_TEXT: Final = tuple(format_tiles((t,)) for t in range(ALL_KINDS))
"""Text of each tile index, the flowers 1f-8f (34..41) included."""
WIND_LETTERS: Final[tuple[WindLetter, ...]] = ("E", "S", "W", "N")
_SUIT_LETTERS: Final = "mpsz"
_RANK_TEXT: Final = "123456789"


def counts_text(counts: list[int]) -> str:
    """Compact sorted notation of a 34-count hand (the inner loop of every observation)."""
    parts = []
    for suit in range(4):
        base = suit * 9
        digits = "".join(
            _RANK_TEXT[r] * counts[base + r]
            for r in range(9 if suit < 3 else 7)
            if counts[base + r]
        )
        if digits:
            parts.append(digits + _SUIT_LETTERS[suit])
    return "".join(parts)


class Exposed:
    """A set on the table: the meld, the seat whose discard made it (None for a ckong), and its
    wire views (frozen models, so one instance serves every observation)."""

    __slots__ = ("from_seat", "hidden", "meld", "shown")

    def __init__(self, meld: Meld, from_seat: int | None) -> None:
        self.meld = meld
        self.from_seat = from_seat
        kind = meld.kind.value
        self.shown = MeldView(kind=kind, tiles=format_tiles(meld.tiles), from_seat=from_seat)
        """How the owner (and, once the hand is won, everyone) sees it."""
        self.hidden = (
            MeldView(kind=kind, tiles=None, from_seat=None) if kind == "ckong" else self.shown
        )
        """How the other seats see it: a concealed kong's tiles lie face down."""


class HandState:
    """Everything about one hand in progress; the engine owns the transitions."""

    __slots__ = (
        "after_flower",
        "after_kong",
        "after_open_kong",
        "answers",
        "claim_from",
        "claim_tile",
        "claimed_turn",
        "counts",
        "dealer",
        "deltas",
        "drawn",
        "draws",
        "due",
        "flowers",
        "hand_index",
        "last",
        "last_tile",
        "legal",
        "melds",
        "phase",
        "reason",
        "river",
        "round_index",
        "rules",
        "scores",
        "turn",
        "uninterrupted",
        "wall",
        "wins",
    )

    def __init__(
        self,
        rules: MahjongRules,
        wall: Wall,
        dealer: int,
        round_index: int,
        hand_index: int,
        scores: list[int],
    ) -> None:
        self.rules = rules
        self.wall = wall
        self.dealer = dealer
        self.round_index = round_index
        self.hand_index = hand_index
        self.scores = scores
        self.counts = [[0] * 34 for _ in range(SEATS)]
        for seat in range(SEATS):
            row = self.counts[seat]
            for t in wall.dealt(self.position(seat)):
                if t < FLOWER_BASE:
                    row[t] += 1
        self.flowers: list[list[int]] = [[] for _ in range(SEATS)]
        """Each seat's exposed flowers in the order exposed (the engine moves dealt ones here)."""
        self.melds: list[list[Exposed]] = [[] for _ in range(SEATS)]
        self.river: list[list[int]] = [[] for _ in range(SEATS)]
        self.phase: Phase = DISCARD
        self.turn = dealer
        self.drawn = -1
        self.after_kong = False
        self.after_open_kong = False
        """The drawn tile is the replacement after this seat's open kong (明槓), flowers that
        replaced it included: the ``open_kong_replacement_win`` rule reads it."""
        self.after_flower = False
        self.last_tile = False
        self.claimed_turn = False
        self.claim_tile = -1
        self.claim_from = -1
        self.due: list[int] = []
        self.answers: dict[int, MahjongAction] = {}
        self.legal: dict[int, list[MahjongAction]] = {}
        self.uninterrupted = True
        self.draws = [0] * SEATS
        self.last: str | None = None
        self.reason = ""
        self.deltas = [0] * SEATS
        self.wins: list[dict[str, Any]] = []

    def copy(self) -> HandState:
        twin = object.__new__(HandState)
        twin.rules = self.rules
        twin.wall = self.wall.copy()
        twin.dealer = self.dealer
        twin.round_index = self.round_index
        twin.hand_index = self.hand_index
        twin.scores = list(self.scores)
        twin.counts = [list(row) for row in self.counts]
        twin.melds = [list(row) for row in self.melds]
        twin.river = [list(row) for row in self.river]
        twin.phase = self.phase
        twin.turn = self.turn
        twin.drawn = self.drawn
        twin.after_kong = self.after_kong
        twin.after_open_kong = self.after_open_kong
        twin.after_flower = self.after_flower
        twin.flowers = [list(row) for row in self.flowers]
        twin.last_tile = self.last_tile
        twin.claimed_turn = self.claimed_turn
        twin.claim_tile = self.claim_tile
        twin.claim_from = self.claim_from
        twin.due = list(self.due)
        twin.answers = dict(self.answers)
        twin.legal = {seat: list(actions) for seat, actions in self.legal.items()}
        twin.uninterrupted = self.uninterrupted
        twin.draws = list(self.draws)
        twin.last = self.last
        twin.reason = self.reason
        twin.deltas = list(self.deltas)
        twin.wins = [dict(win) for win in self.wins]
        return twin

    # -- queries --------------------------------------------------------------------------------

    def position(self, seat: int) -> int:
        """0 for the dealer, then 1, 2, 3 in turn order: the seat's starting hand and wind."""
        return (seat - self.dealer) % SEATS

    def wind(self, seat: int) -> int:
        return WINDS[self.position(seat)]

    def can_draw(self, seat: int) -> bool:
        return self.wall.can_draw(self.position(seat))

    def wins_on(self, seat: int, tile: int) -> bool:
        """Whether ``tile`` would complete ``seat``'s concealed ``3k+1`` tiles. One win check
        per claim chance costs less than keeping every seat's waits up to date."""
        row = self.counts[seat]
        row[tile] += 1
        try:
            return is_winning(row)
        finally:
            row[tile] -= 1

    def pon_of(self, seat: int, tile: int) -> int:
        """Index of ``seat``'s pon of ``tile`` among its melds, or -1."""
        for i, exposed in enumerate(self.melds[seat]):
            if exposed.meld.kind == "pon" and exposed.meld.tiles[0] == tile:
                return i
        return -1

    def tiles_accounted(self) -> list[int]:
        """Where every tile is: hands, sets, rivers, exposed flowers and the undrawn wall (136
        in all; 42 counts, the flowers' 1 each, with the flowers option)."""
        total = [0] * (ALL_KINDS if self.rules.flowers else 34)
        for row in self.flowers:
            for t in row:
                total[t] += 1
        for seat in range(SEATS):
            for t, n in enumerate(self.counts[seat]):
                total[t] += n
            for exposed in self.melds[seat]:
                for t in exposed.meld.tiles:
                    total[t] += 1
            for t in self.river[seat]:
                total[t] += 1
        for t in self.wall.remaining():
            total[t] += 1
        return total
