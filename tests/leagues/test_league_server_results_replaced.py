"""A league on a server whose results file is replaced mid-run: the other tables finish into the
saved copy, and the error reported is the replaced file's, naming the copy to resume from (not a
table "that could not be played", whose retry line would name the --db given)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_league_mutation_gaps import fake_server, secret_dice

from arena.store import ResultStore
from arena.store_open import ResultsReplacedError


def test_a_server_league_whose_file_is_replaced_reports_the_saved_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.server.remote.play_on_server", fake_server())
    db = tmp_path / "r.sqlite"
    original = ResultStore.save_match
    replaced: list[bool] = []

    def save_match(self: ResultStore, *args: Any, **kwargs: Any) -> Any:
        # The tables' saves run in threads at once: the first to return replaces the file.
        stored = original(self, *args, **kwargs)
        if not replaced:
            replaced.append(True)
            db.unlink()
            db.write_text("another file", encoding="utf-8")
        return stored

    monkeypatch.setattr(ResultStore, "save_match", save_match)
    from arena.leagues.runner import run_league

    with ResultStore(db) as store, pytest.raises(ResultsReplacedError) as stopped:
        run_league(secret_dice(tmp_path, server="ws://127.0.0.1:9"), store)
    saved = stopped.value.saved
    assert saved.name.startswith("r.saved-") and saved.is_file()
    assert db.read_text(encoding="utf-8") == "another file"
    # Every table was played and stored, the later ones in the copy.
    with ResultStore(saved) as copy:
        (league,) = copy.leagues()
        assert len(copy.matches(league)) == 3
