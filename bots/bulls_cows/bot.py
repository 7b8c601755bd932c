"""The 1A2B bot: a guesser and an answerer behind the `Bot` interface.

It decides from the request's observation alone (its own guesses with their answers, the guesses
it answered); the only state it keeps across requests is its answerer's secret, chosen when a game
starts. `decide` is the synchronous core, so benchmarks can drive it without the referee.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.dealing import MatchSeed, RandomStream
from arena.games.bulls_cows import CodeSpace, code_space
from bots.base import Bot
from bots.bulls_cows.answerers import ANSWERERS, Answerer, make_answerer
from bots.bulls_cows.guessers import (
    EntropyGuesser,
    FrequencyGuesser,
    Guesser,
    History,
    RandomGuesser,
    SuperComparisonGuesser,
)
from bots.bulls_cows.trees import TreeGuesser
from bots.options import SEED_TYPE, OptionInfo, did_you_mean, one_of, seed_problem
from protocol.games.bulls_cows import BullsCowsObservation, Exchange
from protocol.games.common import GameStart
from protocol.messages import Event, Request

DEFAULT_ANSWERER = "fixed"

SETTINGS: tuple[OptionInfo, ...] = (
    OptionInfo("answerer", "text", DEFAULT_ANSWERER, one_of(ANSWERERS)),
    OptionInfo("seed", SEED_TYPE, default_text="the bot's name"),
)
"""Every guesser's settings, as `build_bot` checks them (`bots list --options` shows them)."""

CONFIG_KEYS = tuple(setting.name for setting in SETTINGS)


class BotConfigError(ValueError):
    """A strategy config has an unknown key or a bad value."""


def _history(space: CodeSpace, exchanges: list[Exchange]) -> History:
    return [(space.index[e.guess], space.parse_feedback(e.feedback)) for e in exchanges]


class BullsCowsBot(Bot):
    games = ("bulls_cows",)

    def __init__(self, name: str, guesser: Guesser, answerer: Answerer) -> None:
        super().__init__(name)
        self.guesser = guesser
        self.answerer = answerer
        self._needs_secret = True

    def decide(self, observation: BullsCowsObservation) -> str:
        """The action text for a request carrying ``observation``."""
        space = code_space(observation.digits, observation.alphabet)
        if observation.phase == "guess":
            guess = self.guesser.choose(space, _history(space, observation.guesses))
            return f"guess {space.codes[guess]}"
        answered = _history(space, observation.answers)
        if observation.phase == "answer" and not answered:
            # The first answer of a game: whatever came before belonged to another game.
            self._needs_secret = True
        if self._needs_secret:
            # ``answered`` is empty unless this bot joined the game late (restarted and resumed).
            self.answerer.new_game(space, answered)
            self._needs_secret = False
        if observation.phase == "answer":
            if observation.pending_guess is None:
                raise ValueError("asked to answer, but the observation has no pending guess")
            pending = space.index[observation.pending_guess]
            feedback = self.answerer.answer(space, answered, pending)
            return f"answer {space.feedback_text(feedback)}"
        if observation.phase == "reveal":
            return f"reveal {space.codes[self.answerer.reveal(space, answered)]}"
        raise ValueError(f"no decision is due in phase {observation.phase!r}")

    def begin_game(self) -> None:
        self._needs_secret = True

    async def on_event(self, event: Event) -> None:
        if isinstance(event.payload, GameStart):
            self.begin_game()

    async def act(self, request: Request) -> str:
        observation = request.observation
        if not isinstance(observation, BullsCowsObservation):
            raise ValueError(f"a 1A2B bot got a {type(observation).__name__} observation")
        return self.decide(observation)


GuesserMaker = Callable[[MatchSeed], Guesser]


def _guesser_stream(seed: MatchSeed) -> RandomStream:
    return seed.stream("bots", "bulls_cows", "guesser")


GUESSERS: dict[str, GuesserMaker] = {
    "random": lambda seed: RandomGuesser(_guesser_stream(seed)),
    "frequency": lambda seed: FrequencyGuesser(_guesser_stream(seed)),
    "super-comparison": lambda seed: SuperComparisonGuesser(_guesser_stream(seed)),
    "entropy": lambda seed: EntropyGuesser(),
    "optimal": lambda seed: TreeGuesser(),
}


def make_guesser(name: str, seed: MatchSeed) -> Guesser:
    if name not in GUESSERS:
        raise BotConfigError(f"unknown guesser {name!r}; known: {', '.join(GUESSERS)}")
    return GUESSERS[name](seed)


def build_bot(guesser: str, name: str, config: Mapping[str, Any]) -> BullsCowsBot:
    """A bot guessing with ``guesser``; config keys ``answerer`` (fixed | evader, default fixed)
    and ``seed`` (text or int naming its random streams; default the bot's name)."""
    for key in config:
        if key not in CONFIG_KEYS:
            known = ", ".join(CONFIG_KEYS)
            hint = did_you_mean(key, CONFIG_KEYS)
            raise BotConfigError(f"{key}: unknown 1A2B bot setting{hint}; known: {known}")
    answerer_name = config.get("answerer", DEFAULT_ANSWERER)
    if answerer_name not in ANSWERERS:
        raise BotConfigError(f"answerer: must be {one_of(ANSWERERS)}")
    seed_text = config.get("seed", name)
    problem = seed_problem(seed_text)
    if problem is not None:
        raise BotConfigError(problem)
    seed = MatchSeed.from_text(seed_text)
    answerer = make_answerer(answerer_name, seed.stream("bots", "bulls_cows", "answerer"))
    return BullsCowsBot(name, make_guesser(guesser, seed), answerer)


def _factory(guesser: str) -> Callable[[str, Mapping[str, Any]], Bot]:
    def make(name: str, config: Mapping[str, Any]) -> Bot:
        return build_bot(guesser, name, config)

    return make


BOTS: Mapping[str, Callable[[str, Mapping[str, Any]], Bot]] = {
    guesser: _factory(guesser) for guesser in GUESSERS
}


def describe_options(strategy: str) -> list[OptionInfo]:
    """The settings ``strategy``'s factory takes (`bots.options`): the same for every guesser,
    `SETTINGS`; a name that is no guesser has none."""
    return list(SETTINGS) if strategy in GUESSERS else []
