"""The thin `Bot` around a liar's dice `Strategy`, and the registry's factories.

The wrapper's synchronous core (`begin`, `handle`, `choose`) is what the async `on_event` and
`act` call, and what the synchronous gauntlet calls directly: both paths run the same code.

Every random choice of a strategy comes from the stream
``liars_dice-bot/<bot name>/<match id>/<game id>/<seat>`` of the bot's config ``seed`` (text,
default ``"0"``), so a (config seed, match, game) triple replays the bot's play exactly.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from arena.dealing import MatchSeed
from bots.base import Bot
from bots.liars_dice.bayes import BELIEFS, NETWORKS, Bayes, check_networks
from bots.liars_dice.opponent_model import ModelError
from bots.liars_dice.personality import PERSONALITIES, Personality, Probability
from bots.liars_dice.random_guess import (
    DEFAULT_ODDS_FOR,
    DEFAULT_PSYCHOLOGY,
    GUESSES,
    ODDS_FOR,
    PSYCHOLOGY_RANGE,
    RandomGuess,
    check_guess_options,
)
from bots.liars_dice.strategy import Strategy
from bots.liars_dice.view import TableView
from bots.options import SEED_TYPE, OptionInfo, did_you_mean, one_of, seed_problem, type_name
from protocol.games.common import GameStart, MatchStart
from protocol.games.liars_dice import LiarsDiceObservation
from protocol.messages import Event, Request


class ConfigError(ValueError):
    """A bot config has an unknown key or a bad value; the message names the key."""


class LiarsDiceBot(Bot):
    games = ("liars_dice",)

    def __init__(self, name: str, strategy: Strategy, seed: str = "0") -> None:
        super().__init__(name)
        self.strategy = strategy
        self.seed_text = seed
        self._seed = MatchSeed.from_text(seed)
        self._game: tuple[str | None, str | None] | None = None
        self._match: str | None = None

    # -- the synchronous core -----------------------------------------------------------------

    def begin(self, match: str | None, game: str | None, seat: int, players: Sequence[str]) -> None:
        if match != self._match:
            self._new_match(match)
        stream = self._seed.stream("liars_dice-bot", self.name, match or "-", game or "-", seat)
        self.strategy.begin_game(stream, seat, players)
        self._game = (match, game)

    def _new_match(self, match: str | None) -> None:
        """A connected bot (`bots run`) plays match after match in one process: each later one
        starts as the bot began its first, so a match replays from its seed whatever came
        before it. Told by the match's `MatchStart`, or, where no referee frames the match (a
        bare driver), by a new match id."""
        if self._game is not None:
            self.strategy.begin_match()
            self._game = None
        self._match = match

    def handle(self, match: str | None, game: str | None, payload: BaseModel) -> None:
        if isinstance(payload, MatchStart):
            # A match of the same seed has the same id, so a new match shows here, not by id.
            self._new_match(match)
        elif isinstance(payload, GameStart):
            self.begin(match, game, payload.seat, payload.players)
        elif getattr(payload, "game", None) == "liars_dice":
            self.strategy.observe(payload)

    def choose(self, match: str | None, game: str | None, observation: BaseModel) -> str:
        if not isinstance(observation, LiarsDiceObservation):
            raise TypeError(f"{self.name} plays liar's dice, not {type(observation).__name__}")
        if self._game != (match, game):
            # No game_start seen (a bare engine driver): name the stream from the request.
            self.begin(match, game, observation.seat, ())
        return str(self.strategy.decide(TableView.from_observation(observation)))

    # -- the Bot interface --------------------------------------------------------------------

    def kept_state(self) -> str | None:
        return self.strategy.kept_state()

    async def on_event(self, event: Event) -> None:
        self.handle(event.match, event.game, event.payload)

    async def act(self, request: Request) -> str:
        return self.choose(request.match, request.game, request.observation)


DEFAULT_SEED = "0"
"""The ``seed`` of a bot built without one (a match or league, and ``bots run``, always give it
one derived from their own secret seed)."""


def _options(strategy: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` checked against ``strategy``'s options (`OPTIONS`)."""
    known = {"seed": str, **OPTIONS[strategy]}
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key not in known:
            raise ConfigError(_unknown_option(strategy, key, sorted(known)))
        wanted = known[key]
        if key == "seed":
            if seed_problem(value) is not None:
                raise ConfigError(f"bot option 'seed' must be text or an integer, got {value!r}")
            value = str(value)
        if wanted is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, wanted) or (wanted is not bool and isinstance(value, bool)):
            raise ConfigError(f"bot option {key!r} must be {wanted.__name__}, got {value!r}")
        out[key] = value
    return out


def _unknown_option(strategy: str, key: str, known: list[str]) -> str:
    """Names the strategies that do take ``key``: a config written for bayes (``tables_dir``)
    given to random-guess is a config for the wrong bot, not a misspelt option."""
    owners = [name for name, options in OPTIONS.items() if key in options]
    named = " and ".join(filter(None, (", ".join(owners[:-1]), *owners[-1:])))
    where = f": it is an option of {named}, not of {strategy}" if owners else ""
    # A misspelt option gets the one it most resembles, as a league file's keys do.
    hint = "" if owners else did_you_mean(key, known)
    return f"unknown liar's dice bot option {key!r}{hint}{where}; {strategy} knows: {known}"


_GUESS_OPTIONS: dict[str, type] = {
    "real_guess": bool,
    "guess": str,
    "psychology": float,
    "odds_for": str,
}
"""The options random-guess and bayes share: 圖 6.1's real numbers and ch. 6's odds."""

OPTIONS: dict[str, dict[str, type]] = {
    "random-guess": _GUESS_OPTIONS,
    "bayes": {**_GUESS_OPTIONS, "belief": str, "tables_dir": str, "networks": list},
    "probability": {"reroll": bool},
    **{type_name: {} for type_name in PERSONALITIES},
}
"""Each strategy's options besides ``seed``, which every one takes."""


def _check_guess(options: Mapping[str, Any]) -> None:
    try:
        check_guess_options(
            options.get("guess", "uniform"),
            options.get("psychology"),
            options.get("odds_for"),
            options.get("real_guess", False),
        )
    except ValueError as error:
        raise ConfigError(str(error)) from error


def _random_guess(name: str, config: Mapping[str, Any]) -> Bot:
    options = _options("random-guess", config)
    seed = options.pop("seed", DEFAULT_SEED)
    _check_guess(options)
    return LiarsDiceBot(name, RandomGuess(**options), seed)


def _bayes(name: str, config: Mapping[str, Any]) -> Bot:
    options = _options("bayes", config)
    seed = options.pop("seed", DEFAULT_SEED)
    _check_guess(options)
    belief = options.get("belief", "threshold")
    if belief not in BELIEFS:
        shown = " or ".join(repr(known) for known in BELIEFS)
        raise ConfigError(f"bot option 'belief' must be {shown}, got {belief!r}")
    try:
        check_networks(options.get("networks", NETWORKS))
    except ValueError as error:
        raise ConfigError(f"bot option 'networks': {error}") from error
    try:
        strategy = Bayes(**options)
    except ModelError as error:
        raise ConfigError(f"bot option 'tables_dir': {error}") from error
    return LiarsDiceBot(name, strategy, seed)


def _probability(name: str, config: Mapping[str, Any]) -> Bot:
    options = _options("probability", config)
    seed = options.pop("seed", DEFAULT_SEED)
    return LiarsDiceBot(name, Probability(**options), seed)


def _personality(type_name: str) -> Callable[[str, Mapping[str, Any]], Bot]:
    def factory(name: str, config: Mapping[str, Any]) -> Bot:
        options = _options(type_name, config)
        strategy = Personality(type_name, PERSONALITIES[type_name])
        return LiarsDiceBot(name, strategy, options.get("seed", DEFAULT_SEED))

    factory.__doc__ = f"{type_name}: {PERSONALITIES[type_name].describe()} (seed 002 §5.1)"
    return factory


BOTS: dict[str, Callable[[str, Mapping[str, Any]], Bot]] = {
    "random-guess": _random_guess,
    "bayes": _bayes,
    "probability": _probability,
    **{type_name: _personality(type_name) for type_name in PERSONALITIES},
}


_STRATEGY_CLASSES: dict[str, type[Strategy]] = {
    "random-guess": RandomGuess,
    "bayes": Bayes,
    "probability": Probability,
}
"""The class each configurable strategy's factory builds with its options: their defaults are
the class's own (`describe_options` reads them from its signature)."""

_LOW, _HIGH = PSYCHOLOGY_RANGE
_ALLOWED: dict[str, str] = {
    "guess": one_of(GUESSES),
    "psychology": f"{_LOW:g} to {_HIGH:g}; only with guess = odds",
    "odds_for": f"{one_of(ODDS_FOR)}; only with guess = odds",
    "real_guess": "not with guess = odds",
    "belief": one_of(BELIEFS),
    "networks": f"any of {', '.join(NETWORKS)}",
}
"""What narrows an option's values: the constants `check_guess_options`, `_bayes` and
`check_networks` check against."""

_UNSET: dict[str, str] = {
    "psychology": f"unset: {DEFAULT_PSYCHOLOGY:g} with guess = odds",
    "odds_for": f'unset: "{DEFAULT_ODDS_FOR}" with guess = odds',
    "tables_dir": "unset: nothing kept between runs",
}
"""What an option whose default is ``None`` means (`check_guess_options`, `Bayes`)."""


def describe_options(strategy: str) -> list[OptionInfo]:
    """The settings ``strategy``'s factory takes (`bots.options`): ``seed`` and its `OPTIONS`,
    with the types `_options` checks, the defaults of the strategy class it builds and the
    values its checks allow. A strategy it does not know has none."""
    if strategy not in OPTIONS:
        return []
    found = [OptionInfo("seed", SEED_TYPE, DEFAULT_SEED)]
    cls = _STRATEGY_CLASSES.get(strategy)
    defaults = (
        {
            name: parameter.default
            for name, parameter in inspect.signature(cls.__init__).parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }
        if cls is not None
        else {}
    )
    for key, wanted in OPTIONS[strategy].items():
        default = defaults.get(key)
        found.append(
            OptionInfo(
                key,
                type_name(wanted) if wanted is not list else "list of text",
                default,
                _ALLOWED.get(key),
                _UNSET.get(key) if default is None else None,
            )
        )
    return found
