"""`arena verify`/`arena replay` given a league's results file (SQLite) say what it is and where
the records are, rather than "not UTF-8"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_a_results_file_is_named_as_such(tmp_path: Path, command: str) -> None:
    results = tmp_path / "league.sqlite"
    with sqlite3.connect(results) as db:
        db.execute("CREATE TABLE t (x BLOB)")
        db.execute("INSERT INTO t VALUES (?)", (bytes(range(256)) * 64,))
    db.close()
    shown = runner.invoke(app, [command, str(results)])
    assert shown.exit_code == 2
    assert f"{results}: a results file (SQLite), not a game record" in " ".join(
        shown.output.split()
    )
    assert "--records DIR" in shown.output and "UTF-8" not in shown.output
