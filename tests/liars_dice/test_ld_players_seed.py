"""The players against the seed's own worked examples (seed 002, chapters 4 and 5).

Each test names the section or figure whose behaviour it pins: the random-guess player's
challenge guess (圖 4.3, 圖 4.5), its bid search (圖 4.4, table 4.7) and flow (§4.2.3), the
imagined hand and limit array of the Bayesian player (圖 4.11–4.17), the test personality's
decision walk-through (圖 5.1), and the probability-only baseline's two rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from seed_figures import BIDS, HAND, believing_model, doubting_model

from arena.dealing import MatchSeed, RandomStream
from arena.games.liars_dice import CHALLENGE, Bid, LiarsDiceAction, LiarsDiceGame, LiarsDiceRules
from bots.liars_dice import (
    PERSONALITIES,
    Bayes,
    OpponentModel,
    Personality,
    Probability,
    RandomGuess,
    TableView,
)

DRAWS = 3000
TOLERANCE = 0.035
"""Three standard errors of a share near 1/2 over `DRAWS` draws is about 0.027."""


def _stream(text: str) -> RandomStream:
    return MatchSeed.from_text(text).stream("seed-examples")


def _view(dice: Sequence[int], bids: Sequence[tuple[int, Bid]], seat: int = 0) -> TableView:
    """Seat ``seat``'s view after ``bids``; the other cup holds dice the view never shows."""
    first = bids[0][0] if bids else seat
    other = [1, 2, 3, 4, 6]
    hands = [list(dice), other] if seat == 0 else [other, list(dice)]
    game = LiarsDiceGame.with_dice(LiarsDiceRules(), hands, first=first)
    for bidder, bid in bids:
        game.apply(bidder, bid)
    return TableView.from_observation(game.observation(seat))


def _share(hits: int) -> float:
    return hits / DRAWS


# -- §4.2.1: challenge or not ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "bid", "expected"),
    [
        # 圖 4.3: "three 5s" holding one 5 — challenge unless the guess is 2 or more: 2/6.
        ((5, 1, 2, 3, 4), Bid(3, 5), 2 / 6),
        # 圖 4.5: "four 3s" holding no 3 — challenge on a guess of 0–3: about 2/3.
        ((4, 4, 4, 4, 2), Bid(4, 3), 4 / 6),
        # 圖 4.6: "six 4s" holding no 4 — no guess from 0 to 5 can reach six: always.
        ((6, 6, 6, 6, 6), Bid(6, 4), 1.0),
    ],
)
def test_challenge_guess_is_uniform_zero_to_five(
    dice: tuple[int, ...], bid: Bid, expected: float
) -> None:
    player = RandomGuess()
    player.begin_game(_stream("4.2.1"), 0, ["rg", "opp"])
    view = _view(dice, [(1, bid)])
    hits = sum(player.wants_challenge(view, bid) for _ in range(DRAWS))
    assert abs(_share(hits) - expected) < TOLERANCE


# -- §4.2.2: what to bid ---------------------------------------------------------------------


class _FixedHand(RandomGuess):
    """Random-guess with the imagined opponent hand of 圖 4.4 and the opponent-would-challenge
    test switched off, so that only the weighted pick among candidates is left."""

    def __init__(self, hand: list[float], keep_all: bool) -> None:
        super().__init__()
        self.hand = hand
        self.keep_all = keep_all

    def sample_hand(self, view: TableView) -> list[float]:
        return list(self.hand)

    def would_challenge(self, view: TableView, bid: Bid, opponent: list[float]) -> bool:
        return True if self.keep_all else super().would_challenge(view, bid, opponent)


# Ours: 1, 2, 4, 4, 5. Imagined opponent: one 2, one 4, one 5, two 6s (counts by face).
_OURS = (1, 2, 4, 4, 5)
_IMAGINED = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 2.0]


def test_fig_4_4_candidates_are_weighted_by_table_4_7() -> None:
    """圖 4.4: after "two 3s" the true bids are 2x4, 2x5, 2x6, 3x4 ("2x, 2x, 2x, 3x"), picked in
    proportion to the opponent hands that make them true: none needed → 7776, one (2x5, 3x4)
    → 4651, two (2x6) → 1526."""
    player = _FixedHand(_IMAGINED, keep_all=True)
    player.begin_game(_stream("4.4"), 0, ["rg", "opp"])
    view = _view(_OURS, [(1, Bid(2, 3))])
    picks = Counter(str(player.find_bid(view)) for _ in range(DRAWS))
    weights = {"bid 2x4": 7776, "bid 3x4": 4651, "bid 2x5": 4651, "bid 2x6": 1526}
    assert set(picks) == set(weights)
    total = sum(weights.values())
    for text, weight in weights.items():
        assert abs(_share(picks[text]) - weight / total) < TOLERANCE, text


def test_fig_4_4_bid_is_kept_when_the_opponent_would_challenge_it() -> None:
    """圖 4.4: for "three 4s" the opponent's guess of our 4s is uniform 0–5; with the one 4 of
    the imagined hand a guess of 0 or 1 falls short of three, so the bid is kept 2/6 of the
    time."""
    player = _FixedHand(_IMAGINED, keep_all=False)
    player.begin_game(_stream("4.4b"), 0, ["rg", "opp"])
    view = _view(_OURS, [(1, Bid(2, 3))])
    hits = sum(player.would_challenge(view, Bid(3, 4), list(_IMAGINED)) for _ in range(DRAWS))
    assert abs(_share(hits) - 2 / 6) < TOLERANCE
    # "two 4s": only a guess of 0 (0 + 1 < 2) makes the opponent challenge it: 1/6.
    hits = sum(player.would_challenge(view, Bid(2, 4), list(_IMAGINED)) for _ in range(DRAWS))
    assert abs(_share(hits) - 1 / 6) < TOLERANCE


# -- §4.2.3: the flow --------------------------------------------------------------------------


class _Scripted(RandomGuess):
    """Random-guess whose challenge decisions and bid searches follow a script, one pair a try."""

    def __init__(self, script: Sequence[tuple[bool, Bid | None]]) -> None:
        super().__init__()
        self.script = list(script)
        self.tries = 0

    def wants_challenge(self, view: TableView, last: Bid) -> bool:
        return self.script[self.tries][0]

    def find_bid(self, view: TableView) -> Bid | None:
        bid = self.script[self.tries][1]
        self.tries += 1
        return bid


def _run(
    script: Sequence[tuple[bool, Bid | None]], bids: list[tuple[int, Bid]]
) -> tuple[LiarsDiceAction, int]:
    player = _Scripted(script)
    player.begin_game(_stream("flow"), 0, ["rg", "opp"])
    action = player.decide(_view((1, 2, 3, 4, 5), bids))
    return action, player.tries


def test_flow_case_1_and_case_2_decide_at_once() -> None:
    stand = [(1, Bid(3, 2))]
    assert _run([(False, Bid(3, 4))], stand) == (Bid(3, 4), 1)  # case 1: no challenge, a bid
    assert _run([(True, None)], stand) == (CHALLENGE, 1)  # case 2: challenge, no bid


def test_flow_cases_3_and_4_are_thrown_away() -> None:
    """§4.2.3: "no challenge and no bid" (case 3) and "challenge and a bid" (case 4) both throw
    the try away and decide both again, until case 1 or 2 comes up."""
    stand = [(1, Bid(3, 2))]
    script: list[tuple[bool, Bid | None]] = [(False, None), (True, Bid(4, 6)), (True, None)]
    assert _run(script, stand) == (CHALLENGE, 3)
    script = [(True, Bid(4, 6)), (False, None), (False, Bid(3, 5))]
    assert _run(script, stand) == (Bid(3, 5), 3)


def test_flow_opener_only_needs_a_bid() -> None:
    """§2.2: the first player must bid, so an opener has no challenge to weigh."""
    assert _run([(True, None), (True, None), (True, Bid(2, 6))], []) == (Bid(2, 6), 3)


# -- §4.3: the imagined hand and the limit array -----------------------------------------------


def _bayes(model: OpponentModel) -> Bayes:
    player = Bayes()
    player.begin_game(_stream("4.3"), 0, ["bayes", "opp"])
    player.models["opp"] = model
    return player


# 圖 4.12–4.17 (`seed_figures`): the opponent opens "two 3s", we bid "three 5s", it answers
# "three 6s".


def test_fig_4_11_starts_empty_and_an_untrained_network_is_never_used() -> None:
    """圖 4.11: an empty imagined hand and six −1 (no limit); trust n/(n+10) is 0 at first."""
    player = _bayes(OpponentModel(opponent="opp"))
    player.prepare(_view(HAND, BIDS))
    assert player.imagined == [0] * 7
    assert player.limits == [None] * 7


def test_trust_threshold_is_n_over_n_plus_10() -> None:
    model = OpponentModel(opening_lie=[1, 0], decisions={"3": 10})
    assert model.trust_opening() == pytest.approx(1 / 11)
    assert model.trust_response(3) == pytest.approx(0.5)
    assert model.trust_response(4) == 0.0


def test_fig_4_12_to_4_14_beliefs_fill_the_imagined_hand() -> None:
    """圖 4.12: a believed opening "two 3s" adds a 3. 圖 4.13: an answer read as supporting our
    "three 5s" fills 5s to 3 − 2 = 1. 圖 4.14: a believed "three 6s" fills 6s to 3 − 1 = 2."""
    player = _bayes(believing_model())
    player.prepare(_view(HAND, BIDS))
    assert player.imagined == [0, 0, 0, 1, 0, 1, 2]
    assert player.limits == [None] * 7


def test_fig_4_15_to_4_17_disbeliefs_set_limits() -> None:
    """圖 4.15: a disbelieved "two 3s" limits 3s to 2 − 2 = 0. 圖 4.16: an answer read as not
    supporting our "three 5s" limits 5s to one. 圖 4.17: a disbelieved "three 6s" limits 6s to
    one. Every later guess of the opponent's 3s is then 0."""
    player = _bayes(doubting_model())
    view = _view(HAND, BIDS)
    player.prepare(view)
    assert player.imagined == [0] * 7
    assert player.limits == [None, None, None, 0, None, 1, 1]
    assert {player.guess_count(view, 3) for _ in range(200)} == {0}
    assert max(player.guess_count(view, 6) for _ in range(200)) == 1
    for _ in range(200):
        hand = player.sample_hand(view)
        assert hand[3] == 0 and hand[5] <= 1 and hand[6] <= 1 and sum(hand) == 5


# -- §5.1: the test personalities ------------------------------------------------------------


def _personality(name: str, cap: int | None = None) -> Personality:
    player = Personality(name, PERSONALITIES[name])
    player.begin_game(_stream(name), 1, ["rg", name])
    if cap is not None:
        player.cap = cap
    return player


def test_fig_5_1_walk_through() -> None:
    """圖 5.1, type7 (honest, suspicious, low cap, weak attack, prefers to challenge) with a cap
    of four, holding two 5s, facing "three 5s": 4 > 3, so no forced challenge; suspicious, it
    believes the bidder holds two or one 5 — three or four with its own, never short of three,
    so no challenge; honest, it names its most plentiful face, the 5s, 70% of the time; weak,
    it makes the least raise: "four 5s". The other 30% name a face it lacks (1 or 4)."""
    player = _personality("type7", cap=4)
    view = _view((2, 3, 5, 5, 6), [(0, Bid(3, 5))], seat=1)
    answers = Counter(str(player.decide(view)) for _ in range(DRAWS))
    assert set(answers) == {"bid 4x5", "bid 4x1", "bid 4x4"}
    assert abs(_share(answers["bid 4x5"]) - 0.7) < TOLERANCE
    # Step 1 the other way: a bid that reaches the cap is always challenged.
    reached = _view((2, 3, 5, 5, 6), [(0, Bid(4, 5))], seat=1)
    assert all(player.decide(reached) == CHALLENGE for _ in range(100))


@pytest.mark.parametrize(("name", "expected"), [("type1", 0.0), ("type5", 0.5)])
def test_trusting_and_suspicious_challenge_rates(name: str, expected: float) -> None:
    """§5.1 trait 2 facing "three 4s" holding one 4 (below every cap): trusting believes the
    bidder holds three or two (total four or three: never short); suspicious two or one (three
    or two: short half the time, and type5 prefers to challenge)."""
    player = _personality(name, cap=6)
    view = _view((4, 1, 2, 3, 6), [(0, Bid(3, 4))], seat=1)
    hits = sum(player.decide(view) == CHALLENGE for _ in range(DRAWS))
    assert abs(_share(hits) - expected) < TOLERANCE


def test_prefers_bid_bids_even_when_it_doubts() -> None:
    """§5.1 trait 5: type21 (honest, suspicious, prefers to bid) doubts "three 4s" holding none,
    yet bids whenever it has a bid within its cap."""
    player = _personality("type21", cap=6)
    view = _view((1, 2, 3, 5, 6), [(0, Bid(3, 4))], seat=1)
    assert all(isinstance(player.decide(view), Bid) for _ in range(300))


# -- the probability-only baseline ---------------------------------------------------------------


def test_probability_challenges_bids_less_likely_than_not() -> None:
    """Holding one 5: "three 5s" needs two of five hidden dice (0.196) — challenge; "two 5s"
    needs one (0.598) — raise, with the raise most likely to hold: "two 6s" (one 6 held)."""
    player = Probability()
    player.begin_game(_stream("p"), 0, ["p", "opp"])
    assert player.decide(_view((1, 2, 3, 5, 6), [(1, Bid(3, 5))])) == CHALLENGE
    assert player.decide(_view((1, 2, 3, 5, 6), [(1, Bid(2, 5))])) == Bid(2, 6)
    # Opening: the likeliest bid is the least count of its most plentiful face.
    assert player.decide(_view((4, 4, 4, 1, 2), [])) == Bid(2, 4)
