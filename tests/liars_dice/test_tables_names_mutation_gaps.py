"""Gaps a mutation audit found in the bayes player's tables file names (`model_path`): every
name Windows keeps for a device, in any case and before any number of dots, gets a file of its
own; names that merely look like one keep their plain file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bots.liars_dice import OpponentModel, load_model
from bots.liars_dice.opponent_model import model_path, save_model

DEVICES = ("con", "prn", "aux", "nul", "com0", "com1", "com9", "lpt0", "lpt1", "lpt9")
"""Windows' reserved names (Microsoft's "Naming Files, Paths, and Namespaces" lists COM0 and
LPT0 too)."""


def _a_device_on_windows(file_name: str) -> bool:
    """Whether Windows opens a device for ``file_name``: its part before the first dot is a
    reserved name, whatever its case."""
    return file_name.split(".", 1)[0].lower() in DEVICES


@pytest.mark.parametrize(
    "name",
    [
        *DEVICES,
        *(device.upper() for device in DEVICES),
        "Aux",
        "CON.x",
        "Nul.tar.gz",
        "com0.a.b",
        "con.a.b",
        "lpt0.json",
        "AUX.小明",
    ],
)
def test_a_device_name_in_any_form_never_names_a_device_file(name: str) -> None:
    path = model_path(Path("tables"), name)
    assert not _a_device_on_windows(path.name), path.name
    assert re.fullmatch(r"[A-Za-z0-9_.+-]+", path.name)


def test_device_names_and_their_forms_get_files_of_their_own() -> None:
    names = [*DEVICES, "CON.x", "con.x", "con.a.b", "Con.a.b", "aux.json", "AUX"]
    files = [model_path(Path("tables"), name).name.lower() for name in names]
    assert len(set(files)) == len(names)


@pytest.mark.parametrize(
    "name", ["console", "com10", "lpt", "auxiliary", "nul_x", "x.con", "a.nul"]
)
def test_a_name_that_only_looks_like_a_device_keeps_its_plain_file(name: str) -> None:
    assert model_path(Path("tables"), name).name == f"{name}.json"


@pytest.mark.parametrize("name", ["aux", "com0", "CON.x"])
def test_tables_of_a_device_name_are_saved_and_read_back(tmp_path: Path, name: str) -> None:
    path = model_path(tmp_path, name)
    save_model(OpponentModel(opponent=name, games=3), path)
    assert load_model(path) == OpponentModel(opponent=name, games=3)
    assert [each.name for each in tmp_path.iterdir()] == [path.name]
