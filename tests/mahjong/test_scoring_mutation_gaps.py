"""Tai rows and hand readings the vectors left unchecked (found by a mutation audit).

Each expectation is worked out from seed 003 table 2-1 and docs/RULES.md ("Tai scoring"), not
read off the scorer.
"""

from __future__ import annotations

from arena.games.mahjong.scoring import ScoringRules, WinContext, score_hand
from arena.games.mahjong.tiles import SOUTH, parse_tile, parse_tiles

ON_A_DISCARD = WinContext(self_drawn=False, seat_wind=SOUTH)


def test_three_suit_chows_of_789() -> None:
    # 234m 789m 345p 789p 789s 55s, concealed, won on 9s (78s waits on 6s or 9s): 門清 1,
    # 平胡 2 (five chows, no honour, two waiting kinds), 三色同順 2 doubled for 門清 = 4.
    result = score_hand(parse_tiles("234m789m345p789p78s55s"), [], parse_tile("9s"), ON_A_DISCARD)
    assert dict(result.breakdown) == {"門清": 1, "平胡": 2, "三色同順": 4}
    assert result.tai == 7


def test_the_shape_single_wait_covers_the_edge_wait_89_on_7() -> None:
    # single_wait = "shape": 邊張 is 12 waiting on 3 or 89 waiting on 7 (docs/RULES.md), so the
    # five-chow hand 789m 123p 456p 345s 678s + 22m won on 7m is no 平胡: 門清 1 alone.
    rules = ScoringRules(single_wait="shape")
    result = score_hand(
        parse_tiles("89m22m123p456p345s678s"), [], parse_tile("7m"), ON_A_DISCARD, rules
    )
    assert dict(result.breakdown) == {"門清": 1}
