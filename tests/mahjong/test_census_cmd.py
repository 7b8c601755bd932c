"""``arena mahjong census``: seed 001's wait counts of one-suit hands, reproduced; also blank
lines in ``arena mahjong waits|deficiency --file`` and the help of ``arena bench mahjong``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games.mahjong import census as census_module
from arena.games.mahjong.analysis import waits
from arena.games.mahjong.census import (
    FIFTH_COPY_FIGURES,
    SEED_FIGURES,
    SEED_LISTED,
    census,
    one_suit_waits,
)
from arena.games.mahjong.tiles import MahjongError

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["mahjong", *args])
    return result.exit_code, result.stdout, result.stderr


def flat(text: str) -> str:
    return " ".join(text.split())


# Our whole tables (the seed gives only 7, 8 and 9 waits): waits → hands.
TABLE_13 = {
    0: 53530,
    1: 14067,
    2: 14493,
    3: 6739,
    4: 2948,
    5: 1335,
    6: 392,
    7: 79,
    8: 16,
    9: 1,
}
TABLE_16 = {
    0: 80700,
    1: 26751,
    2: 25893,
    3: 14765,
    4: 8023,
    5: 4135,
    6: 1681,
    7: 532,
    8: 94,
    9: 11,
}


def _multisets(size: int) -> int:
    """One-suit hands of ``size`` tiles, at most four of a kind: the coefficient of x**size in
    (1 + x + … + x**4) ** 9, counted apart from the enumeration."""
    poly = [1]
    for _ in range(9):
        grown = [0] * (len(poly) + 4)
        for i, a in enumerate(poly):
            for k in range(5):
                grown[i + k] += a
        poly = grown
    return poly[size]


@cache
def _wins_any(counts: tuple[int, ...]) -> bool:
    """Sets and one pair, any number of copies, by plain recursion over the lowest rank."""
    if sum(counts) % 3 != 2:
        return False
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


# ----------------------------------------------------------------------------- the census


def test_seed_001_figures_and_our_tables() -> None:
    """Seed 001: 13 tiles, 9 waits: 1 hand (九連寶燈), 8 waits: 16, 7 waits: 79; 16 tiles: 11,
    94 and 532."""
    assert SEED_FIGURES == {13: {7: 79, 8: 16, 9: 1}, 16: {7: 532, 8: 94, 9: 11}}
    for size, table in ((13, TABLE_13), (16, TABLE_16)):
        result = census(size)
        assert result.tiles == size
        assert result.hands == _multisets(size) == sum(table.values())
        assert result.by_waits == table
        assert result.seed == SEED_FIGURES[size]
        assert {k: result.by_waits[k] for k in (7, 8, 9)} == SEED_FIGURES[size]
        assert result.agrees and result.max_waits == 9
        assert sum(result.by_waits_fifth_copy.values()) == result.hands


def test_the_hands_with_nine_waits() -> None:
    assert census(13).most_waits == ("1112345678999m",)
    sixteen = census(16)
    assert len(sixteen.most_waits) == 11
    assert set(SEED_LISTED[16]) <= set(sixteen.most_waits)
    assert sixteen.seed_listed == SEED_LISTED[16]
    # The other six are shifts and mirror images of the five (test_analysis checks that).
    assert sixteen.most_waits == (
        "1112223334567888m",
        "1112233445678999m",
        "1112334455678999m",
        "1112344556678999m",
        "1112345566778999m",
        "1112345666777888m",
        "1112345667788999m",
        "1112345677788899m",
        "1122233345678999m",
        "2223334445678999m",
        "2223456777888999m",
    )
    for hand in sixteen.most_waits:
        counts = [hand.count(str(r)) for r in range(1, 10)]
        assert waits([*counts, *([0] * 25)]) == list(range(9)), hand


def test_counting_a_fifth_copy_gives_other_figures() -> None:
    """A rank held four times counted as a wait: 13 tiles 8/44/155, 16 tiles 108/371/1186 for
    9/8/7 waits. Checked against a plain recursion that allows five copies."""
    for size, figures in FIFTH_COPY_FIGURES.items():
        result = census(size)
        assert {k: result.by_waits_fifth_copy[k] for k in (7, 8, 9)} == figures
        hands, n_waits = one_suit_waits(size)
        _, n_fifth = one_suit_waits(size, fifth_copy=True)
        four = (hands == 4).any(axis=1)
        # Only hands holding a rank four times can differ, and only by that rank's wait.
        assert np.array_equal(n_waits[~four], n_fifth[~four])
        assert ((n_fifth - n_waits)[four] <= (hands[four] == 4).sum(axis=1)).all()
        many = four & (n_fifth >= 7)
        for counts, n in zip(hands[many].tolist(), n_fifth[many].tolist(), strict=True):
            found = 0
            for r in range(9):
                grown = counts.copy()
                grown[r] += 1
                found += _wins_any(tuple(grown))
            assert found == n, counts


def test_census_refuses_other_sizes() -> None:
    with pytest.raises(MahjongError, match="13 or 16 tiles, got 14"):
        census(14)
    with pytest.raises(MahjongError, match="3k\\+1 tiles, got 12"):
        one_suit_waits(12)


# ----------------------------------------------------------------------------- the command


def test_census_json() -> None:
    code, out, _ = run("census", "--tiles", "16", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["tiles"] == 16 and data["hands"] == 162585
    assert data["by_waits"] == {str(k): n for k, n in TABLE_16.items()}
    assert data["seed"] == {"7": 532, "8": 94, "9": 11} and data["agrees"] is True
    assert data["by_waits_fifth_copy"]["9"] == 108 and data["by_waits_fifth_copy"]["7"] == 1186
    assert data["max_waits"] == 9 and len(data["most_waits"]) == 11
    assert data["seed_listed"] == list(SEED_LISTED[16])
    assert "no fifth copy" in data["convention"]
    code, out, _ = run("census", "--tiles", "13", "--json")
    data = json.loads(out)
    assert data["by_waits"] == {str(k): n for k, n in TABLE_13.items()}
    assert data["most_waits"] == ["1112345678999m"]


def test_census_text() -> None:
    code, out, _ = run("census", "--tiles", "13")
    assert code == 0
    text = flat(out)
    assert "93,600 one-suit concealed hands of 13 tiles" in text
    assert "a rank it already holds four times is no wait" in text
    assert "│ 7 │ 79 │ 79 ✓ │ 155 │" in text
    assert "│ 8 │ 16 │ 16 ✓ │ 44 │" in text
    assert "│ 9 │ 1 │ 1 ✓ │ 8 │" in text
    assert "agrees with seed 001 on 7, 8, 9 waits: yes" in text
    assert "the 1 hand with 9 waits: 1112345678999m*" in text
    code, out, _ = run("census")  # 16 tiles by default
    assert code == 0 and "│ 9 │ 11 │ 11 ✓ │ 108 │" in flat(out)
    text = flat(out)
    assert "1122233345678999m* 2223334445678999m 2223456777888999m (* listed by seed 001" in text


def test_census_errors_and_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run("census", "--tiles", "14")
    assert code == 2 and "--tiles: seed 001 counts hands of 13 or 16 tiles, got 14" in flat(err)
    monkeypatch.setitem(census_module.SEED_FIGURES, 13, {7: 80, 8: 16, 9: 1})
    code, out, _ = run("census", "--tiles", "13")
    assert code == 1
    assert "80 ✗" in out and "agrees with seed 001 on 7, 8, 9 waits: NO" in out


# ------------------------------------------------ waits / deficiency --file: blank lines


def test_blank_lines_in_a_hand_file_are_skipped(tmp_path: Path) -> None:
    """An editor's trailing newline or a blank line between blocks is no hand: no output line,
    no failure, but later line numbers still count it."""
    hands = tmp_path / "hands.txt"
    hands.write_text("1112345678999m\n\n  \n123m0\n11123456789m99p\n\n\n", encoding="utf-8")
    code, out, err = run("waits", "--file", str(hands), "--json")
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r.get("hand") for r in rows] == ["1112345678999m", "123m0", "11123456789m99p"]
    assert rows[1]["line"] == 4 and "'0' at position 4" in rows[1]["error"]
    assert "1 of 3 non-blank lines could not be analysed" in err
    code, out, err = run("deficiency", "--file", str(hands))
    assert code == 1
    assert out.splitlines() == ["1112345678999m\t1", "11123456789m99p\t1"]
    assert "line 4: ranks run from 1 to 9" in err
    hands.write_text("\n1112345678999m\n\n11123456789m99p\n", encoding="utf-8")
    code, out, err = run("waits", "--file", str(hands))
    assert code == 0, err
    assert out.splitlines() == [
        "1112345678999m\t1m 2m 3m 4m 5m 6m 7m 8m 9m",
        "11123456789m99p\t1m 4m 7m 9p",
    ]
    hands.write_text("\n\n", encoding="utf-8")
    code, out, err = run("deficiency", "--file", str(hands), "--json")
    assert code == 0 and out == "" and err == ""


def test_bench_mahjong_help_names_the_seed_001_comparison() -> None:
    result = runner.invoke(app, ["bench", "mahjong", "--help"])
    text = flat(result.stdout)
    assert "`mahjong` PyPI package" in text
    assert "seed 001's comparison: theorem 1" in text and "recursive set removal" in text
    assert "docs/BENCHMARKS.md" in text
