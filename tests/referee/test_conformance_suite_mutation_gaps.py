"""Mutation audit of the engine conformance suite itself (tests/conformance.py): each check the
audit found unexercised gets a planted-bug engine it must catch. The seed shown in capitals or at
any offset (the last 16 hex digits included); another seat's secret in a private event sent to
the wrong seat; a copy sharing the state only another seat's observation shows; a result with a
score too many; a request listing the legal actions in another order; a mahjong draw shown to
every seat; and an engine whose legal actions follow set order, caught even when the tests
themselves run with ``PYTHONHASHSEED=0``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conformance import check_engine
from pile_game import each_seats_secret, no_secrets, pile

from arena.dealing import MatchSeed
from arena.games.base import GameEvent
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset

HERE = Path(__file__).resolve().parent
WAIT_S = 120.0 * float(os.environ.get("ARENA_TEST_TIMEOUT_SCALE", "1"))


def test_the_stand_in_passes_without_a_bug() -> None:
    check_engine(pile(), range(3), secrets=each_seats_secret)


@pytest.mark.parametrize("bug", ["upper", "tail", "offset"])
def test_the_seed_is_caught_in_capitals_and_at_any_offset(bug: str) -> None:
    with pytest.raises(AssertionError, match="the observation for seat 0 holds the match seed"):
        check_engine(pile(bug), range(2), secrets=no_secrets)


def test_a_private_event_to_the_wrong_seat_is_caught() -> None:
    with pytest.raises(AssertionError, match="event for seat 0 shows another seat's private"):
        check_engine(pile("private"), range(2), secrets=each_seats_secret)


def test_a_copy_sharing_the_observed_state_is_caught() -> None:
    with pytest.raises(AssertionError, match="copy\\(\\) shares mutable state"):
        check_engine(pile("shared_state"), range(2), secrets=no_secrets)


def test_a_result_with_a_score_per_seat_too_many_is_caught() -> None:
    with pytest.raises(AssertionError, match="result has 3 scores for 2 seats"):
        check_engine(pile("extra_score"), range(2), secrets=no_secrets)


def test_a_request_listing_the_legal_actions_in_another_order_is_caught() -> None:
    with pytest.raises(AssertionError, match="describe_legal lists"):
        check_engine(pile("describe"), range(2), secrets=no_secrets)


def test_set_ordered_legal_actions_are_caught_under_pythonhashseed_0() -> None:
    """The other process must take another hash seed than this one's, also when this one's is
    fixed (CI often runs with ``PYTHONHASHSEED=0``)."""
    script = (
        "import pytest\n"
        "from conformance import check_engine\n"
        "from test_engine_conformance_contrib_findings import hash_ordered_liars_dice\n"
        "with pytest.raises(AssertionError, match='differs in a process with PYTHONHASHSEED=1'):\n"
        "    check_engine(hash_ordered_liars_dice, range(1))\n"
        "print('caught')\n"
    )
    path = os.pathsep.join([str(HERE), str(HERE.parent), *(p for p in sys.path if p)])
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": path},
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "caught", done.stderr[-3000:]


class LoudDrawsMahjong(MahjongGame):
    """Broadcasts each seat's private ``draw`` event (the tile drawn) to every seat."""

    def drain_events(self) -> list[GameEvent]:
        return [
            GameEvent(event.payload) if getattr(event.payload, "kind", None) == "draw" else event
            for event in super().drain_events()
        ]


def loud_draws_mahjong(seed: MatchSeed) -> MahjongGame:
    game = new_game(load_ruleset("competition").to_mapping(), seed, {})
    game.__class__ = LoudDrawsMahjong
    return game


def test_a_mahjong_draw_broadcast_to_every_seat_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"the 'draw' event for seat \d shows another seat's"):
        check_engine(loud_draws_mahjong, range(1))
