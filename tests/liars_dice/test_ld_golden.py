"""Golden playthroughs: whole seeded games, recorded through the referee in the arena's record
format, kept as reviewable JSONL files and diffed on every run.

A difference means the engine, the dealing or a bot now plays differently. If that is intended,
regenerate with ``LD_UPDATE_GOLDEN=1 pytest tests/liars_dice/test_ld_golden.py`` and review the
diff like code.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.dealing import MatchSeed
from arena.matches.liars_dice_series import make_ld_bot
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.replay import verify_record
from arena.transports.inprocess import InProcessSeat

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Case:
    name: str
    bots: tuple[str, ...]
    rules: dict[str, Any]
    seed: str
    games: int


CASES = [
    Case("bayes-vs-type5", ("bayes", "type5"), {}, "golden-1", 3),
    Case(
        "random-guess-vs-probability-wild",
        ("random-guess", "probability"),
        {"ones_wild": True},
        "golden-2",
        2,
    ),
    Case(
        "three-seat-series",
        ("random-guess", "type9", "probability"),
        {"players": 3, "dice": 2, "ones_wild": True, "series": True},
        "golden-3",
        1,
    ),
    Case(
        "probability-vs-type20-reroll", ("probability", "type20"), {"reroll": True}, "golden-4", 4
    ),
]


def _record(case: Case) -> list[dict[str, Any]]:
    recorder = MemoryRecorder()
    bots = [make_ld_bot(name, {"seed": case.seed}) for name in case.bots]
    seed = MatchSeed.from_text(case.seed)

    async def play() -> None:
        for k in range(case.games):
            await play_game(
                "liars_dice",
                [InProcessSeat(bot) for bot in bots],
                rules=case.rules,
                seed=seed,
                deal={"game_index": k, "first": k % len(bots)},
                players=list(case.bots),
                match_id=case.name,
                game_id=f"g{k}",
                recorder=recorder,
                reveal=True,  # the golden records end with the seed, for verify
            )

    asyncio.run(play())
    return recorder.lines


def _text(lines: list[dict[str, Any]]) -> str:
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_golden_playthrough(case: Case) -> None:
    path = GOLDEN / f"{case.name}.jsonl"
    produced = _text(_record(case))
    if os.environ.get("LD_UPDATE_GOLDEN"):
        path.write_text(produced, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert produced.splitlines() == expected.splitlines()
    checks = verify_record(path)
    assert checks and all(check.ok for check in checks), [c.problems for c in checks]
