"""The rows of seed 003's table 2-1 (胡牌台數計算) and the ruleset options of the Tai scorer.

Row names are kept exactly as the table spells them so that a breakdown can be checked against
the seed by eye. The defaults of `ScoringRules` are the competition platform's; every option is a
point where the table is silent or where Taiwan platforms are known to differ, and each is
explained in docs/RULES.md ("Tai scoring (table 2-1)").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Final

from arena.games.errors import RulesetError

DEALER: Final = "莊家"
CONCEALED: Final = "門清"
SELF_DRAWN: Final = "自摸"
ALL_SIMPLES: Final = "斷么九"
LAST_TILE_DRAW: Final = "海底撈月"
SEAT_WIND: Final = "門風刻"
DRAGON_PUNG: Final = "三元牌"
TWIN_CHOWS: Final = "雙龍抱"
KONG_REPLACEMENT: Final = "槓上開花"
EYES_DECLARATION: Final = "眼牌"
ROBBING_KONG: Final = "搶槓"
ALL_CLAIMED: Final = "全求"
ALL_CHOWS: Final = "平胡"
MIXED_OUTSIDE: Final = "混帶么"
THREE_SUIT_CHOWS: Final = "三色同順"
STRAIGHT: Final = "一條龍"
TWO_TWIN_CHOWS: Final = "雙雙龍抱"
THREE_CONCEALED_PUNGS: Final = "三暗刻"
THREE_SUIT_PUNGS: Final = "三色同刻"
CONCEALED_SELF_DRAWN: Final = "門清自摸"
ALL_PUNGS: Final = "碰碰胡"
HALF_FLUSH: Final = "混一色"
PURE_OUTSIDE: Final = "純帶么"
ALL_TERMINALS_AND_HONOURS: Final = "混老頭"
LITTLE_THREE_DRAGONS: Final = "小三元"
FOUR_CONCEALED_PUNGS: Final = "四暗刻"
FOUR_KONGS: Final = "四槓子"
BIG_THREE_DRAGONS: Final = "大三元"
LITTLE_FOUR_WINDS: Final = "小四喜"
FULL_FLUSH: Final = "清一色"
ALL_HONOURS: Final = "字一色"
FIVE_CONCEALED_PUNGS: Final = "五暗刻"
ALL_TERMINALS: Final = "清老頭"
BIG_FOUR_WINDS: Final = "大四喜"
HEAVENLY: Final = "天胡"
EARTHLY: Final = "地胡"
HUMAN: Final = "人胡"

TABLE_2_1: Final[tuple[tuple[str, int], ...]] = (
    (DEALER, 1),
    (CONCEALED, 1),
    (SELF_DRAWN, 1),
    (ALL_SIMPLES, 1),
    (LAST_TILE_DRAW, 1),
    (SEAT_WIND, 1),
    (DRAGON_PUNG, 1),
    (TWIN_CHOWS, 1),
    (KONG_REPLACEMENT, 1),
    (EYES_DECLARATION, 1),
    (ROBBING_KONG, 1),
    (ALL_CLAIMED, 2),
    (ALL_CHOWS, 2),
    (MIXED_OUTSIDE, 2),
    (THREE_SUIT_CHOWS, 2),
    (STRAIGHT, 2),
    (TWO_TWIN_CHOWS, 2),
    (THREE_CONCEALED_PUNGS, 2),
    (THREE_SUIT_PUNGS, 2),
    (CONCEALED_SELF_DRAWN, 3),
    (ALL_PUNGS, 4),
    (HALF_FLUSH, 4),
    (PURE_OUTSIDE, 4),
    (ALL_TERMINALS_AND_HONOURS, 4),
    (LITTLE_THREE_DRAGONS, 4),
    (FOUR_CONCEALED_PUNGS, 6),
    (FOUR_KONGS, 6),
    (BIG_THREE_DRAGONS, 8),
    (LITTLE_FOUR_WINDS, 8),
    (FULL_FLUSH, 8),
    (ALL_HONOURS, 8),
    (FIVE_CONCEALED_PUNGS, 8),
    (ALL_TERMINALS, 8),
    (BIG_FOUR_WINDS, 16),
    (HEAVENLY, 16),
    (EARTHLY, 16),
    (HUMAN, 16),
)
"""Every row of table 2-1 in the table's order, with its printed Tai."""

UNSCORED_ROWS: Final = frozenset({EYES_DECLARATION})
"""眼牌 only ever costs the declarer a Tai when they deal in; the competition never declares it."""

SCORED_ROWS: Final[tuple[str, ...]] = tuple(
    name for name, _ in TABLE_2_1 if name not in UNSCORED_ROWS
)

ROUND_WIND: Final = "圈風刻"
LAST_DISCARD: Final = "河底撈魚"
DEALER_REPEAT: Final = "連莊"
SEAT_FLOWER: Final = "正花"
FLOWER_KONG: Final = "花槓"
EIGHT_FLOWERS: Final = "八仙過海"
SEVEN_ROB_ONE: Final = "七搶一"
OPTIONAL_ROWS: Final[tuple[tuple[str, int], ...]] = (
    (ROUND_WIND, 1),
    (LAST_DISCARD, 1),
    (DEALER_REPEAT, 2),
    (SEAT_FLOWER, 1),
    (FLOWER_KONG, 2),
    (EIGHT_FLOWERS, 8),
    (SEVEN_ROB_ONE, 8),
)
"""Rows outside table 2-1 that a ruleset may switch on; 連莊 is 2 Tai per repeat. The flower rows
score only under the ``flowers`` ruleset option: 正花 1 per flower of the winner's seat, 花槓 2 per
complete set of seasons or plants, 八仙過海 and 七搶一 8 each (docs/RULES.md, "Flowers")."""

BASE_TAI: Final[dict[str, int]] = dict(TABLE_2_1 + OPTIONAL_ROWS)
ROW_ORDER: Final[dict[str, int]] = {
    name: i for i, (name, _) in enumerate(TABLE_2_1 + OPTIONAL_ROWS)
}

SINGLE_WAIT_KINDS: Final = "kinds"
SINGLE_WAIT_SHAPE: Final = "shape"
SINGLE_WAIT_CHOICES: Final = (SINGLE_WAIT_KINDS, SINGLE_WAIT_SHAPE)


@dataclass(frozen=True)
class ScoringRules:
    """Options of the Tai scorer; the defaults are the seed's competition platform."""

    base_points: int = 1000
    """Points of a win before Tai (seed 003 §2.1 rule 2)."""
    points_per_tai: int = 500
    """Points added per Tai (seed 003 §2.1 rule 2)."""
    combine_concealed_self_drawn: bool = True
    """門清自摸 (3) replaces 門清 (1) + 自摸 (1); off scores the two rows apart."""
    double_when_concealed: bool = True
    """三色同順 and 一條龍 count twice (4 Tai) in a 門清 hand."""
    concealed_kong_keeps_concealed: bool = True
    """A 暗槓 does not break 門清 (nothing was taken from another player)."""
    single_wait: str = SINGLE_WAIT_KINDS
    """獨聽 for 平胡: "kinds" = one tile kind completes the hand; "shape" = 邊張/中洞/單吊."""
    honour_sets_absorb_pungs: bool = True
    """大三元/小三元 include their 三元牌 Tai; 大四喜/小四喜 include 門風刻 (and 圈風刻)."""
    first_turn_absorbs_concealed: bool = True
    """天胡/地胡 include 門清, 自摸 and 門清自摸; 人胡 includes 門清."""
    round_wind_tai: bool = False
    """Score 圈風刻 (1 per pung of the round wind); table 2-1 has no such row."""
    last_discard_tai: bool = False
    """Score 河底撈魚 (1 for winning on the last discard); table 2-1 only has 海底撈月."""
    dealer_repeat: bool = False
    """Score 連莊 (2 per repeat); the competition passes the deal every hand."""

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_value(f.name, getattr(self, f.name))

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> ScoringRules:
        """Build from a TOML/JSON table; an unknown key or a bad value raises `RulesetError`."""
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RulesetError(
                    f"unknown scoring rule {key!r}; known rules: {', '.join(sorted(known))}"
                )
        for key, value in data.items():
            _check_value(key, value)
        return cls(**data)  # type: ignore[arg-type]

    def to_mapping(self) -> dict[str, object]:
        """The table `from_mapping` reads back to an equal `ScoringRules`."""
        return asdict(self)


def _check_value(key: str, value: object) -> None:
    default = getattr(ScoringRules, key)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesetError(f"scoring rule {key!r} must be true or false, got {value!r}")
    elif isinstance(default, int):
        # bool is an int in Python, but `true` for a number of points is a typo, not a value.
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RulesetError(
                f"scoring rule {key!r} must be a non-negative integer, got {value!r}"
            )
    elif key == "single_wait" and value not in SINGLE_WAIT_CHOICES:
        raise RulesetError(
            f"scoring rule 'single_wait' must be one of {', '.join(SINGLE_WAIT_CHOICES)}, "
            f"got {value!r}"
        )
