"""The ``open_kong_replacement_win`` rule: seed 003 §3.3 says the competition's rules allow no
win after a 明槓 (the kong of a discard); we read that as no win on the replacement drawn after
one's own open kong (docs/RULES.md, "No win on an open kong's replacement"). Off in the
competition rulesets, on in ``common`` and by default; added and concealed kongs never lose it."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from mjt_walls import (
    COMMON,
    COMPETITION,
    FLOWER_RULES,
    act,
    build_flower_wall,
    build_wall,
    game_on,
    legal_texts,
    pass_claims,
)

from arena.games.errors import GameError, IllegalActionError
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.engine import MahjongGame
from arena.games.mahjong.payments import TSUMO_WIN, score_win
from arena.games.mahjong.rules import MahjongRules, load_ruleset
from bots.mahjong import GreedyBot
from protocol.games.mahjong import Win
from protocol.messages import Request

FILLER = "1289m1289s1234567z"
"""Fifteen tiles that make no set: the dealer's hand around the tile it discards first."""

OPEN_KONG_HANDS = [
    "5s" + FILLER,
    "1289p1467m567z346p77p",
    # Seat 2 (opposite the dealer, so the competition lets it kong the dealer's 5s): 555s and
    # 123m 345m 789m 99p 23p, ready on 1p or 4p before and after the kong.
    "555s123m345m789m99p23p",
    "123456789p1s9s3m456m7m",
]


def open_kong_game(rules: MahjongRules, draws: str = "5z", tail: str = "4p") -> MahjongGame:
    """The dealer draws, discards 5s; seat 2 kongs it and draws ``tail`` (4p wins its hand)."""
    game = game_on(build_wall(OPEN_KONG_HANDS, draws=draws, tail=tail), rules)
    act(game, 0, "discard 5s")
    assert "kong" in legal_texts(game, 2)
    act(game, 2, "kong")
    assert game.to_act() == (2,) and game.observation(2).drawn == "4p"
    return game


def the_win(game: MahjongGame) -> Win:
    (win,) = [e.payload for e in game.drain_events() if isinstance(e.payload, Win)]
    return win


def rows(win: Win) -> list[str]:
    return [row.name for row in win.breakdown]


def test_the_shipped_rulesets_set_the_rule() -> None:
    assert MahjongRules().open_kong_replacement_win
    assert load_ruleset("common").open_kong_replacement_win
    for name in ("competition", "duplicate", "flowers"):
        assert not load_ruleset(name).open_kong_replacement_win, name
    # Listed in a record header only when off: the headers of rulesets that keep the default
    # (and of every record written before the option) are unchanged.
    assert "open_kong_replacement_win" not in COMMON.to_mapping()
    mapping = COMPETITION.to_mapping()
    assert mapping["open_kong_replacement_win"] is False
    assert MahjongRules.from_mapping(mapping) == COMPETITION


def test_competition_the_open_kong_replacement_is_no_win() -> None:
    game = open_kong_game(COMPETITION)
    assert is_winning(game.s.counts[2])
    assert "tsumo" not in legal_texts(game, 2)
    assert all(text.startswith("discard ") for text in legal_texts(game, 2))
    with pytest.raises(IllegalActionError, match="open_kong_replacement_win = false"):
        game.apply(2, game.parse_action("tsumo"))
    # The fallback discards the drawn tile, as on any turn; the hand goes on.
    assert str(game.fallback_action(2)) == "discard 4p"
    # Scoring the barred win anyway is a caller's bug, not a 槓上開花.
    with pytest.raises(GameError, match="replacement after an open kong"):
        score_win(game.s, 2, TSUMO_WIN, game.s.drawn, None)


def test_competition_a_later_win_after_the_open_kong_is_legal() -> None:
    # Seat 2 discards the 4p it may not win on, stays ready on 1p/4p and self-draws 1p a go-around
    # later: a plain 自摸, no 槓上開花.
    game = open_kong_game(COMPETITION, draws="5z" + "6z7z5z" + "1p")
    act(game, 2, "discard 4p")
    for seat, tile in ((3, "6z"), (0, "7z"), (1, "5z")):
        pass_claims(game)
        act(game, seat, f"discard {tile}")
    pass_claims(game)
    assert game.observation(2).drawn == "1p"
    assert legal_texts(game, 2)[0] == "tsumo"
    act(game, 2, "tsumo")
    win = the_win(game)
    assert (win.seat, win.how, win.tile) == (2, "tsumo", "1p")
    assert "槓上開花" not in rows(win) and "自摸" in rows(win)


def test_common_the_open_kong_replacement_wins_with_kong_replacement() -> None:
    game = open_kong_game(COMMON)
    assert legal_texts(game, 2)[0] == "tsumo"
    act(game, 2, "tsumo")
    win = the_win(game)
    assert (win.seat, win.how, win.tile) == (2, "tsumo", "4p")
    # An open kong breaks 門清, so 自摸 1 and 槓上開花 1.
    assert [(row.name, row.tai) for row in win.breakdown] == [("自摸", 1), ("槓上開花", 1)]


def test_greedy_discards_when_the_replacement_may_not_win() -> None:
    game = open_kong_game(COMPETITION)
    listed, _hint = game.describe_legal(2)
    request = Request(seq=1, deadline_ms=1000, legal=listed, observation=game.observation(2))
    picked = asyncio.run(GreedyBot("g").act(request))
    assert picked.startswith("discard ")
    act(game, 2, picked)


@pytest.mark.parametrize("rules", [COMPETITION, COMMON], ids=["competition", "common"])
def test_a_concealed_kong_replacement_wins_in_both(rules: MahjongRules) -> None:
    hands = [
        "1111z123456789m12p5s",
        "1289p3467m3467s567z9s",
        "2222z3333z4444z1289s",
        "19p28m28p67p4p4s6s7s3s5z5m8s",
    ]
    game = game_on(build_wall(hands, draws="5s", tail="3p"), rules)
    act(game, 0, "ckong 1z")
    assert legal_texts(game, 0)[0] == "tsumo"
    act(game, 0, "tsumo")
    assert "槓上開花" in rows(the_win(game))


@pytest.mark.parametrize("rules", [COMPETITION, COMMON], ids=["competition", "common"])
def test_an_added_kong_replacement_wins_in_both(rules: MahjongRules) -> None:
    # Seat 1 pons the dealer's 5p and discards 9p: 123m 456m 789m 11s 23s, ready on 1s/4s. It
    # draws the fourth 5p a go-around later, adds it (no one waits on 5p) and draws 4s.
    hands = [
        "5p" + FILLER,
        "55p123m456m789m11s23s9p",
        "1289p3467m3467s567z2z",
        "1289p58m58s234z66p3p3z4z",
    ]
    game = game_on(build_wall(hands, draws="7z6z5z1z5p", tail="4s"), rules)
    act(game, 0, "discard 5p")
    act(game, 1, "pon")
    act(game, 1, "discard 9p")
    for seat, tile in ((2, "6z"), (3, "5z"), (0, "1z")):
        pass_claims(game)
        act(game, seat, f"discard {tile}")
    pass_claims(game)
    assert "akong 5p" in legal_texts(game, 1)
    act(game, 1, "akong 5p")
    assert game.to_act() == (1,) and game.observation(1).drawn == "4s"
    assert legal_texts(game, 1)[0] == "tsumo"
    act(game, 1, "tsumo")
    assert "槓上開花" in rows(the_win(game))


def test_only_the_draw_after_the_open_kong_is_barred() -> None:
    # Competition: seat 2 kongs the dealer's 5s, may not win on the replacement 3p, declares a
    # concealed kong of 1z on that turn and wins on the next replacement 4p: 槓上開花 of the 暗槓.
    hands = [
        "5s3m1289m1289s234567z",
        "1289p1467m567z346p77p",
        "555s1111z123m456m99p2p",
        "123456789p1s9s3m456m7m",
    ]
    game = game_on(build_wall(hands, draws="5z", tail="3p4p"), COMPETITION)
    act(game, 0, "discard 5s")
    act(game, 2, "kong")
    assert game.observation(2).drawn == "3p"
    assert "tsumo" not in legal_texts(game, 2) and "ckong 1z" in legal_texts(game, 2)
    act(game, 2, "ckong 1z")
    assert game.observation(2).drawn == "4p"
    assert legal_texts(game, 2)[0] == "tsumo"
    act(game, 2, "tsumo")
    assert "槓上開花" in rows(the_win(game))


@pytest.mark.parametrize("allowed", [False, True])
def test_a_flower_between_the_open_kong_and_its_replacement_changes_nothing(
    allowed: bool,
) -> None:
    # With flowers the open kong's replacement is 1f, exposed and replaced by 4p: the tile that
    # completes the hand still replaces the open kong, so it wins exactly when the rule allows.
    rules = dataclasses.replace(FLOWER_RULES, open_kong_replacement_win=allowed)
    wall = build_flower_wall(OPEN_KONG_HANDS, draws="5z", tail="1f4p")
    game = game_on(wall, rules)
    act(game, 0, "discard 5s")
    act(game, 2, "kong")
    flowers = game.observation(2).flowers
    assert game.observation(2).drawn == "4p" and flowers is not None and flowers[2] == ["1f"]
    assert ("tsumo" in legal_texts(game, 2)) is allowed
    if allowed:
        act(game, 2, "tsumo")
        assert rows(the_win(game)).count("槓上開花") == 1


def test_robbing_is_unchanged_a_seat_waiting_on_the_konged_discard_wins_first() -> None:
    # The 明槓's tile is a discard: a seat it completes is asked to ron with the kong pending,
    # and ron beats kong, so the rule never meets a robbing chance.
    hands = [
        "5s" + FILLER,
        "1289p1467m567z346p77p",
        "555s123m456m789m99p23p",
        "46s123456789p456m77m",
    ]
    game = game_on(build_wall(hands, draws="5z"), COMPETITION)
    act(game, 0, "discard 5s")
    assert legal_texts(game, 3)[0] == "ron" and "kong" in legal_texts(game, 2)
    game.apply(2, game.parse_action("kong"))
    game.apply(3, game.parse_action("ron"))
    win = the_win(game)
    assert (win.seat, win.how, win.from_seat) == (3, "ron", 0)
