"""A documented default written out (``games``, ``seed``, ``rules``, ``layout``, or
``--games``/``--seed`` at their default) is the same league as the default left out: the same
fingerprint, resumed, not played again. Configs that leave the defaults out keep the fingerprint
they had; a league an earlier release stored under the written-out config's own fingerprint is
resumed too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.leagues.config import load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.runner import run_league
from arena.store import ResultStore

DICE_BOTS = '[[bots]]\nname = "random-guess"\n[[bots]]\nname = "probability"\n'
LEAGUES = {
    # game: (left out, written out, the fingerprint of the left-out config before this change)
    "liars-dice": (
        f'name = "dice"\ngame = "liars-dice"\n{DICE_BOTS}',
        f'name = "dice"\ngame = "liars-dice"\ngames = 500\nseed = "dice"\n{DICE_BOTS}',
        "c8f25cdab0711ba8a1586367246a9e7e13d36fb69443a0b0448d88030ef17f14",
    ),
    "bulls-cows": (
        'name = "duels"\ngame = "bulls-cows"\n'
        '[[bots]]\nname = "random"\n[[bots]]\nname = "frequency"\n',
        'name = "duels"\ngame = "bulls-cows"\ngames = 100\nseed = "duels"\n'
        'rules = { digits = 3, alphabet = "123456789", max_guesses = 20 }\n'
        '[[bots]]\nname = "random"\n[[bots]]\nname = "frequency"\n',
        "7ff4320b953a3801bb4f98e905df9e1bbbbbf4a4a13af5127564964960613c91",
    ),
    "mahjong": (
        'name = "mj"\ngame = "mahjong"\n[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n',
        'name = "mj"\ngame = "mahjong"\ngames = 384\nseed = "mj"\nlayout = "ab"\n'
        'ruleset = "competition"\n[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n',
        "0db4af77a26a3e7a661a67d8c34564ccf8b9454f8a80d16f718e53278f81d176",
    ),
}

WRITTEN_OUT_BEFORE = "04d1dff74e465c03e163ebc20d6427d0ce4c867a56e08b376b37c5d3d8e65038"
"""What the release before gave the written-out liar's dice config: another league then."""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("game", sorted(LEAGUES))
def test_a_default_written_out_is_the_same_league(tmp_path: Path, game: str) -> None:
    left_out, written_out, before = LEAGUES[game]
    implicit = load_league(write(tmp_path, "implicit.toml", left_out))
    explicit = load_league(write(tmp_path, "explicit.toml", written_out))
    assert implicit.fingerprint() == before  # stored leagues of such configs still resume
    assert explicit.fingerprint() == before
    # On the command line too, at their default values.
    defaults: dict[str, Any] = {"games": implicit.games_per_match, "seed": implicit.name}
    assert load_league(tmp_path / "implicit.toml", **defaults).fingerprint() == before
    # Any other value is another league.
    assert implicit.with_overrides(games=implicit.games_per_match - 1).fingerprint() != before
    assert implicit.with_overrides(seed=f"{implicit.name}-2").fingerprint() != before


def test_a_layout_other_than_the_default_is_another_league(tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "g{k}"\nbot = "greedy"\n' for k in range(4))
    ab = load_league(write(tmp_path, "ab.toml", f'name = "m"\ngame = "mahjong"\n{bots}'))
    rotate = load_league(
        write(tmp_path, "r.toml", f'name = "m"\ngame = "mahjong"\nlayout = "rotate"\n{bots}')
    )
    assert ab.fingerprint() != rotate.fingerprint()


def _store_first_match(db: Path, fingerprint: str) -> None:
    """The results file an earlier release left after one match of the written-out league."""
    plan = MatchPlan(0, ("random-guess", "probability"), "dice/random-guess vs probability")
    games = [GameOutcome(k, k, {"random-guess": 0.0, "probability": 1.0}) for k in range(500)]
    with ResultStore(db) as store:
        league = store.open_league("dice", "liars-dice", "dice", fingerprint, {})
        store.save_match(league, MatchOutcome(plan, games, {}, 1.0))


def test_a_league_stored_under_the_written_out_fingerprint_resumes(tmp_path: Path) -> None:
    _left_out, written_out, fingerprint = LEAGUES["liars-dice"]
    config_file = write(tmp_path, "league.toml", written_out)
    db = tmp_path / "r.sqlite"
    _store_first_match(db, WRITTEN_OUT_BEFORE)
    shown_db = tmp_path / "shown.sqlite"
    shutil.copy(db, shown_db)

    # --show finds it (and changes nothing).
    shown = CliRunner().invoke(
        app, ["league", str(config_file), "--db", str(shown_db), "--show", "--json"]
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["matches_stored"] == 1

    # Run: resumed, nothing played again; the league now carries the fingerprint.
    config = load_league(config_file, games=500, jobs=1)
    with ResultStore(db) as store:
        run = run_league(config, store)
        (league,) = store.leagues()
    assert (run.resumed, run.played, run.complete) == (1, 0, True)
    assert league.fingerprint == fingerprint
    # ... and the config it now plays from, file contents included (LEAGUES.md).
    assert league.config["contents"] == config.contents.to_json()
