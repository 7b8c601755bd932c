"""Liar's dice player rules the rest of the suite left unchecked (found by a mutation audit of
the players of seed 002 §4.2, §4.3 and §5.1, and of docs/STRATEGIES.md's readings of them).

Each test pins one rule on a small scripted situation; the statistical ones run a fixed stream
with margins far wider than the draw's noise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from seed_figures import BIDS, BIG, HAND, believing_model

from arena.dealing import MatchSeed, RandomStream
from arena.games.liars_dice import (
    CHALLENGE,
    Bid,
    LiarsDiceAction,
    LiarsDiceGame,
    LiarsDiceRules,
    face_counts,
)
from bots.liars_dice import (
    PERSONALITIES,
    Bayes,
    ModelError,
    OpponentModel,
    Personality,
    Probability,
    RandomGuess,
    TableView,
)
from bots.liars_dice.bayes import Belief
from bots.liars_dice.random_guess import MAX_TRIES
from protocol.games.liars_dice import BidRecord, Rerolled, Reveal

DRAWS = 3000


def _stream(text: str) -> RandomStream:
    return MatchSeed.from_text(text).stream("mutation-gaps")


def _view(
    dice: Sequence[int],
    bids: Sequence[tuple[int, Bid]],
    *,
    seat: int = 0,
    ones_wild: bool = False,
) -> TableView:
    """Seat ``seat``'s view after ``bids`` in a two-seat game of five dice each."""
    first = bids[0][0] if bids else seat
    other = [1, 2, 3, 4, 6]
    hands = [list(dice), other] if seat == 0 else [other, list(dice)]
    game = LiarsDiceGame.with_dice(LiarsDiceRules(ones_wild=ones_wild), hands, first=first)
    for bidder, bid in bids:
        game.apply(bidder, bid)
    return TableView.from_observation(game.observation(seat))


# -- random-guess: the flow's bound (§4.2.3 sets none; STRATEGIES.md: 200, then the lean) -------


class _Undecided(RandomGuess):
    """Every try is case 3 or case 4 (thrown away): a challenge with a bid on even tries when
    ``challenge_every`` is 2, otherwise only one try in ``challenge_every`` wants to challenge."""

    def __init__(self, challenge_every: int) -> None:
        super().__init__()
        self.challenge_every = challenge_every
        self.tries = 0

    def wants_challenge(self, view: TableView, last: Bid) -> bool:
        return self.tries % self.challenge_every == 0

    def find_bid(self, view: TableView) -> Bid | None:
        wanted = self.tries % self.challenge_every == 0
        self.tries += 1
        return Bid(5, 6) if wanted else None  # case 4 when it challenges, case 3 otherwise


def _give_up(challenge_every: int) -> tuple[LiarsDiceAction, _Undecided]:
    player = _Undecided(challenge_every)
    player.begin_game(_stream("give-up"), 0, ["rg", "opp"])
    return player.decide(_view((1, 2, 3, 5, 6), [(1, Bid(2, 5))])), player


def test_the_flow_stops_after_200_tries() -> None:
    assert MAX_TRIES == 200
    _, player = _give_up(2)
    assert player.tries == 200 and player.give_ups == 1


def test_out_of_tries_it_challenges_when_at_least_half_the_tries_wanted_to() -> None:
    """STRATEGIES.md: "challenge if at least half of them wanted to" — exactly half is enough."""
    action, _ = _give_up(2)
    assert action == CHALLENGE


def test_out_of_tries_it_raises_when_fewer_than_half_wanted_to_challenge() -> None:
    """ "…else make the raise most likely to hold": holding one 5 and one 6 after "two 5s",
    "two 6s" needs one of five hidden dice like "three 5s" needs two; the likeliest is 2x6."""
    action, player = _give_up(3)
    assert player.tries == 200
    assert action == Bid(2, 6)


# -- random-guess: details of the guesses -------------------------------------------------------


def test_the_opponent_would_challenge_counts_dice_others_revealed() -> None:
    """Under the re-roll rule the other seats' revealed dice are known to everyone: with two 4s
    shown, "two 4s" holds whatever the opponent guesses of ours, so it is never challenged."""
    ours = (1, 2, 3, 5, 6)
    view = TableView(
        seat=0,
        dice=ours,
        counts=tuple(face_counts([*ours, 4, 4])),
        dice_counts=(5, 5),
        bids=((1, Bid(2, 3)),),
        ones_wild=False,
        min_open=2,
        reroll=True,
    )
    assert view.hidden_dice == 3 and view.shown_by_others(4, False) == 2
    player = RandomGuess()
    player.begin_game(_stream("shown"), 0, ["rg", "opp"])
    no_fours = [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert not any(player.would_challenge(view, Bid(2, 4), no_fours) for _ in range(300))
    # "three 4s" needs one more: challenged when the guess of our 4s is 0 (one in six).
    hits = sum(player.would_challenge(view, Bid(3, 4), no_fours) for _ in range(DRAWS))
    assert 0.1 < hits / DRAWS < 0.25


def test_a_psychology_share_of_the_guesses_stays_uniform() -> None:
    """``psychology`` is the share of guesses still uniform 0–5, the rest follow the binomial
    odds (table 4.5): at 0.8, a guess of 5 comes 0.8/6 + 0.2/7776 of the time."""
    player = RandomGuess(guess="odds", psychology=0.8)
    player.begin_game(_stream("psychology"), 0, ["rg", "opp"])
    view = _view((2, 4, 5, 6, 6), [(1, Bid(2, 3))])
    shares = Counter(player.guess_count(view, 3) for _ in range(DRAWS))
    assert 0.10 < shares[5] / DRAWS < 0.17  # 0.133; with 0.2 uniform it would be 0.033
    assert 0.17 < shares[0] / DRAWS < 0.26  # 0.8/6 + 0.2 · 3125/7776 = 0.214


def test_real_number_guesses_cut_the_line_into_six_pieces() -> None:
    """圖 6.1: the hidden dice's line cut at five points gives six pieces, none negative, that
    add up to the hidden dice."""
    player = RandomGuess(real_guess=True)
    player.begin_game(_stream("real"), 0, ["rg", "opp"])
    view = _view((1, 2, 3, 5, 6), [(1, Bid(2, 5))])
    for _ in range(300):
        hand = player.sample_hand(view)
        assert all(piece >= 0.0 for piece in hand)
        assert abs(sum(hand) - 5.0) < 1e-9
        assert 0.0 <= player.guess_count(view, 4) <= 5.0


# -- bayes (§4.3) --------------------------------------------------------------------------------


def _bayes(model: OpponentModel, belief: Belief | None = None) -> Bayes:
    """A Bayesian player with ``model`` as its tables of "opp" (``belief``: its default)."""
    player = Bayes() if belief is None else Bayes(belief=belief)
    player.begin_game(_stream("bayes"), 0, ["bayes", "opp"])
    player.models["opp"] = model
    return player


def _believer(*counts: int) -> OpponentModel:
    """A model sure (trust and probabilities 1 − 1e-8) that the opponent's openings are honest
    and that its answers to our counts ``counts`` support our face and are honest."""
    return OpponentModel(
        opponent="opp",
        opening_lie=[BIG, 0],
        decisions={str(a): BIG for a in counts},
        support={str(a): [0, BIG] for a in counts},
        challenge={f"{a},1": [BIG, 0] for a in counts},
        lie={f"{a},1": [BIG, 0] for a in counts},
    )


def test_the_response_networks_trust_is_counted_at_our_bids_count() -> None:
    """The threshold counts "the decisions made when the current count is k": k is node A, the
    count of our bid it answers (3), not the count of its answer (4), never seen."""
    player = _bayes(_believer(3))
    player.prepare(_view(HAND, [(1, Bid(2, 3)), (0, Bid(3, 5)), (1, Bid(4, 6))]))
    # 圖 4.12: a 3; 圖 4.13: our "three 5s" supported, one 5; 圖 4.14: "four 6s", three 6s.
    assert player.imagined == [0, 0, 0, 1, 0, 1, 3]


def test_a_belief_at_exactly_one_half_is_not_taken() -> None:
    """STRATEGIES.md: a belief is "taken when its probability is over 1/2"; an opening that lied
    as often as not is disbelieved: 圖 4.15 limits its face to x − 2."""
    player = _bayes(OpponentModel(opponent="opp", opening_lie=[BIG, BIG]))
    player.prepare(_view(HAND, BIDS[:1]))
    assert player.imagined == [0] * 7
    assert player.limits == [None, None, None, 0, None, None, None]


def test_the_default_belief_is_the_threshold_and_sample_draws() -> None:
    """``belief = "threshold"`` (the default) always takes a belief of probability 0.75;
    ``belief = "sample"`` takes it three times in four."""
    model = OpponentModel(opponent="opp", opening_lie=[3 * BIG, BIG])
    view = _view(HAND, BIDS[:1])
    cases: list[tuple[Belief | None, float, float]] = [(None, 1.0, 1.0), ("sample", 0.65, 0.85)]
    for belief, low, high in cases:
        player = _bayes(model, belief)
        filled = 0
        for _ in range(400):
            player.begin_game(player.rng, 0, ["bayes", "opp"])  # a new game: an empty hand
            player.prepare(view)
            filled += player.imagined[3] == 1
        assert low <= filled / 400 <= high, belief


def test_a_fill_takes_no_room_the_other_faces_hold() -> None:
    """The imagined hand never holds more than the opponent's five dice: believed "five 6s"
    fills four 6s, our supported "six 2s" can then add only one 2, and a believed "six 3s"
    nothing."""
    player = _bayes(_believer(6))
    player.prepare(_view(HAND, [(1, Bid(5, 6)), (0, Bid(6, 2)), (1, Bid(6, 3))]))
    assert player.imagined == [0, 0, 1, 0, 0, 0, 4]


def test_a_fill_lifts_an_older_limit() -> None:
    """STRATEGIES.md: "a later belief about a face overrides an earlier one (a fill lifts an older
    limit)": a disbelieved opening "two 3s" limits 3s to 0, a believed answer "four 3s" to our
    "three 4s" then fills 3s to three, and the limit follows."""
    model = _believer(3)
    model.opening_lie = [0, BIG]
    player = _bayes(model)
    player.prepare(_view(HAND, [(1, Bid(2, 3)), (0, Bid(3, 4)), (1, Bid(4, 3))]))
    assert player.imagined == [0, 0, 0, 3, 1, 0, 0]
    assert player.limits[3] is not None and player.limits[3] >= 3


def test_the_challenge_guess_leaves_room_for_the_other_imagined_faces() -> None:
    """With 圖 4.14's hand (a 3, a 5, two 6s) one of the opponent's five dice is free: its 3s are
    guessed as 1 or 2, evenly, never more."""
    player = _bayes(believing_model())
    view = _view(HAND, BIDS)
    player.prepare(view)
    guesses = Counter(player.guess_count(view, 3) for _ in range(DRAWS))
    assert set(guesses) == {1, 2}
    assert 0.4 < guesses[1] / DRAWS < 0.6


def test_our_opening_network_says_whether_the_opener_is_challenged() -> None:
    """圖 4.10b, trusted: an opening count the opponent always challenged is always kept (it
    would be challenged); one it never challenged is never kept."""
    view = _view(HAND, [])
    for cell, expected in (([0, BIG], True), ([BIG, 0], False)):
        player = _bayes(OpponentModel(opponent="opp", our_openings={"2": cell}))
        player.prepare(view)
        imagined = [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]
        answers = {player.would_challenge(view, Bid(2, 6), imagined) for _ in range(100)}
        assert answers == {expected}


def test_the_model_is_not_used_with_wild_ones() -> None:
    """STRATEGIES.md: the model is used "in two-seat games without wild ones only"."""
    player = _bayes(believing_model())
    player.prepare(_view(HAND, BIDS, ones_wild=True))
    assert player.imagined == [0] * 7 and player.limits == [None] * 7


def _reveal(*, ones_wild: bool = False) -> Reveal:
    """The opponent (seat 1) opened "two 3s" holding one 3 and we challenged."""
    return Reveal(
        round=0,
        challenger=0,
        bidder=1,
        count=2,
        face=3,
        dice=[[1, 2, 4, 5, 5], [2, 3, 4, 6, 6]],
        ones_wild=ones_wild,
        actual=1,
        loser=1,
        bids=[BidRecord(seat=1, count=2, face=3)],
        dice_counts=[5, 4],
    )


def _learner() -> Bayes:
    player = Bayes()
    player.begin_game(_stream("learn"), 0, ["bayes", "opp"])
    return player


def test_a_reveal_teaches_the_opponents_tables() -> None:
    player = _learner()
    player.observe(_reveal())
    model = player.model_for("opp")
    assert model.games == 1 and model.opening_lie == [1, 0]


def test_nothing_is_learnt_from_a_round_with_wild_ones() -> None:
    player = _learner()
    player.observe(_reveal(ones_wild=True))
    assert player.model_for("opp").games == 0


def test_nothing_is_learnt_from_a_round_in_which_someone_rerolled() -> None:
    """The dice revealed at the end are not those the earlier bids were made on."""
    player = _learner()
    player.observe(Rerolled(round=0, seat=1, revealed=[3], rerolled=4, all_revealed=[3]))
    player.observe(_reveal())
    assert player.model_for("opp").games == 0


# -- the opponent model's tables (圖 4.9, 圖 4.10) -----------------------------------------------


def test_one_reveal_fills_every_node_as_the_seed_defines_them() -> None:
    """The opponent (seat 1) holds 2, 2, 3, 4, 6. It opens "two 3s" (2 − 1 = 1: honest, C), we
    bid "three 5s", it answers "three 6s" (B: 3 − 0 = 3, not under 3: no support; C: 3 − 1 = 2
    over 1: a lie; D: another face), we bid "four 2s" (B: 4 − 2 < 3: support) and it challenges
    (E)."""
    model = OpponentModel(opponent="opp")
    bids = [(1, Bid(2, 3)), (0, Bid(3, 5)), (1, Bid(3, 6)), (0, Bid(4, 2))]
    model.learn(bids, challenger=1, me=0, hand=face_counts([2, 2, 3, 4, 6]))
    assert model.games == 1
    assert model.opening_lie == [1, 0]
    assert model.decisions == {"3": 1, "4": 1}
    assert model.support == {"3": [1, 0], "4": [0, 1]}
    assert model.challenge == {"3,0": [1, 0], "4,1": [0, 1]}
    assert model.lie == {"3,0": [0, 1]}
    assert model.same_face == {"3,0,1": [1, 0]}
    assert model.our_openings == {}


def test_support_and_lie_at_their_thresholds() -> None:
    """Node B: "three 5s" against one 5 supports (3 − 1 = 2 < 3). Node C: "three 6s" holding two
    is honest (3 − 2 = 1, not over 1). The seed's own examples."""
    model = OpponentModel(opponent="opp")
    bids = [(0, Bid(3, 5)), (1, Bid(3, 6))]
    model.learn(bids, challenger=0, me=0, hand=face_counts([5, 6, 6, 1, 2]))
    assert model.support == {"3": [0, 1]}
    assert model.lie == {"3,1": [1, 0]}
    # Our opening was answered with a bid, not challenged at once (圖 4.10b).
    assert model.our_openings == {"3": [1, 0]}


def test_our_opening_is_challenged_at_once_only_when_it_is_the_only_bid() -> None:
    model = OpponentModel(opponent="opp")
    at_once = [(0, Bid(2, 4))]
    model.learn(at_once, challenger=1, me=0, hand=face_counts([1, 2, 3, 5, 6]))
    later = [(0, Bid(2, 4)), (1, Bid(3, 4)), (0, Bid(4, 4))]
    model.learn(later, challenger=1, me=0, hand=face_counts([1, 2, 3, 5, 6]))
    assert model.our_openings == {"2": [1, 1]}


def _smoothed(cell: list[int] | None, outcome: int) -> float:
    """Laplace (+1 a cell): what STRATEGIES.md says the tables are read as."""
    counts = cell or [0, 0]
    return (counts[outcome] + 1) / (counts[0] + counts[1] + 2)


def test_the_posterior_is_the_networks_product_normalised() -> None:
    """p(B, C | A, D, E = bid) ∝ p(B|A) · p(E|A,B) · p(C|A,B) · p(D|A,B,C), over the four
    cells, with tables whose every node tilts differently."""
    model = OpponentModel(
        opponent="opp",
        support={"3": [1, 4]},
        challenge={"3,0": [2, 5], "3,1": [6, 1]},
        lie={"3,0": [1, 3], "3,1": [5, 2]},
        same_face={"3,0,0": [4, 1], "3,0,1": [1, 1], "3,1,0": [0, 6], "3,1,1": [3, 0]},
    )
    for same in (False, True):
        joint = {
            (b, c): _smoothed(model.support["3"], b)
            * _smoothed(model.challenge[f"3,{b}"], 0)
            * _smoothed(model.lie[f"3,{b}"], c)
            * _smoothed(model.same_face[f"3,{b},{c}"], int(same))
            for b in (0, 1)
            for c in (0, 1)
        }
        total = sum(joint.values())
        expected_support = (joint[1, 0] + joint[1, 1]) / total
        expected_lie = (joint[0, 1] + joint[1, 1]) / total
        p_support, p_lie = model.posterior(3, same)
        assert abs(p_support - expected_support) < 1e-12, same
        assert abs(p_lie - expected_lie) < 1e-12, same


def test_a_tables_file_with_same_face_keys_missing_c_is_refused() -> None:
    data = OpponentModel(opponent="opp", same_face={"3,1,0": [1, 0]}).to_json()
    assert OpponentModel.from_json(data).same_face == {"3,1,0": [1, 0]}
    with pytest.raises(ModelError, match=r"same_face: .*keys must read A,B,C"):
        OpponentModel.from_json(data | {"same_face": {"3,1": [1, 0]}})


# -- the test personalities (§5.1) ---------------------------------------------------------------


def _personality(name: str, cap: int) -> Personality:
    player = Personality(name, PERSONALITIES[name])
    player.begin_game(_stream(name), 1, ["rg", name])
    player.cap = cap
    return player


def test_a_bid_at_the_cap_is_challenged_even_by_a_player_that_prefers_to_bid() -> None:
    """Trait 3: "到達某個上限個數就必定會抓". type17 (honest, trusting, prefers to bid) with a
    cap of five, holding four 6s, has raises within its cap after "five 2s" ("five 6s", "five
    4s", "five 5s"); at its cap it challenges every time. One count lower it bids every time
    (trait 5)."""
    player = _personality("type17", cap=5)
    dice = (6, 6, 6, 6, 3)
    at_cap = _view(dice, [(0, Bid(5, 2))], seat=1)
    assert all(player.decide(at_cap) == CHALLENGE for _ in range(300))
    below = _view(dice, [(0, Bid(4, 2))], seat=1)
    assert all(isinstance(player.decide(below), Bid) for _ in range(300))


def test_a_strong_attacker_never_jumps_past_its_cap() -> None:
    """Trait 4 with trait 3: after "three 2s" with a cap of four, "four 2s" cannot jump, while
    "three 5s" may jump to "four 5s"."""
    player = _personality("type24", cap=4)  # honest, suspicious, low cap, strong, → bid
    view = _view((2, 3, 5, 5, 6), [(0, Bid(3, 2))], seat=1)
    bids = [player.decide(view) for _ in range(DRAWS)]
    answers = Counter(str(action) for action in bids)
    assert max(action.count for action in bids if isinstance(action, Bid)) == 4
    assert answers["bid 4x2"] > 0 and answers["bid 3x5"] > 0
    assert answers["bid 4x5"] > 0  # jumps do happen within the cap


def test_the_most_plentiful_face_counts_what_the_bidder_is_believed_to_hold() -> None:
    """圖 5.1 / STRATEGIES.md: the face an honest player names is the one it believes most
    plentiful, its own count plus what it believes the bidder holds. type1 (trusting) holding
    two 2s and one 5 believes "three 5s" means three or two more 5s: 5s, not 2s, lead."""
    player = _personality("type1", cap=6)
    view = _view((2, 2, 3, 5, 6), [(0, Bid(3, 5))], seat=1)
    answers = Counter(str(player.decide(view)) for _ in range(DRAWS))
    assert set(answers) == {"bid 4x5", "bid 4x1", "bid 4x4"}
    assert 0.63 < answers["bid 4x5"] / DRAWS < 0.77


def test_the_bidder_is_never_believed_to_hold_more_dice_than_it_has() -> None:
    """Beyond the seed's five dice a seat (a series with fewer dice): the bidder of "four 4s"
    has two dice, so even a trusting player believes at most two 4s there; with its one 4 that
    falls short of four, and type1 prefers to challenge."""
    game = LiarsDiceGame.with_dice(LiarsDiceRules(dice=2), [[1, 2], [4, 5]], first=0)
    game.apply(0, Bid(4, 4))
    view = TableView.from_observation(game.observation(1))
    player = _personality("type1", cap=6)
    assert all(player.decide(view) == CHALLENGE for _ in range(300))


# -- the probability baseline ---------------------------------------------------------------------


def _series_view(dice_counts: tuple[int, ...], dice: tuple[int, ...], last: Bid) -> TableView:
    """Seat 0 of a series whose seats hold ``dice_counts`` dice, facing ``last``."""
    return TableView(
        seat=0,
        dice=dice,
        counts=tuple(face_counts(list(dice))),
        dice_counts=dice_counts,
        bids=((1, last),),
        ones_wild=False,
        min_open=2,
    )


def test_probability_challenges_exactly_the_bids_less_likely_than_not() -> None:
    """ "Challenge when the standing bid is less likely than not": two 3s among nine hidden dice
    (0.457) is challenged; one 3 among four (0.518) is not."""
    player = Probability()
    player.begin_game(_stream("probability"), 0, ["p", "a", "b"])
    nine_hidden = _series_view((1, 4, 5), (2,), Bid(2, 3))
    assert nine_hidden.hidden_dice == 9
    assert player.decide(nine_hidden) == CHALLENGE
    four_hidden = _series_view((1, 4), (2,), Bid(1, 3))
    assert four_hidden.hidden_dice == 4
    assert isinstance(player.decide(four_hidden), Bid)


def test_probability_opens_the_lowest_of_equally_likely_bids() -> None:
    """ "The lowest bid on ties": holding two 2s and two 5s, "two 2s" and "two 5s" both hold for
    sure; it opens "two 2s"."""
    player = Probability()
    player.begin_game(_stream("probability"), 0, ["p", "opp"])
    assert player.decide(_view((2, 2, 5, 5, 6), [])) == Bid(2, 2)
