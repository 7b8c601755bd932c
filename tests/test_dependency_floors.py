"""The lowest dependency versions pyproject.toml allows are the ones CI tests.

.ci/run installs the project with the constraints file .ci/lowest-versions.txt and runs the
tests there, so a floor is only checked if that file names it: the two files must agree. And
the code paths that exist only for the floors (numpy < 2 has no ``np.bitwise_count``) are run
here on whatever versions are installed, not only in that CI step.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from arena.games.bulls_cows import codes

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / ".ci" / "lowest-versions.txt"
# Lint tools: their findings change with the version, so the lowest-versions run does not lint
# and installs whatever version pip picks for them.
UNPINNED = {"ruff", "mypy"}


def floors_of(requirements: Iterable[str]) -> dict[str, str]:
    """Each requirement's lowest allowed version (its >= or == version), by canonical name; a
    requirement without one (lint tools aside) is refused: CI would have no floor to test."""
    floors: dict[str, str] = {}
    for text in requirements:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name in UNPINNED:
            continue
        lower = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==")]
        if len(lower) != 1:
            raise ValueError(f"{text!r}: no single floor (>= or ==) for CI to test")
        floors[name] = lower[0]
    return floors


def _pyproject_floors() -> dict[str, str]:
    """The floors of the dependencies and of every extra; an extra that names the project's
    own extras (dev takes ``table-arena[broker]``) adds no floor of its own."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    itself = canonicalize_name(project["name"])
    extras = [text for group in project["optional-dependencies"].values() for text in group]
    others = [text for text in extras if canonicalize_name(Requirement(text).name) != itself]
    return floors_of([*project["dependencies"], *others])


def _constraints() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"{line!r}: a constraint must pin one version"
        name = canonicalize_name(requirement.name)
        assert name not in pins, f"{name} is pinned twice"
        pins[name] = spec.version
    return pins


def test_the_lowest_versions_file_names_exactly_the_floors_of_pyproject() -> None:
    assert _constraints() == _pyproject_floors()


def test_a_floor_is_read_from_either_bound_and_lint_tools_have_none() -> None:
    assert floors_of(["numpy>=1.26", "websockets>=15.0.1,<18", "amqtt==0.12.1"]) == {
        "numpy": "1.26",
        "websockets": "15.0.1",
        "amqtt": "0.12.1",
    }
    assert floors_of(["Ruff>=0.5", "mypy>=1.10"]) == {}
    with pytest.raises(ValueError, match="no single floor"):
        floors_of(["numpy<3"])


MASKS = st.lists(st.integers(min_value=0, max_value=2**codes.MAX_ALPHABET - 1), max_size=64)


def _bit_counts(values: list[int]) -> npt.NDArray[np.uint8]:
    return np.array([bin(value).count("1") for value in values], dtype=np.uint8)


@given(MASKS)
def test_popcount_counts_the_set_bits_of_every_mask(values: list[int]) -> None:
    masks = np.array(values, dtype=np.int64)
    assert codes.popcount(masks).tolist() == _bit_counts(values).tolist()


@given(MASKS)
def test_popcount_without_bitwise_count_counts_the_same(values: list[int]) -> None:
    masks = np.array(values, dtype=np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(np, "bitwise_count", raising=False)  # as on numpy 1.26
        counted = codes.popcount(masks)
    assert counted.dtype == np.uint8
    assert counted.tolist() == _bit_counts(values).tolist()


def test_the_feedback_table_is_the_same_without_bitwise_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    build = codes.code_space.__wrapped__  # past the cache: each build computes its own table
    with_it = build(4, "0123456789").table
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    without_it = build(4, "0123456789").table
    assert np.array_equal(with_it, without_it)
