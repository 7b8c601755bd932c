"""What a plain ``pip install`` (a built wheel, not a checkout) carries: configs/ is no package,
so setup.py copies the named rulesets into the wheel, and the rulesets loader reads that copy.
Without it, every command that names a ruleset, the mahjong match's default ``competition``
among them, failed after ``pip install .`` or ``pip install git+URL``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arena.games import rulesets

ROOT = Path(__file__).resolve().parents[1]
# What setup.py and pyproject.toml need to build the wheel; the rest of the checkout stays out.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE")
PACKAGES = ("arena", "bots", "protocol")


def _source_tree(target: Path) -> Path:
    target.mkdir()
    for name in BUILD_INPUTS:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, target / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "bundled_rulesets")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=skip)
    shutil.copytree(ROOT / "configs" / "rulesets", target / "configs" / "rulesets")
    return target


def test_a_built_wheel_carries_every_named_ruleset_byte_for_byte(tmp_path: Path) -> None:
    pytest.importorskip("setuptools", minversion="77", reason="the dev extra installs it")
    tree = _source_tree(tmp_path / "tree")
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("--wheel-dir", str(tmp_path / "dist"), str(tree)),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("table_arena-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        carried = {
            Path(name).name: archive.read(name)
            for name in archive.namelist()
            if name.startswith("arena/games/bundled_rulesets/")
        }
    checkout = {path.name: path.read_bytes() for path in ROOT.glob("configs/rulesets/*.toml")}
    assert "competition.toml" in checkout
    assert carried == checkout


def test_a_wheel_reads_its_own_copy_and_looks_no_further(tmp_path: Path) -> None:
    bundled, checkout = tmp_path / "bundled_rulesets", tmp_path / "configs" / "rulesets"
    checkout.mkdir(parents=True)
    assert rulesets.installed_ruleset_dir(bundled, checkout) == checkout
    bundled.mkdir()
    assert rulesets.installed_ruleset_dir(bundled, checkout) == bundled


def test_this_checkout_reads_the_rulesets_where_they_are_edited() -> None:
    # A stray copy in the source tree would shadow edits to configs/rulesets.
    assert not rulesets.BUNDLED_RULESET_DIR.exists()
    assert rulesets.RULESET_DIR == ROOT / "configs" / "rulesets"
