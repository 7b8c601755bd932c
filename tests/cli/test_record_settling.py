"""A match's record takes its name only once the match wrote something: an earlier record of
the same seed is never replaced by nothing, nor (while it exists) by an interrupted match."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from arena.cli.common import match_recorder
from arena.cli.main import app

runner = CliRunner()
SECRET = "7" * 64


def _bulls_cows(
    directory: Path, *extra: str, bots: tuple[str, str] = ("random", "random")
) -> tuple[int, str]:
    result = runner.invoke(
        app,
        [
            *("match", "bulls-cows", "--a", bots[0], "--b", bots[1], "--games", "2"),
            *("--seed", SECRET, "--record", str(directory), *extra),
        ],
    )
    return result.exit_code, result.output


def test_a_match_that_never_starts_keeps_the_earlier_record(tmp_path: Path) -> None:
    code, _ = _bulls_cows(tmp_path)
    assert code == 0
    (record,) = tmp_path.glob("*.jsonl")
    before = record.read_bytes()
    code, output = _bulls_cows(tmp_path, "--server", "ws://127.0.0.1:9", bots=("p1", "p2"))
    assert code == 2 and "cannot reach the server" in output
    assert "replaced" not in output
    assert record.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [record.name]


def test_an_interrupted_match_is_kept_beside_the_earlier_record(tmp_path: Path) -> None:
    earlier = tmp_path / "bulls-cows-x.jsonl"
    earlier.write_text('{"type": "match"}\n', encoding="utf-8")
    shown = Console(file=open(tmp_path / "shown.txt", "w"), width=300)  # noqa: SIM115
    try:
        with match_recorder(tmp_path, "bulls-cows", "x", shown, lineup="") as recorder:
            assert recorder is not None
            recorder.write({"type": "header"})
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    finally:
        shown.file.close()
    assert earlier.read_text(encoding="utf-8") == '{"type": "match"}\n'
    kept = tmp_path / "bulls-cows-x.interrupted.jsonl"
    assert [json.loads(line) for line in kept.read_text(encoding="utf-8").splitlines()] == [
        {"type": "header"}
    ]
    assert not list(tmp_path.glob(".*.part"))
    assert f"record: {kept}" in (tmp_path / "shown.txt").read_text(encoding="utf-8")


def test_a_finished_match_replaces_the_earlier_record(tmp_path: Path) -> None:
    earlier = tmp_path / "bulls-cows-x.jsonl"
    earlier.write_text('{"type": "match"}\n', encoding="utf-8")
    with match_recorder(
        tmp_path, "bulls-cows", "x", Console(file=open("/dev/null", "w")), lineup=""
    ) as rec:
        assert rec is not None
        rec.write({"type": "header"})
    assert json.loads(earlier.read_text(encoding="utf-8")) == {"type": "header"}
    assert rec.path == earlier
    assert not list(tmp_path.glob(".*.part"))
