"""League formats: what a league does differently for each game it plays, and what a config's
files gave (`LeagueContents`). `LEAGUE_FORMATS` says, for each league game, its engine, its
default match length, the bounds of a game's difference for the standings and how its rules are
read (`ENGINE_GAME`, `DEFAULT_GAMES` and `league_format_problem` are drawn from it);
`LeagueRules` are the kinds of rules those readers give, which `LeagueContents` keeps with the
bots. Apart from `arena.leagues.config` because this is the per-game table, which the standings
and the stored-config notes read without a config and which a contributor adding a game edits;
the config (its keys, checks, fingerprints and loading) imports this module, never the other way
round (the readers take a `LeagueConfig` as a type only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from arena.leagues.config_bots import LeagueConfigError

if TYPE_CHECKING:
    from arena.games.liars_dice.rules import LiarsDiceRules
    from arena.games.mahjong.rules import MahjongRules
    from arena.leagues.config import LeagueConfig

LeagueGame: TypeAlias = str
"""A league's game name (``game = "liars-dice"``): a key of `LEAGUE_FORMATS`."""


class BullsCowsLeagueRules(BaseModel):
    """1A2B duel rules of a league (``rules = { … }``): the seed's 3 digits from 1–9."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    digits: int = Field(default=3, ge=1)
    alphabet: str = Field(default="123456789", min_length=1)
    max_guesses: int = Field(default=20, ge=1)


LeagueRules: TypeAlias = "MahjongRules | LiarsDiceRules | BullsCowsLeagueRules"
"""The rules a league plays, as its config loaded them (`LeagueContents.rules`)."""


@dataclass(frozen=True, slots=True)
class LeagueFormat:
    """How a league plays one game. A league's per-game choices come from this table
    (`LEAGUE_FORMATS`) and from `arena.leagues.play.MATCH_PLAYERS`, keyed alike: a game that is
    missing from either is refused when its config loads (`LeagueConfig.game`), never half-way
    through a league, and never played as another game."""

    engine_game: str
    """The engine's (and the protocol's) game name, as `arena.games.registry` knows it."""
    default_games: int
    """Games per match when the config does not say."""
    difference_bounds: tuple[float, float] | None
    """The range of A − B in one game, for the standings (`arena.leagues.standings`): (−1, 1)
    for a game that scores each bot 0, ½ or 1; None where points have no useful bound."""
    read_rules: Callable[[LeagueConfig], LeagueRules]
    """Read the game's rules from the config (its ruleset file, its ``rules`` table or the
    defaults); raises `ArenaError` for bad rules."""
    rules_from_mapping: Callable[[Mapping[str, Any]], LeagueRules]
    """The rules again from what `LeagueContents.rules_mapping` gave (a stored league's
    ``contents.rules``); raises `ArenaError` or `ValueError` for a mapping it cannot read."""


def _read_mahjong_rules(config: LeagueConfig) -> MahjongRules:
    from arena.games.mahjong.rules import default_ruleset
    from arena.games.mahjong.rules import load_ruleset as load_mahjong

    return load_mahjong(config.ruleset or default_ruleset(remote=config.server is not None))


def _read_dice_rules(config: LeagueConfig) -> LiarsDiceRules:
    from arena.games.liars_dice.rules import LiarsDiceRules
    from arena.games.liars_dice.rules import load_ruleset as load_dice

    dice = load_dice(config.ruleset) if config.ruleset else LiarsDiceRules()
    if dice.players != 2:
        raise LeagueConfigError(f"a league match seats two bots; players = {dice.players}")
    return dice


def _read_bulls_cows_rules(config: LeagueConfig) -> BullsCowsLeagueRules:
    from arena.games.bulls_cows.codes import check_space

    rules = config.rules or BullsCowsLeagueRules()
    check_space(rules.digits, rules.alphabet)
    return rules


def _mahjong_rules_from(mapping: Mapping[str, Any]) -> MahjongRules:
    from arena.games.mahjong.rules import MahjongRules

    return MahjongRules.from_mapping(mapping)


def _dice_rules_from(mapping: Mapping[str, Any]) -> LiarsDiceRules:
    from arena.games.liars_dice.rules import LiarsDiceRules

    return LiarsDiceRules.from_mapping(mapping)


def _bulls_cows_rules_from(mapping: Mapping[str, Any]) -> BullsCowsLeagueRules:
    return BullsCowsLeagueRules.model_validate(mapping)


LEAGUE_FORMATS: dict[str, LeagueFormat] = {
    "mahjong": LeagueFormat("mahjong", 384, None, _read_mahjong_rules, _mahjong_rules_from),
    "liars-dice": LeagueFormat("liars_dice", 500, (-1.0, 1.0), _read_dice_rules, _dice_rules_from),
    "bulls-cows": LeagueFormat(
        "bulls_cows", 100, (-1.0, 1.0), _read_bulls_cows_rules, _bulls_cows_rules_from
    ),
}
"""League game name → its format. The default match lengths are the seeds' (384 hands, seed 003
§4.1; 500 games a personality, seed 002 ch. 5) and a 1A2B duel series. Adding a game to leagues
adds it here and to `arena.leagues.play.MATCH_PLAYERS` (docs/ARCHITECTURE.md, "Adding a
game")."""

ENGINE_GAME: dict[str, str] = {game: f.engine_game for game, f in LEAGUE_FORMATS.items()}
"""League game name → the engine's (and the protocol's) game name."""

DEFAULT_GAMES: dict[str, int] = {game: f.default_games for game, f in LEAGUE_FORMATS.items()}
"""Games per match when the config does not say (`LEAGUE_FORMATS`)."""


def league_format_problem(game: str) -> str | None:
    """Why a league cannot play ``game`` (None: it can): no `LEAGUE_FORMATS` entry, or no match
    player in `arena.leagues.play.MATCH_PLAYERS`. The message names the games that have both."""
    # Imported here: the player imports this module.
    from arena.leagues.play import MATCH_PLAYERS

    playable = ", ".join(sorted(LEAGUE_FORMATS.keys() & MATCH_PLAYERS.keys()))
    if game not in LEAGUE_FORMATS:
        return f"no league format for {game!r}; the games that have one: {playable}"
    if game not in MATCH_PLAYERS:
        return (
            f"{game!r} has a league format (LEAGUE_FORMATS in arena/leagues/formats.py) but no "
            f"match player (MATCH_PLAYERS in arena/leagues/play.py); the games that have "
            f"both: {playable}"
        )
    return None


@dataclass(frozen=True, slots=True)
class LeagueContents:
    """What the files of a league config said when it loaded: every bot's strategy and config
    (its config file's keys, then its inline options) and the game's rules. The fingerprint is
    of these, and the matches play from these."""

    bots: dict[str, tuple[str, dict[str, Any]]]
    """Bot name → (strategy, config)."""
    rules: LeagueRules

    def rules_mapping(self) -> dict[str, Any]:
        if isinstance(self.rules, BullsCowsLeagueRules):
            return self.rules.model_dump()
        return self.rules.to_mapping()

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": {
                name: {"strategy": strategy, "options": options}
                for name, (strategy, options) in self.bots.items()
            },
            "rules": self.rules_mapping(),
        }
