"""The shared engine conformance suite, under each shipped ruleset."""

from __future__ import annotations

import pytest
from conformance import SpecGame, check_engine

from arena.dealing import MatchSeed
from arena.games.mahjong.engine import SPEC
from arena.games.mahjong.rules import list_rulesets, load_ruleset


@pytest.mark.parametrize("ruleset", ["competition", "common", "duplicate", "flowers"])
def test_conformance(ruleset: str) -> None:
    rules = load_ruleset(ruleset).to_mapping()
    deal = {"round": 3, "hand": 2, "scores": [500, -500, 0, 0]}
    check_engine(SpecGame("mahjong", rules, deal), range(8))


def test_shipped_rulesets_are_listed() -> None:
    assert {"competition", "common", "duplicate", "flowers"} <= set(list_rulesets())


def test_spec() -> None:
    assert SPEC.name == "mahjong" and SPEC.seats == (4,)
    assert SPEC.render_event is not None and SPEC.action_grammar
    game = SPEC.new_game(SPEC.default_rules, MatchSeed.from_text("x"), {})
    assert game.to_act() == (0,)
