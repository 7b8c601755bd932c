"""Liar's dice payloads (common hand, seed 002).

A seat sees its own dice in a private ``dice`` event and in its observation; the other seats'
dice appear only in the public ``reveal`` event that a challenge triggers. Under the re-roll rule
(seed 002 §2.2 extension 2) the dice a seat takes out of its cup are public (``reroll`` event,
the observation's ``revealed``); the dice it re-rolls stay private (a new ``dice`` event).
"""

from typing import Annotated, Literal

from pydantic import Field

from protocol.base import WireModel


class BidRecord(WireModel):
    """One bid of the current round: ``count`` dice showing ``face`` over all dice in play."""

    seat: int = Field(description="the seat that made the bid")
    count: int = Field(ge=1, description="how many dice the bid claims")
    face: int = Field(ge=1, le=6, description="the face the bid claims")


class RerollRecord(WireModel):
    """One re-roll of the current round (re-roll rule): what was revealed, how many re-rolled."""

    seat: int = Field(description="the seat that re-rolled")
    revealed: list[int] = Field(
        description="the faces it took out of its cup and showed, sorted (may be empty)"
    )
    rerolled: int = Field(ge=1, description="how many dice it re-rolled under its cup")
    after_bids: int = Field(
        ge=0, description="how many bids of the round were made before this re-roll"
    )


class LiarsDiceBase(WireModel):
    game: Literal["liars_dice"] = "liars_dice"


class LiarsDiceObservation(LiarsDiceBase):
    """Everything a seat may know now: its own dice, everyone's dice counts, the bids so far."""

    kind: Literal["observation"] = "observation"
    seat: int = Field(description="the observing seat")
    round: int = Field(ge=0, description="round number (0-based; >0 only in a dice-loss series)")
    dice: list[int] = Field(
        description="this seat's own dice under its cup, sorted (revealed dice are in 'revealed')"
    )
    dice_counts: list[int] = Field(
        description="dice held by each seat, those it has shown under the re-roll rule "
        "('revealed') included (0 once out of a series)"
    )
    bids: list[BidRecord] = Field(description="the bids of this round, oldest first")
    to_act: int | None = Field(description="the seat whose decision is due (None once over)")
    ones_wild: bool = Field(description="whether ones count as any face right now")
    min_open: int = Field(description="the least count an opening bid may claim")
    over: bool = Field(description="whether the game has ended")
    reroll: bool = Field(description="whether the re-roll rule is on (seed 002 §2.2 ext. 2)")
    revealed: list[list[int]] = Field(
        description="the dice each seat has taken out of its cup this round (public), sorted"
    )
    rerolls: list[RerollRecord] = Field(description="the re-rolls of this round, oldest first")
    must_bid: bool = Field(
        description="whether the seat to act has re-rolled this turn and so must bid"
    )


class RoundStart(LiarsDiceBase):
    """A round begins: every seat in play has rolled its dice under its cup."""

    kind: Literal["round_start"] = "round_start"
    round: int = Field(ge=0, description="round number (0-based)")
    first: int = Field(description="the seat that must open the bidding")
    dice_counts: list[int] = Field(description="dice held by each seat this round")


class DiceRolled(LiarsDiceBase):
    """Private to one seat: the dice under its cup, when the round starts and after each of its
    re-rolls (re-roll rule; the dice it revealed are not repeated here)."""

    kind: Literal["dice"] = "dice"
    round: int = Field(ge=0, description="round number (0-based)")
    seat: int = Field(description="the seat whose dice these are")
    dice: list[int] = Field(description="the seat's dice under its cup, sorted")


class BidMade(LiarsDiceBase):
    """A seat raised the bid."""

    kind: Literal["bid"] = "bid"
    round: int = Field(ge=0, description="round number (0-based)")
    seat: int = Field(description="the bidding seat")
    count: int = Field(ge=1, description="how many dice the bid claims")
    face: int = Field(ge=1, le=6, description="the face the bid claims")


class Rerolled(LiarsDiceBase):
    """Re-roll rule: a seat took some dice out of its cup (now public until the round ends) and
    re-rolled the rest; it must bid next. The new dice go to that seat alone (``dice`` event)."""

    kind: Literal["reroll"] = "reroll"
    round: int = Field(ge=0, description="round number (0-based)")
    seat: int = Field(description="the seat that re-rolled")
    revealed: list[int] = Field(description="the faces it just took out and showed, sorted")
    rerolled: int = Field(ge=1, description="how many dice it re-rolled under its cup")
    all_revealed: list[int] = Field(
        description="every die the seat has shown this round, this re-roll's included, sorted"
    )


class Reveal(LiarsDiceBase):
    """A seat challenged: every cup is lifted and the last bid is judged."""

    kind: Literal["reveal"] = "reveal"
    round: int = Field(ge=0, description="round number (0-based)")
    challenger: int = Field(description="the seat that challenged")
    bidder: int = Field(description="the seat whose bid was challenged")
    count: int = Field(description="the challenged bid's count")
    face: int = Field(ge=1, le=6, description="the challenged bid's face")
    dice: list[list[int]] = Field(
        description="every seat's dice, sorted: under its cup and revealed (empty once out)"
    )
    ones_wild: bool = Field(description="whether ones counted as the bid's face")
    actual: int = Field(description="how many dice showed the face (with wild ones if counted)")
    loser: int = Field(description="the seat that lost the challenge")
    bids: list[BidRecord] = Field(description="every bid of the round, oldest first")
    dice_counts: list[int] = Field(description="dice each seat holds after the loss is taken")


LiarsDicePayload = Annotated[
    LiarsDiceObservation | RoundStart | DiceRolled | BidMade | Rerolled | Reveal,
    Field(discriminator="kind"),
]
