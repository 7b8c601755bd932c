"""Seating and match-id rules that the suite only caught by accident (a CLI test's figures),
stated directly (found by a mutation audit of `arena.matches.seating` and `arena.matches.frame`)."""

from __future__ import annotations

from arena.dealing import MatchSeed
from arena.matches.frame import match_id_for
from arena.matches.seating import mahjong_seating, seat_order


def test_ab_layout_swaps_the_b_copies_every_other_round_and_keeps_a_in_place() -> None:
    # RULES.md "The competition match": copies at opposite seats, A B A B, "the two B copies
    # swapping seats every other round". Copies 0, 2 play A and 1, 3 play B.
    rounds = [mahjong_seating("ab", r) for r in range(8)]
    for order in rounds:
        assert [copy % 2 for copy in order] == [0, 1, 0, 1]
    assert [order[0::2] for order in rounds] == [(0, 2)] * 8
    assert [order[1::2] for order in rounds] == [(1, 3), (3, 1)] * 4


def test_a_mahjong_seating_holds_for_a_round_and_changes_with_the_next() -> None:
    # Hand g is hand g % 4 of round g // 4, one seating per round: so each player receives each
    # of the four starting hands once per round, and rounds cycle through the seatings.
    for rule in ("mahjong-rotate", "mahjong-ab"):
        for round_index in range(12):
            hands = {seat_order(rule, 4 * round_index + hand, 4) for hand in range(4)}
            assert hands == {seat_order(rule, 4 * round_index, 4)}
            assert seat_order(rule, 4 * round_index, 4) != seat_order(rule, 4 * round_index + 4, 4)


def test_a_match_id_holds_the_commitment_and_no_part_of_the_seed() -> None:
    # docs/DEALING.md: match ids are <game>-<first 12 hex digits of the commitment>; every bot
    # receives the id, so not even a prefix of the seed may be in it.
    seed = MatchSeed.from_text("match-id-secrecy")
    match_id = match_id_for("mahjong", seed)
    assert match_id == f"mahjong-{seed.commitment()[:12]}"
    assert seed.hex()[:8] not in match_id
