"""Action notation (round trips, forgiving input, errors that say what is wrong) and rulesets
(defaults, merging, TOML files, errors that name the key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games.errors import InvalidActionError, RulesetError
from arena.games.mahjong.actions import ALL_ACTIONS, CHIS, parse_action
from arena.games.mahjong.rules import MahjongRules, load_ruleset


def test_every_action_round_trips() -> None:
    assert len(ALL_ACTIONS) == 5 + 3 * 34 + 21
    for text, action in ALL_ACTIONS.items():
        assert str(action) == text
        assert parse_action(text) is action


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("  Discard   5M ", "discard 5m"),
        ("chi 534m", "chi 345m"),
        ("CHI 345M", "chi 345m"),
        ("tsumo", "tsumo"),
        ("akong 7z", "akong 7z"),
    ],
)
def test_forgiving_forms(text: str, canonical: str) -> None:
    assert str(parse_action(text)) == canonical


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "starts with one of"),
        ("hu", "starts with one of"),
        ("discard", "needs exactly one tile"),
        ("discard 55m", "needs exactly one tile"),
        ("discard 0m", "ranks run from 1 to 9"),
        ("discard 8z", "honours are 1z to 7z"),
        ("chi 357m", "three consecutive tiles"),
        ("chi 123z", "three consecutive tiles of one suit"),
        ("chi 789m1p", "three consecutive"),
        ("pon 5m", "takes nothing after it"),
        ("discard 55555m", "fifth copy of 5m"),
    ],
)
def test_errors_name_the_problem(text: str, says: str) -> None:
    with pytest.raises(InvalidActionError, match=says):
        parse_action(text)


def test_chi_runs_stay_inside_a_suit() -> None:
    assert sorted(CHIS) == [s * 9 + r for s in range(3) for r in range(7)]


def test_defaults_and_round_trip() -> None:
    rules = MahjongRules()
    assert rules.open_kong_from_left and rules.multiple_wins == "first"
    assert rules.reserve == 16 and rules.scoring.base_points == 1000
    assert MahjongRules.from_mapping(rules.to_mapping()) == rules


def test_competition_ruleset_is_the_seed_platform() -> None:
    rules = load_ruleset("competition")
    assert not rules.open_kong_from_left
    assert rules.multiple_wins == "first" and not rules.per_seat_draws
    assert (rules.scoring.base_points, rules.scoring.points_per_tai) == (1000, 500)
    assert not rules.scoring.dealer_repeat


@pytest.mark.parametrize(
    ("rules", "key"),
    [
        ({"open_kong_from_lft": False}, "open_kong_from_lft"),
        ({"reserve": -1}, "reserve"),
        ({"reserve": True}, "reserve"),
        ({"multiple_wins": "some"}, "multiple_wins"),
        ({"per_seat_draws": "yes"}, "per_seat_draws"),
        ({"scoring": {"points_per_tai": "500"}}, "points_per_tai"),
        ({"scoring": {"flowers": True}}, "flowers"),
        ({"scoring": 3}, "scoring"),
    ],
)
def test_bad_rules_name_the_key(rules: dict[str, object], key: str) -> None:
    with pytest.raises(RulesetError, match=key):
        MahjongRules.from_mapping(rules)


def test_ruleset_files(tmp_path: Path) -> None:
    good = tmp_path / "mine.toml"
    good.write_text('game = "mahjong"\n[rules]\nmin_tai = 1\n[rules.scoring]\nbase_points = 300\n')
    rules = load_ruleset(good)
    assert rules.min_tai == 1 and rules.scoring.base_points == 300
    assert rules.reserve == 16  # merged over the defaults

    bad = tmp_path / "bad.toml"
    bad.write_text('game = "mahjong"\n[rules]\nreserv = 3\n')
    with pytest.raises(RulesetError, match="reserv"):
        load_ruleset(bad)
    other = tmp_path / "dice.toml"
    other.write_text('game = "liars_dice"\n')
    with pytest.raises(RulesetError, match="not 'mahjong'"):
        load_ruleset(other)
    with pytest.raises(RulesetError, match="no mahjong ruleset named 'nosuch'"):
        load_ruleset("nosuch")


def test_an_install_that_lost_its_rulesets_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No ruleset directory (a broken install): a named ruleset must say so, a file path still
    works."""
    from arena.games import rulesets

    monkeypatch.setattr(rulesets, "RULESET_DIR", tmp_path / "missing")
    with pytest.raises(RulesetError, match=r"no ruleset directory .*missing.*reinstall"):
        load_ruleset("competition")
    good = tmp_path / "mine.toml"
    good.write_text('game = "mahjong"\n[rules]\nmin_tai = 2\n')
    assert load_ruleset(good).min_tai == 2
