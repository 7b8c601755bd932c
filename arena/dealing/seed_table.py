"""Seed 000's published tables, transcribed as printed: the seed's figures, not ours.

楊昌彪, 〈電腦如何洗牌〉 (中國橋藝 / 高雄橋訊, 2000-07) tallies the patterns of 80,277,936 hands
(four per deal of some twenty million computer deals). Its hand-pattern table prints 38 rows, not
the 39 patterns a 13-card hand can have, and its rows do not add up to its stated total.
`omitted_patterns` and `rows_total` let the audit report show which row is missing and how large
the gap is. Its two points tables (HCP of one hand, and of a partnership's two hands) are here
too, counts, percentages and totals as printed, misprints included. `seed_fit` tests all three
against the exact distributions.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.dealing.exact import TOTAL_HCP, pattern_text, patterns

SEED_TOTAL = 80_277_936
"""The seed's 合計 (total hands)."""


@dataclass(frozen=True, slots=True)
class SeedRow:
    pattern: str
    count: int
    percent: str
    """As printed, including the seed's typo ``5,6415%`` for 6-3-2-2."""


SEED_ROWS: tuple[SeedRow, ...] = tuple(
    SeedRow(p, n, pct)
    for p, n, pct in (
        ("4-3-3-3", 8459128, "10.5373%"),
        ("4-4-3-2", 17297185, "21.5466%"),
        ("4-4-4-1", 2403577, "2.9941%"),
        ("5-3-3-2", 12455887, "15.5160%"),
        ("5-4-2-2", 8496360, "10.5837%"),
        ("5-4-3-1", 10381139, "12.9315%"),
        ("5-4-4-0", 997705, "1.2428%"),
        ("5-5-2-1", 2548380, "3.1744%"),
        ("5-5-3-0", 718811, "0.8954%"),
        ("6-3-2-2", 4528845, "5,6415%"),
        ("6-3-3-1", 2766507, "3.4462%"),
        ("6-4-3-0", 1065897, "1.3278%"),
        ("6-5-1-1", 565412, "0.7043%"),
        ("6-5-2-0", 521440, "0.6495%"),
        ("6-6-1-0", 57942, "0.0722%"),
        ("7-2-2-2", 412153, "0.5134%"),
        ("7-3-2-1", 1510674, "1.8818%"),
        ("7-3-3-0", 212658, "0.2649%"),
        ("7-4-1-1", 314413, "0.3917%"),
        ("7-4-2-0", 289324, "0.3604%"),
        ("7-5-1-0", 86574, "0.1078%"),
        ("7-6-0-0", 4493, "0.0056%"),
        ("8-2-2-1", 154055, "0.1919%"),
        ("8-3-1-1", 94688, "0.1180%"),
        ("8-3-2-0", 86859, "0.1082%"),
        ("8-4-1-0", 36209, "0.0451%"),
        ("8-5-0-0", 2495, "0.0031%"),
        ("9-2-1-1", 14386, "0.0179%"),
        ("9-2-2-0", 6605, "0.0082%"),
        ("9-3-1-0", 8205, "0.0102%"),
        ("9-4-0-0", 773, "0.0010%"),
        ("10-1-1-1", 330, "0.0004%"),
        ("10-2-1-0", 873, "0.0011%"),
        ("10-3-0-0", 143, "0.0002%"),
        ("11-1-1-0", 15, "0.0000%"),
        ("11-2-0-0", 7, "0.0000%"),
        ("12-1-0-0", 0, "0.0000%"),
        ("13-0-0-0", 0, "0.0000%"),
    )
)


def seed_counts() -> dict[str, int]:
    return {row.pattern: row.count for row in SEED_ROWS}


def omitted_patterns() -> list[str]:
    """Patterns a hand can have that the seed's table has no row for."""
    listed = seed_counts()
    return [pattern_text(key) for key in patterns() if pattern_text(key) not in listed]


def rows_total() -> int:
    """What the seed's 38 rows add up to (its printed total is `SEED_TOTAL`)."""
    return sum(row.count for row in SEED_ROWS)


SEED_POINTS_ROWS = TOTAL_HCP + 1
"""The seed's points tables have a row for every total 0 … 40."""

SEED_POINTS_ONE_HAND: tuple[tuple[int, str], ...] = (
    (291870, "0.3636"), (631864, "0.7871"), (1089037, "1.3566"), (1975132, "2.4604"),
    (3088821, "3.8477"), (4162619, "5.1853"), (5258111, "6.5499"), (6444405, "8.0276"),
    (7141326, "8.8958"), (7511915, "9.3574"), (7551388, "9.4066"), (7181870, "8.9463"),
    (6444634, "8.0279"), (5550796, "6.9145"), (4572089, "5.6953"), (3551289, "4.4237"),
    (2659254, "3.3126"), (1894415, "2.3598"), (1286320, "1.6023"), (830761, "1.0349"),
    (516451, "0.6433"), (304038, "0.3787"), (168355, "0.2097"), (89844, "0.1119"),
    (44631, "0.0556"), (21135, "0.0263"), (9354, "0.0117"), (3997, "0.0050"),
    (1455, "0.0018"), (516, "0.0006"), (188, "0.0002"), (47, "0.0001"),
    (14, "0.0000"), (4, "0.0000"), (1, "0.0000"), (0, "0.0000"),
    (0, "0.0000"), (0, "0.0000"), (0, "0.0000"), (0, "0.0000"), (0, "0.0000"),
)  # fmt: skip
"""Seed 000's 一家牌 column as printed, by points 0 … 40: (出現次數, %). The seed's figures,
not ours. The row between 19 and 21 is labelled "10" in the seed; it is the row for 20."""

SEED_POINTS_TWO_HANDS: tuple[tuple[int, str], ...] = (
    (25, "0.0001"), (190, "0.0005"), (829, "0.0021"), (2574, "0.0064"),
    (7265, "0.0181"), (17176, "0.0428"), (37468, "0.0933"), (74591, "0.1858"),
    (137403, "0.3423"), (235121, "0.5858"), (38334, "0.9550"), (587208, "1.4629"),
    (851843, "2.1222"), (1179695, "2.9390"), (155687, "3.8788"), (1965464, "4.8966"),
    (2369862, "5.9041"), (2742739, "6.8331"), (3038249, "7.5693"), (3231563, "8.0509"),
    (3299978, "8.2214"), (3231563, "8.0509"), (3038249, "7.5693"), (2742739, "6.8331"),
    (2369861, "5.9041"), (1965464, "4.8966"), (1556897, "3.8788"), (1179694, "2.9390"),
    (851543, "2.1222"), (587208, "1.4629"), (383334, "0.9550"), (235121, "0.5858"),
    (137403, "0.3423"), (74591, "0.1858"), (37468, "0.0933"), (17176, "0.0428"),
    (7265, "0.0181"), (2574, "0.0064"), (829, "0.0021"), (190, "0.0005"), (25, "0.0001"),
)  # fmt: skip
"""Seed 000's 二家牌 column as printed, by points 0 … 40: (出現次數, %). The seed's figures,
typos included (`seed_fit.seed_points_two_hands` says which rows it corrects and why)."""

SEED_POINTS_ONE_HAND_TOTAL = SEED_TOTAL
SEED_POINTS_TWO_HANDS_TOTAL = 40_138_968
"""The seed's 合計 under each column: every hand of every deal, and both partnerships of
every deal (twice the deals)."""
