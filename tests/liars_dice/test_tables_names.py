"""The bayes player's learnt tables files on every system: two opponents never share a file,
not even where file names ignore case (macOS, Windows) or where some names are devices
(Windows' ``con``, ``nul``…); tables saved under an earlier file name still load and move to
the new one; a tables file is the same bytes everywhere, and replaced though another worker
reads it (Windows)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.liars_dice import Bayes, OpponentModel, load_model
from bots.liars_dice.opponent_model import check_tables_dir, model_path, save_model
from tests.windows_simulation import simulate_a_reader_holding_the_target, simulate_windows_newlines

DEVICES = {"con", "prn", "aux", "nul"} | {
    f"{port}{n}" for port in ("com", "lpt") for n in "123456789"
}
"""Windows' device names (Microsoft's "Naming Files, Paths, and Namespaces")."""

_NAMES = st.text(alphabet=st.sampled_from("AaBbCcLlNnOoPpUuXx1._- /+小"), max_size=12) | st.text(
    max_size=30
)


@st.composite
def _two_names(draw: st.DrawFn) -> tuple[str, str]:
    first = draw(_NAMES)
    second = draw(
        st.sampled_from([first.upper(), first.lower(), first.swapcase(), first.title()]) | _NAMES
    )
    return first, second


def _portable(name: str) -> bool:
    """A file name that is a file (not a device) on Windows, of characters every system keeps."""
    return bool(re.fullmatch(r"[A-Za-z0-9_.+-]+", name)) and name.split(".")[0].lower() not in (
        DEVICES
    )


@settings(max_examples=300, deadline=None)
@given(_two_names())
def test_two_opponents_never_share_a_tables_file_whatever_the_system(
    names: tuple[str, str],
) -> None:
    first, second = names
    directory = Path("tables")
    first_file, second_file = model_path(directory, first), model_path(directory, second)
    assert _portable(first_file.name) and _portable(second_file.name)
    if first != second:
        assert first_file.name.lower() != second_file.name.lower()


def test_names_differing_only_by_case_or_naming_a_device_get_files_of_their_own() -> None:
    directory = Path("tables")
    names = ["alice", "Alice", "ALICE", "con", "CON", "nul.x", "Com1", "lpt9.json", "con.小明"]
    files_ = [model_path(directory, name).name for name in names]
    assert len({name.lower() for name in files_}) == len(names)
    assert all(_portable(name) for name in files_)
    # A name of lower-case letters, digits and _ . - keeps its file, as it always had.
    assert files_[0] == "alice.json" and model_path(directory, "type-5.b").name == "type-5.b.json"


@pytest.mark.parametrize("name", ["Alice", "con", "NUL.x", "Com1"])
def test_tables_saved_under_the_name_an_earlier_arena_gave_still_load_then_move(
    tmp_path: Path, name: str
) -> None:
    old = tmp_path / f"{name}.json"  # where an earlier arena saved them
    save_model(OpponentModel(opponent=name, games=7), old)
    check_tables_dir(tmp_path)
    bayes = Bayes(tables_dir=tmp_path)
    model = bayes.model_for(name)
    assert model.games == 7
    model.games += 1  # what the next game taught
    (written,) = bayes.save(tmp_path)
    assert written == model_path(tmp_path, name) and written.name.lower() != old.name.lower()
    assert load_model(written).games == 8
    assert load_model(old) == OpponentModel(opponent=name, games=7)  # nothing lost
    check_tables_dir(tmp_path)
    assert Bayes(tables_dir=tmp_path).model_for(name).games == 8


def test_a_tables_file_is_the_same_bytes_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate_windows_newlines(monkeypatch, descriptors=False)
    path = tmp_path / "type5.json"
    save_model(OpponentModel(opponent="type5", games=2), path)
    text = path.read_bytes()
    assert b"\r" not in text and text.endswith(b"}\n") and text.count(b"\n") > 10
    assert load_model(path).games == 2


def test_tables_another_worker_is_reading_are_replaced_once_it_lets_go_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "type5.json"
    save_model(OpponentModel(opponent="type5", games=2), path)
    pauses = simulate_a_reader_holding_the_target(monkeypatch, 3)
    save_model(OpponentModel(opponent="type5", games=3), path)
    assert load_model(path).games == 3 and len(pauses) == 3
    assert [each.name for each in tmp_path.iterdir()] == ["type5.json"]
