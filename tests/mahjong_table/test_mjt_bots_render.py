"""The baseline bots' decisions, per-seat draws under different play, and the replay renderer."""

from __future__ import annotations

import asyncio

import pytest
from mjt_walls import act, build_wall, game_on, legal_texts

from arena.dealing import MatchSeed
from arena.games.mahjong.engine import new_game
from arena.games.mahjong.render import render_event
from arena.games.mahjong.rules import load_ruleset
from bots.mahjong import GreedyBot, RandomBot, choose
from protocol.messages import Request

FILLER = "1289m1289s1234567z"


def request(game: object, seat: int) -> Request:
    listed, _hint = game.describe_legal(seat)  # type: ignore[attr-defined]
    return Request(seq=1, deadline_ms=1000, legal=listed, observation=game.observation(seat))  # type: ignore[attr-defined]


def test_greedy_wins_whenever_it_can() -> None:
    hands = [
        "123456789m123456p5s",
        "3467s1234567z789p89m",
        "11223m3p1234567z289s",
        "344567m3467s128p11s9s",
    ]
    game = game_on(build_wall(hands, draws="5s"))
    assert asyncio.run(GreedyBot("g").act(request(game, 0))) == "tsumo"
    game = game_on(
        build_wall(
            [
                "5m" + FILLER,
                "34m55p1289p3467s567z6p",
                "55m67p1s9s234z123p78s9p4p",
                "46m123456789p234s11s",
            ],
            draws="7m",
        )
    )
    act(game, 0, "discard 5m")
    assert choose(game.observation(3), legal_texts(game, 3)) == "ron"


def test_greedy_discards_the_loose_tile_and_claims_only_to_get_nearer() -> None:
    # Dealer: 123m 456m 789p 22s 34p and four loose tiles (5z 7z 9s, and the 2z it drew).
    hands = [
        "123456m789p34p22s5z7z9s",
        "34m55p1289p3467s567z6p",
        "55m67p1s9s234z123p78s9p4p",
        "46m123456789p234s11s",
    ]
    game = game_on(build_wall(hands, draws="2z"))
    pick = choose(game.observation(0), legal_texts(game, 0))
    assert pick in ("discard 2z", "discard 5z", "discard 7z", "discard 9s")
    act(game, 0, "discard 9s")
    # Nobody can claim a lone 9s here, so seat 1 draws.
    assert game.to_act() == (1,) and game.s.phase == "discard"
    game2 = game_on(
        build_wall(
            [
                "5m" + FILLER,
                "34m55p1289p3467s567z6p",
                "55m67p1s9s234z123p78s9p4p",
                "46m123456789p234s11s",
            ],
            draws="7m",
        )
    )
    act(game2, 0, "discard 5m")
    assert choose(game2.observation(2), legal_texts(game2, 2)) == "pon"
    assert choose(game2.observation(1), legal_texts(game2, 1)) == "chi 345m"


def test_random_bot_is_seeded() -> None:
    game = new_game({}, MatchSeed.from_text("r"), {"round": 0, "hand": 0})
    picks = [asyncio.run(RandomBot("r", {"seed": 5}).act(request(game, 0))) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in legal_texts(game, 0)


def draws_by_position(strategies: list[str], ruleset: str) -> list[list[str]]:
    import json

    from test_mjt_golden import record  # the golden recorder plays a hand through the referee

    text = record(ruleset, 7, 2, strategies)
    lines = [json.loads(line) for line in text.splitlines()]
    dealer = 2
    drawn: list[list[str]] = [[] for _ in range(4)]
    for line in lines:
        payload = line.get("payload", {})
        if line["type"] == "event" and payload.get("kind") == "draw":
            drawn[(payload["seat"] - dealer) % 4].append(payload["tile"])
    return drawn


def test_per_seat_draws_do_not_depend_on_the_calls() -> None:
    calm = draws_by_position(["greedy"] * 4, "duplicate")
    wild = draws_by_position(["random", "greedy", "random", "random"], "duplicate")
    for a, b in zip(calm, wild, strict=True):
        n = min(len(a), len(b))
        assert a[:n] == b[:n]
    assert load_ruleset("duplicate").per_seat_draws


def test_render_every_event_kind() -> None:
    payloads: list[dict[str, object]] = [
        {
            "game": "mahjong",
            "kind": "hand_start",
            "round": 0,
            "hand": 1,
            "dealer": 1,
            "winds": ["N", "E", "S", "W"],
            "wall": 56,
            "scores": [0, 0, 0, 0],
        },
        {"game": "mahjong", "kind": "deal", "seat": 0, "tiles": "123m"},
        {
            "game": "mahjong",
            "kind": "draw",
            "seat": 0,
            "tile": "5p",
            "replacement": False,
            "wall": 40,
        },
        {"game": "mahjong", "kind": "other_draw", "seat": 0, "replacement": True, "wall": 39},
        {"game": "mahjong", "kind": "discard", "seat": 0, "tile": "7z"},
        {
            "game": "mahjong",
            "kind": "claim",
            "seat": 1,
            "meld": "chi",
            "tiles": "345m",
            "tile": "5m",
            "from_seat": 0,
        },
        {"game": "mahjong", "kind": "kong", "seat": 1, "meld": "ckong", "tile": None},
        {
            "game": "mahjong",
            "kind": "win",
            "seat": 2,
            "how": "ron",
            "tile": "5m",
            "from_seat": 1,
            "tiles": "46m",
            "melds": [{"kind": "pon", "tiles": "111z", "from_seat": 0}],
            "tai": 1,
            "breakdown": [{"name": "三元牌", "tai": 1}],
            "payments": [0, -1500, 1500, 0],
        },
        {
            "game": "mahjong",
            "kind": "hand_end",
            "reason": "win",
            "winners": [2],
            "deltas": [0, -1500, 1500, 0],
        },
    ]
    shown = [render_event(p) for p in payloads]
    assert all(isinstance(s, str) and s for s in shown)
    assert "五筒" in str(shown[2]) and "紅中" in str(shown[4]) and "face down" in str(shown[6])
    assert "三元牌 1" in str(shown[7])
    assert render_event({"game": "liars_dice", "kind": "bid"}) is None
    assert render_event({"game": "mahjong", "kind": "observation"}) is None


def test_greedy_think_ms_is_checked() -> None:
    assert GreedyBot("g", {"think_ms": 1.5}).think_s == 0.0015
    for bad in ({"think_ms": -1}, {"think_ms": "3"}, {"think_ms": True}, {"depth": 2}):
        with pytest.raises(ValueError):
            GreedyBot("g", bad)


def test_a_mistyped_greedy_setting_is_named_with_the_one_it_resembles() -> None:
    with pytest.raises(ValueError, match=r"got \['think'\] \(did you mean 'think_ms'\?\)"):
        GreedyBot("g", {"think": 3})
    with pytest.raises(ValueError, match=r"takes one setting, think_ms .*got \['colour'\]$"):
        GreedyBot("g", {"colour": "red"})
