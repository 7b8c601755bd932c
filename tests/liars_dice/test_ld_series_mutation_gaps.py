"""The gauntlet, the duel and the person's seat: behaviour the other tests leave open, found by a
mutation audit of arena/bench/liars_dice.py, arena/matches/liars_dice_series.py and
arena/matches/liars_dice_human.py. Expectations come from the docs (STRATEGIES.md "Who opens",
RULES.md, BENCHMARKS.md) and the modules' documented contracts; games are few and short."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from arena.bench.liars_dice import Gain, Gauntlet, pool_gauntlets, run_gauntlet
from arena.bench.liars_dice_speed import BENCH_SECONDS, BenchReport
from arena.dealing import MatchSeed
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules
from arena.matches.liars_dice import in_process_seats
from arena.matches.liars_dice_human import HumanSeat, HumanSession, Terminal, play_session
from arena.matches.liars_dice_series import (
    Duel,
    first_player,
    make_ld_bot,
    play_direct,
    play_duel,
    run_match,
)
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.games.liars_dice import DiceRolled, Reveal
from protocol.messages import Event, Request

# -- who opens ---------------------------------------------------------------------------------


def test_the_personality_opens_every_game_the_first_too() -> None:
    """`--opener opponent`: "the personality opens every game" (STRATEGIES.md); only `loser`
    and `winner` let the bot open the first game, having no previous game to go by."""
    assert first_player("opponent", 0, None) == 1
    assert first_player("opponent", 1, True) == first_player("opponent", 2, False) == 1
    assert first_player("loser", 0, None) == first_player("winner", 0, None) == 0
    # On seed 7, game 0 of random-guess against type5 goes one way when the bot opens and the
    # other when the personality does, so the gauntlet shows which of the two it played.
    seed = "7"

    def game_zero(first: int) -> bool:
        bots = (make_ld_bot("random-guess", {"seed": seed}), make_ld_bot("type5", {"seed": seed}))
        names = [bot.name for bot in bots]
        result, _ = play_direct(
            bots,
            MatchSeed.from_text(seed),
            game_index=0,
            first=first,
            players=names,
            match_id="gauntlet-type5",
        )
        return 0 in result.winners

    assert game_zero(0) != game_zero(1)
    played = run_gauntlet(
        "random-guess", 1, seed, opponents=["type5"], driver="direct", opener="opponent"
    )
    assert played.duels[0].outcomes == [game_zero(1)]


# -- the duel and the match ------------------------------------------------------------------


class _Recording:
    """Every payload a bot is handed, through its ``handle``."""

    def __init__(self) -> None:
        self.payloads: list[BaseModel] = []


def test_the_direct_driver_shows_a_bot_only_its_own_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    bots = (make_ld_bot("probability", {"seed": "v"}), make_ld_bot("type3", {"seed": "v"}))
    seen = [_Recording(), _Recording()]
    for bot, record in zip(bots, seen, strict=True):
        handle = bot.handle

        def recording(
            match: str | None,
            game: str | None,
            payload: BaseModel,
            *,
            _handle: Any = handle,
            _record: _Recording = record,
        ) -> None:
            _record.payloads.append(payload)
            _handle(match, game, payload)

        monkeypatch.setattr(bot, "handle", recording)
    play_direct(bots, MatchSeed.from_text("v"), game_index=0, first=0)
    for seat, record in enumerate(seen):
        rolled = [p for p in record.payloads if isinstance(p, DiceRolled)]
        assert rolled and {p.seat for p in rolled} == {seat}


def test_the_direct_duel_reports_random_guess_s_give_ups_as_the_refereed_one() -> None:
    """Both drivers play the same games (the module's promise), give-ups included. One try per
    decision makes random-guess give up often."""
    counted = []
    for driver in ("direct", "referee"):
        bot = make_ld_bot("random-guess", {"seed": "g"})
        bot.strategy.max_tries = 1  # type: ignore[attr-defined]
        opponent = make_ld_bot("type1", {"seed": "g"})
        duel = play_duel(bot, opponent, 4, MatchSeed.from_text("g"), match_id="g", driver=driver)
        counted.append(duel.give_ups)
    assert counted[0] > 0 and counted[0] == counted[1]


class _Nonsense(Bot):
    """Answers nonsense to every request: each decision is the referee's fallback."""

    games = ("liars_dice",)

    async def act(self, request: Request) -> str:
        return "nonsense"


async def test_a_match_counts_penalties_by_player_whatever_seat_they_sit_in() -> None:
    # Game 1 swaps the seats: A sits at seat 1, and its penalties must still be A's.
    seats = (InProcessSeat(_Nonsense("bad")), InProcessSeat(make_ld_bot("type5")))
    report = await run_match("bad", "good", 2, "ld-role", seats=seats)
    assert report.penalties[0] > 0 and report.penalties[1] == 0


# -- the gauntlet ------------------------------------------------------------------------------


def _gauntlet(outcomes: list[list[bool]], **changes: Any) -> Gauntlet:
    duels = [
        Duel(f"type{k + 1}", won, decisions=10 * (k + 1), give_ups=k)
        for k, won in enumerate(outcomes)
    ]
    played = Gauntlet("random-guess", len(outcomes[0]), "1", duels, seconds=1.0, driver="direct")
    return dataclasses.replace(played, **changes)


def test_a_gauntlet_meets_each_personality_once() -> None:
    with pytest.raises(ValueError, match="meets each personality once"):
        run_gauntlet("random-guess", 1, "1", opponents=["type1", "type1"], driver="direct")


def test_pooling_needs_one_opener() -> None:
    first = _gauntlet([[True, False]])
    other = dataclasses.replace(_gauntlet([[True, True]], seed="2"), opener="bot")
    with pytest.raises(ValueError, match="cannot pool"):
        pool_gauntlets([first, other])


def test_pooled_decisions_and_give_ups_are_every_seed_s() -> None:
    pooled = pool_gauntlets([_gauntlet([[True], [False]]), _gauntlet([[False], [True]], seed="2")])
    assert [(d.decisions, d.give_ups) for d in pooled.duels] == [(20, 0), (40, 2)]
    assert pooled.decisions_per_game == pytest.approx(60 / 4)


def test_a_gauntlet_won_throughout_has_an_interval_not_a_point() -> None:
    """Win rates lie in [0, 1]: a mean of games all won is not known exactly from three game
    indices (stats.mean_interval: bounded values without spread get the exact interval)."""
    won = _gauntlet([[True] * 3, [True] * 3])
    interval = won.mean_interval()
    assert interval.estimate == 1.0 and interval.high == 1.0
    assert 0.0 < interval.low < 1.0


def test_a_gain_against_one_personality_stays_within_one_game_s_difference() -> None:
    """Three games all won by the bot and lost by the baseline: +1 a game, with the exact
    interval of values without spread ([−0.42, +1], stats.no_spread_interval), not zero width."""
    bot = _gauntlet([[True] * 3])
    baseline = dataclasses.replace(_gauntlet([[False] * 3]), bot="probability")
    ((name, gain),) = Gain(bot, baseline).by_opponent()
    assert name == "type1" and gain.estimate == 1.0
    assert gain.high == 1.0 and gain.low == pytest.approx(-0.416, abs=1e-3)


def test_the_json_lists_what_lies_clearly_below_the_floor_asked_for() -> None:
    # type1 wins 62 of 100 (interval about 52–71%): clear of 55%, wholly under 75%.
    played = _gauntlet([[n < 62 for n in range(100)], [n < 90 for n in range(100)]])
    floor = played.to_json(floor=0.75)["floor"]
    assert floor == {"rate": 0.75, "below": ["type1"], "clearly_below": ["type1"]}


def test_the_time_target_is_met_at_exactly_its_bound() -> None:
    """DESIGN §6 / BENCHMARKS.md: at most 20 s."""
    bayes = Gauntlet("bayes", 500, "1", [], BENCH_SECONDS)
    report = BenchReport(
        500, "1", bayes, dataclasses.replace(bayes, bot="random-guess"), 10, 1.0, 2.0, 30, 30
    )
    assert report.time_target()["met"] is True


# -- the person's seat -------------------------------------------------------------------------


def _seat(shown: list[str], typed: list[str] | None = None) -> HumanSeat:
    queue = iter(typed or [])

    def ask(prompt: str) -> str:
        line = next(queue, None)
        if line is None:
            raise EOFError
        return line

    seat = HumanSeat(Terminal(ask=ask, say=shown.append), "alice")
    seat.players, seat.seat = ["alice", "bob"], 0
    return seat


def _reveal(challenger: int, bidder: int, actual: int, loser: int) -> Event:
    payload = Reveal(
        round=0,
        challenger=challenger,
        bidder=bidder,
        count=3,
        face=5,
        dice=[[1, 5, 5], [2, 5, 6]],
        ones_wild=False,
        actual=actual,
        loser=loser,
        bids=[],
        dice_counts=[3, 3],
    )
    return Event(payload=payload)


def test_a_bid_met_exactly_holds_and_the_loser_is_named() -> None:
    """RULES.md: a challenged bid holds when at least its count shows the face."""
    shown: list[str] = []
    seat = _seat(shown)
    # alice challenges bob's 3x5 and exactly three 5s show: the bid holds, alice loses.
    asyncio.run(seat.send(_reveal(challenger=0, bidder=1, actual=3, loser=0)))
    # alice challenges again and only two show: the bid fails, bob loses.
    asyncio.run(seat.send(_reveal(challenger=0, bidder=1, actual=2, loser=1)))
    assert shown == [
        "You challenge bob's 3x5.",
        "Dice: you 1 5 5 · bob 2 5 6. 3 show 5: the bid holds, you lose the round.",
        "You challenge bob's 3x5.",
        "Dice: you 1 5 5 · bob 2 5 6. 2 show 5: the bid fails, bob loses the round.",
    ]


def test_without_a_list_of_legal_actions_the_person_s_bid_is_sent() -> None:
    """The protocol may leave `legal` out; then the referee judges alone."""
    game = LiarsDiceGame.with_dice(LiarsDiceRules(), [[2, 3, 4, 6, 6], [1, 1, 2, 3, 6]])
    shown: list[str] = []
    seat = _seat(shown, typed=["2 6"])
    request = Request(seq=7, deadline_ms=1000, seat=0, observation=game.observation(0))
    action = asyncio.run(seat.ask(request))
    assert (action.action, action.seq) == ("bid 2x6", 7)


def test_a_session_left_before_any_game_has_no_win_rate() -> None:
    session = HumanSession("alice", ["bob"], "s", {}, left_early=True)
    data = session.to_json()
    assert data["games"] == 0
    assert data["win_rate"] is None and data["win_rate_ci95"] is None


def test_the_fair_share_of_a_single_round_table_is_its_winners_share() -> None:
    """Three players, one round: the loser alone loses, so two of three win every game and the
    fair share is 2/3 (the fair share is winners ÷ seats)."""
    names, seats = in_process_seats(["probability", "type9"], "f", {})

    def answer(prompt: str) -> str:
        return "2 2" if "you open" in prompt else "c"

    seat = HumanSeat(Terminal(ask=answer, say=lambda _text: None), "alice")
    session = asyncio.run(play_session(seat, list(zip(names, seats, strict=True)), 2, "f"))
    assert session.games == 2
    assert session.fair_share == pytest.approx(2 / 3)
