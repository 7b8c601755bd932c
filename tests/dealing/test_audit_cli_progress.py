"""`arena audit bridge|mahjong|dice` hand the audit a progress callback (the bar on stderr) and
still print the same report."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.cli.audit as audit_cli
from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.dealing.audit import audit_dice

runner = CliRunner()


def test_the_audit_reports_progress_and_the_same_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[tuple[int, int]] = []

    def watched(seed: MatchSeed, deals: int, **options: Any) -> Any:
        progress = options.pop("progress")
        assert progress is not None

        def both(done: int, total: int) -> None:
            told.append((done, total))
            progress(done, total)

        return audit_dice(seed, deals, progress=both, chunk=100, **options)

    monkeypatch.setattr(audit_cli, "audit_dice", watched)
    shown = runner.invoke(app, ["audit", "dice", "--deals", "250", "--seed", "p", "--json"])
    assert shown.exit_code == 0, shown.output
    assert told == [(100, 250), (200, 250), (250, 250)]
    expected = audit_dice(MatchSeed.from_text("p"), 250).to_json()
    assert json.loads(shown.stdout) == json.loads(json.dumps(expected))
