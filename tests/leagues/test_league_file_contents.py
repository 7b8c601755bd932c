"""A league plays what its files said when its config loaded: a bot config or ruleset edited
while the league runs (the next experiment's settings, a ``git pull``) changes neither its games
nor its fingerprint, in this process or in its workers; the results file keeps what was played."""

from __future__ import annotations

import json
import pickle
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.leagues.config import LeagueConfig, load_league
from arena.leagues.runner import run_league
from arena.store import ResultStore

REPO = Path(__file__).resolve().parents[2]

TUNED = 'guess = "odds"\npsychology = 0.5\nodds_for = "both"\n'
RETUNED = "real_guess = true\n"
FIVE_DICE = "[rules]\nplayers = 2\ndice = 5\n"
THREE_DICE = "[rules]\nplayers = 2\ndice = 3\n"


def dice_league(tmp_path: Path) -> Path:
    """A liar's dice league whose ``tuned`` bot and ruleset come from files (as they were
    before any edit)."""
    bot_config = tmp_path / "tuned.toml"
    bot_config.write_text(TUNED, encoding="utf-8")
    ruleset = tmp_path / "rules.toml"
    ruleset.write_text(FIVE_DICE, encoding="utf-8")
    path = tmp_path / "league.toml"
    path.write_text(
        f"""
name = "edited"
game = "liars-dice"
games = 20
ruleset = "{ruleset}"
[[bots]]
name = "probability"
[[bots]]
name = "type5"
[[bots]]
name = "tuned"
bot = "random-guess"
config = "{bot_config}"
""",
        encoding="utf-8",
    )
    return path


def played(config: LeagueConfig, db: Path) -> dict[str, list[dict[str, float]]]:
    with ResultStore(db) as store:
        run = run_league(config, store)
    assert run.complete
    return {m.plan.key: [g.scores for g in m.games] for m in run.outcomes}


EDITS = {"bot config": ("tuned.toml", RETUNED), "ruleset": ("rules.toml", THREE_DICE)}


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("edited", sorted(EDITS))
def test_a_file_edited_after_the_config_loaded_changes_no_game(
    tmp_path: Path, edited: str, jobs: int
) -> None:
    path = dice_league(tmp_path)
    reference = load_league(path, jobs=jobs)
    expected = played(reference, tmp_path / "reference.sqlite")
    with sqlite3.connect(tmp_path / "reference.sqlite") as db:
        (reference_fingerprint,) = db.execute("SELECT fingerprint FROM leagues").fetchone()

    config = load_league(path, jobs=jobs)
    name, text = EDITS[edited]
    (tmp_path / name).write_text(text, encoding="utf-8")  # while the league runs
    # The loaded league plays (in this process, or in its workers) what the files said then,
    # under the fingerprint of that.
    assert played(config, tmp_path / "r.sqlite") == expected
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        fingerprint, stored = db.execute("SELECT fingerprint, config FROM leagues").fetchone()
    assert fingerprint == config.fingerprint() == reference_fingerprint
    # The edit matters: a league loaded from the edited file is another, with other games.
    other = load_league(path, jobs=jobs)
    assert other.fingerprint() != reference_fingerprint
    assert played(other, tmp_path / "other.sqlite") != expected
    # What was played is in the results file, not only the paths it came from.
    contents = json.loads(stored)["contents"]
    assert contents["bots"]["tuned"] == {
        "strategy": "random-guess",
        "options": {"guess": "odds", "psychology": 0.5, "odds_for": "both"},
    }
    assert contents["rules"]["dice"] == 5


def test_overrides_keep_what_the_files_said(tmp_path: Path) -> None:
    path = dice_league(tmp_path)
    config = load_league(path)
    (tmp_path / "tuned.toml").write_text(RETUNED, encoding="utf-8")
    (tmp_path / "rules.toml").write_text(THREE_DICE, encoding="utf-8")
    copy = config.with_overrides(jobs=3, records=tmp_path / "records")
    assert copy.bot_options("tuned") == config.bot_options("tuned")
    assert copy.dice_rules() == config.dice_rules() and copy.dice_rules().dice == 5
    assert copy.fingerprint() == config.fingerprint()


def _mahjong(tmp_path: Path) -> tuple[str, list[Path]]:
    ruleset = tmp_path / "mahjong-rules.toml"
    shutil.copy(REPO / "configs/rulesets/competition.toml", ruleset)
    text = f'name = "m"\ngame = "mahjong"\nruleset = "{ruleset}"\n'
    text += "".join(f'[[bots]]\nname = "{bot}"\n' for bot in ("greedy", "random"))
    return text, [ruleset]


def _dice(tmp_path: Path) -> tuple[str, list[Path]]:
    path = dice_league(tmp_path)
    return path.read_text(encoding="utf-8"), [tmp_path / "tuned.toml", tmp_path / "rules.toml"]


def _bulls_cows(tmp_path: Path) -> tuple[str, list[Path]]:
    bot_config = tmp_path / "evader.toml"
    shutil.copy(REPO / "configs/bots/bulls_cows/optimal-evader.toml", bot_config)
    text = f"""
name = "b"
game = "bulls-cows"
[[bots]]
name = "evader"
config = "{bot_config}"
[[bots]]
name = "random"
"""
    return text, [bot_config]


@pytest.mark.parametrize("league", [_mahjong, _dice, _bulls_cows])
def test_a_config_sent_to_a_worker_reads_no_file_again(tmp_path: Path, league: object) -> None:
    """A worker gets the config pickled: it holds what the files said, and plays (and
    fingerprints) from it with the files gone."""
    assert callable(league)
    text, files = league(tmp_path)
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    config = load_league(path)
    fingerprint = config.fingerprint()
    rules = config.load_rules()
    for file in files:
        file.unlink()
    sent = pickle.loads(pickle.dumps(config))
    assert sent.fingerprint() == fingerprint == config.fingerprint()
    assert sent.load_rules() == rules
    for name in config.bot_names:
        assert sent.bot_options(name) == config.bot_options(name)
