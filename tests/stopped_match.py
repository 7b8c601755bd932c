"""What a match stopped by a signal (SIGTERM, SIGHUP, Ctrl-C) must leave, shared by the CLI and
network signal tests (records audit, H1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.dealing import MatchSeed
from arena.replay import check_record


def assert_stopped_cleanly(code: int, err: str, number: int, records: Path) -> None:
    """Exit 128 + the signal, one error line, the seed shown, the record revealed and
    reported short by `arena verify`."""
    assert code == 128 + number, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: interrupted"), err
    (seed,) = re.findall(r"^seed: ([0-9a-f]{64})$", err, re.M)
    (record,) = records.glob("*.jsonl")
    lines = [json.loads(text) for text in record.read_text("utf-8").splitlines()]
    assert lines[-1]["type"] == "reveal" and lines[-1]["seed"] == seed
    assert lines[0]["seed_commitment"] == MatchSeed.from_hex(seed).commitment()
    (match,) = check_record(record).matches
    assert any(
        p.startswith("the match announced 384 games, the record holds") for p in match.problems
    )
