"""The CLI's shared helpers: --json output is standard JSON, and record file names never collide."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from arena.cli.common import finite_json, print_json, record_path
from arena.matches.stats import mean_interval


def _reject_constant(name: str) -> float:
    raise ValueError(f"not standard JSON: {name}")


def test_print_json_writes_null_for_undefined_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    one_round = mean_interval([3500.0]).to_json(1)  # a Student-t interval of one value
    no_values = mean_interval([]).to_json(1)
    print_json({"ci": one_round, "empty": no_values, "rows": [(1, math.nan)], "ok": 0.5})
    text = capsys.readouterr().out
    data = json.loads(text, parse_constant=_reject_constant)
    assert data["ci"] == {
        "estimate": 3500.0,
        "low": None,
        "high": None,
        "n": 1,
        "confidence": 0.95,
    }
    assert data["empty"]["estimate"] is None and data["rows"] == [[1, None]]
    assert data["ok"] == 0.5 and text.endswith("}\n") and text.count("\n") == 1


def test_finite_json_keeps_everything_else() -> None:
    data = {"a": [1, True, "x", None, {"b": -0.0}], 3: 2.5}
    assert finite_json(data) == data
    assert finite_json(math.inf) is None and finite_json(-math.inf) is None


def test_plain_seeds_keep_their_readable_record_names(tmp_path: Path) -> None:
    for seed in ("1", "js", "a_b", "x.y-2", "s" * 48):
        assert record_path(tmp_path, "mahjong", seed) == tmp_path / f"mahjong-{seed}.jsonl"


@pytest.mark.parametrize(
    "seeds",
    [
        ("a/b", "a_b", "a b", "a\\b"),  # the same once made file-name-safe
        ("s" * 60, "s" * 60 + "t", "s" * 48),  # the same first 48 characters
        ("", "seed", "_"),  # the old fallback name of an empty seed
    ],
)
def test_seeds_that_look_alike_get_different_record_files(
    tmp_path: Path, seeds: tuple[str, ...]
) -> None:
    paths = [record_path(tmp_path, "liars-dice-duel", seed) for seed in seeds]
    assert len(set(paths)) == len(seeds)
    for seed, path in zip(seeds, paths, strict=True):
        assert path.parent == tmp_path and path.suffix == ".jsonl"
        assert "/" not in path.name and " " not in path.name
        if "+" in path.name:  # hashed: the seed's full SHA-256 prefix names it
            digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:12]
            assert path.name.endswith(f"+{digest}.jsonl")
