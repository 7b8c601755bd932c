"""`arena match mahjong` as a user meets it: programs named twice are told apart as the records
name them, --json is standard JSON even where an interval is undefined, and bad options are
one-line errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed

runner = CliRunner()


def _reject_constant(name: str) -> float:
    raise ValueError(f"not standard JSON: {name}")


def standard_json(text: str) -> Any:
    """``text`` parsed as standard JSON: Python's parser accepts Infinity and NaN unless told."""
    return json.loads(text, parse_constant=_reject_constant)


def _match(*args: str) -> Any:
    result = runner.invoke(app, ["match", "mahjong", *args])
    assert result.exit_code == 0, result.output
    return result


def _header_players(directory: Path) -> set[str]:
    names: set[str] = set()
    for path in directory.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "header":
                names.update(entry["players"])
    return names


def test_a_strategy_named_twice_shows_as_its_players_in_the_records(tmp_path: Path) -> None:
    bots = ["--bots", "greedy,random,greedy,random", "--games", "8", "--seed", "1"]
    data = standard_json(_match(*bots, "--json", "--record", str(tmp_path)).stdout)
    shown = [player["bot"] for player in data["players"]]
    assert shown == ["greedy-0", "random-1", "greedy-2", "random-3"]
    assert set(shown) <= _header_players(tmp_path)
    assert set(data["winners"]) <= set(shown) and data["winners"]
    lines = [line.strip() for line in _match(*bots).stdout.splitlines()]
    for name in shown:
        assert any(line.startswith(f"{name} ") for line in lines), name  # its table row
        assert any(line.startswith(f"{name}: points 95% CI") for line in lines), name


def test_distinct_strategies_keep_their_names_and_ab_copies_are_still_added() -> None:
    data = standard_json(
        _match("--bots", "greedy,random", "--layout", "ab", "--games", "8", "--json").stdout
    )
    assert [(p["bot"], p["copies"], p["hands"]) for p in data["players"]] == [
        ("greedy", 2, 16),
        ("random", 2, 16),
    ]
    # One program against itself: each side is its pair of copies, as the records name them.
    data = standard_json(
        _match("--bots", "greedy,greedy", "--layout", "ab", "--games", "8", "--json").stdout
    )
    assert [(p["bot"], p["copies"]) for p in data["players"]] == [
        ("greedy-0+greedy-2", 2),
        ("greedy-1+greedy-3", 2),
    ]


def test_one_round_json_is_standard_with_null_for_the_undefined_interval() -> None:
    result = _match(
        "--bots", "greedy,random,greedy,random", "--games", "4", "--seed", "js", "--json"
    )
    assert "Infinity" not in result.stdout and "NaN" not in result.stdout
    data = standard_json(result.stdout)
    for player in data["players"]:
        ci = player["points_ci95"]
        assert (ci["low"], ci["high"], ci["n"]) == (None, None, 1)
        assert math.isfinite(ci["estimate"])
    text = _match("--bots", "greedy,random", "--layout", "ab", "--games", "4", "--seed", "js")
    assert "not defined over 1 round" in text.stdout and "inf" not in text.stdout


def test_a_series_of_one_round_matches_is_standard_json() -> None:
    args = ["--bots", "greedy,random", "--layout", "ab", "--games", "4", "--matches", "2"]
    data = standard_json(_match(*args, "--seed", "js", "--json").stdout)
    for match in data["per_match"]:
        assert match["points_difference_ci95"]["low"] is None
    assert data["points_difference_per_match_ci95"]["n"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deadline-ms", "-5"], "error: --deadline-ms must be at least 1, got -5"),
        (["--deadline-ms", "0"], "error: --deadline-ms must be at least 1, got 0"),
        (["--bots", "greedy,,random,greedy"], "error: --bots: empty entry in"),
        (["--games", "0"], "error: --games must be at least 1, got 0"),
        (["--matches", "0"], "error: --matches must be at least 1, got 0"),
    ],
)
def test_bad_options_are_one_line_errors(args: list[str], message: str) -> None:
    result = runner.invoke(
        app, ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--games", "4", *args]
    )
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output and "pydantic" not in result.output


def test_a_bare_scoring_table_is_not_a_match_ruleset(tmp_path: Path) -> None:
    bare = tmp_path / "bare.toml"
    bare.write_text("points_per_tai = 100\n", encoding="utf-8")
    result = runner.invoke(
        app,
        ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--ruleset", str(bare)],
    )
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "missing key 'game'" in flat and "None" not in flat


def test_a_fresh_seed_is_printed_first_and_never_names_a_record(tmp_path: Path) -> None:
    args = ["--bots", "greedy,random", "--layout", "ab", "--games", "4", "--json"]
    for matches, directory in (("1", tmp_path / "one"), ("2", tmp_path / "series")):
        result = _match(*args, "--matches", matches, "--record", str(directory))
        (seed,) = re.findall(r"^seed: ([0-9a-f]{64})$", result.stderr, re.M)
        names = sorted(path.name for path in directory.glob("*.jsonl"))
        texts = [seed] if matches == "1" else [f"{seed}/{k}" for k in range(2)]
        commitments = sorted(MatchSeed.from_text(text).commitment()[:12] for text in texts)
        assert [name.split("-")[1] for name in names] == [f"c{digits}" for digits in commitments]
        assert not any(seed[i : i + 8] in name for name in names for i in range(57))


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_zero_width_difference_says_no_spread_was_measured() -> None:
    """Every round giving the same A − B makes the t interval zero wide: the text and the JSON
    say so (as a league's match line does), without calling it wrong, and a difference with a
    spread is not flagged."""
    args = ["--bots", "greedy,random", "--layout", "ab", "--games", "8", "--seed", "ser/2"]
    data = standard_json(_match(*args, "--json").stdout)
    ci = data["points_difference_ci95"]
    assert (ci["low"], ci["high"], ci["n"]) == (22000.0, 22000.0, 2)  # the audit's repro
    assert data["points_difference_no_spread"] is True
    shown = _flat(_match(*args).stdout)
    # No zero-width interval in the text: it would read as a difference known exactly.
    assert (
        "points difference A−B: +22,000 over 2 rounds, no spread: every round gave +11,000 (no "
        "interval to measure)"
    ) in shown
    assert "greedy: points +11,000 over 2 rounds, no spread: every round gave +5,500" in shown
    assert "[+22,000, +22,000]" not in shown
    spread = ["--bots", "greedy,random", "--layout", "ab", "--games", "16", "--seed", "1"]
    data = standard_json(_match(*spread, "--json").stdout)
    assert data["points_difference_ci95"]["low"] < data["points_difference_ci95"]["high"]
    assert data["points_difference_no_spread"] is False
    assert "no spread" not in _match(*spread).stdout


def test_a_series_of_tied_matches_says_no_spread_was_measured() -> None:
    """Two copies of one deterministic bot tie every match: the per-match difference has zero
    width legitimately, and the series says no spread was seen rather than nothing."""
    args = ["--bots", "greedy,greedy", "--layout", "ab", "--games", "8", "--matches", "2"]
    data = standard_json(_match(*args, "--seed", "tie", "--json").stdout)
    assert data["points_difference_per_match_ci95"]["low"] == 0.0
    assert data["points_difference_per_match_ci95"]["high"] == 0.0
    assert data["points_difference_per_match_no_spread"] is True
    assert all(match["points_difference_no_spread"] for match in data["per_match"])
    shown = _flat(_match(*args, "--seed", "tie").stdout)
    assert (
        "points difference per match A−B: +0 over 2 matches, no spread: the games cannot tell "
        "them apart (every match gave A − B = 0; no interval to measure)"
    ) in shown
    assert "[+0, +0]" not in shown
    spread = ["--bots", "greedy,random", "--layout", "ab", "--games", "8", "--matches", "2"]
    data = standard_json(_match(*spread, "--seed", "1", "--json").stdout)
    assert data["points_difference_per_match_no_spread"] is False
