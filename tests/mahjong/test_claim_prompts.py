"""The ``claims_ask_every_seat`` ruleset option: every other seat is asked after every discard and
every added kong (``pass`` alone when it has no claim), and the play is otherwise unchanged.

Asking only the seats that can claim leaks, over a network, through the wait for the next event
(a privacy audit measured it); the option must close that without moving a single tile: same
events, same results, same legal lists and answers for every seat that had a choice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conformance import SpecGame, check_engine
from mahjong_table.mjt_walls import build_wall, game_on, legal_texts

from arena.dealing import MatchSeed
from arena.games.errors import RulesetError
from arena.games.mahjong import actions as A
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.options import claim_options, enough_tai
from arena.games.mahjong.payments import ROB_WIN
from arena.games.mahjong.rules import MahjongRules, list_rulesets, load_ruleset
from arena.games.mahjong.state import CLAIM, ROB
from arena.records import JsonlRecorder
from arena.referee import play_game
from arena.replay import verify_record
from arena.transports.inprocess import InProcessSeat
from bots.mahjong.greedy import choose
from bots.registry import make_bot

OPTION = "claims_ask_every_seat"
SEED = MatchSeed.from_text("claim prompts")
ONLY_PASS = [A.PASS_ACTION]

Policy = Callable[[MahjongGame, int], str]
"""The answer of ``seat`` to its request (a fresh policy per hand)."""


def with_option(rules: MahjongRules) -> MahjongRules:
    return dataclasses.replace(rules, claims_ask_every_seat=True)


# Rulesets whose claim resolution differs: one winner (competition), every winner paid and
# open kongs from anyone (common), and flowers, whose replacements run between the claims.
BASES = {name: load_ruleset(name) for name in ("competition", "common", "flowers")}


def greedy_policy() -> Policy:
    def policy(game: MahjongGame, seat: int) -> str:
        return choose(game.observation(seat), [str(a) for a in game.legal_actions(seat)])

    return policy


def random_policy() -> Policy:
    # One stream per seat, read only when there is a choice (as `RandomStream.choice` of one item
    # reads nothing): a seat plays the same whether or not it is also asked to pass.
    streams = [SEED.stream("test", "random", str(seat)) for seat in range(4)]

    def policy(game: MahjongGame, seat: int) -> str:
        return str(streams[seat].choice(game.legal_actions(seat)))

    return policy


def play(
    rules: MahjongRules, deal: dict[str, int], make_policy: Callable[[], Policy]
) -> tuple[list[Any], list[Any], Any]:
    """One hand: its events (payload and audience), its decisions that were a choice (seat, legal
    list, action) and its result. Checked on the way: with the option every discard and added
    kong makes all three other seats due, a seat with nothing to claim on ``[pass]`` alone, and
    their answers are applied in reverse order; without it no seat is ever asked only to pass."""
    game = new_game(rules.to_mapping(), SEED, deal)
    ask_all = rules.claims_ask_every_seat
    policy = make_policy()
    events: list[Any] = []
    choices: list[Any] = []
    while True:
        events += [
            (None if e.to is None else sorted(e.to), e.payload.model_dump(mode="json"))
            for e in game.drain_events()
        ]
        if game.is_over():
            break
        due = game.to_act()
        s = game.s
        if ask_all and s.phase in (CLAIM, ROB):
            tile, by = s.claim_tile, s.claim_from
            others = tuple((by + step) % 4 for step in (1, 2, 3))
            assert due == others, f"after {s.last}: due {due}, expected {others}"
            for seat in due:
                if s.phase == CLAIM:
                    claims = claim_options(s, seat, tile, by)
                else:
                    robs = s.wins_on(seat, tile) and enough_tai(s, seat, ROB_WIN, tile, by)
                    claims = [A.RON_ACTION] if robs else []
                assert game.legal_actions(seat) == [*claims, A.PASS_ACTION]
        elif not ask_all:
            assert all(game.legal_actions(seat) != ONLY_PASS for seat in due)
        # Every answer is chosen before any is applied, as the referee asks due seats at once.
        answers = {seat: policy(game, seat) for seat in due}
        for seat in due:
            legal = game.legal_actions(seat)
            if legal != ONLY_PASS:
                choices.append((seat, [str(a) for a in legal], answers[seat]))
        for seat in reversed(due) if ask_all else due:
            game.apply(seat, game.parse_action(answers[seat]))
    return events, choices, game.result()


DEALS = [{"round": r, "hand": h} for r in range(6) for h in range(4)]


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("make_policy", [greedy_policy, random_policy], ids=["greedy", "random"])
def test_asking_every_seat_changes_nothing_but_the_passes(
    base: str, make_policy: Callable[[], Policy]
) -> None:
    rules = BASES[base]
    assert not getattr(rules, OPTION)
    claimed: set[str] = set()
    for deal in DEALS:
        off = play(rules, deal, make_policy)
        on = play(with_option(rules), deal, make_policy)
        assert on[0] == off[0], f"{base} {deal}: the events differ"
        assert on[1] == off[1], f"{base} {deal}: the decisions with a choice differ"
        assert on[2] == off[2], f"{base} {deal}: the results differ"
        claimed |= {action.split()[0] for _, legal, action in off[1] if "pass" in legal}
    # The hands did make claims, and let seats decline them; greedy wins whenever it may.
    assert {"pass", "pon"} <= claimed, claimed
    assert make_policy is random_policy or "ron" in claimed, claimed


def test_an_added_kong_no_one_can_rob_asks_every_other_seat() -> None:
    """The golden case r1_added_kong_ron (seed "golden", round 1, hand 1, four greedy bots) has
    an added kong that no seat can rob: with the option all three others are due, on pass."""
    rules = with_option(BASES["competition"])
    game = new_game(rules.to_mapping(), MatchSeed.from_text("golden"), {"round": 1, "hand": 1})
    policy = greedy_policy()
    robs = []
    while not game.is_over():
        due = game.to_act()
        if game.s.phase == ROB:
            declarer = game.s.claim_from
            assert due == tuple((declarer + step) % 4 for step in (1, 2, 3))
            robs.append([game.legal_actions(seat) for seat in due])
        answers = [(seat, policy(game, seat)) for seat in due]
        for seat, action in answers:
            game.apply(seat, game.parse_action(action))
    assert robs == [[ONLY_PASS] * 3]


# tests/mahjong_table/test_mjt_engine.py's robbing hands: seat 1 pons 5p, then adds the fourth;
# seat 2 waits on 5p.
ROB_HANDS = [
    "5p1289m1289s1234567z",
    "55p3467m3467s567z19p2z",
    "123456789m123s46p99s",
    "678p58m58s234z2s23p7z1z4s",
]
CLAIM_VERBS = (A.RON, A.CHI, A.PON, A.KONG)


def act(game: MahjongGame, seat: int, text: str) -> None:
    """Play ``text`` for ``seat``; every other seat due on a discard or added kong passes first.
    (mjt_walls' `act` keeps any due ``seat`` for a claim; here a due seat may have only pass.)"""
    action = game.parse_action(text)
    if game.s.phase in (CLAIM, ROB):
        for other in game.to_act():
            if other != seat or action.verb not in CLAIM_VERBS:
                game.apply(other, A.PASS_ACTION)
    game.apply(seat, action)


@pytest.mark.parametrize("rob", [True, False])
def test_robbing_an_added_kong_with_every_seat_asked(rob: bool) -> None:
    results = []
    for rules in (BASES["competition"], with_option(BASES["competition"])):
        game = game_on(build_wall(ROB_HANDS, draws="7z5m4z6z5p", tail="9m"), rules)
        act(game, 0, "discard 5p")
        act(game, 1, "pon")
        act(game, 1, "discard 1p")
        for seat, tile in ((2, "5m"), (3, "4z"), (0, "6z")):
            act(game, seat, f"discard {tile}")
        act(game, 1, "akong 5p")
        if getattr(rules, OPTION):
            assert game.to_act() == (2, 3, 0)
            assert [legal_texts(game, seat) for seat in (3, 0)] == [["pass"], ["pass"]]
        else:
            assert game.to_act() == (2,)
        assert legal_texts(game, 2) == ["ron", "pass"]
        # Seat 2 answers last: the resolution waits for every asked seat, whatever the order.
        for seat in game.to_act()[1:]:
            game.apply(seat, game.parse_action("pass"))
        assert game.to_act() == (2,)
        game.apply(2, game.parse_action("ron" if rob else "pass"))
        events = [e.payload.model_dump(mode="json") for e in game.drain_events()]
        results.append((events, game.result() if game.is_over() else None, game.to_act()))
    assert results[0] == results[1]
    events, result, due = results[0]
    if rob:
        assert result is not None and result.detail["wins"][0]["how"] == "rob_kong"
    else:
        assert result is None and due == (1,)


def test_the_option_is_a_checked_ruleset_key_listed_only_when_on() -> None:
    assert not getattr(MahjongRules(), OPTION)
    for name in list_rulesets():
        assert getattr(load_ruleset(name), OPTION) == (name == "competition-server"), name
    server = load_ruleset("competition-server")
    # The shipped file is the competition and the option, nothing else.
    assert dataclasses.replace(server, claims_ask_every_seat=False) == load_ruleset("competition")
    mapping = server.to_mapping()
    assert mapping[OPTION] is True
    assert MahjongRules.from_mapping(mapping) == server
    # Off, the key is left out: headers of every other ruleset (and older records) are unchanged.
    assert OPTION not in load_ruleset("competition").to_mapping()
    assert MahjongRules.from_mapping({OPTION: False}) == MahjongRules()
    with pytest.raises(RulesetError, match=OPTION):
        MahjongRules.from_mapping({OPTION: "yes"})


def test_conformance_with_the_option() -> None:
    rules = load_ruleset("competition-server").to_mapping()
    deal = {"round": 2, "hand": 1, "scores": [0, 0, 500, -500]}
    check_engine(SpecGame("mahjong", rules, deal), range(6))


def referee_record(ruleset: str, path: Path, strategies: list[str], games: int) -> None:
    rules = load_ruleset(ruleset).to_mapping()
    with JsonlRecorder(path) as recorder:
        for number in range(games):
            bots = [make_bot("mahjong", s, {}, name=f"{s}-{i}") for i, s in enumerate(strategies)]
            asyncio.run(
                play_game(
                    "mahjong",
                    [InProcessSeat(bot) for bot in bots],
                    rules=rules,
                    seed=SEED,
                    deal={"round": number // 4, "hand": number % 4},
                    players=[bot.name for bot in bots],
                    match_id="prompts",
                    game_id=f"g{number}",
                    recorder=recorder,
                    reveal=True,  # the record ends with the seed, so verify can replay it
                )
            )


def test_through_the_referee_and_verify(tmp_path: Path) -> None:
    """The real bots through the referee: the records differ only in the header's key and the
    extra passes, and `arena verify` replays the record made with the option."""
    strategies = ["greedy", "random", "greedy", "random"]
    lines = {}
    for ruleset in ("competition", "competition-server"):
        path = tmp_path / f"{ruleset}.jsonl"
        referee_record(ruleset, path, strategies, 8)
        checks = verify_record(path)
        assert len(checks) == 8 and all(check.ok for check in checks), checks
        lines[ruleset] = [json.loads(text) for text in path.read_text().splitlines()]

    def kept(record: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for line in record:
            if line["type"] == "header":
                line = {**line, "rules": {k: v for k, v in line["rules"].items() if k != OPTION}}
            if not (line["type"] == "decision" and line["action"] == "pass"):
                out.append(line)
        return out

    off, on = lines["competition"], lines["competition-server"]
    assert kept(on) == kept(off)
    headers = [line for line in on if line["type"] == "header"]
    assert all(line["rules"][OPTION] is True for line in headers)
    passes = sum(line["type"] == "decision" and line["action"] == "pass" for line in on)
    assert passes > sum(line["type"] == "decision" and line["action"] == "pass" for line in off)
    assert not any(line.get("fallback") for line in on)
