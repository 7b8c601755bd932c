"""The conformance suite's determinization check (tests/hidden_information.py ``resample``).

Each planted leak here slips past the text match of the other seats' secrets (a secret under
another field name, one wall tile, a count, a fallback that peeks) and must be caught by the
check that a seat cannot tell the game from copies with what it may not see drawn again: by its
view (observation, legal actions, request, fallback), or by the events a step delivers to it
(another seat's tile or dice counted in an event), or by legal actions the engine caches (a
mahjong copy's options are computed afresh, not carried over).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conformance import SpecGame, _Watch, check_engine
from hidden_information import HIDDEN_INFORMATION, HiddenInformation, mahjong_options_afresh
from mahjong_table.mjt_walls import act, build_wall, game_on, pass_claims

from arena.dealing import MatchSeed
from arena.games.base import GameEvent
from arena.games.bulls_cows.engine import BullsCowsGame
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules
from arena.games.liars_dice.actions import CHALLENGE, Bid, LiarsDiceAction
from arena.games.mahjong import actions as A
from arena.games.mahjong.actions import PASS_ACTION
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.state import CLAIM, ROB, TILE_TEXT
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


class DrawnTileToldMahjong(MahjongGame):
    """Tells the other seats which tile a seat drew, as the tile's index in the wall count of
    their ``other_draw`` event (no tile text for the text match)."""

    def _announce_draw(self, seat: int, tile: int, replacement: bool) -> None:
        super()._announce_draw(seat, tile, replacement)
        told = self._events[-1]
        self._events[-1] = GameEvent(told.payload.model_copy(update={"wall": tile}), told.to)


class ChiShortcutMahjong(MahjongGame):
    """Does not offer a chi that a pon or kong on the same discard would beat: the seat that
    could chi learns that another seat holds a pair of the tile. The options are cached at the
    discard, so a copy carrying the cache offers the same."""

    def _discard(self, seat: int, tile: int) -> None:
        super()._discard(seat, tile)
        s = self.s
        if s.phase != CLAIM:
            return
        beaten = any(
            action.verb in (A.PON, A.KONG) for options in s.legal.values() for action in options
        )
        if beaten:
            for other, options in s.legal.items():
                s.legal[other] = [action for action in options if action.verb != A.CHI]


def next_wall_tile_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(NextWallTileMahjong)(seed)


def claims_shown_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(ClaimsShownMahjong)(seed)


def drawn_tile_told_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(DrawnTileToldMahjong)(seed)


def chi_shortcut_mahjong(seed: MatchSeed) -> MahjongGame:
    return _mahjong(ChiShortcutMahjong)(seed)


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


class MatchesToldLiarsDice(LiarsDiceGame):
    """Tells every seat how many dice of a bid's face the bidder holds, in the ``round`` of the
    ``bid`` event (no ``dice`` field anywhere)."""

    def apply(self, seat: int, action: LiarsDiceAction) -> None:
        super().apply(seat, action)
        if isinstance(action, Bid):
            told = self._events[-1]
            held = self.hands[seat].count(action.face)
            self._events[-1] = GameEvent(told.payload.model_copy(update={"round": held}), told.to)


def sum_showing_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return SumShowingLiarsDice(LiarsDiceRules(players=3), seed)


def peeking_fallback_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return PeekingFallbackLiarsDice(LiarsDiceRules(players=2), seed)


def matches_told_liars_dice(seed: MatchSeed) -> LiarsDiceGame:
    return MatchesToldLiarsDice(LiarsDiceRules(players=3), seed)


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
        (drawn_tile_told_mahjong, r"events of the step .*: events\[\d+\]\.wall"),
        (matches_told_liars_dice, r"events of the step .*: events\[\d+\]\.round"),
        (chi_shortcut_mahjong, "legal_actions"),
    ],
    ids=[
        "one-wall-tile",
        "claims-answered",
        "pips-summed",
        "peeking-fallback",
        "secret-hint",
        "drawn-tile-in-an-event",
        "dice-counted-in-an-event",
        "cached-options",
    ],
)
def test_a_leak_the_text_match_misses_is_caught(maker: Any, where: str) -> None:
    with pytest.raises(AssertionError, match=f"{CAUGHT}.*{where}"):
        check_engine(maker, range(8))


def test_the_text_match_alone_misses_them() -> None:
    """Without the re-draw the same leaks pass: the check above is what catches them."""
    makers = (
        next_wall_tile_mahjong,
        sum_showing_liars_dice,
        hinting_solve,
        drawn_tile_told_mahjong,
        matches_told_liars_dice,
        chi_shortcut_mahjong,
    )
    for maker in makers:
        game = maker(MatchSeed.from_text(0))
        check_engine(maker, range(2), secrets=HIDDEN_INFORMATION[game.name].secrets)


def _carrying_the_cache(game: Any, seat: int, rng: random.Random) -> Any:
    """The mahjong hook as it was: the copy keeps the options the game cached."""
    twin = HIDDEN_INFORMATION["mahjong"].resample(game, seat, rng)
    if twin is not None:
        twin.s.legal = {other: list(options) for other, options in game.s.legal.items()}
    return twin


def test_a_copy_carrying_the_cached_options_lets_a_leak_in_them_through() -> None:
    """Why the mahjong hook computes a copy's options afresh: with the cache carried over, the
    chi shortcut above passes on seeds each of which catches it otherwise."""
    secrets = HIDDEN_INFORMATION["mahjong"].secrets
    check_engine(chi_shortcut_mahjong, range(3), secrets=secrets, resample=_carrying_the_cache)


@pytest.mark.parametrize("ruleset", ["competition", "competition-server", "flowers", "duplicate"])
def test_mahjong_options_computed_afresh_are_the_engines_own(ruleset: str) -> None:
    """The hook recomputes a copy's options with the engine's option functions; on the game
    itself that must give the engine's cache, at every decision of whole hands (the seats
    answering a discard one after another included), or a copy would differ for no leak."""
    rules = load_ruleset(ruleset).to_mapping()
    rng = random.Random(ruleset)
    phases: set[str] = set()
    for seed in range(4):
        game: Any = SpecGame("mahjong", rules, {})(MatchSeed.from_text(seed))
        while not game.is_over():
            for seat in game.to_act():
                assert mahjong_options_afresh(game.s) == game.s.legal, (seed, game.s.phase)
                phases.add(game.s.phase)
                game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert {"discard", "claim"} <= phases


@pytest.mark.parametrize("ruleset", ["competition", "competition-server"])
def test_mahjong_options_computed_afresh_on_a_tile_added_to_a_pon(ruleset: str) -> None:
    """The robbing phase, which random hands seldom reach (tests/mahjong_table/test_mjt_engine.py's
    hands: seat 2 may rob the 5p seat 1 adds to its pon; the others, when asked, pass alone)."""
    hands = [
        "5p1289m1289s1234567z",
        "55p3467m3467s567z19p2z",
        "123456789m123s46p99s",
        "678p58m58s234z2s23p7z1z4s",
    ]
    game = game_on(build_wall(hands, draws="7z5m4z6z5p"), load_ruleset(ruleset))
    act(game, 0, "discard 5p")
    act(game, 1, "pon")
    for seat, move in ((1, "discard 1p"), (2, "discard 5m"), (3, "discard 4z"), (0, "discard 6z")):
        act(game, seat, move)
        pass_claims(game)
    act(game, 1, "akong 5p")
    assert game.s.phase == ROB and 2 in game.to_act()
    for seat in game.to_act():
        assert mahjong_options_afresh(game.s) == game.s.legal
        game.apply(seat, PASS_ACTION)


def test_a_step_whose_events_were_never_compared_is_refused() -> None:
    """Copies that refused some seat's action in every step compared no events at all: the
    suite says so rather than pass (a resample hook whose copies never let the other seats play
    what they played would do that)."""
    seed = MatchSeed.from_text(0)
    watch = _Watch.of(SpecGame("bulls_cows", {"mode": "solve"}, {})(seed), seed, None)
    watch.replayed = 3
    with pytest.raises(AssertionError, match="the events of a step were never compared"):
        watch.finish()


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
