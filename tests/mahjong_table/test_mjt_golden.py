"""Golden playthroughs: a few seeded hands recorded in full through the referee, diffed on every
run, and re-verified by `arena.replay`.

Regenerate after an intended change with ``MJT_REGEN=1 .venv/bin/pytest
tests/mahjong_table/test_mjt_golden.py`` and review the diff of ``golden/*.jsonl``.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from arena.dealing import MatchSeed
from arena.games.mahjong.rules import load_ruleset
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.replay import verify_record
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("MJT_REGEN") == "1"

CASES = {
    # name: (ruleset, round, hand, strategies) — chosen for what happens in them
    "r16_concealed_kong_tsumo": ("competition", 16, 0, ["greedy"] * 4),
    "r1_added_kong_ron": ("competition", 1, 1, ["greedy"] * 4),
    "r16_open_kong_mixed": ("competition", 16, 0, ["greedy", "random", "greedy", "random"]),
    "r5_per_seat_draws": ("duplicate", 5, 3, ["greedy"] * 4),
    # seat 2 (West) draws 7f 菊, its own flower, and self-draws on the replacement
    "r15_flower_replacement_tsumo": ("flowers", 15, 0, ["greedy"] * 4),
}


def record(ruleset: str, round_index: int, hand: int, strategies: list[str]) -> str:
    bots = [make_bot("mahjong", s, {}, name=f"{s}-{i}") for i, s in enumerate(strategies)]
    recorder = MemoryRecorder()
    asyncio.run(
        play_game(
            "mahjong",
            [InProcessSeat(bot) for bot in bots],
            rules=load_ruleset(ruleset).to_mapping(),
            seed=MatchSeed.from_text("golden"),
            deal={"round": round_index, "hand": hand},
            players=[bot.name for bot in bots],
            match_id="golden",
            game_id=f"r{round_index}h{hand}",
            recorder=recorder,
            reveal=True,  # the golden records end with the seed, for verify
        )
    )
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in recorder.lines)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name: str) -> None:
    path = GOLDEN / f"{name}.jsonl"
    text = record(*CASES[name])
    if REGENERATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing {path}: run with MJT_REGEN=1 to create it"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = text.splitlines()
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        assert got == want, f"{path.name}:{number} differs:\n  golden {want}\n  now    {got}"
    assert len(actual) == len(expected), (
        f"{path.name}: {len(actual)} lines, golden has {len(expected)}"
    )
    (check,) = verify_record(path)
    assert check.ok, check.problems


def test_golden_cases_show_what_they_are_named_for() -> None:
    kinds = {}
    for name in CASES:
        lines = [json.loads(t) for t in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]
        kinds[name] = {
            (p["kind"], p.get("meld") or p.get("how"))
            for p in (line["payload"] for line in lines if line["type"] == "event")
        }
    assert ("kong", "ckong") in kinds["r16_concealed_kong_tsumo"]
    assert ("win", "tsumo") in kinds["r16_concealed_kong_tsumo"]
    assert ("kong", "akong") in kinds["r1_added_kong_ron"]
    assert ("claim", "kong") in kinds["r16_open_kong_mixed"]
    flower_case = [
        json.loads(t)["payload"]
        for t in (GOLDEN / "r15_flower_replacement_tsumo.jsonl").read_text().splitlines()
        if json.loads(t)["type"] == "event"
    ]
    assert {"game": "mahjong", "kind": "flower", "seat": 2, "tile": "7f"} in flower_case
    (win,) = [p for p in flower_case if p["kind"] == "win"]
    assert win["how"] == "tsumo"
    assert {"正花", "槓上開花"} <= {row["name"] for row in win["breakdown"]}
