"""docs/DEALING.md's worked example must stay true: its numbers and its reference dealer."""

from __future__ import annotations

import re
from pathlib import Path

from arena.dealing import MatchSeed
from arena.dealing.bridge import deal_bridge
from arena.dealing.streams import BlockHasher, block_message

DOC = Path(__file__).resolve().parents[2] / "docs" / "DEALING.md"
SEED = MatchSeed(bytes(range(32)))


def test_worked_example_numbers_are_the_codes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert block_message("bridge/0", 0).hex() in text
    assert BlockHasher(SEED).block("bridge/0", 0).hex() in text
    assert deal_bridge(SEED, 0).to_pbn() in text
    assert deal_bridge(SEED, 0).diagram() in text


def test_reference_dealer_in_the_doc_matches() -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    reference = next(b for b in blocks if "REFERENCE_DEAL" in b)
    namespace: dict[str, object] = {}
    exec(reference, namespace)
    hands = namespace["REFERENCE_DEAL"]
    assert isinstance(hands, list)
    assert [sorted(h) for h in hands] == [sorted(h) for h in deal_bridge(SEED, 0).hands]
