"""The engine conformance suite (tests/conformance.py) against a contributor's planted bugs.

A contributor adding a game found bugs the suite let through: an observation or an event showing
another seat's secret, or the match seed; legal actions in set order (hash-seed dependent); a
result naming the loser as winner; a copy sharing its pending events; a game never put through
the suite. Each is planted here in a stand-in engine and must be caught with its own message.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import pytest
from conformance import SpecGame, check_engine
from hidden_information import HIDDEN_INFORMATION
from pile_game import Pile, no_secrets, pile

from arena.dealing import MatchSeed
from arena.games.base import GameEvent, GameResult
from arena.games.bulls_cows.engine import BullsCowsGame
from arena.games.errors import GameError
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules, parse_action
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.state import counts_text
from arena.games.registry import GAME_MODULES
from protocol.games.bulls_cows import BullsCowsObservation
from protocol.games.liars_dice import DiceRolled, LiarsDiceObservation
from protocol.games.mahjong import MahjongObservation


def test_the_stand_in_passes_without_bugs() -> None:
    check_engine(pile(), range(3), secrets=no_secrets)


def test_a_game_without_a_hidden_information_hook_is_refused() -> None:
    with pytest.raises(AssertionError, match="no hidden-information hook for the game "):
        check_engine(pile(), range(3))


# -- finding 3: what a seat may see --------------------------------------------------------------


def test_an_observation_carrying_the_seed_is_caught() -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 holds the match seed"):
        check_engine(pile("seed"), range(3), secrets=no_secrets)


class PeekingLiarsDice(LiarsDiceGame):
    """Shows each seat the next seat's dice as its own."""

    def observation(self, seat: int) -> LiarsDiceObservation:
        seen = super().observation(seat)
        return seen.model_copy(update={"dice": list(self.hands[(seat + 1) % self.num_seats])})


class LoudLiarsDice(LiarsDiceGame):
    """Broadcasts every cup's dice: ``DiceRolled`` with ``to=None``."""

    def drain_events(self) -> list[GameEvent]:
        return [
            GameEvent(event.payload) if isinstance(event.payload, DiceRolled) else event
            for event in super().drain_events()
        ]


def peeking_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return PeekingLiarsDice(LiarsDiceRules(), seed)


def loud_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return LoudLiarsDice(LiarsDiceRules(series=True, players=3), seed)


def test_a_liars_dice_observation_showing_another_cup_is_caught() -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 shows another seat's"):
        check_engine(peeking_liars_dice, range(4))


def test_a_liars_dice_roll_broadcast_to_every_seat_is_caught() -> None:
    with pytest.raises(AssertionError, match="the 'dice' event for seat 0 shows another seat's"):
        check_engine(loud_liars_dice, range(4))


def test_the_reveal_of_a_challenge_is_not_a_leak() -> None:
    """The public ``reveal`` shows every cup, and a series deals new cups after it."""
    check_engine(SpecGame("liars_dice", {"series": True, "players": 3}, {}), range(4))


class PeekingMahjong(MahjongGame):
    def observation(self, seat: int) -> MahjongObservation:
        seen = super().observation(seat)
        return seen.model_copy(update={"tiles": counts_text(self.s.counts[(seat + 1) % 4])})


def peeking_mahjong(seed: MatchSeed) -> MahjongGame:
    game = new_game(load_ruleset("competition").to_mapping(), seed, {})
    game.__class__ = PeekingMahjong
    return game


def test_a_mahjong_observation_showing_another_hand_is_caught() -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 shows another seat's"):
        check_engine(peeking_mahjong, range(2))


class PeekingSolve(BullsCowsGame):
    def observation(self, seat: int) -> BullsCowsObservation:
        seen = super().observation(seat)
        assert self._secret is not None
        return seen.model_copy(update={"pending_guess": self.space.codes[self._secret]})


def peeking_solve(seed: MatchSeed) -> BullsCowsGame:
    return PeekingSolve({"mode": "solve"}, seed, {"game_index": 0})


def test_a_1a2b_observation_showing_the_secret_is_caught() -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 shows another seat's"):
        check_engine(peeking_solve, range(2))


def test_every_registered_game_has_a_hidden_information_hook() -> None:
    assert set(GAME_MODULES) <= set(HIDDEN_INFORMATION), set(GAME_MODULES) - set(HIDDEN_INFORMATION)


# -- finding 4: the same seed in another process -------------------------------------------------


class HashOrderedLiarsDice(LiarsDiceGame):
    """Legal actions in the order of a set of their texts: the order depends on the hash seed."""

    def legal_actions(self, seat: int) -> list[Any]:
        return [parse_action(text) for text in {str(a) for a in super().legal_actions(seat)}]

    def describe_legal(self, seat: int) -> tuple[list[str] | None, str | None]:
        return [str(action) for action in self.legal_actions(seat)], None


def hash_ordered_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return HashOrderedLiarsDice(LiarsDiceRules(), seed)


def test_legal_actions_in_set_order_are_caught() -> None:
    with pytest.raises(AssertionError, match="differs in a process with PYTHONHASHSEED="):
        check_engine(hash_ordered_liars_dice, range(2))


def test_a_maker_that_cannot_be_pickled_is_refused() -> None:
    with pytest.raises(AssertionError, match="cannot be pickled"):
        check_engine(lambda seed: Pile(seed), range(2), secrets=no_secrets)


# -- finding 6: winners agree with scores --------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "winners", "problem"),
    [
        ((1.0, 0.0), (1,), "contradict the scores"),
        ((1.0, 0.0), (), "no winner but unequal scores"),
        ((1.0, 0.0), (0, 0), "distinct seats"),
        ((1.0, 0.0), (2,), "distinct seats"),
        ((-1500.0, 1000.0, 500.0, 0.0), (0,), "contradict the scores"),  # the payer named
    ],
)
def test_a_result_whose_winners_contradict_its_scores_is_refused(
    scores: tuple[float, ...], winners: tuple[int, ...], problem: str
) -> None:
    with pytest.raises(GameError, match=problem):
        GameResult(scores=scores, winners=winners, reason="x")


@pytest.mark.parametrize(
    ("scores", "winners"),
    [
        ((1.0, 0.0), (0,)),  # a win
        ((0.5, 0.5), ()),  # a draw
        ((0.0,), ()),  # 1A2B solve, not solved
        ((1.0,), (0,)),  # 1A2B solve, solved
        ((1.0, 1.0, 0.0), (0, 1)),  # liar's dice, one loser
        ((3000.0, 2000.0, -5000.0, 0.0), (0, 1)),  # mahjong, two wins on one discard
        ((0.0, 0.0, 0.0, 0.0), (2,)),  # mahjong, a win worth 0 points (base_points = 0)
        ((0.0, 0.0, 0.0, 0.0), ()),  # mahjong, exhaustive draw
    ],
)
def test_results_of_every_game_are_accepted(
    scores: tuple[float, ...], winners: tuple[int, ...]
) -> None:
    GameResult(scores=scores, winners=winners, reason="x")


def test_a_result_naming_the_loser_is_caught() -> None:
    with pytest.raises(GameError, match="contradict the scores"):
        check_engine(pile("loser_wins"), range(3), secrets=no_secrets)


# -- finding 12: the suite's own messages --------------------------------------------------------


def test_a_copy_sharing_pending_events_gets_its_own_message() -> None:
    with pytest.raises(AssertionError, match="copy\\(\\) shares the pending-events list"):
        check_engine(pile("shared_events"), range(3), secrets=no_secrets)


def test_the_suite_is_rewritten_by_pytest_under_both_names() -> None:
    import tests.conformance

    assert "@py_builtins" in vars(sys.modules["conformance"])
    assert "@py_builtins" in vars(tests.conformance)


# -- finding 7: every registered game goes through the suite -------------------------------------

#: per registered game: (rules, deal) of the games the suite plays. A new game needs an entry.
CONFORMANCE_GAMES: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {
    "bulls_cows": ({"mode": "duel", "digits": 3, "max_guesses": 5}, {"game_index": 0}),
    "liars_dice": (
        {"players": 3, "dice": 2, "series": True, "ones_wild": True, "reroll": True},
        {"game_index": 0, "first": 1},
    ),
    "mahjong": (
        load_ruleset("competition").to_mapping(),
        {"round": 0, "hand": 0, "scores": [0, 0, 0, 0]},
    ),
}


@pytest.mark.parametrize("game", sorted(GAME_MODULES))
def test_every_registered_game_passes_the_suite(game: str) -> None:
    assert game in CONFORMANCE_GAMES, (
        f"the game {game!r} (arena/games/registry.py GAME_MODULES) is not put through the "
        f"conformance suite: add {game!r}: (rules, deal) to CONFORMANCE_GAMES in "
        "tests/referee/test_engine_conformance_contrib_findings.py, and its hidden-information "
        "hooks to HIDDEN_INFORMATION in tests/hidden_information.py"
    )
    rules, deal = CONFORMANCE_GAMES[game]
    check_engine(SpecGame(game, rules, deal), range(3))


def test_a_registered_game_without_an_entry_fails_saying_what_to_add() -> None:
    with pytest.raises(AssertionError, match="add 'tic_tac_toe': \\(rules, deal\\) to"):
        test_every_registered_game_passes_the_suite("tic_tac_toe")
