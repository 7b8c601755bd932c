"""The liar's dice engine: challenge vectors, bid order, legality, wild ones, series, secrecy."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.dealing import MatchSeed
from arena.games.errors import (
    GameError,
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RulesetError,
)
from arena.games.liars_dice import (
    CHALLENGE,
    SPEC,
    Bid,
    LiarsDiceGame,
    LiarsDiceRules,
    load_ruleset,
    new_game,
    parse_action,
    raises_after,
)
from arena.games.registry import get_spec
from protocol.games.liars_dice import Reveal
from tests.conformance import SpecGame, check_engine

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def _vectors() -> list[tuple[str, ...]]:
    rows = []
    for text in (HERE / "challenge_vectors.txt").read_text(encoding="utf-8").splitlines():
        if text.strip() and not text.startswith("#"):
            rows.append(tuple(text.split()))
    return rows


@pytest.mark.parametrize("row", _vectors(), ids=lambda row: " ".join(row))
def test_challenge_vectors(row: tuple[str, ...]) -> None:
    players, wild, hands_text, bids_text, arrow, actual, loser = row
    assert arrow == "->"
    hands = [[int(d) for d in hand] for hand in hands_text.split("/")]
    rules = LiarsDiceRules(players=int(players), ones_wild=wild == "yes")
    first = int(bids_text.split(":")[0])
    game = LiarsDiceGame.with_dice(rules, hands, first=first)
    for item in bids_text.split(","):
        seat, bid = item.split(":")
        game.apply(int(seat), parse_action(f"bid {bid}"))
    game.apply(game.to_act()[0], CHALLENGE)
    assert game.is_over()
    (reveal,) = [e.payload for e in game.drain_events() if isinstance(e.payload, Reveal)]
    assert (reveal.actual, reveal.loser) == (int(actual), int(loser))
    result = game.result()
    assert int(loser) not in result.winners
    assert result.scores[int(loser)] == 0.0


def test_bid_order_is_count_then_face() -> None:
    assert Bid(3, 1) > Bid(2, 6) and Bid(3, 5) > Bid(3, 4)
    assert Bid(3, 5).beats(Bid(3, 4)) and not Bid(3, 4).beats(Bid(3, 4))
    assert not Bid(2, 6).beats(Bid(3, 1)) and Bid(2, 1).beats(None)
    raises = raises_after(Bid(2, 3), 2, 10)
    assert raises[:3] == (Bid(2, 4), Bid(2, 5), Bid(2, 6))
    assert len(raises) == 3 + 8 * 6 and list(raises) == sorted(raises)
    assert raises_after(None, 2, 10)[0] == Bid(2, 1) and len(raises_after(None, 2, 10)) == 54
    assert raises_after(Bid(10, 6), 2, 10) == ()


def test_legal_actions_listed() -> None:
    game = new_game({}, MatchSeed.from_text("1"), {"first": 1})
    assert game.to_act() == (1,) and game.legal_actions(0) == []
    opening = game.legal_actions(1)
    assert CHALLENGE not in opening and opening[0] == Bid(2, 1) and opening[-1] == Bid(10, 6)
    game.apply(1, Bid(4, 2))
    reply = game.legal_actions(0)
    assert reply[0] == CHALLENGE and reply[1] == Bid(4, 3) and len(reply) == 1 + 4 + 6 * 6


def test_a_five_player_opening_has_the_seeds_144_bids() -> None:
    # Seed 002 §2.3: with five players, "two 1s" up to "twenty-five 6s", 144 legal bids.
    game = new_game({"players": 5}, MatchSeed.from_text("five"), {"first": 0})
    opening = game.legal_actions(0)
    assert len(opening) == 144 == len(raises_after(None, 2, 25))
    assert (opening[0], opening[-1]) == (Bid(2, 1), Bid(25, 6))


@given(st.integers(1, 999), st.integers(1, 6))
def test_bid_text_round_trips(count: int, face: int) -> None:
    bid = Bid(count, face)
    assert parse_action(str(bid)) == bid
    assert parse_action(f"  BID {count} x {face} ") == bid


@pytest.mark.parametrize(
    "text", ["", "bid", "bid 3", "bid 3x7", "bid 3x0", "bid 0x3", "raise 3x3", "3x3", "liar"]
)
def test_malformed_actions(text: str) -> None:
    with pytest.raises(InvalidActionError):
        parse_action(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("bid 1000x2", "more dice than the 10 in play"),
        ("bid 000000001000x2", "more dice than the 10 in play"),
        ("bid 99999999999999999999x2", "more dice than any table holds"),
        ("bid 3x10", "faces 1 to 6, not 10"),
        ("bid 3x0000000000000000000005", None),
        ("bid " + "0" * 5000 + "1000x2", "more dice than the 10 in play"),
        ("bid 3x" + "0" * 5000 + "5", None),
    ],
)
def test_a_bid_of_any_length_is_read_and_judged_by_its_rule(text: str, words: str | None) -> None:
    game = new_game({}, MatchSeed.from_text("2"), {})
    if words is None:
        assert parse_action(text) == Bid(3, 5)
        return
    with pytest.raises((InvalidActionError, IllegalActionError), match=words):
        game.apply(0, parse_action(text))


@pytest.mark.parametrize("text", ["bid ３x５", "bid \u0663x\u0665", "reroll ６６", "bid 3x\u00b2"])
def test_only_ascii_digits_are_read(text: str) -> None:
    with pytest.raises(InvalidActionError, match="cannot read"):
        parse_action(text)


@pytest.mark.parametrize(
    ("opening", "action", "words"),
    [
        (None, CHALLENGE, "no bid to challenge"),
        (None, Bid(1, 6), "at least 2"),
        (None, Bid(11, 2), "more dice than the 10"),
        (Bid(3, 4), Bid(3, 4), "does not raise"),
        (Bid(3, 4), Bid(2, 6), "a higher count, or the same count with a higher face"),
    ],
)
def test_illegal_actions_name_the_rule(opening: Bid | None, action: Bid, words: str) -> None:
    game = new_game({}, MatchSeed.from_text("2"), {})
    if opening is not None:
        game.apply(0, opening)
    seat = game.to_act()[0]
    before = game.observation(seat)
    with pytest.raises(IllegalActionError, match=words):
        game.apply(seat, action)
    assert game.observation(seat) == before
    assert not game.is_legal(seat, action)


def test_out_of_turn_and_after_the_end() -> None:
    game = new_game({}, MatchSeed.from_text("3"), {})
    with pytest.raises(NotYourTurnError, match="seat 0's turn"):
        game.apply(1, Bid(2, 2))
    game.apply(0, Bid(2, 2))
    game.apply(1, CHALLENGE)
    with pytest.raises(NotYourTurnError, match="over"):
        game.apply(0, Bid(3, 3))
    with pytest.raises(GameError):
        new_game({}, MatchSeed.from_text("3"), {}).result()


def test_fallback_is_documented() -> None:
    game = new_game({"min_open": 3}, MatchSeed.from_text("4"), {})
    assert game.fallback_action(0) == Bid(3, 1)
    game.apply(0, Bid(3, 6))
    assert game.fallback_action(1) == CHALLENGE


def test_ones_stop_being_wild_once_bid() -> None:
    game = LiarsDiceGame.with_dice(
        LiarsDiceRules(ones_wild=True), [[1, 1, 2, 3, 4], [1, 5, 5, 6, 6]]
    )
    assert game.observation(0).ones_wild and game.count_showing(5) == 5
    game.apply(0, Bid(2, 5))
    assert game.observation(1).ones_wild
    game.apply(1, Bid(3, 1))
    assert not game.observation(0).ones_wild and game.count_showing(5) == 2


def test_observations_never_show_other_dice_before_the_reveal() -> None:
    rules = LiarsDiceRules(players=3)
    a = LiarsDiceGame.with_dice(rules, [[1, 2, 3, 4, 5], [6, 6, 6, 6, 6], [2, 2, 2, 2, 2]])
    b = LiarsDiceGame.with_dice(rules, [[1, 2, 3, 4, 5], [1, 1, 1, 1, 1], [3, 4, 4, 5, 5]])
    for game in (a, b):
        game.apply(0, Bid(3, 6))
        game.apply(1, Bid(4, 6))
    assert a.observation(0) == b.observation(0)
    for game in (a, b):
        events = game.drain_events()
        for event in events:
            data = event.payload.model_dump()
            if data["kind"] == "dice":
                assert event.to == frozenset((data["seat"],))
            else:
                assert event.to is None and data["kind"] != "reveal"
    a.apply(2, CHALLENGE)
    reveal = [e for e in a.drain_events() if isinstance(e.payload, Reveal)]
    assert len(reveal) == 1 and reveal[0].to is None
    assert isinstance(reveal[0].payload, Reveal)
    assert reveal[0].payload.dice[1] == [6, 6, 6, 6, 6]


def test_dice_loss_series_runs_to_one_seat() -> None:
    rules = {"players": 3, "dice": 2, "series": True}
    game = new_game(rules, MatchSeed.from_text("5"), {"game_index": 7, "first": 2})
    reveals: list[Reveal] = []
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, Bid(2, 1) if game.last_bid is None else CHALLENGE)
        for event in game.drain_events():
            if isinstance(event.payload, Reveal):
                reveals.append(event.payload)
    result = game.result()
    (winner,) = result.winners
    assert game.dice_left[winner] > 0 and sum(game.dice_left) == game.dice_left[winner]
    assert len(reveals) == 6 - game.dice_left[winner] == len(result.detail["rounds"])
    for before, after in itertools.pairwise(reveals):
        assert sum(after.dice_counts) == sum(before.dice_counts) - 1
    assert result.reason == "last seat with dice"


def test_series_opening_count_shrinks_with_the_dice() -> None:
    game = LiarsDiceGame.with_dice(
        LiarsDiceRules(dice=2, min_open=4, series=True), [[2, 2], [3, 3]]
    )
    game.apply(0, Bid(4, 2))
    game.apply(1, CHALLENGE)  # two twos: seat 0 drops to one die, three dice in play
    assert game.observation(0).min_open == 3 and game.legal_actions(0)[0] == Bid(3, 1)


def test_series_next_round_opens_with_the_loser() -> None:
    game = LiarsDiceGame.with_dice(LiarsDiceRules(series=True), [[2] * 5, [3] * 5])
    game.apply(0, Bid(6, 2))
    game.apply(1, CHALLENGE)  # only five twos: seat 0 loses a die and opens again
    assert game.dice_left == [4, 5] and game.to_act() == (0,) and game.round == 1
    assert len(game.observation(0).dice) == 4 and game.observation(0).bids == []


def test_rules_reject_unknown_keys_and_bad_values() -> None:
    with pytest.raises(RulesetError, match="'dcie'"):
        LiarsDiceRules.from_mapping({"dcie": 4})
    with pytest.raises(RulesetError, match="'players'"):
        LiarsDiceRules.from_mapping({"players": 6})
    with pytest.raises(RulesetError, match="'ones_wild'"):
        LiarsDiceRules.from_mapping({"ones_wild": 1})
    with pytest.raises(RulesetError, match="'dice'"):
        LiarsDiceRules.from_mapping({"dice": True})
    with pytest.raises(GameError, match="'round'"):
        new_game({}, MatchSeed.from_text("1"), {"round": 2})
    with pytest.raises(GameError, match="first"):
        new_game({}, MatchSeed.from_text("1"), {"first": 2})


def test_ruleset_files(tmp_path: Path) -> None:
    files = sorted((ROOT / "configs" / "rulesets").glob("liars_dice*.toml"))
    assert len(files) >= 4
    loaded = {path.stem: load_ruleset(path) for path in files}
    assert loaded["liars_dice"] == LiarsDiceRules()
    assert loaded["liars_dice_party"].players == 4 and loaded["liars_dice_party"].series
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "liars_dice"\n[rules]\nones_wild = "yes"\n')
    with pytest.raises(RulesetError, match="'ones_wild'"):
        load_ruleset(bad)
    bad.write_text('game = "liars_dice"\nplayers = 3\n')
    with pytest.raises(RulesetError, match="'players'"):
        load_ruleset(bad)


def test_same_seed_same_dice_and_streams_per_round() -> None:
    one = new_game({}, MatchSeed.from_text("6"), {"game_index": 3})
    two = new_game({}, MatchSeed.from_text("6"), {"game_index": 3})
    other = new_game({}, MatchSeed.from_text("6"), {"game_index": 4})
    assert one.hands == two.hands and one.hands != other.hands


def test_registry_and_spec() -> None:
    assert get_spec("liars-dice") is SPEC and SPEC.seats == (2, 3, 4, 5)
    assert LiarsDiceRules.from_mapping(SPEC.default_rules) == LiarsDiceRules()


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"ones_wild": True},
        {"players": 4, "series": True, "ones_wild": True},
        {"players": 5, "dice": 1, "min_open": 1, "series": True},
    ],
    ids=["seed", "wild", "party", "five-one-die"],
)
def test_conformance(rules: dict[str, object]) -> None:
    check_engine(SpecGame("liars_dice", rules, {"first": 1, "game_index": 2}), range(6))
