"""The CLI's shared helpers: --json output is standard JSON, and record file names never collide."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from arena.cli.common import (
    PIPED_WIDTH,
    finite_json,
    match_recorder,
    output_console,
    print_json,
    record_path,
    secret_seed,
)
from arena.dealing import MatchSeed
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


def test_a_secret_seed_names_its_record_after_the_commitment(tmp_path: Path) -> None:
    seed = MatchSeed.generate()
    commitment = seed.commitment()
    path = record_path(tmp_path, "mahjong", seed.hex())
    assert path == tmp_path / f"mahjong-c{commitment[:12]}.jsonl"
    # Not one run of the seed's digits is shown (a plain seed's name showed 48 of the 64).
    assert not any(seed.hex()[i : i + 8] in path.name for i in range(57))
    assert record_path(tmp_path, "mahjong", seed.hex().upper()) == path
    # A series on a raw seed (`S/0`, `S/1` …) is as secret: each match is named after its own.
    series = [record_path(tmp_path, "mahjong", f"{seed.hex()}/{k}") for k in range(3)]
    assert len(set(series)) == 3 and path not in series
    for k, named in enumerate(series):
        own = MatchSeed.from_text(f"{seed.hex()}/{k}").commitment()[:12]
        assert named.name == f"mahjong-c{own}.jsonl" and seed.hex()[:12] not in named.name


@pytest.mark.parametrize("text", ["c0123456789ab", "C0123456789AB"])
def test_a_plain_seed_that_looks_like_a_commitment_name_is_hashed(
    tmp_path: Path, text: str
) -> None:
    path = record_path(tmp_path, "mahjong", text)
    assert "+" in path.name and path.name.startswith(f"mahjong-{text}+")
    # 63 or 65 hex digits, or hex with a text tail, are plain texts, named as before.
    hashed = hashlib.sha256(b"a" * 63).hexdigest()[:12]
    assert record_path(tmp_path, "x", "a" * 63).name == f"x-{'a' * 48}+{hashed}.jsonl"
    assert secret_seed("a" * 64) and secret_seed("a" * 64 + "/7")
    for plain in ("a" * 63, "a" * 65, "a" * 64 + "x", "g" * 64):
        assert not secret_seed(plain)


def test_piped_output_keeps_wide_tables_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped into a file, a table wider than 80 columns keeps every figure (rich's default of 80
    columns cut cells to "altern…"); ``COLUMNS`` still rules when set."""
    from rich.table import Table

    monkeypatch.delenv("COLUMNS", raising=False)
    console = output_console()
    assert console.width == PIPED_WIDTH
    table = Table()
    for heading in ("opener", "random-guess mean", "bayes − random-guess", "probability mean"):
        table.add_column(heading)
    table.add_row("alternate", "67.9%", "+2.14 [+1.86, +2.43]", "73.5%")
    with console.capture() as captured:
        console.print(table)
    text = captured.get()
    assert "…" not in text
    assert "alternate" in text and "+2.14 [+1.86, +2.43]" in text
    monkeypatch.setenv("COLUMNS", "100")
    assert output_console().width == 100


def test_logs_go_to_the_current_stderr_after_the_old_one_is_closed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Logging set up while stderr was a capture (a CLI invoked in-process) that is closed
    since still writes, to the stderr of the moment, without "--- Logging error ---"."""
    import io
    import logging
    import sys

    from arena.logs import configure_logging

    captured = io.StringIO()
    monkeypatch.setattr(sys, "stderr", captured)
    try:
        configure_logging("warning")
    finally:
        monkeypatch.undo()
    captured.close()
    logging.getLogger("arena.test").warning("after the capture closed")
    err = capsys.readouterr().err
    configure_logging("warning")
    assert "after the capture closed" in err and "Logging error" not in err


def test_a_match_that_wrote_nothing_leaves_no_record_and_names_none(tmp_path: Path) -> None:
    """A table on a server that never opened: no empty file announced as a record to replay."""
    import io

    from rich.console import Console

    said = io.StringIO()
    console = Console(file=said, width=200)
    with match_recorder(tmp_path, "liars-dice-duel", "s", console, lineup="") as recorder:
        assert recorder is not None
    assert list(tmp_path.iterdir()) == [] and said.getvalue() == ""
    with match_recorder(tmp_path, "liars-dice-duel", "s", console, lineup="") as recorder:
        assert recorder is not None
        recorder.write({"type": "header"})
    (written,) = tmp_path.iterdir()
    assert said.getvalue().startswith(f"record: {written} (arena replay {written} --game g0)")


@pytest.mark.parametrize("program", ["arena", "bots"])
def test_version_names_the_package_and_the_protocol(program: str) -> None:
    from importlib.metadata import version

    from typer.testing import CliRunner

    from arena.cli.main import app as arena_app
    from arena.games.mahjong.speedups import IMPLEMENTATION
    from bots.cli import app as bots_app
    from bots.version import NOT_BUILT
    from protocol import PROTOCOL_VERSION

    result = CliRunner().invoke(arena_app if program == "arena" else bots_app, ["--version"])
    assert result.exit_code == 0, result.output
    checks = "C" if IMPLEMENTATION == "C" else f"Python ({NOT_BUILT})"
    assert result.output == (
        f"{program} (table-arena {version('table-arena')}), protocol version {PROTOCOL_VERSION}, "
        f"mahjong checks: {checks}\n"
    )
