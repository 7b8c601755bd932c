"""A walk through every documented command: the gauntlet's who-opened line said "(1 types
below 55% in them)"."""

from __future__ import annotations

from arena.cli.liars_dice_gauntlet import _types


def test_the_who_opened_line_counts_types_in_words() -> None:
    assert [_types(n) for n in (0, 1, 2)] == ["0 types", "1 type", "2 types"]
