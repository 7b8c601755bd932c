"""League configs: ``configs/leagues/NAME.toml`` read into a checked `LeagueConfig`.

A league names a game, the bots that play it (a strategy and its config each) and how many games
every match holds. Every error names the file and the key, and every bot is built once while the
config loads, so a bad strategy or option stops the league before its first game.

The files a config names (bot configs, a ruleset) are read once, when it loads: the config keeps
what they said (`LeagueContents`), its fingerprint is of that, and every match plays from it, in
this process or a worker (it is pickled with the config), never from the paths again, so a file
edited while a league runs changes nothing in it.

What a league does for each game (`LEAGUE_FORMATS`), its kinds of rules and `LeagueContents`
are in `arena.leagues.formats`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from arena.errors import ArenaError
from arena.leagues.config_bots import LeagueConfigError, bot_options, bot_problems
from arena.leagues.config_problems import ConfigShapes, validation_problems
from arena.leagues.formats import (
    DEFAULT_GAMES,
    ENGINE_GAME,
    LEAGUE_FORMATS,
    BullsCowsLeagueRules,
    LeagueContents,
    LeagueGame,
    LeagueRules,
    league_format_problem,
)
from arena.matches.bot_seeds import UNSEEDED
from arena.referee import DEFAULT_DEADLINE_MS
from arena.text_files import NotUTF8Error, read_text_file
from bots.registry import bot_names as known_strategies
from protocol.messages import is_bot_name

if TYPE_CHECKING:
    from arena.games.liars_dice.rules import LiarsDiceRules
    from arena.games.mahjong.rules import MahjongRules


_SECRET_SEED = re.compile(r"[0-9a-fA-F]{64}")
"""A raw 256-bit seed, as `MatchSeed.from_hex` takes it: what a league on a server must use."""


class _OnServerError(ValueError):
    """A rule that holds only for a league played on a server. When ``--server`` put the
    league there, the message blames the file together with that option (`_problems`)."""


MATCH_FORMAT = 1
"""The version of how a league plays a match from its inputs (`LeagueConfig.match_fingerprint`):
raised by a release that changes the games the same inputs give (a bot's or an engine's
behaviour, how a bot's stream is seeded), so that no league reuses a match stored before."""

_CONTENT_KEYS = frozenset({"game", "bots", "ruleset", "rules"})
"""The keys whose change makes a config read its files again (`LeagueConfig.with_overrides`)."""


class LeagueBot(BaseModel):
    """One entrant: a display name, a strategy and its config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.#+-]+$")
    """In-process, any 1-64 of ``A-Z a-z 0-9 _ . # + -``; on a server, a connected bot's name,
    which the protocol keeps to ``protocol.messages.NAME_REGEX`` (no ``#`` or ``+``)."""
    bot: str | None = None
    """The strategy (`bots list`); default: a config file's ``strategy`` key, else ``name``."""
    config: Path | None = None
    """A strategy config (TOML), read relative to the current directory."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Config keys given inline; they override the file's."""

    def strategy(self) -> str:
        return self.bot or self.name


class LeagueConfig(BaseModel):
    """What ``arena league FILE`` plays. ``source`` is the file it came from (not a TOML key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    game: LeagueGame
    bots: list[LeagueBot] = Field(min_length=2)
    games: int | None = Field(default=None, ge=1, le=1_000_000)
    """Games per match (hands, for mahjong); default `DEFAULT_GAMES`."""
    seed: str | None = Field(default=None, min_length=1)
    """The league seed (any text, or 64 hex digits); default the league's name, so a league is
    reproducible as written. Match k's seed is derived from it and the match's bots."""
    ruleset: str | None = None
    """Mahjong: a name in configs/rulesets/ or a path (default: competition, or
    competition-server on a server); liar's dice: a ruleset path."""
    rules: BullsCowsLeagueRules | None = None
    """1A2B only: ``digits``, ``alphabet``, ``max_guesses``."""
    layout: Literal["ab", "rotate"] | None = None
    """Mahjong only: ``ab`` (default in-process) plays every pair as A B A B; ``rotate`` (the only
    layout on a server) every four bots, one seat each."""
    server: str | None = None
    """Play on the arena server at this ws:// URL: the bot names are connected bots."""
    start_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """On a server: how long a table waits for its bots before the match counts as failed."""
    jobs: int | None = Field(default=None, ge=1, le=256)
    """Matches played at once; default: the machine's cores (in-process), 4 (on a server)."""
    deadline_ms: int = Field(default=DEFAULT_DEADLINE_MS, ge=1)
    bank_ms: int | None = Field(default=None, ge=0)
    """A time bank per bot per match (docs/NETWORK.md "Time controls"); none by default."""
    records: Path | None = None
    """A directory for the JSONL game records (`arena replay`, `arena verify`); none by default."""
    source: Path | None = Field(default=None, exclude=True)
    _contents: LeagueContents | None = PrivateAttr(default=None)
    _bots_built: bool = PrivateAttr(default=True)
    """Whether loading built every bot once (`load_league`'s ``build_bots``); copies made by
    `with_overrides` do as this one did."""
    """What the files said when the config loaded (`contents`)."""

    @field_validator("game")
    @classmethod
    def _has_format(cls, game: str) -> str:
        problem = league_format_problem(game)
        if problem is not None:
            raise ValueError(problem)
        return game

    @field_validator("bots")
    @classmethod
    def _distinct_names(cls, bots: list[LeagueBot]) -> list[LeagueBot]:
        names = [bot.name for bot in bots]
        doubled = sorted({name for name in names if names.count(name) > 1})
        if doubled:
            raise ValueError(f"every bot needs its own name; repeated: {', '.join(doubled)}")
        return bots

    @model_validator(mode="after")
    def _game_keys(self) -> LeagueConfig:
        if self.rules is not None and self.game != "bulls-cows":
            raise ValueError("'rules' is for bulls-cows; mahjong and liars-dice take 'ruleset'")
        if self.ruleset is not None and self.game == "bulls-cows":
            raise ValueError("bulls-cows takes 'rules' (digits, alphabet, max_guesses)")
        if self.layout is not None and self.game != "mahjong":
            raise ValueError("'layout' is for mahjong")
        if self.game == "mahjong" and self.mahjong_layout == "rotate" and len(self.bots) < 4:
            if self.layout is None:  # rotate only because the league is on a server
                raise _OnServerError(
                    "on a server mahjong plays the rotate layout, which seats four bots a "
                    "table: list at least four"
                )
            raise ValueError("the rotate layout seats four bots a table: list at least four")
        if self.server is not None:
            if self.game == "mahjong" and self.layout == "ab":
                raise _OnServerError("on a server mahjong plays the rotate layout (four bots)")
            configured = [b.name for b in self.bots if b.bot or b.config or b.options]
            if configured:
                raise _OnServerError(
                    "on a server the bots are the connected bots of those names; their "
                    "strategy and config belong to `bots run` (found on: "
                    f"{', '.join(configured)})"
                )
            # A league bot's name may also hold # and + (in-process copies and variants), but
            # no bot of such a name can connect: every match would fail at the table.
            unconnectable = [b.name for b in self.bots if not is_bot_name(b.name)]
            if unconnectable:
                raise _OnServerError(
                    "on a server the bots are connected bots, whose names are 1-64 of "
                    "A-Z a-z 0-9 _ . - (the protocol's rule); no bot can connect as: "
                    f"{', '.join(unconnectable)}"
                )
            if not self.secret_seed:
                raise _OnServerError(
                    'a league on a server needs a secret seed of 64 hex digits (seed = "…" or '
                    "--seed; e.g. from `python -c 'import secrets; print(secrets.token_hex(32))'`"
                    f"): the bots see the commitment, so a text seed such as "
                    f"{self.league_seed!r} could be guessed and every deal derived from it"
                )
        return self

    # -- derived ------------------------------------------------------------------------------

    @property
    def engine_game(self) -> str:
        return ENGINE_GAME[self.game]

    @property
    def games_per_match(self) -> int:
        return self.games if self.games is not None else DEFAULT_GAMES[self.game]

    @property
    def league_seed(self) -> str:
        return self.seed if self.seed is not None else self.name

    @property
    def secret_seed(self) -> bool:
        """Whether the league seed is a raw secret (64 hex digits), as a league on a server must
        have: then it is never shown before the league is over, and no match seed reveals it."""
        return is_secret_seed(self.league_seed)

    def match_seed(self, bots: Sequence[str], run: int = 0) -> str:
        """The seed of the match of ``bots``: ``<league seed>/<A> vs <B>`` for a text seed (public
        anyway); for a secret one, a secret of the match's own derived from it (64 hex digits),
        since a match reveals its seed when it ends, and a seed that held the league's would give
        away every deal of the matches still to come.

        ``run`` k > 0: the match as the k-th later run of a league on a server plays it
        (after a run cut short, or a ``--restart``), whose seed is ``… #k`` of that: the
        connected bots have seen the earlier runs' deals (every cup is lifted at a challenge, a
        finished match reveals its seed), so they must not be dealt again."""
        key = " vs ".join(bots) + (f" #{run}" if run else "")
        if not self.secret_seed:
            return f"{self.league_seed}/{key}"
        from arena.dealing import MatchSeed

        return MatchSeed.from_hex(self.league_seed).derive("league-match", key).hex()

    @property
    def mahjong_layout(self) -> str:
        if self.layout is not None:
            return self.layout
        return "rotate" if self.server is not None else "ab"

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    def bot(self, name: str) -> LeagueBot:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    @property
    def contents(self) -> LeagueContents:
        """What the config's files (bot configs, ruleset) said when it loaded: read once (by
        `load_league`, or here at the first use of a config built otherwise), then kept."""
        if self._contents is None:
            self._contents = _read_contents(self)
        return self._contents

    def bot_options(self, name: str) -> tuple[str, dict[str, Any]]:
        """(strategy, config) of bot ``name`` as its files said when the config loaded (a copy:
        the caller may change it)."""
        strategy, options = self.contents.bots[name]
        return strategy, copy.deepcopy(options)

    def fingerprint(self) -> str:
        """SHA-256 of what decides the games, not of how they are run (jobs, server, records,
        start timeout): a stored league with the same name and fingerprint is resumed, any
        change starts a new one. A key given its documented default (``games``, ``seed``,
        ``rules``, ``layout``) counts as left out, so writing a default out changes nothing."""
        return self._fingerprint(normalised=True)

    def fingerprint_aliases(self) -> list[str]:
        """The fingerprints this league was stored under by earlier releases, which hashed a
        default written out as a key of its own, and a mahjong ruleset's
        ``claims_ask_every_seat`` when on (`fingerprint`): a league stored then is this league,
        and resumes. Who is asked changes no game, so a league stored under
        ``competition-server`` resumes under ``competition`` too, and the other way round."""
        current = self.fingerprint()
        aliases = []
        for normalised in (True, False):
            for every_seat_asked in (False, True):
                legacy = self._fingerprint(normalised=normalised, every_seat_asked=every_seat_asked)
                if legacy != current and legacy not in aliases:
                    aliases.append(legacy)
        return aliases

    def _fingerprint(self, *, normalised: bool, every_seat_asked: bool = False) -> str:
        """``every_seat_asked``: hash a mahjong ruleset as an earlier release stored one that
        asks every seat on a claim (the key on); else without the key, whatever its value."""
        data = self.model_dump(
            mode="json", exclude={"jobs", "server", "records", "start_timeout_s", "bots"}
        )
        if normalised:
            # Left out or written out, a default is the same league (and leagues stored before
            # this normalisation, from configs that left the defaults out, keep their
            # fingerprint: theirs were None already).
            if self.games == DEFAULT_GAMES[self.game]:
                data["games"] = None
            if self.seed == self.name:
                data["seed"] = None
            if self.rules == BullsCowsLeagueRules():
                data["rules"] = None
            if self.layout == "ab":  # the default in-process; a server refuses it
                data["layout"] = None
        if self.bank_ms is None:
            del data["bank_ms"]  # leagues stored before the key existed keep their fingerprint
        if self.secret_seed:
            # Its match seeds were once the league seed plus the bots: a league stored then is
            # another league (other games), never resumed as this one.
            data["match_seeds"] = "derived"
        # What the files said, not their paths: an edited bot config or ruleset is a new league.
        contents = self.contents
        data["bots"] = [[entry.name, *contents.bots[entry.name]] for entry in self.bots]
        if self.game == "mahjong" and any(
            strategy in known_strategies("mahjong") and ("mahjong", strategy) not in UNSEEDED
            for _name, strategy, _options in data["bots"]
        ):
            # Its seeded bots once seeded themselves from their names: a league stored then
            # played other games, so it is another league, never resumed as this one. (On a
            # server the names are connected bots, which seed themselves: nothing changed.)
            data["bot_seeds"] = "derived"
        data["ruleset"] = contents.rules_mapping()
        if self.game == "mahjong" and isinstance(data["ruleset"], dict):
            # Who is asked on a claim changes no game (only `pass` decisions are added), so a
            # league played on a server, where every seat is asked by default, is the same
            # league in-process, and resumes with either ruleset.
            data["ruleset"].pop("claims_ask_every_seat", None)
            if every_seat_asked:
                data["ruleset"]["claims_ask_every_seat"] = True
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def match_fingerprint(self, bots: Sequence[str], seed: str) -> str:
        """SHA-256 of everything that decides the games of the in-process match of ``bots``
        (A first) dealt from ``seed``, as `arena.leagues.play` plays it: the game and its rules
        (as loaded, every key), each bot's name (its random stream is derived from it), strategy
        and config (as its files said), the seed, the games, the mahjong layout, and the time
        controls (a late answer is a penalty, which changes the game). Not the league's name, its
        other bots, ``jobs`` or ``records``: a match of another league with the same fingerprint
        (`arena.leagues.reuse`) gave the games this one would give. `MATCH_FORMAT` is part of it,
        so a release that plays the same inputs otherwise reuses nothing stored before it."""
        contents = self.contents
        data = {
            "format": MATCH_FORMAT,
            "game": self.game,
            "rules": contents.rules_mapping(),
            "bots": [[name, *contents.bots[name]] for name in bots],
            "seed": seed,
            "games": self.games_per_match,
            "layout": self.mahjong_layout if self.game == "mahjong" else None,
            "deadline_ms": self.deadline_ms,
            "bank_ms": self.bank_ms,
        }
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def load_rules(self) -> MahjongRules | LiarsDiceRules | dict[str, Any]:
        """The game's rules object (mahjong, liar's dice) or the 1A2B rules mapping, as the
        config loaded them. A caller that knows the game takes `mahjong_rules`, `dice_rules` or
        `bulls_cows_rules` instead, which keep the type."""
        rules = self.contents.rules
        if isinstance(rules, BullsCowsLeagueRules):
            return rules.model_dump()
        return rules

    def mahjong_rules(self) -> MahjongRules:
        """The ruleset of a mahjong league (default: the competition rules, every seat asked on
        each claim on a server), as loaded."""
        from arena.games.mahjong.rules import MahjongRules

        return self._rules("mahjong", MahjongRules)

    def dice_rules(self) -> LiarsDiceRules:
        """The ruleset of a liar's dice league (two players), as loaded."""
        from arena.games.liars_dice.rules import LiarsDiceRules

        return self._rules("liars-dice", LiarsDiceRules)

    def bulls_cows_rules(self) -> BullsCowsLeagueRules:
        """The rules of a 1A2B league, the code space checked."""
        return self._rules("bulls-cows", BullsCowsLeagueRules)

    def _rules(self, game: LeagueGame, kind: type[_R]) -> _R:
        if self.game != game:
            # A caller's slip would otherwise play the wrong rules silently.
            raise ValueError(f"a {self.game} league has no {game} rules")
        rules = self.contents.rules
        assert isinstance(rules, kind)
        return rules

    def _read_rules(self) -> LeagueRules:
        """Read the game's rules (`LeagueFormat.read_rules`); raises `ArenaError` for a bad
        ruleset."""
        if self.ruleset is not None:
            self._no_time_table()
        return LEAGUE_FORMATS[self.game].read_rules(self)

    def _no_time_table(self) -> None:
        """A league's time controls are its own keys; a ruleset's ``[time]`` table (read by
        `arena match`) would be ignored here, so it is refused rather than silently dropped."""
        from arena.games import rulesets

        game = self.engine_game
        path, table = rulesets.time_table(
            game, self.ruleset or "", game_key_required=game != "liars_dice"
        )
        if table:
            raise LeagueConfigError(
                f"{path}: a [time] table is for arena match; a league sets its time controls "
                "with its own deadline_ms and bank_ms keys"
            )

    def with_overrides(self, **changes: Any) -> LeagueConfig:
        """A copy with some keys replaced (CLI options), checked again. It keeps what the files
        said when this config loaded, unless a change names other files or another game."""
        given = {key: value for key, value in changes.items() if value is not None}
        data = self.model_dump()
        data.update(given)
        kept = None if _CONTENT_KEYS & given.keys() else self._contents
        return _validate(data, self.source, kept, build_bots=self._bots_built)


_R = TypeVar("_R", bound="MahjongRules | LiarsDiceRules | BullsCowsLeagueRules")


def _read_contents(config: LeagueConfig) -> LeagueContents:
    """Read what ``config``'s files say (`LeagueContents`); raises `ArenaError` naming the file
    that cannot be used."""
    return LeagueContents(
        {entry.name: bot_options(entry, index) for index, entry in enumerate(config.bots)},
        config._read_rules(),
    )


def _validate(
    data: Mapping[str, Any],
    source: Path | None,
    contents: LeagueContents | None = None,
    *,
    options: Mapping[str, str] | None = None,
    build_bots: bool = True,
) -> LeagueConfig:
    """Check ``data`` and read the files it names, or take ``contents`` for them (what they
    said when an earlier copy of this config loaded). ``options``: the keys whose value came
    from the command line, each with its option, which a bad value is blamed on instead of the
    file. ``build_bots``: build each in-process bot once, so a bad strategy or option stops the
    league before its first game (not for a league only read back: its bots may be the names of
    connected bots, in a config that leaves the server to ``--server``)."""
    where = str(source) if source is not None else "league config"
    try:
        config = LeagueConfig.model_validate({**data, "source": source})
    except ValidationError as exc:
        raise LeagueConfigError(_problems(exc, where, options or {}, data)) from None
    problems: list[str] = []
    if contents is None:
        rules: LeagueRules | None = None
        try:
            rules = config._read_rules()
        except ArenaError as exc:
            problems.append(f"{where}: {exc}")
        bots = {}
        for index, entry in enumerate(config.bots):
            try:
                bots[entry.name] = bot_options(entry, index)
            except LeagueConfigError as exc:
                problems.append(f"{where}: {exc}")
        if rules is not None and len(bots) == len(config.bots):
            contents = LeagueContents(bots, rules)
    else:
        bots = contents.bots
    if config.server is None and build_bots:
        problems += bot_problems(config, bots, where)
    if problems:
        raise LeagueConfigError(_joined_problems(where, problems))
    assert contents is not None
    config._contents = contents
    config._bots_built = build_bots
    return config


def _joined_problems(where: str, problems: Sequence[str]) -> str:
    """Every problem of a config in one line: those of the league file under its name once
    (``league.toml: bot 2 ('a'): …; bot 3 ('b'): …``), then those of other files (a bot's own
    config file), each under its own name."""
    prefix = f"{where}: "
    own = [problem.removeprefix(prefix) for problem in problems if problem.startswith(prefix)]
    others = [problem for problem in problems if not problem.startswith(prefix)]
    return "; ".join(([prefix + "; ".join(own)] if own else []) + others)


def league_from_stored(stored: Mapping[str, Any]) -> LeagueConfig:
    """The config a league was stored with (its ``leagues.config``: the config's keys, and
    ``contents``, what its files said), as it loaded then: no file is read and no bot built.
    Raises `LeagueConfigError` for a stored config this release cannot read (keys of another
    release, no ``contents``)."""
    where = "stored league config"
    data = {key: value for key, value in stored.items() if key in LeagueConfig.model_fields}
    data.pop("source", None)
    stored_contents = stored.get("contents")
    game = stored.get("game")
    try:
        if not isinstance(stored_contents, dict) or game not in LEAGUE_FORMATS:
            raise ValueError("no contents (stored by an earlier release)")
        bots = {
            name: (entry["strategy"], dict(entry["options"]))
            for name, entry in stored_contents["bots"].items()
        }
        rules = LEAGUE_FORMATS[game].rules_from_mapping(stored_contents["rules"])
    except (ArenaError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise LeagueConfigError(f"{where}: cannot read its contents: {exc}") from None
    if not all(isinstance(strategy, str) for strategy, _options in bots.values()):
        raise LeagueConfigError(f"{where}: a bot's strategy is not a name")
    config = _validate(data, None, LeagueContents(bots, rules), build_bots=False)
    if set(config.bot_names) != set(bots):
        raise LeagueConfigError(f"{where}: its contents are not those of its bots")
    return config


def is_secret_seed(seed: str) -> bool:
    """Whether ``seed`` is a raw secret (64 hex digits): never shown before its league is over."""
    return _SECRET_SEED.fullmatch(seed) is not None


def _problems(
    exc: ValidationError, where: str, options: Mapping[str, str], data: Mapping[str, Any]
) -> str:
    """`validation_problems` of this module's tables."""
    shapes = ConfigShapes(
        league_keys=[key for key in LeagueConfig.model_fields if key != "source"],
        bot_keys=list(LeagueBot.model_fields),
        rules_keys=list(BullsCowsLeagueRules.model_fields),
        on_server_error=_OnServerError,
    )
    return validation_problems(exc, where, options, data, shapes)


def load_league(path: Path, *, build_bots: bool = True, **overrides: Any) -> LeagueConfig:
    """Read and check a league config file; ``overrides`` (CLI options ``--KEY``, `None` = not
    given) replace its keys before the check, and a value of theirs that fails it is blamed on
    the option, not on the file. ``build_bots`` False: a config only to read a stored league
    back (``--show``, ``--list``), whose bots are not built (`_validate`)."""
    try:
        text = read_text_file(path)
    except OSError as exc:
        raise LeagueConfigError(
            f"cannot read league config {path}: {exc.strerror or exc}"
        ) from None
    except NotUTF8Error as exc:
        raise LeagueConfigError(f"cannot read league config {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{path}: not valid TOML: {exc}") from None
    given = {key: value for key, value in overrides.items() if value is not None}
    data.update(given)
    return _validate(data, path, options={key: f"--{key}" for key in given}, build_bots=build_bots)
