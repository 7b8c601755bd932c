"""The Bayesian player's real-number imagined hand (seed 002 ch. 6, beyond the seed): beliefs
weighted by the network's confidence instead of taken or not, and guesses cut on 圖 6.1's line
over the dice the hand leaves free."""

from __future__ import annotations

import pytest
from duels import type21_outcomes
from hypothesis import given
from hypothesis import strategies as st
from seed_figures import BIDS, believing_model

from arena.dealing import MatchSeed
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules
from bots.liars_dice import Bayes, OpponentModel, RandomGuess, TableView
from bots.liars_dice.soft_hand import SoftHand


def test_a_belief_fills_its_face_by_its_weight() -> None:
    hand = SoftHand(5)
    hand.believe(6, 2, 0.6)  # a believed "three 6s" (fill to 2), trusted 0.6
    assert hand.counts[6] == pytest.approx(1.2)
    assert hand.free() == pytest.approx(3.8)
    hand.believe(6, 2, 0.3)  # a weaker belief never lowers a stronger one
    assert hand.counts[6] == pytest.approx(1.2)


def test_a_doubt_caps_between_the_whole_limit_and_none() -> None:
    hand = SoftHand(5)
    hand.doubt(3, 0, 1.0)
    assert hand.caps[3] == 0.0  # certain: 圖 4.15's limit of 2 − 2 = 0
    hand.doubt(5, 1, 0.0)
    assert hand.caps[5] == 5.0  # no doubt: no cap
    hand.doubt(6, 1, 0.75)
    assert hand.caps[6] == pytest.approx(1 + 0.25 * 4)


def test_later_claims_override_earlier_ones_as_with_whole_numbers() -> None:
    hand = SoftHand(5)
    hand.believe(4, 3, 1.0)
    hand.doubt(4, 1, 1.0)  # a cap lowers the older belief
    assert (hand.counts[4], hand.caps[4]) == (1.0, 1.0)
    hand.believe(4, 2, 1.0)  # a belief lifts the older cap
    assert (hand.counts[4], hand.caps[4]) == (2.0, 2.0)


def test_a_belief_takes_no_room_the_other_faces_hold() -> None:
    hand = SoftHand(5)
    hand.believe(2, 4, 1.0)
    hand.believe(3, 4, 1.0)
    assert hand.counts[3] == 1.0 and hand.free() == 0.0


def test_guess_starts_from_the_imagined_count_and_stays_under_the_cap() -> None:
    hand = SoftHand(5)
    hand.believe(6, 2, 0.5)
    hand.doubt(3, 0, 0.5)  # cap 2.5
    assert hand.guess(6, 0.7) == pytest.approx(1.7)
    assert hand.guess(3, 4.0) == pytest.approx(2.5)


def test_complete_moves_what_a_cap_cuts_to_the_open_faces_by_their_pieces() -> None:
    hand = SoftHand(5)
    hand.doubt(1, 0, 1.0)
    pieces = [0.0, 2.0, 1.0, 1.0, 0.0, 0.5, 0.5]
    full = hand.complete(pieces)
    assert full[1] == 0.0
    assert full[2:] == pytest.approx([1.0 + 2 / 3, 1.0 + 2 / 3, 0.0, 0.5 + 1 / 3, 0.5 + 1 / 3])
    assert sum(full) == pytest.approx(5.0)


def test_complete_with_caps_that_leave_no_room_keeps_the_pieces() -> None:
    hand = SoftHand(5)
    for face in range(1, 7):
        hand.doubt(face, 0, 1.0)
    pieces = [0.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    assert hand.complete(pieces) == pieces


_claims = st.lists(
    st.tuples(
        st.booleans(),
        st.integers(1, 6),
        st.integers(-1, 9),
        st.floats(0.0, 1.0),
    ),
    max_size=8,
)


@given(claims=_claims, cuts=st.lists(st.floats(0.0, 1.0), min_size=5, max_size=5))
def test_a_completed_hand_holds_every_hidden_die(
    claims: list[tuple[bool, int, int, float]], cuts: list[float]
) -> None:
    hand = SoftHand(5)
    for believed, face, count, weight in claims:
        if believed:
            hand.believe(face, count, weight)
        else:
            hand.doubt(face, count, weight)
    assert all(0.0 <= hand.counts[f] <= hand.caps[f] + 1e-9 for f in range(1, 7))
    edges = [0.0, *sorted(c * hand.free() for c in cuts), hand.free()]
    pieces = [0.0, *(edges[i + 1] - edges[i] for i in range(6))]
    full = hand.complete(pieces)
    assert sum(full) == pytest.approx(5.0)
    assert all(value >= hand.counts[f] - 1e-9 for f, value in enumerate(full) if f)
    if sum(hand.caps[1:]) >= 5.0 + 1e-6:  # caps that leave room for every die are kept
        assert all(full[f] <= hand.caps[f] + 1e-9 for f in range(1, 7))


# -- the Bayesian player with real numbers ---------------------------------------------------


def _view() -> TableView:
    game = LiarsDiceGame.with_dice(LiarsDiceRules(), [[1, 2, 4, 5, 5], [1, 2, 3, 4, 6]], first=1)
    for bidder, bid in BIDS:
        game.apply(bidder, bid)
    return TableView.from_observation(game.observation(0))


def _real_bayes(model: OpponentModel) -> Bayes:
    player = Bayes(real_guess=True)
    player.begin_game(MatchSeed.from_text("soft").stream("t"), 0, ["bayes", "opp"])
    player.models["opp"] = model
    return player


def test_trusted_beliefs_fill_the_real_hand_as_the_whole_one() -> None:
    """With trust and probabilities near 1 the weights are near 1: 圖 4.12–4.14's hand."""
    player = _real_bayes(believing_model())
    view = _view()
    player.prepare(view)
    assert player.soft.counts == pytest.approx([0, 0, 0, 1, 0, 1, 2], abs=1e-6)
    assert player.imagined == [0] * 7  # the whole-number hand is not used
    assert min(player.guess_count(view, 6) for _ in range(200)) >= 2 - 1e-6


def test_untrusted_networks_leave_the_real_hand_empty() -> None:
    """An untrained network has trust 0, so every claim weighs nothing (圖 4.11)."""
    player = _real_bayes(OpponentModel(opponent="opp"))
    player.prepare(_view())
    assert player.soft.counts == [0.0] * 7
    assert player.soft.caps == [5.0] * 7


def test_half_trusted_disbeliefs_cap_halfway() -> None:
    """圖 4.15: a disbelieved "two 3s" caps 3s at 0 when certain; trusted half (n = 10) it
    caps them halfway between 0 and all five hidden dice."""
    model = OpponentModel(opponent="opp", opening_lie=[0, 10])  # ten lies seen: trust 1/2
    player = _real_bayes(model)
    player.prepare(_view())
    lie = model.p_opening_lie()
    assert player.soft.caps[3] == pytest.approx((1 - 0.5 * lie) * 5)
    assert player.soft.counts[3] == pytest.approx(0.5 * (1 - lie) * 1)  # fill "two 3s" to 1


def test_real_bayes_without_networks_is_real_random_guess_draw_for_draw() -> None:

    def outcomes(strategy: RandomGuess) -> list[bool]:
        return type21_outcomes(strategy, "soft networks")

    plain = outcomes(RandomGuess(real_guess=True))
    assert outcomes(Bayes(real_guess=True, networks=())) == plain
    assert outcomes(Bayes(real_guess=True)) != plain
