"""Mutation audit of seed 001's tools (`arena mahjong census|explain`, the census and explain
modules, and the counted comparison `set_removals` in the hands bench): behaviour the existing
tests left unpinned — honours never form chows, the split lists suits in m p s z order, a stop's
missing tiles are tile indices in every suit, bad input is refused, every line of the text
output, and the census's whole fifth-copy table."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bench import mahjong_hands
from arena.bench.mahjong_recursive import set_removals
from arena.cli.main import app
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.census import census, one_suit_waits
from arena.games.mahjong.explain import explain, parse_hand
from arena.games.mahjong.tiles import MahjongError, parse_tiles, to_counts

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["mahjong", *args])
    return result.exit_code, result.stdout, result.stderr


def flat(text: str) -> str:
    return " ".join(text.split())


# ----------------------------------------------------------------------------- census


@cache
def _wins_any(counts: tuple[int, ...]) -> bool:
    """Sets and one pair on nine ranks, any number of copies, by plain recursion."""
    for pair in range(9):
        if counts[pair] >= 2:
            rest = list(counts)
            rest[pair] -= 2
            if _sets(tuple(rest)):
                return True
    return False


@cache
def _sets(counts: tuple[int, ...]) -> bool:
    held = [r for r in range(9) if counts[r]]
    if not held:
        return True
    r = held[0]
    if counts[r] >= 3:
        rest = list(counts)
        rest[r] -= 3
        if _sets(tuple(rest)):
            return True
    if r <= 6 and counts[r + 1] and counts[r + 2]:
        rest = list(counts)
        for k in (r, r + 1, r + 2):
            rest[k] -= 1
        return _sets(tuple(rest))
    return False


def test_a_fifth_copy_wait_is_counted_only_when_it_completes_the_hand() -> None:
    """Every 13-tile hand holding a rank four times (not only those with 7+ waits): the extra
    waits of the fifth-copy convention are exactly its four-held ranks whose fifth copy wins.
    A check that let 8 or 9 open a chow would count 11 + 89-style hands as won."""
    hands, n_waits = one_suit_waits(13)
    _, n_fifth = one_suit_waits(13, fifth_copy=True)
    four = np.flatnonzero((hands == 4).any(axis=1))
    for i in four.tolist():
        counts = hands[i].tolist()
        extra = 0
        for r in range(9):
            if counts[r] == 4:
                grown = list(counts)
                grown[r] += 1
                extra += _wins_any(tuple(grown))
        assert n_fifth[i] - n_waits[i] == extra, counts


def test_the_whole_fifth_copy_table_for_13_tiles() -> None:
    assert census(13).by_waits_fifth_copy == {
        k: int(n)
        for k, n in zip(
            *np.unique(one_suit_waits(13, fifth_copy=True)[1], return_counts=True), strict=True
        )
    }
    assert sum(census(13).by_waits_fifth_copy.values()) == 93_600


@pytest.mark.parametrize("tiles", [1, 4, 7, 10, 19])
def test_census_refuses_every_size_but_13_and_16_with_a_mahjong_error(tiles: int) -> None:
    with pytest.raises(MahjongError, match=f"13 or 16 tiles, got {tiles}"):
        census(tiles)


@pytest.mark.parametrize("size", [0, -2, -5])
def test_one_suit_waits_refuses_sizes_below_one(size: int) -> None:
    with pytest.raises(MahjongError, match=f"3k\\+1 tiles, got {size}"):
        one_suit_waits(size)


def test_census_text_totals_row_and_the_seed_note() -> None:
    code, out, _ = run("census", "--tiles", "13")
    assert code == 0
    text = flat(out)
    assert "│ all │ 93,600 │ │ 93,600 │" in text
    # 13 tiles: the one hand with nine waits is the one the seed names, no shifts to mention.
    assert "(* named by seed 001)" in text and "shifts and mirror images" not in text
    code, out, _ = run("census", "--tiles", "16")
    assert "│ all │ 162,585 │ │ 162,585 │" in flat(out)


# ----------------------------------------------------------------------------- explain


def test_honours_form_no_chows() -> None:
    e = explain(parse_hand("11m123z"))
    assert not e.wins and e.split is None
    assert e.verdict == "not winning: z cannot split into sets"
    (z,) = e.others
    assert z.stop is not None and z.stop.reason.endswith("honours form no chows")
    assert is_winning(to_counts(parse_tiles("11m123z"))) is False


def test_the_split_lists_the_suits_in_m_p_s_z_order_whichever_holds_the_pair() -> None:
    e = explain(parse_hand("123m11p456p"))
    assert e.split == "11p 123m 456p"
    assert e.verdict == "winning: 11p 123m 456p"
    assert explain(parse_hand("789s11z123m456p")).split == "11z 123m 456p 789s"


def test_a_stops_missing_tiles_are_tile_indices_in_every_suit() -> None:
    (p,) = explain(parse_hand("11m124p")).others
    assert p.stop is not None and p.stop.tile == 9  # 1p
    assert p.stop.missing == (11,)  # 3p, not rank index 2
    (s,) = explain(parse_hand("11m157s")).others
    assert s.stop is not None and s.stop.missing == (19, 20)  # 2s and 3s


def test_explain_refuses_negative_counts_and_a_size_that_is_not_3k_plus_2() -> None:
    counts = [0] * 34
    counts[0], counts[1] = 3, -1
    with pytest.raises(MahjongError, match="cannot be negative"):
        explain(counts)
    with pytest.raises(MahjongError, match="3k\\+2 tiles"):
        explain(to_counts(parse_tiles("123m")))
    with pytest.raises(MahjongError, match="3k\\+2 tiles"):
        explain(to_counts(parse_tiles("1234m")))


def test_the_suit_problem_says_holds_for_one_suit() -> None:
    e = explain(parse_hand("1m11p11s"))
    assert e.verdict.startswith("not winning: m holds 1 tile more than a multiple of 3")
    assert explain(parse_hand("1m1p")).verdict.startswith("not winning: m and p hold 1 tile")


# ----------------------------------------------------------------------------- explain text


def test_text_marks_the_pair_suit_and_counts_one_tile_singular() -> None:
    code, out, _ = run("explain", "1m11p11s")
    assert code == 0
    lines = out.splitlines()
    assert any(line.split() == ["m", "(萬)", "1", "tile,", "1", "mod", "3"] for line in lines)
    assert lines[-1].startswith("verdict: not winning: m holds 1 tile more")
    code, out, _ = run("explain", "11m123p")
    suit_lines = [line for line in out.splitlines() if line.startswith("  m (萬)")]
    assert suit_lines and suit_lines[0].endswith("2 mod 3  ← the pair is here"), out
    assert not any(
        line.startswith("  p (筒)") and "pair is here" in line for line in out.splitlines()
    )


def test_text_a_pass_with_no_sets_and_the_other_suits_splitting() -> None:
    code, out, _ = run("explain", "11m123p")
    assert code == 0
    lines = out.splitlines()
    assert "  11m   tried  wins" in lines
    assert any(line.split() == ["p", "(筒)", "123p:", "splits", "into", "sets"] for line in lines)
    assert lines[-1] == "verdict: winning: 11m 123p"


def test_text_a_pair_whose_pass_splits_does_not_win_while_another_suit_is_stuck() -> None:
    code, out, _ = run("explain", "33345678m134s")
    assert code == 0
    assert "  33m   tried  345m 678m: splits into sets" in out.splitlines()
    assert ": wins" not in out


def test_text_honour_pairs_and_no_pair() -> None:
    _, out, _ = run("explain", "11z123m")
    assert "honours form no chows: every honour held twice is tried as the pair" in out
    _, out, _ = run("explain", "12345m")
    assert "no tile of m is held twice: no pair" in out.splitlines()


def test_json_pair_pile_and_every_other_suit() -> None:
    data = json.loads(run("explain", "33345678m", "--json")[1])
    assert data["pair_pile"] == "369"
    data = json.loads(run("explain", "123m456p789s11z", "--json")[1])
    assert [o["suit"] for o in data["others"]] == ["m", "p", "s"]


def test_a_notation_error_does_not_suggest_any_copies() -> None:
    code, _, err = run("explain", "123m45x")
    assert code == 2 and "'x' at position 6" in flat(err)
    assert "--any-copies" not in err and "four of a kind" not in err


# ----------------------------------------------------------------------------- set_removals


def test_set_removals_refuses_a_hand_that_is_not_3k_plus_2_without_work() -> None:
    assert set_removals(to_counts(parse_tiles("1112345678999m")), backtrack=True) == (False, 0)
    assert set_removals(to_counts(parse_tiles("1112345678999m")), backtrack=False) == (False, 0)


@pytest.mark.parametrize("lying", [True, False])
def test_the_counted_comparison_reports_either_check_disagreeing(
    monkeypatch: pytest.MonkeyPatch, lying: bool
) -> None:
    """A counted check (the recursion, or theorem 1's pass) whose verdict differs from the win
    check's on one hand is a disagreement, whichever of the two it is."""
    hands = [to_counts(parse_tiles(h)) for h in ("33345678m", "55666777889m", "11122233m")]
    wins = [is_winning(h) for h in hands]

    def wrong_on_the_first(counts: Any, backtrack: bool) -> tuple[bool, int]:
        found, spent = set_removals(counts, backtrack)
        if backtrack is lying and list(counts) == hands[0]:
            found = not found
        return found, spent

    monkeypatch.setattr(mahjong_hands, "set_removals", wrong_on_the_first)
    assert mahjong_hands._counted_against_recursion(hands, wins)["disagreements"] == 1


def test_a_pile_of_one_tile_is_said_in_the_singular() -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    shown = CliRunner().invoke(app, ["mahjong", "explain", "12345m"]).stdout
    assert "1 tile,  1 mod 3" in shown
    assert "1 tiles" not in shown
