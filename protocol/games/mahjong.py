"""Taiwan 16-tile mahjong payloads (seed 003 §2.1): one hand of a match.

Tiles travel in the compact notation of docs/RULES.md: one tile is ``5m``, a group is sorted
text such as ``1123m45p77z`` (m 萬, p 筒, s 條, z = E S W N white green red; with the flowers
ruleset option, f = the flowers 1f-4f 春夏秋冬 and 5f-8f 梅蘭菊竹). Seats are 0-based;
turn order is 0 → 1 → 2 → 3 → 0, so the seat before you in turn order (上家) is ``seat - 1``.

What a seat never receives: another seat's concealed tiles (until that seat wins and shows its
hand), the tile another seat drew, the tile of another seat's concealed kong, or the wall order.
"""

from typing import Annotated, Literal

from pydantic import Field

from protocol.base import WireModel

Phase = Literal["discard", "claim", "rob_kong", "over"]
MeldKindName = Literal["chi", "pon", "kong", "ckong", "akong"]
WinHow = Literal["tsumo", "ron", "rob_kong", "rob_flower"]


class MahjongModel(WireModel):
    game: Literal["mahjong"] = "mahjong"


class MeldView(WireModel):
    """An exposed set as the observing seat sees it."""

    kind: MeldKindName = Field(
        description="chi, pon, kong (open, on a discard), ckong (concealed), akong (added to a pon)"
    )
    tiles: str | None = Field(
        description="the set's tiles, e.g. 999p; null for another seat's concealed kong"
    )
    from_seat: int | None = Field(
        description="the seat whose discard made the set (chi, pon, kong, akong); null for ckong"
    )


class TaiRow(WireModel):
    """One row of seed 003 table 2-1 that a winning hand scored."""

    name: str = Field(description="the row's name as printed in table 2-1, e.g. 門清自摸")
    tai: int = Field(description="Tai this row adds")


class MahjongObservation(MahjongModel):
    """Everything a seat may know now."""

    kind: Literal["observation"] = "observation"
    seat: int = Field(description="the observing seat")
    round: int = Field(ge=0, description="round of the match (the wall is renewed every round)")
    hand: int = Field(ge=0, le=3, description="hand within the round (0-3)")
    dealer: int = Field(description="the dealer's seat (莊家, seat wind East)")
    seat_wind: Literal["E", "S", "W", "N"] = Field(description="the observing seat's wind")
    tiles: str = Field(description="your concealed tiles, sorted (the drawn tile included)")
    drawn: str | None = Field(description="the tile you just drew, if it is your turn after a draw")
    melds: list[list[MeldView]] = Field(description="every seat's exposed sets, oldest first")
    discards: list[list[str]] = Field(
        description="every seat's discards still on the table, oldest first (claimed ones leave)"
    )
    concealed_counts: list[int] = Field(description="how many concealed tiles each seat holds")
    flowers: list[list[str]] | None = Field(
        description="every seat's exposed flowers (e.g. 1f, 6f), oldest first; null when the "
        "ruleset plays without flowers"
    )
    wall: int = Field(ge=0, description="tiles that may still be drawn before the hand is drawn")
    scores: list[int] = Field(description="match points of each seat before this hand")
    phase: Phase = Field(
        description="discard: a seat plays after drawing or claiming; claim: seats may claim the "
        "last discard; rob_kong: seats may win on a tile added to a pon; over"
    )
    turn: int = Field(description="discard phase: the seat to play; claim phases: the discarder")
    claim_tile: str | None = Field(description="the tile that may be claimed now, if any")
    last: str | None = Field(description="the last public action, e.g. 'seat 2: discard 5m'")


class HandStart(MahjongModel):
    """A hand begins: who deals, and what each seat's wind is."""

    kind: Literal["hand_start"] = "hand_start"
    round: int = Field(ge=0, description="round of the match")
    hand: int = Field(ge=0, le=3, description="hand within the round (0-3)")
    dealer: int = Field(description="the dealer's seat; the dealer draws first")
    winds: list[Literal["E", "S", "W", "N"]] = Field(description="seat wind of each seat")
    wall: int = Field(description="tiles that may be drawn after the deal")
    scores: list[int] = Field(description="match points of each seat before this hand")


class Dealt(MahjongModel):
    """Private: the sixteen tiles a seat was dealt."""

    kind: Literal["deal"] = "deal"
    seat: int = Field(description="the seat these tiles belong to")
    tiles: str = Field(
        description="the seat's starting tiles, sorted; with flowers, the dealt flowers last "
        "(each is then exposed and replaced)"
    )


class Drew(MahjongModel):
    """Private: the tile this seat drew."""

    kind: Literal["draw"] = "draw"
    seat: int = Field(description="the drawing seat (you)")
    tile: str = Field(description="the tile drawn (a flower is exposed and replaced at once)")
    replacement: bool = Field(description="drawn from the wall's tail after a kong or a flower")
    wall: int = Field(description="tiles left to draw after this one")


class OtherDrew(MahjongModel):
    """Another seat drew a tile (which one is not shown)."""

    kind: Literal["other_draw"] = "other_draw"
    seat: int = Field(description="the drawing seat")
    replacement: bool = Field(description="drawn from the wall's tail after a kong or a flower")
    wall: int = Field(description="tiles left to draw after this one")


class Discarded(MahjongModel):
    """A seat discarded a tile."""

    kind: Literal["discard"] = "discard"
    seat: int = Field(description="the discarding seat")
    tile: str = Field(description="the tile discarded")


class Claimed(MahjongModel):
    """A seat took the last discard into a chi, pon or open kong."""

    kind: Literal["claim"] = "claim"
    seat: int = Field(description="the claiming seat")
    meld: Literal["chi", "pon", "kong"] = Field(description="the set made")
    tiles: str = Field(description="the set's tiles, the discard included")
    tile: str = Field(description="the discard taken")
    from_seat: int = Field(description="the seat that discarded it")


class KongDeclared(MahjongModel):
    """A seat declared a concealed kong (tiles shown only to itself) or added to a pon."""

    kind: Literal["kong"] = "kong"
    seat: int = Field(description="the declaring seat")
    meld: Literal["ckong", "akong"] = Field(description="ckong: concealed; akong: added to a pon")
    tile: str | None = Field(description="the kong's tile; null for another seat's ckong")


class FlowerExposed(MahjongModel):
    """A seat exposed a flower (補花: dealt or drawn); a replacement draw follows."""

    kind: Literal["flower"] = "flower"
    seat: int = Field(description="the seat that exposed the flower")
    tile: str = Field(description="the flower, 1f-8f (春夏秋冬梅蘭菊竹)")


class Win(MahjongModel):
    """A seat won: its hand is shown, with the Tai rows and the payments."""

    kind: Literal["win"] = "win"
    seat: int = Field(description="the winning seat")
    how: WinHow = Field(
        description="tsumo (self-drawn; also 八仙過海), ron (on a discard), rob_kong (搶槓), "
        "rob_flower (七搶一: on the eighth flower another seat exposed)"
    )
    tile: str = Field(description="the winning tile (a flower for 八仙過海 and 七搶一)")
    from_seat: int | None = Field(
        description="the seat that paid alone (ron, rob_kong, rob_flower)"
    )
    tiles: str = Field(description="the winner's concealed tiles without the winning tile")
    melds: list[MeldView] = Field(description="the winner's sets, concealed kongs shown")
    tai: int = Field(description="total Tai of the hand, 莊家 included when the winner deals")
    breakdown: list[TaiRow] = Field(description="the Tai rows scored")
    payments: list[int] = Field(description="points each seat gains (negative: pays) for this win")


class HandEnd(MahjongModel):
    """The hand is over."""

    kind: Literal["hand_end"] = "hand_end"
    reason: Literal["win", "exhaustive"] = Field(
        description="win, or exhaustive (the wall ran down to its last 16 tiles)"
    )
    winners: list[int] = Field(description="winning seats (empty on an exhaustive draw)")
    deltas: list[int] = Field(description="points each seat gained in this hand; they sum to 0")


MahjongPayload = Annotated[
    MahjongObservation
    | HandStart
    | Dealt
    | Drew
    | OtherDrew
    | Discarded
    | Claimed
    | KongDeclared
    | FlowerExposed
    | Win
    | HandEnd,
    Field(discriminator="kind"),
]
