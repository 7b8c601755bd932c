"""A match record is named after its seed and its set-up (`arena.cli.common.lineup_tag`): an
A/B comparison of two configs on one seed keeps both records, an edited config writes a new one,
and the same command again replaces its own record (the same games)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.common import lineup_tag, record_path
from arena.cli.main import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
GREEDY_SLOW = REPO / "configs/bots/mahjong/greedy-slow.toml"
BAYES_ODDS = REPO / "configs/bots/liars_dice/bayes-odds.toml"
FREQUENCY_FIXED = REPO / "configs/bots/bulls_cows/frequency-fixed.toml"

MAHJONG = ["match", "mahjong", "--layout", "ab", "--games", "4", "--seed", "1"]
DUEL = ["match", "liars-dice", "--games", "2", "--seed", "1"]
BULLS_COWS = ["match", "bulls-cows", "--games", "2", "--seed", "1"]

COMPARISONS = {
    "mahjong": (
        [*MAHJONG, "--bots", "greedy,greedy"],
        [*MAHJONG, "--bots", "greedy,greedy", "--config-a", str(GREEDY_SLOW)],
    ),
    "liars-dice": (
        [*DUEL, "--a", "bayes", "--b", "bayes"],
        [*DUEL, "--a", "bayes", "--b", "bayes", "--config-a", str(BAYES_ODDS)],
    ),
    "bulls-cows": (
        [*BULLS_COWS, "--a", "frequency", "--b", "random"],
        [*BULLS_COWS, "--a", str(FREQUENCY_FIXED), "--b", "random"],
    ),
}


def _play(args: list[str], directory: Path) -> str:
    result = runner.invoke(app, [*args, "--record", str(directory)])
    assert result.exit_code == 0, result.output
    return result.stderr


@pytest.mark.parametrize("game", list(COMPARISONS))
def test_two_set_ups_on_one_seed_keep_both_records(tmp_path: Path, game: str) -> None:
    plain, configured = COMPARISONS[game]
    for args in (plain, configured):
        said = _play(args, tmp_path)
        assert "note: replaced" not in said
    assert len(list(tmp_path.glob("*.jsonl"))) == 2
    # The same command again names its own record again and replaces it, saying so.
    said = _play(configured, tmp_path)
    assert "note: replaced" in said and "same set-up on the same seed" in said
    assert len(list(tmp_path.glob("*.jsonl"))) == 2


def test_an_edited_config_writes_a_new_record(tmp_path: Path) -> None:
    config = tmp_path / "mine.toml"
    config.write_text('guess = "odds"\npsychology = 0.5\n', encoding="utf-8")
    args = [*DUEL, "--a", "bayes", "--b", "random-guess", "--config-a", str(config)]
    _play(args, tmp_path / "records")
    config.write_text('guess = "odds"\npsychology = 0.25\n', encoding="utf-8")
    said = _play(args, tmp_path / "records")
    assert "note: replaced" not in said
    assert len(list((tmp_path / "records").glob("liars-dice-duel-1-bayes-random-guess-*"))) == 2


def test_the_lineup_names_the_players_and_hashes_the_rest() -> None:
    tag = lineup_tag(["greedy", "greedy/x y"], {"games": 4})
    names, digest = tag.rsplit("-", 1)
    assert names == "greedy-greedy_x_y" and len(digest) == 8
    assert lineup_tag(["greedy", "greedy/x y"], {"games": 5}) != tag
    assert lineup_tag(["greedy/x y", "greedy"], {"games": 4}) != tag  # who is A matters
    assert record_path(Path("r"), "mahjong", "1", tag) == Path(f"r/mahjong-1-{tag}.jsonl")
    assert record_path(Path("r"), "mahjong", "1") == Path("r/mahjong-1.jsonl")
