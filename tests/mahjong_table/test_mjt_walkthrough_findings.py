"""Findings of a researcher's walkthrough of seeds 000, 001 and 003 that touch the mahjong match
command."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def _match(*bots_and_layout: str) -> str:
    out = runner.invoke(app, ["match", "mahjong", "--games", "8", "--seed", "1", *bots_and_layout])
    assert out.exit_code == 0, out.output
    return out.stdout


def test_the_ab_table_says_its_win_rate_counts_over_one_copys_hands() -> None:
    # The hands column shows both copies' hands (16) beside a 胡牌率 over one copy's (8), the
    # seed's convention: read against the column, the rate looked doubled.
    shown = _match("--bots", "greedy,random", "--layout", "ab")
    (row,) = [line for line in shown.splitlines() if line.strip().startswith("greedy ×2")]
    hands, discard_wins, self_draws, rate = (
        int(row.split()[2]),
        int(row.split()[4]),
        int(row.split()[5]),
        float(row.split()[6].rstrip("%")),
    )
    assert hands == 16
    assert rate == round(100 * (discard_wins + self_draws) / 8, 1)
    assert "胡牌率 is their wins over one copy's 8 hands" in shown


def test_the_rotate_table_has_no_copies_note() -> None:
    shown = _match("--bots", "greedy,greedy,random,random")
    assert not re.search(r"one copy's \d+ hands", shown)
