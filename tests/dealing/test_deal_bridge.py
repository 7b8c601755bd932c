from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.dealing import DealingError, MatchSeed
from arena.dealing.bridge import (
    BridgeDeal,
    card_text,
    deal_bridge,
    deal_order,
    hcp_of,
    pattern_of,
)

# Seed 000's example deal (2N psyche, 3♣ doubled made). The seed prints South ♦10 2 and West
# ♦J 10 5 4 2, so ♦10 and ♦2 appear twice and ♦7 ♦6 nowhere; we give South the ♦7 6.
SEED_DEAL_AS_PRINTED = "N:AK1076.Q1097.A3.K10 4.J843.KQ98.J732 QJ53.AK652.102.A5 982..J10542.Q9864"
SEED_DEAL = "N:AKT76.QT97.A3.KT 4.J843.KQ98.J732 QJ53.AK652.76.A5 982..JT542.Q9864"


def test_the_seeds_diagram_has_a_diamond_misprint() -> None:
    with pytest.raises(DealingError, match=r"twice: ♦2 ♦10, missing: ♦6 ♦7"):
        BridgeDeal.from_pbn(SEED_DEAL_AS_PRINTED)


def test_seed_example_patterns_and_points() -> None:
    deal = BridgeDeal.from_pbn(SEED_DEAL)
    assert [deal.pattern(s) for s in "NESW"] == ["5-4-2-2", "4-4-4-1", "5-4-2-2", "5-5-3-0"]
    assert [deal.hcp(s) for s in "NESW"] == [16, 7, 14, 3]
    assert deal.suit_lengths("W") == (3, 0, 5, 5)


def test_diagram_reads_like_a_newspaper() -> None:
    text = BridgeDeal.from_pbn(SEED_DEAL).diagram()
    lines = text.splitlines()
    assert lines[0].strip() == "♠ A K 10 7 6"
    assert lines[5].startswith("♥ —") and lines[5].endswith("♥ J 8 4 3")
    assert lines[-1] == "N 5-4-2-2 16 HCP  E 4-4-4-1 7 HCP  S 5-4-2-2 14 HCP  W 5-5-3-0 3 HCP"
    assert "S A K 10 7 6" in BridgeDeal.from_pbn(SEED_DEAL).diagram(symbols=False)


def test_positions_go_round_the_table() -> None:
    # Position 1, 5, 9 … (0-based 0, 4, 8 …) to North, as the seed deals.
    deal = BridgeDeal.from_order(list(range(52)))
    assert set(deal.hand("N")) == set(range(0, 52, 4))
    assert set(deal.hand("W")) == set(range(3, 52, 4))


def test_a_seeded_deal_is_pinned() -> None:
    seed = MatchSeed(bytes(range(32)))
    assert deal_order(seed.stream("bridge", 0))[:8] == [30, 44, 45, 37, 17, 10, 32, 40]
    assert deal_bridge(seed, 0).to_pbn() == (
        "N:KT6.852.K652.Q95 J5.AT9763.8.AKJ6 9742.4.JT974.T73 AQ83.KQJ.AQ3.842"
    )


@settings(max_examples=50, deadline=None)
@given(st.permutations(list(range(52))), st.sampled_from("NESW"))
def test_pbn_round_trips(order: list[int], first: str) -> None:
    deal = BridgeDeal.from_order(order)
    assert BridgeDeal.from_pbn(deal.to_pbn(first)) == deal
    assert sum(deal.hcp(s) for s in range(4)) == 40
    assert all(sum(deal.suit_lengths(s)) == 13 for s in range(4))


def test_helpers() -> None:
    assert card_text(0) == "♠A" and card_text(51, symbols=False) == "CK"
    assert pattern_of([2, 4, 3, 4]) == "4-4-3-2"
    assert hcp_of([0, 12, 11, 10, 1]) == 10


@pytest.mark.parametrize(
    "text",
    ["AKQ.x", "X:...", "N:AKQJT98765432...", "N:AK.QT97.A3.KT 4.J843.KQ98.J732 a b", "N:A.B.C.D"],
)
def test_bad_pbn_raises(text: str) -> None:
    with pytest.raises(DealingError):
        BridgeDeal.from_pbn(text)
