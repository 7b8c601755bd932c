"""The pure strategy interface behind every liar's dice bot.

A strategy is told when a game begins (its random stream, seat and the players' names), sees the
payloads of the events its seat may see, and answers a `TableView` with an action. It never sees
an engine state, so the same object plays through the referee or in the synchronous gauntlet.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from pydantic import BaseModel

from arena.dealing import MatchSeed, RandomStream
from arena.games.liars_dice import LiarsDiceAction
from bots.liars_dice.view import TableView


class Strategy(ABC):
    """Base of the liar's dice strategies."""

    #: the name the strategy is registered under
    name: str = "strategy"

    def __init__(self) -> None:
        # Until `begin_game` names the game's own stream, a fixed one keeps a strategy that is
        # used outside a game (tests, analysis) deterministic.
        self.rng: RandomStream = MatchSeed.from_text("unstarted").stream("liars_dice-bot")
        self.seat = 0
        self.players: tuple[str, ...] = ()

    def begin_match(self) -> None:
        """A new match begins: forget what the last one taught (a strategy that learns keeps
        it across matches only through files it names, as `kept_state` says). Default:
        nothing to forget."""
        return None

    def begin_game(self, rng: RandomStream, seat: int, players: Sequence[str]) -> None:
        self.rng = rng
        self.seat = seat
        self.players = tuple(players)

    def observe(self, payload: BaseModel) -> None:
        """An event payload this seat may see. Default: ignore (the view carries the bids)."""
        return None

    def kept_state(self) -> str | None:
        """What the strategy keeps outside its config between matches (`Bot.kept_state`)."""
        return None

    @abstractmethod
    def decide(self, view: TableView) -> LiarsDiceAction:
        """The action for this view; must be legal."""
