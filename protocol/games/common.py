"""Payloads shared by every game: the frame of a match and a game, and penalties."""

from typing import Annotated, Any, Literal

from pydantic import Field

from protocol.base import WireModel

GameKind = Literal["bulls_cows", "liars_dice", "mahjong"]


class ArenaPayload(WireModel):
    game: Literal["arena"] = "arena"


class MatchStart(ArenaPayload):
    """A match begins; the seed's SHA-256 commits the dealer before any deal is seen."""

    kind: Literal["match_start"] = "match_start"
    game_kind: GameKind = Field(description="which game the match plays")
    players: list[str] = Field(description="bot names, in seat order of the first game")
    games: int = Field(description="number of games in the match")
    seed_commitment: str = Field(
        description="hex SHA-256 of the match seed's 32 bytes (the bytes, not their hex text)"
    )


class GameStart(ArenaPayload):
    """A game begins: your seat and who sits where."""

    kind: Literal["game_start"] = "game_start"
    game_kind: GameKind = Field(description="which game this is")
    seat: int = Field(description="your seat index (0-based)")
    players: list[str] = Field(description="bot names by seat")
    rules: dict[str, Any] = Field(default_factory=dict, description="the ruleset in force")


class GameEnd(ArenaPayload):
    """A game is over."""

    kind: Literal["game_end"] = "game_end"
    scores: list[float] = Field(description="per seat: points, or 1/0/0.5 for win/loss/draw")
    winners: list[int] = Field(description="winning seats (empty on a draw)")
    reason: str = Field(description="why the game ended")
    detail: dict[str, Any] = Field(default_factory=dict, description="game-specific outcome")


class MatchEnd(ArenaPayload):
    """A match is over; the seed is revealed so anyone can re-derive every deal."""

    kind: Literal["match_end"] = "match_end"
    seed: str = Field(
        description="the 32-byte match seed in hex: SHA-256 of its bytes is seed_commitment"
    )
    totals: list[float] = Field(description="match totals per player, in MatchStart order")


class Penalty(ArenaPayload):
    """The referee played the fallback action for this seat, which failed to answer (sent to that
    seat only)."""

    kind: Literal["penalty"] = "penalty"
    seat: int = Field(description="the seat penalised")
    code: str = Field(description="error code of the last failure (late, invalid_action, ...)")
    action: str = Field(description="the fallback action played")


CommonPayload = Annotated[
    MatchStart | GameStart | GameEnd | MatchEnd | Penalty, Field(discriminator="kind")
]
