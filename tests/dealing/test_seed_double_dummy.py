"""Seed 000's claims about its example deal, checked with a double-dummy solver (endplay's DDS).

The seed (〈電腦如何洗牌〉) says of its example deal that 3♣ doubled made for East–West, that
"7H、7S、7N都是打不垮的合約" for North–South, and that with South's ♣A and East's ♣2 exchanged
"雙方均可做成五線" (both sides can make five-level contracts). A contract of level L makes when
the declaring side takes at least 6 + L tricks; "cannot be beaten" is read as "makes double
dummy with the partnership's better declarer".

The deal is the project's encoding (`SEED_DEAL` of test_deal_bridge). Its diamonds are
misprinted (♦10 and ♦2 twice, ♦7 ♦6 nowhere), so every claim is checked under each of the six
ways of giving South two of ♦10 ♦7 ♦6 ♦2 and West the other two, the project's reading among
them: no claim depends on which hand was misprinted.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from endplay.dds import calc_dd_table
from endplay.types import Card, Deal, Denom, Player, Rank
from test_deal_bridge import SEED_DEAL

from arena.dealing.bridge import DECK, SEATS, SUIT_SIZE, BridgeDeal

# The project numbers ranks A, 2, …, K within a suit; endplay names them.
_RANKS: tuple[Rank, ...] = (Rank.RA, Rank.R2, Rank.R3, Rank.R4, Rank.R5, Rank.R6, Rank.R7)
_RANKS += (Rank.R8, Rank.R9, Rank.RT, Rank.RJ, Rank.RQ, Rank.RK)
_SUITS = (Denom.spades, Denom.hearts, Denom.diamonds, Denom.clubs)  # the project's suit order
_PLAYERS = {"N": Player.north, "E": Player.east, "S": Player.south, "W": Player.west}
_SIDES = {"NS": ("N", "S"), "EW": ("E", "W")}

_DIAMOND = 2 * SUIT_SIZE
_AMBIGUOUS = tuple(_DIAMOND + r for r in (9, 6, 5, 1))  # ♦10 ♦7 ♦6 ♦2
_CLUB_ACE, _CLUB_TWO = 3 * SUIT_SIZE, 3 * SUIT_SIZE + 1


def _card(card: int) -> Card:
    return Card(suit=_SUITS[card // SUIT_SIZE], rank=_RANKS[card % SUIT_SIZE])


def _solver_deal(deal: BridgeDeal) -> Deal:
    out = Deal()
    for seat in SEATS:
        for card in deal.hand(seat):
            out[_PLAYERS[seat]].add(_card(card))
    return out


def _tricks(deal: BridgeDeal) -> dict[tuple[Denom, str], int]:
    """Double-dummy tricks for each strain and declarer (seat letter)."""
    table = calc_dd_table(_solver_deal(deal))
    return {(d, seat): table[d, _PLAYERS[seat]] for d in (*_SUITS, Denom.nt) for seat in SEATS}


def _side_makes(tricks: dict[tuple[Denom, str], int], side: str, denom: Denom, level: int) -> bool:
    return max(tricks[denom, seat] for seat in _SIDES[side]) >= 6 + level


def _moved(deal: BridgeDeal, moves: dict[int, tuple[str, str]]) -> BridgeDeal:
    """``deal`` with each card of ``moves`` taken from its first seat to its second."""
    hands = {seat: set(deal.hand(seat)) for seat in SEATS}
    for card, (src, dst) in moves.items():
        assert card in hands[src], f"{card} is not in {src}'s hand"
        hands[src].remove(card)
        hands[dst].add(card)
    # Dealt back round the table so that the hands come out in the project's order.
    held = [sorted(hands[seat]) for seat in SEATS]
    return BridgeDeal.from_order([held[s][i] for i in range(SUIT_SIZE) for s in range(len(SEATS))])


def _readings() -> list[BridgeDeal]:
    base = BridgeDeal.from_pbn(SEED_DEAL)
    south = set(base.hand("S")) & set(_AMBIGUOUS)
    out = []
    for chosen in combinations(_AMBIGUOUS, 2):
        moves = {c: ("S", "W") for c in south - set(chosen)}
        moves |= {c: ("W", "S") for c in set(chosen) - south}
        out.append(_moved(base, moves))
    return out


READINGS = _readings()


def test_the_readings_are_six_deals_and_hold_the_projects() -> None:
    pbns = {r.to_pbn() for r in READINGS}
    assert len(pbns) == 6
    assert BridgeDeal.from_pbn(SEED_DEAL).to_pbn() in pbns
    assert all(sorted(c for h in r.hands for c in h) == list(range(DECK)) for r in READINGS)


@pytest.mark.parametrize("deal", READINGS, ids=lambda d: d.to_pbn())
def test_north_south_grand_slams_cannot_be_beaten(deal: BridgeDeal) -> None:
    # Seed: "7H、7S、7N都是打不垮的合約" (7♥, 7♠, 7NT cannot be beaten).
    tricks = _tricks(deal)
    for denom in (Denom.hearts, Denom.spades, Denom.nt):
        assert _side_makes(tricks, "NS", denom, 7), (denom, tricks)


@pytest.mark.parametrize("deal", READINGS, ids=lambda d: d.to_pbn())
def test_three_clubs_doubled_does_not_make_double_dummy(deal: BridgeDeal) -> None:
    # Seed: "東西家的牌點力雖少，但配合得天衣無縫，所以3C賭倍做成合約" (3♣ doubled made). That
    # was the result at the table; double dummy, East–West take 8 tricks in clubs with either
    # declarer, one short of 3♣, on every reading of the misprinted diamonds. The seed's claim is
    # false under the solver, so this asserts what the solver says.
    tricks = _tricks(deal)
    assert not _side_makes(tricks, "EW", Denom.clubs, 3), tricks


@pytest.mark.parametrize("deal", READINGS, ids=lambda d: d.to_pbn())
def test_with_the_club_ace_and_two_exchanged_both_sides_make_five(deal: BridgeDeal) -> None:
    # Seed: "如果將上述牌例中，南家的CA與東家C2對調，則雙方均可做成五線".
    swapped = _moved(deal, {_CLUB_ACE: ("S", "E"), _CLUB_TWO: ("E", "S")})
    tricks = _tricks(swapped)
    strains = (*_SUITS, Denom.nt)
    for side in ("NS", "EW"):
        assert any(_side_makes(tricks, side, d, 5) for d in strains), (side, tricks)
