"""The conformance suite's determinization check (tests/hidden_information.py ``resample``).

Each planted leak here slips past the text match of the other seats' secrets (a secret under
another field name, one wall tile, a count, a fallback that peeks) and must be caught by the
check that a seat cannot tell the game from copies with what it may not see drawn again.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conformance import SpecGame, check_engine
from hidden_information import HIDDEN_INFORMATION, HiddenInformation

from arena.dealing import MatchSeed
from arena.games.bulls_cows.engine import BullsCowsGame
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules
from arena.games.liars_dice.actions import CHALLENGE, LiarsDiceAction
from arena.games.mahjong.actions import PASS_ACTION
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.state import CLAIM, TILE_TEXT
from arena.games.registry import GAME_MODULES
from protocol.games.bulls_cows import BullsCowsObservation
from protocol.games.liars_dice import LiarsDiceObservation
from protocol.games.mahjong import MahjongObservation

CAUGHT = "can tell the game from a copy that differs only in what it may not see"


def _mahjong(cls: type[MahjongGame]) -> Any:
    def make(seed: MatchSeed) -> MahjongGame:
        game = new_game(load_ruleset("competition").to_mapping(), seed, {})
        game.__class__ = cls
        return game

    return make


class NextWallTileMahjong(MahjongGame):
    """Shows the next wall tile as the last action: one tile text, not a list of four."""

    def observation(self, seat: int) -> MahjongObservation:
        seen = super().observation(seat)
        wall = self.s.wall
        return seen.model_copy(update={"last": f"next {TILE_TEXT[wall.tiles[wall.head]]}"})


class ClaimsShownMahjong(MahjongGame):
    """Tells a seat answering a claim what the seats before it answered."""

    def observation(self, seat: int) -> MahjongObservation:
        seen = super().observation(seat)
        if self.s.phase != CLAIM:
            return seen
        answered = sum(
            1 for other, a in self.s.answers.items() if other != seat and a != PASS_ACTION
        )
        return seen.model_copy(update={"last": f"{answered} claim(s) made"})


def next_wall_tile_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(NextWallTileMahjong)(seed)


def claims_shown_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(ClaimsShownMahjong)(seed)


class SumShowingLiarsDice(LiarsDiceGame):
    """Reports the next cup's pips summed, in the round number: no ``dice`` field anywhere."""

    def observation(self, seat: int) -> LiarsDiceObservation:
        seen = super().observation(seat)
        if self.over:
            return seen
        return seen.model_copy(update={"round": sum(self.hands[(seat + 1) % self.num_seats])})


class PeekingFallbackLiarsDice(LiarsDiceGame):
    """A seat that fails to act challenges a false bid and raises a true one."""

    def fallback_action(self, seat: int) -> LiarsDiceAction:
        last = self.last_bid
        if last is None or self.rerolled:
            return super().fallback_action(seat)
        if self.count_showing(last.face) < last.count:
            return CHALLENGE
        return self.legal_actions(seat)[1]


def sum_showing_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return SumShowingLiarsDice(LiarsDiceRules(players=3), seed)


def peeking_fallback_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return PeekingFallbackLiarsDice(LiarsDiceRules(players=2), seed)


class HintingSolve(BullsCowsGame):
    """Gives away the secret's first symbol as a number of allowed guesses."""

    def observation(self, seat: int) -> BullsCowsObservation:
        seen = super().observation(seat)
        if self._secret is None or self.is_over():
            return seen
        first = int(self.space.codes[self._secret][0])
        return seen.model_copy(update={"max_guesses": 10 + first})


def hinting_solve(seed: MatchSeed) -> BullsCowsGame:
    return HintingSolve({"mode": "solve"}, seed, {"game_index": 0})


@pytest.mark.parametrize(
    ("maker", "where"),
    [
        (next_wall_tile_mahjong, "observation.last"),
        (claims_shown_mahjong, "observation.last"),
        (sum_showing_liars_dice, "observation.round"),
        (peeking_fallback_liars_dice, "fallback"),
        (hinting_solve, "observation.max_guesses"),
    ],
    ids=["one-wall-tile", "claims-answered", "pips-summed", "peeking-fallback", "secret-hint"],
)
def test_a_leak_the_text_match_misses_is_caught(maker: Any, where: str) -> None:
    with pytest.raises(AssertionError, match=f"{CAUGHT}.*{where}"):
        check_engine(maker, range(8))


def test_the_text_match_alone_misses_them() -> None:
    """Without the re-draw the same leaks pass: the check above is what catches them."""
    for maker in (next_wall_tile_mahjong, sum_showing_liars_dice, hinting_solve):
        game = maker(MatchSeed.from_text(0))
        check_engine(maker, range(2), secrets=HIDDEN_INFORMATION[game.name].secrets)


def _copy_only(game: Any, seat: int, rng: random.Random) -> Any:
    return None if game.is_over() else game.copy()


@pytest.mark.parametrize("game", ["liars_dice", "mahjong", "bulls_cows"])
def test_a_resample_hook_that_draws_nothing_again_is_refused(game: str) -> None:
    rules = {"bulls_cows": {"mode": "solve"}, "mahjong": load_ruleset("competition").to_mapping()}
    maker = SpecGame(game, rules.get(game, {}), {})
    secrets = HIDDEN_INFORMATION[game].secrets
    with pytest.raises(AssertionError, match="resample hook never changed another seat's secrets"):
        check_engine(maker, range(1), secrets=secrets, resample=_copy_only)


def test_every_registered_game_has_both_hooks() -> None:
    for name in GAME_MODULES:
        hooks = HIDDEN_INFORMATION[name]
        assert isinstance(hooks, HiddenInformation)
        assert callable(hooks.secrets) and callable(hooks.resample), name


@pytest.mark.parametrize(
    ("game", "rules"),
    [
        ("liars_dice", {"players": 4, "dice": 3, "series": True, "reroll": True}),
        ("mahjong", {**load_ruleset("competition").to_mapping(), "flowers": True}),
        ("mahjong", {**load_ruleset("competition").to_mapping(), "per_seat_draws": True}),
        ("bulls_cows", {"mode": "solve", "digits": 3}),
    ],
    ids=["dice-series-reroll", "mahjong-flowers", "mahjong-per-seat", "1a2b-solve"],
)
def test_a_resample_keeps_what_the_seat_sees_and_changes_what_it_does_not(
    game: str, rules: dict[str, Any]
) -> None:
    """The hooks themselves: the re-drawn copy is a legal state (tiles and dice conserved) that
    differs in the other seats' secrets, and the original is left alone."""
    hooks = HIDDEN_INFORMATION[game]
    rng = random.Random(7)
    played: Any = SpecGame(game, rules, {})(MatchSeed.from_text(3))
    changed = 0
    for _ in range(25):
        if played.is_over():
            break
        for seat in range(played.num_seats):
            before = played.observation(seat).model_dump(mode="json")
            secrets = hooks.secrets(played, seat)
            twin = hooks.resample(played, seat, rng)
            assert twin is not None
            assert played.observation(seat).model_dump(mode="json") == before
            assert hooks.secrets(played, seat) == secrets, "the re-draw changed the original"
            changed += hooks.secrets(twin, seat) != secrets
            if game == "mahjong":
                assert twin.s.tiles_accounted() == played.s.tiles_accounted()
            if game == "liars_dice":
                assert [len(h) for h in twin.hands] == [len(h) for h in played.hands]
        seat = played.to_act()[0]
        played.apply(seat, rng.choice(list(played.legal_actions(seat))))
    assert changed > 0
