"""A contributor's walkthrough (adding a game): an engine that never ends must not hang a match.

`GameSpec.max_decisions` caps the decisions of one game; the referee stops a game still not over
at the cap with `DecisionCapError`, naming the game and the cap (a bug of the engine, not of a
bot), and ``arena match`` says so in one line. The three games' caps sit above their longest
legal games, whose bounds are computed from the rules.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

import arena.referee as referee
from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.games.base import Game, GameEvent, GameResult, GameSpec
from arena.games.bulls_cows import BullsCowsGame, Guess
from arena.games.errors import IllegalActionError
from arena.games.registry import get_spec
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from protocol.messages import Request

SEED = MatchSeed.from_text("endless")
CAP = 7


class EndlessGame(Game[Guess]):
    """A 1A2B game (so the protocol knows its name and observation) whose engine never ends:
    every decision is applied and nothing changes. ``num_seats`` as the rules say."""

    name = "bulls_cows"

    def __init__(self, rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]) -> None:
        self.real = BullsCowsGame(rules, seed, deal)
        self.num_seats = self.real.num_seats
        self.applied = 0

    def to_act(self) -> tuple[int, ...]:
        return (self.applied % self.num_seats,)

    def legal_actions(self, seat: int) -> Sequence[Guess]:
        return [Guess("123")] if seat in self.to_act() else []

    def parse_action(self, text: str) -> Guess:
        action = self.real.parse_action(text)
        assert isinstance(action, Guess)
        return action

    def apply(self, seat: int, action: Guess) -> None:
        if action not in self.legal_actions(seat):
            raise IllegalActionError(f"{action} is not legal here")
        self.applied += 1

    def observation(self, seat: int) -> Any:
        return self.real.observation(seat)

    def fallback_action(self, seat: int) -> Guess:
        return Guess("123")

    def is_over(self) -> bool:
        return False

    def result(self) -> GameResult:
        raise AssertionError("never over")

    def drain_events(self) -> list[GameEvent]:
        return []

    def copy(self) -> EndlessGame:
        twin = copy.copy(self)
        twin.real = self.real.copy()
        return twin


def endless_spec(max_decisions: Any = CAP) -> GameSpec:
    real = get_spec("bulls_cows")
    fields = {f.name: getattr(real, f.name) for f in dataclasses.fields(real)}
    fields.update(new_game=EndlessGame, max_decisions=max_decisions)
    return GameSpec(**fields)


class Guesser(Bot):
    def __init__(self) -> None:
        super().__init__("guesser")

    async def act(self, request: Request) -> str:
        return "guess 123"


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee finds the endless engine for ``bulls_cows``."""
    monkeypatch.setattr(referee, "get_spec", lambda _name: endless_spec())


async def test_an_engine_that_never_ends_stops_at_its_cap_naming_game_and_cap(
    endless: None,
) -> None:
    bot = Guesser()
    with pytest.raises(ArenaError) as caught:
        await play_game(
            "bulls_cows",
            [InProcessSeat(bot)],
            rules={"mode": "solve"},
            seed=SEED,
            deal={"secret_index": 0},
            players=[bot.name],
        )
    from arena.games.errors import DecisionCapError

    assert isinstance(caught.value, DecisionCapError)
    text = str(caught.value)
    assert "bulls_cows" in text and f"after {CAP} decisions" in text
    assert "max_decisions" in text and "bug in the engine" in text


async def test_a_cap_may_be_a_function_of_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []

    def cap(rules: Mapping[str, Any]) -> int:
        seen.append(dict(rules))
        return 3

    monkeypatch.setattr(referee, "get_spec", lambda _name: endless_spec(cap))
    bot = Guesser()
    with pytest.raises(ArenaError, match="after 3 decisions"):
        await play_game(
            "bulls_cows",
            [InProcessSeat(bot)],
            rules={"mode": "solve", "max_guesses": 9},
            seed=SEED,
            deal={"secret_index": 0},
            players=[bot.name],
        )
    assert seen == [{"mode": "solve", "max_guesses": 9}]


def test_arena_match_stops_with_one_line(
    endless: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli.main import main

    argv = ["arena", "match", "bulls-cows", "--a", "random", "--b", "random", "--games", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("error: bulls_cows engine: game g0 is not over after"), lines
    assert "Traceback" not in "\n".join(lines)


@pytest.mark.parametrize(
    ("game", "rules", "longest"),
    [
        ("bulls_cows", {"mode": "solve"}, 20),
        ("bulls_cows", {"mode": "duel", "max_guesses": 50}, 4 * 50 + 2),
        ("liars_dice", {}, 2 * 6 * 10 + 1),
        ("liars_dice", {"players": 5, "dice": 10, "series": True}, 15_337),
        ("mahjong", {}, 368),
        ("mahjong", {"flowers": True, "reserve": 0, "claims_ask_every_seat": True}, 368),
    ],
)
def test_every_game_has_a_cap_above_its_longest_legal_game(
    game: str, rules: dict[str, Any], longest: int
) -> None:
    cap = get_spec(game).decision_cap(rules)
    assert cap is not None and cap >= 2 * longest


def test_the_documented_bounds_are_the_computed_ones() -> None:
    from arena.games.bulls_cows import longest_game as bulls_cows_longest
    from arena.games.liars_dice import longest_game as dice_longest
    from arena.games.mahjong.engine import LONGEST_HAND

    assert bulls_cows_longest({"mode": "duel"}) == 4 * 20 + 2
    assert dice_longest({"players": 5, "dice": 10, "series": True}) == 15_337
    assert dice_longest({"players": 2, "dice": 5}) == 121
    assert LONGEST_HAND == 4 * ((136 - 4 * 16) + 4 * 5)
