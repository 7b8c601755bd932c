"""Gaps a mutation audit of the impossible outcomes of a dealer audit (a count in a cell the
exact law gives probability 0 fails its test with p = 0) found in the tests: each test here
fails on a plausible slip in `arena.dealing.stats` or `arena.cli.audit` that the other tests let
through."""

from __future__ import annotations

import numpy as np
import pytest
import typer
from rich.console import Console

from arena.cli import audit as audit_cli
from arena.dealing import stats as dstats
from arena.dealing.audit_report import Report

P = [0.2, 0.3, 0.0, 0.5]
FAIR = [200, 300, 0, 500]
SEEN = [200, 300, 1, 499]


def test_an_impossible_outcome_keeps_the_tests_cells_and_method() -> None:
    """The failed test's row reads as the same test on a fair tally would: its cells after
    merging (the impossible cell left out), their degrees of freedom and its method."""
    fair = dstats.independent_test("x", FAIR, P, ordered=False)
    seen = dstats.independent_test("x", SEEN, P, ordered=False)
    assert seen.impossible and (seen.cells, seen.dof, seen.method) == (
        fair.cells,
        fair.dof,
        fair.method,
    )
    joint = np.outer(P, P)
    fair = dstats.pooled_test("x", FAIR, P, joint, 4, ordered=False)
    seen = dstats.pooled_test("x", SEEN, P, joint, 4, ordered=False)
    assert seen.impossible and (seen.cells, seen.method) == (fair.cells, "rao-scott")
    assert seen.dof == seen.cells - 1


def _report() -> Report:
    """Two tests, the second with an impossible outcome (the first fails too, plainly)."""
    plain = dstats.independent_test("faces", [900, 100], [0.5, 0.5], ordered=False)
    impossible = dstats.independent_test(
        "sums", SEEN, P, ordered=True, labels=["sum 0", "sum 1", "sum 2", "sum 3"]
    )
    return Report("dice", 1000, "s", [plain, impossible])


def test_the_tests_table_says_an_impossible_outcome_in_its_p_column() -> None:
    console = Console(record=True, width=200)
    console.print(audit_cli._tests_table(_report()))
    lines = console.export_text().splitlines()
    (sums,) = [line for line in lines if " sums " in line]
    (faces,) = [line for line in lines if " faces " in line]
    assert "0 (impossible outcome)" in sums and "impossible" not in faces


def test_the_verdict_names_an_impossible_outcome_of_any_test(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(typer.Exit):
        audit_cli._emit(_report(), False, lambda r: None)
    said = " ".join(capsys.readouterr().out.split())
    assert "verdict: FAIL" in said
    assert "sums: an impossible outcome (sum 2: 1 seen; probability 0 under the exact law)" in said
    assert "faces p " in said
