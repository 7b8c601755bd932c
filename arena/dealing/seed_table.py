"""Seed 000's published hand-pattern table, transcribed as printed: the seed's figures, not ours.

楊昌彪, 〈電腦如何洗牌〉 (中國橋藝 / 高雄橋訊, 2000-07) tallies the patterns of 80,277,936 hands
(four per deal of some twenty million computer deals). It prints 38 rows, not the 39 patterns a
13-card hand can have, and its rows do not add up to its stated total. `omitted_patterns` and
`rows_total` let the audit report show which row is missing and how large the gap is.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.dealing.exact import pattern_text, patterns

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
