"""The mahjong and dice audits tally in chunks (CLI audit M3): what they hold in memory does not
grow with ``--deals``, the report is the same whatever the chunk size (and the same as before
the audits were chunked), a caller hears of the progress, and a number of deals no audit could
make is refused before any dealing, naming ``--deals``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed, RandomStream, shuffled_wall
from arena.dealing.audit import audit_bridge, audit_dice, audit_mahjong
from arena.dealing.audit_report import AUDIT_CHUNK, MAX_DEALS, Report
from arena.dealing.planted import mask_modulo_die, seed_c_literal, swap_with_any
from arena.dealing.streams import DealingError
from arena.games.mahjong.analysis import deficiency_batch

SEED = MatchSeed.from_text("chunks")


def as_json(report: Report) -> str:
    return json.dumps(report.to_json(), sort_keys=True)


Audit = Callable[..., Report]

AUDITS: dict[str, tuple[Audit, dict[str, Any]]] = {
    "mahjong": (audit_mahjong, {}),
    "mahjong planted": (audit_mahjong, {"shuffle": swap_with_any}),
    "dice": (audit_dice, {}),
    "dice planted": (audit_dice, {"roll": mask_modulo_die}),
    "four dice": (audit_dice, {"dice": 4}),
    "bridge planted": (audit_bridge, {"shuffle": seed_c_literal}),
}


@pytest.mark.parametrize("name", list(AUDITS))
@pytest.mark.parametrize(
    "chunk", [7, 100, 300], ids=["many chunks", "a short last chunk", "one whole chunk"]
)
def test_the_report_is_the_same_whatever_the_chunk(name: str, chunk: int) -> None:
    audit, options = AUDITS[name]
    whole = audit(SEED, 300, chunk=300, **options)
    assert as_json(audit(SEED, 300, chunk=chunk, **options)) == as_json(whole)


def test_the_default_chunk_is_crossed_without_a_trace() -> None:
    deals = AUDIT_CHUNK + 5
    assert as_json(audit_dice(SEED, deals)) == as_json(audit_dice(SEED, deals, chunk=deals))


def test_the_mahjong_tallies_are_those_of_the_audit_before_chunks() -> None:
    # Figures of the unchunked audit (release before this one), seed "chunks", 300 walls.
    data = audit_mahjong(SEED, 300, chunk=64).to_json()
    worst = data["worst_cell"]
    assert (worst["position"], worst["kind"], worst["observed"]) == (41, 17, 0)
    assert [(r["deficiency"], r["dealer"], r["others"]) for r in data["deficiency"]] == [
        (2, 1, 1),
        (3, 22, 33),
        (4, 92, 177),
        (5, 118, 340),
        (6, 54, 265),
        (7, 12, 74),
        (8, 1, 9),
        (9, 0, 1),
    ]


def test_the_dice_tallies_are_those_of_the_audit_before_chunks() -> None:
    # Figures of the unchunked audit (release before this one), seed "chunks", 1,000 rolls.
    data = audit_dice(SEED, 1000, chunk=300).to_json()
    assert [r["observed"] for r in data["faces"]] == [799, 844, 829, 861, 819, 848]
    assert [r["observed"] for r in data["sums"]] == [
        *(0, 0, 2, 5, 11, 15, 21, 38, 45, 68, 80, 100, 120),
        *(100, 89, 71, 70, 70, 32, 26, 18, 14, 2, 2, 1, 0),
    ]
    assert [r["observed"] for r in data["hand_types"]] == [75, 461, 219, 166, 22, 11, 22, 24, 0]


def test_the_mahjong_audit_holds_one_chunk_of_walls_at_a_time() -> None:
    sizes: list[int] = []
    heard: list[tuple[int, int]] = []

    def measured(counts: Any) -> Any:
        sizes.append(len(counts))
        return deficiency_batch(counts)

    audit_mahjong(SEED, 250, deficiency=measured, chunk=100, progress=lambda *a: heard.append(a))
    # Per chunk: the dealers' hands, then the other three seats' (three a wall).
    assert sizes == [100, 300, 100, 300, 50, 150]
    assert heard == [(100, 250), (200, 250), (250, 250)]


def test_the_dice_and_bridge_audits_tell_their_progress() -> None:
    heard: list[tuple[int, int]] = []
    audit_dice(SEED, 250, chunk=100, progress=lambda *a: heard.append(a))
    assert heard == [(100, 250), (200, 250), (250, 250)]
    heard.clear()
    audit_bridge(SEED, 300, chunk=128, progress=lambda *a: heard.append(a))
    assert heard == [(128, 300), (256, 300), (300, 300)]


def never(stream: RandomStream, tiles: Sequence[int]) -> list[int]:
    raise AssertionError("dealt before the number of deals was checked")


@pytest.mark.parametrize("deals", [MAX_DEALS + 1, 10**23])
def test_too_many_deals_is_refused_before_any_dealing(deals: int) -> None:
    refused = rf"^--deals must be at most {MAX_DEALS:,}, got {deals:,}: "
    with pytest.raises(DealingError, match=refused):
        audit_mahjong(SEED, deals, shuffle=never)
    with pytest.raises(DealingError, match=refused):
        audit_dice(SEED, deals, roll=lambda *_: pytest.fail("rolled"))
    with pytest.raises(DealingError, match=refused):
        audit_bridge(SEED, deals, shuffle=never)


def test_no_deals_and_no_chunk_are_refused() -> None:
    with pytest.raises(DealingError, match=r"^--deals must be at least 1, got 0$"):
        audit_dice(SEED, 0)
    with pytest.raises(DealingError, match="at a time must be at least 1"):
        audit_mahjong(SEED, 10, shuffle=shuffled_wall, chunk=0)


@pytest.mark.parametrize(
    ("kind", "deals"), [("mahjong", "100000000000"), ("dice", "100000000000000000000000")]
)
def test_the_cli_refuses_too_many_deals_in_one_line(kind: str, deals: str) -> None:
    result = CliRunner().invoke(app, ["audit", kind, "--deals", deals, "--seed", "x"])
    assert result.exit_code == 2, (result.output, result.exception)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    # The option's own bound answers first (the library's check stays for other callers).
    assert lines[0] == f"error: --deals must be at most {MAX_DEALS}, got {int(deals)}"
