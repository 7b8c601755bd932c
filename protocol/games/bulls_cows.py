"""1A2B (Bulls and Cows) payloads: what a seat sees of a solve or duel game.

Codes and feedback travel as text (``"123"``, ``"1A2B"``). A seat's observation never holds the
other seat's secret: in a duel there is no committed secret at all until the reveals at the end.
"""

from typing import Annotated, Literal

from pydantic import Field

from protocol.base import WireModel

Mode = Literal["solve", "duel"]
Phase = Literal["guess", "answer", "reveal", "over"]


class BullsCowsModel(WireModel):
    game: Literal["bulls_cows"] = "bulls_cows"


class Exchange(WireModel):
    """One guess and the feedback it received."""

    guess: str = Field(description="the code guessed, e.g. 123")
    feedback: str = Field(description="the answer xAyB: x symbols in place, y elsewhere")


class BullsCowsObservation(BullsCowsModel):
    """Everything a seat may know now: its own guesses and the guesses it answered."""

    kind: Literal["observation"] = "observation"
    mode: Mode = Field(description="solve: guess the referee's secret; duel: guess and answer")
    digits: int = Field(description="symbols per code")
    alphabet: str = Field(description="the symbols a code is made of, in order")
    seat: int = Field(description="your seat (0-based)")
    max_guesses: int = Field(description="guesses allowed per seat")
    phase: Phase = Field(description="what the game waits for now")
    to_act: list[int] = Field(description="seats whose decision is due")
    guesses: list[Exchange] = Field(description="your guesses, oldest first, with their answers")
    answers: list[Exchange] = Field(
        description="duel: the opponent's guesses you answered, with your answers"
    )
    pending_guess: str | None = Field(
        default=None, description="duel: the opponent's guess you must answer now"
    )
    opponent_guesses: int = Field(default=0, description="duel: guesses the opponent has made")


class GuessMade(BullsCowsModel):
    """A seat guessed."""

    kind: Literal["guess"] = "guess"
    seat: int = Field(description="the guessing seat")
    guess: str = Field(description="the code guessed")
    number: int = Field(description="1 for the seat's first guess, and so on")


class AnswerGiven(BullsCowsModel):
    """A guess was answered."""

    kind: Literal["answer"] = "answer"
    seat: int | None = Field(description="the answering seat; null when the referee answers")
    guesser: int = Field(description="the seat whose guess this answers")
    guess: str = Field(description="the code guessed")
    feedback: str = Field(description="the answer xAyB")


class CodeRevealed(BullsCowsModel):
    """At the end a secret is shown: an answerer's declared code, or the referee's."""

    kind: Literal["reveal"] = "reveal"
    seat: int | None = Field(description="the revealing seat; null for the referee's secret")
    code: str = Field(description="the code revealed")
    consistent: bool = Field(description="whether it matches every answer that seat gave")


BullsCowsPayload = Annotated[
    BullsCowsObservation | GuessMade | AnswerGiven | CodeRevealed, Field(discriminator="kind")
]
