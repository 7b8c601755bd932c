"""Mahjong table rulesets: a checked, immutable value read from a mapping or a TOML file.

The defaults are common Taiwan practice; ``configs/rulesets/competition.toml`` sets the seed's
platform, which differs in two table rules: an open kong may not be made on a discard of the seat
before you (上家, seed 003 §2.1), and the replacement draw after an open kong cannot win (our
reading of §3.3's "規則上規定明槓後無法胡牌"). Scoring options live in a nested ``scoring`` table
and are checked by `ScoringRules`. The engine's ``rules`` mapping is `MahjongRules.to_mapping()`
of the merged ruleset, so a record's header states every value the hand was played with (three
options only when they differ from their defaults, see `to_mapping`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.games import rulesets
from arena.games.errors import RulesetError
from arena.games.mahjong.scoring_rules import ScoringRules

TILES: Final = 136
HAND_SIZE: Final = 16
SEATS: Final = 4
DEALT: Final = HAND_SIZE * SEATS
MAX_RESERVE: Final = TILES - DEALT - SEATS
"""At least one draw per seat must stay possible."""

MULTIPLE_WINS: Final = ("first", "all")

GAME: Final = "mahjong"

LOCAL_RULESET: Final = "competition"
"""The ruleset of a match or league whose bots all play in this process (seed 003 §2.1)."""
REMOTE_RULESET: Final = "competition-server"
"""The default when bots play over a network: the competition with ``claims_ask_every_seat``,
so no bot can read from how long it waits which other seat could claim a discard."""


def default_ruleset(remote: bool) -> str:
    """The ruleset name a match or league plays when none is given."""
    return REMOTE_RULESET if remote else LOCAL_RULESET


@dataclass(frozen=True, slots=True)
class MahjongRules:
    open_kong_from_left: bool = True
    """An open kong (明槓) may be made on a discard of the seat before you. Seed 003 §2.1: the
    competition platform allows it only on the opposite or the next seat's discard (false)."""
    open_kong_replacement_win: bool = True
    """A self-draw on the replacement tile after one's own open kong (明槓, the kong of a
    discard) may win, as 槓上開花. Seed 003 §3.3 says the platform's rules allow no win after a
    明槓; we read that as no win on that replacement draw (false), a later win being legal.
    Added and concealed kongs are unaffected."""
    multiple_wins: str = "first"
    """Several seats claim a win on one discard: "first" = only the first in turn order after
    the discarder wins (截胡); "all" = every one of them wins and the discarder pays each."""
    per_seat_draws: bool = False
    """Variance reduction for duplicate play: the live wall is split into four sub-walls, one
    per position from the dealer, so a position draws the same tiles whatever the calls."""
    reserve: int = 16
    """The hand is exhaustively drawn when a draw is due and this many tiles remain."""
    min_tai: int = 0
    """Least Tai a win needs (0: any complete hand may win, as in the competition)."""
    flowers: bool = False
    """Play with the eight flowers 春夏秋冬梅蘭菊竹 (a wall of 144): exposed at once and
    replaced from the tail, scored 正花/花槓; 八仙過海 and 七搶一 win. Seed 003 §2.1 plays
    without (false)."""
    claims_ask_every_seat: bool = False
    """After every discard ask all three other seats, and after every added kong all three,
    those with no claim (or no rob) being offered only ``pass``. Asking only the seats that can
    claim lets a networked bot read from its wait for the next event that another seat holds a
    pair of the tile, waits on it or can chi it; asking everyone closes that timing channel (as
    mjai does).
    The play and the results are the same either way; only ``pass`` decisions are added."""
    scoring: ScoringRules = field(default_factory=ScoringRules)
    """Options of the Tai scorer (base points, points per Tai, row variants)."""

    def __post_init__(self) -> None:
        rulesets.check_bool("open_kong_from_left", self.open_kong_from_left)
        rulesets.check_bool("open_kong_replacement_win", self.open_kong_replacement_win)
        rulesets.check_bool("per_seat_draws", self.per_seat_draws)
        rulesets.check_bool("flowers", self.flowers)
        rulesets.check_bool("claims_ask_every_seat", self.claims_ask_every_seat)
        if self.multiple_wins not in MULTIPLE_WINS:
            raise RulesetError(
                f"rule 'multiple_wins' must be one of {', '.join(MULTIPLE_WINS)}, "
                f"got {self.multiple_wins!r}"
            )
        rulesets.check_int("reserve", self.reserve, 0, MAX_RESERVE)
        rulesets.check_int("min_tai", self.min_tai, 0, 1000)
        if not isinstance(self.scoring, ScoringRules):
            raise RulesetError("rule 'scoring' must be a table of scoring options")

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any]) -> MahjongRules:
        """Merge ``rules`` over the defaults; unknown keys and bad values raise `RulesetError`."""
        known = cls.__dataclass_fields__
        for key in rules:
            if key not in known:
                raise RulesetError(
                    f"unknown mahjong rule {key!r}; known rules: {', '.join(sorted(known))}"
                )
        values = dict(rules)
        scoring = values.get("scoring", {})
        if isinstance(scoring, ScoringRules):
            values["scoring"] = scoring
        elif isinstance(scoring, Mapping):
            values["scoring"] = ScoringRules.from_mapping(scoring)
        else:
            raise RulesetError(f"rule 'scoring' must be a table, got {scoring!r}")
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        """The full ruleset as JSON-able data; `from_mapping` reads it back to an equal value.

        ``open_kong_replacement_win`` is listed only when off, ``flowers`` and
        ``claims_ask_every_seat`` only when on. Each default is how the engine played before the
        option existed, so a header that leaves it out stays byte-identical to the old ones, and
        an old record still replays as played."""
        mapping: dict[str, Any] = {"open_kong_from_left": self.open_kong_from_left}
        if not self.open_kong_replacement_win:
            mapping["open_kong_replacement_win"] = False
        mapping |= {
            "multiple_wins": self.multiple_wins,
            "per_seat_draws": self.per_seat_draws,
            "reserve": self.reserve,
            "min_tai": self.min_tai,
        }
        if self.flowers:
            mapping["flowers"] = True
        if self.claims_ask_every_seat:
            mapping["claims_ask_every_seat"] = True
        mapping["scoring"] = self.scoring.to_mapping()
        return mapping


def ruleset_path(name: str | Path) -> Path:
    """A mahjong ruleset file: a ``.toml`` path, or a name in ``configs/rulesets/``."""
    return rulesets.ruleset_path(GAME, name)


def list_rulesets() -> list[str]:
    """Names of the mahjong rulesets in ``configs/rulesets/``."""
    return rulesets.list_rulesets(GAME)


def load_ruleset(name: str | Path) -> MahjongRules:
    """Read a ruleset file: ``game = "mahjong"``, optional title/description, a ``[rules]`` table
    (with an optional ``[rules.scoring]`` table), merged over the defaults."""
    path = ruleset_path(name)
    rules = rulesets.rules_table(GAME, path)
    try:
        return MahjongRules.from_mapping(rules)
    except RulesetError as exc:
        raise RulesetError(f"{path}: {exc}") from exc
