"""The re-roll rule (seed 002 §2.2 extension 2): grammar, legality, counting, secrecy, seeded
dice, the bots' view of revealed dice and the probability baseline's re-roll policy."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TypedDict, Unpack

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.dealing import MatchSeed, roll_dice
from arena.games.errors import IllegalActionError, InvalidActionError, RulesetError
from arena.games.liars_dice import (
    CHALLENGE,
    Bid,
    LiarsDiceGame,
    LiarsDiceRules,
    Reroll,
    load_ruleset,
    new_game,
    parse_action,
)
from arena.matches.liars_dice_series import make_ld_bot, play_direct
from bots.liars_dice import BOTS, Probability, TableView
from bots.liars_dice.view import p_true
from protocol.games.liars_dice import DiceRolled, Rerolled, Reveal
from tests.conformance import SpecGame, check_engine

ROOT = Path(__file__).parent.parent.parent
REROLL = LiarsDiceRules(reroll=True)


class _OtherRules(TypedDict, total=False):
    dice: int
    min_open: int
    ones_wild: bool
    series: bool


def _game(hands: list[list[int]], first: int = 0, **rules: Unpack[_OtherRules]) -> LiarsDiceGame:
    return LiarsDiceGame.with_dice(LiarsDiceRules(reroll=True, **rules), hands, first=first)


# -- grammar ----------------------------------------------------------------------------------


@given(st.lists(st.integers(1, 6), max_size=9))
def test_reroll_text_round_trips(faces: list[int]) -> None:
    action = Reroll(tuple(faces))
    assert action.reveal == tuple(sorted(faces))
    assert parse_action(str(action)) == action
    assert str(action) == "reroll " + ("".join(map(str, sorted(faces))) or "-")


def test_reroll_text_forgives_order_case_and_spacing() -> None:
    assert parse_action(" REROLL 6 1 6 ") == Reroll((1, 6, 6))
    assert parse_action("reroll -") == Reroll(()) and str(Reroll(())) == "reroll -"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("reroll", "names the faces"),
        ("reroll 67", "faces 1 to 6, not 7"),
        ("reroll 0", "faces 1 to 6, not 0"),
        ("reroll x", "cannot read"),
        ("reroll 6-", "cannot read"),
        ("re-roll 66", "cannot read"),
    ],
)
def test_malformed_rerolls(text: str, words: str) -> None:
    with pytest.raises(InvalidActionError, match=words):
        parse_action(text)


# -- legality ---------------------------------------------------------------------------------


def test_after_a_reroll_only_bids_are_legal() -> None:
    game = _game([[2, 3, 4, 6, 6], [1, 5, 5, 5, 5]], first=1)
    game.apply(1, Bid(4, 5))
    before = game.legal_actions(0)
    assert before[0] == CHALLENGE and Reroll((6, 6)) in before and Reroll(()) in before
    game.apply(0, parse_action("reroll 66"))  # 圖 2.7: show the two 6s, re-roll three dice
    legal = game.legal_actions(0)
    assert legal and all(isinstance(action, Bid) for action in legal)
    assert legal[0] == Bid(4, 6) and game.to_act() == (0,)
    listed, _ = game.describe_legal(0)
    assert listed == [str(action) for action in legal]
    # Public: every seat sees that the seat to act re-rolled and must bid.
    assert game.observation(0).must_bid and game.observation(1).must_bid
    assert game.fallback_action(0) == Bid(4, 6)
    with pytest.raises(IllegalActionError, match="must bid: it may not challenge"):
        game.apply(0, CHALLENGE)
    with pytest.raises(IllegalActionError, match="already re-rolled this turn"):
        game.apply(0, Reroll(()))
    game.apply(0, Bid(4, 6))
    assert not game.observation(1).must_bid and CHALLENGE in game.legal_actions(1)


def test_opener_may_reroll_and_a_later_turn_may_reroll_again() -> None:
    game = _game([[1, 2, 3, 4, 6], [2, 2, 3, 3, 5]])
    game.apply(0, Reroll((6,)))
    assert CHALLENGE not in game.legal_actions(0)
    game.apply(0, Bid(2, 6))
    game.apply(1, Bid(3, 2))
    shown = game.hands[0][:1]
    game.apply(0, Reroll(tuple(shown)))
    observation = game.observation(1)
    assert observation.revealed[0] == sorted([6, *shown])
    assert [(r.seat, r.revealed, r.rerolled, r.after_bids) for r in observation.rerolls] == [
        (0, [6], 4, 0),
        (0, shown, 3, 2),
    ]
    assert len(game.hands[0]) == 3 and game.dice_left == [5, 5]


@pytest.mark.parametrize(
    ("setup", "action", "words"),
    [
        ([], Reroll((5,)), "shows 1 × 5 but seat 0 has only 0 under its cup"),
        ([], Reroll((6, 6, 6)), "shows 3 × 6 but seat 0 has only 2"),
        ([], Reroll((2, 3, 4, 6, 6)), "leaves no die in the cup to re-roll"),
        ([Bid(10, 6)], Reroll(()), "no bid is left above bid 10x6"),
    ],
)
def test_illegal_rerolls_name_the_rule(setup: list[Bid], action: Reroll, words: str) -> None:
    game = _game([[2, 3, 4, 6, 6], [1, 5, 5, 5, 5]], first=1 if setup else 0)
    for bid in setup:
        game.apply(1, bid)
    seat = game.to_act()[0]
    before = game.observation(seat)
    with pytest.raises(IllegalActionError, match=words):
        game.apply(seat, action)
    assert game.observation(seat) == before and not game.is_legal(seat, action)


def test_reroll_is_illegal_with_the_option_off() -> None:
    game = new_game({}, MatchSeed.from_text("1"), {})
    assert not any(isinstance(action, Reroll) for action in game.legal_actions(0))
    with pytest.raises(IllegalActionError, match=r"'reroll' option .* is off"):
        game.apply(0, Reroll(()))
    assert not game.observation(0).reroll and game.observation(0).revealed == [[], []]


def test_the_last_die_in_the_cup_may_be_rerolled_but_not_shown() -> None:
    game = _game([[4], [2]], dice=1, min_open=1)
    assert [a for a in game.legal_actions(0) if isinstance(a, Reroll)] == [Reroll(())]


# -- counting, dice, secrecy ------------------------------------------------------------------


def test_challenge_counts_revealed_and_hidden_dice() -> None:
    game = _game([[2, 3, 4, 6, 6], [1, 5, 5, 5, 6]], first=1)
    game.apply(1, Bid(4, 5))
    game.apply(0, Reroll((6, 6)))
    new_cup = list(game.hands[0])
    game.apply(0, Bid(4, 6))
    game.apply(1, CHALLENGE)
    (reveal,) = [e.payload for e in game.drain_events() if isinstance(e.payload, Reveal)]
    assert reveal.dice[0] == sorted([6, 6, *new_cup]) and reveal.dice[1] == [1, 5, 5, 5, 6]
    assert reveal.actual == 3 + new_cup.count(6)
    assert reveal.loser == (0 if reveal.actual < 4 else 1)
    assert game.result().detail["rounds"][0]["rerolls"] == 1


def test_wild_ones_count_among_revealed_dice() -> None:
    game = _game([[1, 1, 3, 4, 6], [2, 2, 2, 2, 2]], ones_wild=True)
    game.apply(0, Reroll((1, 1)))
    assert game.count_showing(6) == 2 + Counter(game.hands[0])[6] + Counter(game.hands[0])[1]


def test_rerolled_dice_come_from_the_named_stream() -> None:
    seed = MatchSeed.from_text("r")
    one = new_game({"reroll": True}, seed, {"game_index": 5})
    two = new_game({"reroll": True}, seed, {"game_index": 5})
    for game in (one, two):
        game.apply(0, Reroll(()))
        game.apply(0, Bid(2, 2))
        game.apply(1, Reroll(tuple(game.hands[1][:2])))
    assert one.hands == two.hands and one.revealed == two.revealed
    stream = seed.stream("liars_dice", "game", 5, "round", 0, "reroll", 0)
    assert one.hands[0] == sorted(roll_dice(stream, 5))
    stream = seed.stream("liars_dice", "game", 5, "round", 0, "reroll", 1)
    assert one.hands[1] == sorted(roll_dice(stream, 3))


def test_no_hidden_die_of_another_seat_is_seen_before_the_reveal() -> None:
    # Two tables that differ only in seat 1's hidden dice: seat 0 must not tell them apart.
    a = _game([[1, 2, 3, 4, 5], [6, 6, 1, 2, 3]])
    b = _game([[1, 2, 3, 4, 5], [6, 6, 4, 4, 5]])
    for game in (a, b):
        game.apply(0, Bid(2, 6))
        game.apply(1, Reroll((6, 6)))
        game.hands[1] = [1, 1, 1] if game is a else [5, 5, 5]  # different re-rolled dice too
        game.apply(1, Bid(3, 6))
        game.apply(0, Reroll(()))
    assert a.observation(0).model_dump() == b.observation(0).model_dump()
    seen_a, seen_b = (
        [e.payload.model_dump() for e in g.drain_events() if e.visible_to(0)] for g in (a, b)
    )
    events = [e for e in a.drain_events()]
    assert seen_a == seen_b and not events
    rerolls = [p for p in seen_a if p["kind"] == "reroll"]
    assert [(p["seat"], p["revealed"], p["rerolled"]) for p in rerolls] == [
        (1, [6, 6], 3),
        (0, [], 5),
    ]


def test_new_dice_go_to_the_roller_alone() -> None:
    game = _game([[1, 2, 3, 4, 5], [6, 6, 1, 2, 3]])
    game.drain_events()
    game.apply(0, Reroll((5,)))
    public, private = game.drain_events()
    assert isinstance(public.payload, Rerolled) and public.to is None
    assert public.payload.all_revealed == [5] and public.payload.rerolled == 4
    assert isinstance(private.payload, DiceRolled) and private.to == frozenset((0,))
    assert private.payload.dice == game.hands[0] and len(game.hands[0]) == 4


def test_series_starts_each_round_with_every_die_in_the_cup() -> None:
    game = _game([[2, 2, 2, 2, 2], [3, 3, 3, 3, 3]], series=True)
    game.apply(0, Reroll((2, 2)))
    game.apply(0, Bid(9, 2))
    game.apply(1, CHALLENGE)
    assert game.round == 1 and game.revealed == [[], []] and not game.rerolls
    assert [len(h) for h in game.hands] == game.dice_left and 4 in game.dice_left


# -- ruleset ----------------------------------------------------------------------------------


def test_reroll_option_is_checked(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="'reroll'"):
        LiarsDiceRules.from_mapping({"reroll": "yes"})
    with pytest.raises(RulesetError, match="'reroll'"):
        LiarsDiceRules.from_mapping({"reroll": 1})
    assert load_ruleset(ROOT / "configs" / "rulesets" / "liars_dice_reroll.toml") == REROLL
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "liars_dice"\n[rules]\nre_roll = true\n')
    with pytest.raises(RulesetError, match=r"'re_roll'.*reroll"):
        load_ruleset(bad)


@pytest.mark.parametrize(
    "rules",
    [
        {"reroll": True},
        {"reroll": True, "ones_wild": True},
        {"players": 3, "dice": 2, "reroll": True, "series": True, "ones_wild": True},
        {"players": 2, "dice": 1, "min_open": 1, "reroll": True, "series": True},
    ],
    ids=["reroll", "reroll-wild", "reroll-party", "reroll-one-die"],
)
def test_conformance_with_rerolls(rules: dict[str, object]) -> None:
    check_engine(SpecGame("liars_dice", rules, {"first": 1, "game_index": 2}), range(6))


# -- bots -------------------------------------------------------------------------------------


def test_view_counts_the_others_revealed_dice_as_known() -> None:
    game = _game([[1, 2, 3, 4, 5], [6, 6, 1, 2, 3]], first=1)
    game.apply(1, Reroll((6, 6)))
    game.apply(1, Bid(2, 6))
    view = TableView.from_observation(game.observation(0))
    assert view.dice == (1, 2, 3, 4, 5) and view.own_dice == 5
    assert view.counts[6] == 2 and view.mine(6) == 2 and view.hidden_dice == 3
    assert p_true(view, Bid(2, 6), False) == 1.0  # the two shown 6s make it certain
    assert view.shown_by_others(6, False) == 2 and view.shown_by_others(5, False) == 0
    mine = TableView.from_observation(game.observation(1))
    assert mine.cup_dice == tuple(game.hands[1]) and tuple(sorted(mine.dice)) == mine.dice
    assert mine.counts[6] == 2 + game.hands[1].count(6) and mine.hidden_dice == 5


def test_probability_rerolls_for_the_face_it_would_bid() -> None:
    # Facing 3x6 with two 6s: no raise is likely (4x6 needs two of five hidden dice: 0.20), so
    # it shows its 6s and re-rolls three dice, giving 4x6 two of eight chances (0.40).
    game = _game([[1, 2, 3, 6, 6], [1, 2, 3, 4, 5]], first=1)
    game.apply(1, Bid(3, 6))
    strategy = Probability()
    assert strategy.decide(TableView.from_observation(game.observation(0))) == Reroll((6, 6))
    plain = Probability(reroll=False).decide(TableView.from_observation(game.observation(0)))
    assert plain == Bid(4, 6)
    game.apply(0, Reroll((6, 6)))
    after = strategy.decide(TableView.from_observation(game.observation(0)))
    assert isinstance(after, Bid) and game.is_legal(0, after)


@pytest.mark.parametrize("name", sorted(set(BOTS) - {f"type{i}" for i in range(3, 33)}))
def test_every_bot_plays_under_the_reroll_rule(name: str) -> None:
    seed = MatchSeed.from_text("reroll-bots")
    for k in range(30):
        bots = [make_ld_bot(name, {"seed": "1"}), make_ld_bot("probability", {"seed": "1"})]
        bots[0].name, bots[1].name = "x", "y"
        result, decisions = play_direct(bots, seed, game_index=k, first=k % 2, rules=REROLL)
        assert decisions >= 1 and len(result.winners) == 1


def test_probability_reroll_switch_is_a_config_option() -> None:
    bot = make_ld_bot("probability", {"reroll": False})
    assert isinstance(bot.strategy, Probability) and not bot.strategy.reroll
    assert make_ld_bot("probability", {}).strategy.reroll  # type: ignore[attr-defined]


def test_a_request_lists_at_most_the_documented_number_of_actions() -> None:
    """docs/RULES.md: 1 + 6 × dice in play, plus 2^k − 1 re-rolls for k dice in the cup; the
    opener of two seats × 5 dice with five different faces reaches the documented 85."""
    largest = 0
    for text in map(str, range(300)):
        game = new_game({"reroll": True}, MatchSeed.from_text(text), {})
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        cup = len(game.observation(seat).dice)
        assert len(legal) <= 1 + 6 * 10 + 2**cup - 1
        largest = max(largest, len(legal))
    assert largest == 85
