"""Findings of the CLI audit on records, options and wording: each bad input is one `error:`
line (exit 2) naming the path or option and the reason, never a traceback or click's usage box,
and no finished game is lost to a record that cannot be written."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import arena.cli.liars_dice_play as liars_dice_play
import arena.matches.liars_dice_series as liars_dice_series
from arena.cli.main import app
from arena.replay import check_record

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
TYPED = "\n".join(["c", "2 2"] * 30) + "\n"  # "c" when a bid stands, "2 2" when the person opens
PLAY = ["liars-dice", "play", "--against", "probability", "--games", "2", "--seed", "s"]

MATCHES = {
    "bulls-cows": (["match", "bulls-cows", "--a", "random", "--b", "random"], "bulls-cows"),
    "liars-dice duel": (
        ["match", "liars-dice", "--a", "random-guess", "--b", "type1"],
        "liars-dice-duel",
    ),
    "liars-dice table": (
        ["match", "liars-dice", "--bots", "random-guess,type1"],
        "liars-dice-table",
    ),
    "mahjong": (["match", "mahjong", "--bots", "greedy,random", "--layout", "ab"], "mahjong"),
}


def record_name(args: list[str], scratch: Path, typed: str | None = None) -> str:
    """The name the record of ``args`` takes (it depends on the bots and their set-up), learnt
    by playing it once into ``scratch``."""
    played = runner.invoke(app, [*args, "--record", str(scratch)], input=typed)
    assert played.exit_code == 0, played.output
    (written,) = scratch.glob("*.jsonl")
    return written.name


def one_error(result: Any) -> str:
    """The single `error:` line of a refused command (exit 2), with nothing else said."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "Usage:" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return str(lines[0])


# -- H2, M1: a record whose name a directory has taken ---------------------------------------


@pytest.mark.parametrize("kind", list(MATCHES))
def test_a_record_name_taken_by_a_directory_is_refused_before_the_match(
    tmp_path: Path, kind: str
) -> None:
    args, prefix = MATCHES[kind]
    args = [*args, "--games", "2", "--seed", "s"]
    taken = tmp_path / "records" / record_name(args, tmp_path / "scratch")
    assert taken.name.startswith(f"{prefix}-s-")
    taken.mkdir(parents=True)
    result = runner.invoke(app, [*args, "--record", str(taken.parent), "--json"])
    line = one_error(result)
    assert line == (
        f"error: --record {taken.parent}: {taken} is a directory, so the record cannot be written"
    )
    assert result.stdout == ""  # --json: no object, not half of one
    assert [path.name for path in taken.parent.iterdir()] == [taken.name]


def test_play_checks_the_record_name_before_the_first_game(tmp_path: Path) -> None:
    taken = tmp_path / "records" / record_name(PLAY, tmp_path / "scratch", TYPED)
    taken.mkdir(parents=True)
    result = runner.invoke(app, [*PLAY, "--record", str(taken.parent)], input=TYPED)
    line = one_error(result)  # no game was dealt: nothing of a session to lose
    assert line.endswith(f"{taken} is a directory, so the record cannot be written")


def test_play_keeps_the_session_when_its_record_cannot_be_written_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory is replaced by a file while the person plays: the score and seed are
    shown, the record goes to a file in the temporary directory, and the last line says where."""
    directory = tmp_path / "records"
    directory.mkdir()
    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    name = record_name(PLAY, tmp_path / "scratch", TYPED)
    play_session = liars_dice_play.play_session

    async def then_the_directory_goes(*args: Any, **kwargs: Any) -> Any:
        session = await play_session(*args, **kwargs)
        shutil.rmtree(directory)
        directory.write_text("", encoding="utf-8")
        return session

    monkeypatch.setattr(liars_dice_play, "play_session", then_the_directory_goes)
    result = runner.invoke(app, [*PLAY, "--record", str(directory), "--json"], input=TYPED)
    assert result.exit_code == 2, result.output
    assert json.loads(result.stdout)["games"] == 2  # the result is printed all the same
    (kept,) = spare.glob("liars-dice-play-s-*.jsonl")
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        f"error: --record {directory}: cannot write {directory / name}: "
        f"{directory} is a file; the session's record is kept in {kept} instead "
        f"(arena verify {kept})"
    )
    assert check_record(kept).ok


# -- L6: a record replaced by a match on the same seed ----------------------------------------


@pytest.mark.parametrize("kind", ["bulls-cows", "liars-dice duel"])
def test_replacing_a_record_says_so(tmp_path: Path, kind: str) -> None:
    args, prefix = MATCHES[kind]
    command = [*args, "--games", "2", "--seed", "s", "--record", str(tmp_path)]
    first = runner.invoke(app, command)
    assert first.exit_code == 0, first.output
    assert "note: replaced" not in first.stderr
    again = runner.invoke(app, command)
    assert again.exit_code == 0, again.output
    (path,) = tmp_path.glob(f"{prefix}-s-*.jsonl")
    assert (
        f"note: replaced {path}, the record of an earlier match of the same set-up on the same "
        "seed" in again.stderr
    )
    assert "note:" not in again.stdout


def test_play_says_when_it_replaces_a_record(tmp_path: Path) -> None:
    earlier = tmp_path / record_name(PLAY, tmp_path / "scratch", TYPED)
    earlier.write_text("{}\n", encoding="utf-8")
    result = runner.invoke(app, [*PLAY, "--record", str(tmp_path)], input=TYPED)
    assert result.exit_code == 0, result.output
    assert f"note: replaced {earlier}" in result.stderr
    assert check_record(earlier).ok


# -- L11: stopped after the last game ---------------------------------------------------------


def test_an_interrupt_after_the_last_game_says_the_record_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: Any) -> dict[str, Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(liars_dice_series.MatchReport, "to_json", interrupted)
    args, _ = MATCHES["liars-dice duel"]
    result = runner.invoke(
        app, [*args, "--games", "2", "--seed", "s", "--record", str(tmp_path), "--json"]
    )
    assert result.exit_code == 130, result.output
    (record,) = tmp_path.iterdir()
    assert result.stderr.strip().splitlines()[-1] == (
        "error: interrupted before the figures were shown; every game was played and the "
        f"record is complete: {record.resolve()}"
    )
    assert check_record(record).ok


# -- L12, M5, M8: bounds ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bulls-cows", "liars-dice duel"])
def test_a_match_plays_at_most_a_million_games(kind: str) -> None:
    args, _ = MATCHES[kind]
    line = one_error(runner.invoke(app, [*args, "--games", "1000001", "--seed", "s"]))
    assert line == "error: --games must be at most 1000000, got 1000001"


@pytest.mark.parametrize("indent", ["-1", "17", "1000000"])
def test_the_schema_indentation_is_bounded(indent: str) -> None:
    line = one_error(runner.invoke(app, ["protocol", "schema", "--indent", indent]))
    assert line == f"error: --indent must lie between 0 and 16, got {indent}"


def test_the_schema_takes_an_indentation_in_bounds() -> None:
    result = runner.invoke(app, ["protocol", "schema", "--indent", "0"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)


def test_the_dealing_bench_needs_the_deals_of_a_bridge_audit() -> None:
    line = one_error(runner.invoke(app, ["bench", "dealing", "--deals", "259", "--json"]))
    assert line == "error: --deals must be at least 260, got 259"


# -- M7, L8: league options -------------------------------------------------------------------

LEAGUE = """name = "tiny"
game = "liars-dice"
games = 2
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (["--games", "1000000000000"], "--games: Input should be less than or equal to 1000000"),
        (["--jobs", "100000"], "--jobs: Input should be less than or equal to 256"),
        (["--seed", ""], "--seed: String should have at least 1 character"),
    ],
)
def test_a_bad_league_override_is_blamed_on_its_option(
    tmp_path: Path, override: list[str], message: str
) -> None:
    config = tmp_path / "lg.toml"
    config.write_text(LEAGUE, encoding="utf-8")
    db = tmp_path / "l.sqlite"
    line = one_error(runner.invoke(app, ["league", str(config), "--db", str(db), *override]))
    assert line == f"error: {message}"
    assert not db.exists()


def test_a_bad_key_of_the_file_is_still_blamed_on_the_file(tmp_path: Path) -> None:
    config = tmp_path / "lg.toml"
    config.write_text(LEAGUE.replace("games = 2", "games = 0"), encoding="utf-8")
    line = one_error(
        runner.invoke(app, ["league", str(config), "--db", str(tmp_path / "l.sqlite")])
    )
    assert line == f"error: {config}: games: Input should be greater than or equal to 1"


@pytest.mark.parametrize("show", [True, False])
def test_a_league_results_file_that_is_a_directory_is_named_so(tmp_path: Path, show: bool) -> None:
    config = tmp_path / "lg.toml"
    config.write_text(LEAGUE, encoding="utf-8")
    args = ["league", str(config), "--db", str(tmp_path), *(["--show"] if show else [])]
    line = one_error(runner.invoke(app, args))
    assert line == (
        f"error: --db {tmp_path} is a directory; give the results file (e.g. "
        f"{tmp_path / 'league.sqlite'})"
    )


def test_conflicting_options_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "lg.toml"
    config.write_text(LEAGUE, encoding="utf-8")
    db = tmp_path / "l.sqlite"
    show_restart = ["league", str(config), "--db", str(db), "--show", "--restart"]
    assert "--show" in one_error(runner.invoke(app, show_restart))
    assert not db.exists()
    line = one_error(runner.invoke(app, ["protocol", "doc", "--check", "--write"]))
    assert line == (
        "error: give --check (compare docs/PROTOCOL.md with the code) or --write, not both"
    )


# -- L13: wording -----------------------------------------------------------------------------


def test_a_league_config_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    # Windows editors save UTF-8 with a byte-order mark: the config is read (the error is the
    # one of --show without a results file, past the config), as tests/leagues/
    # test_config_encodings.py checks for every config reader.
    config = tmp_path / "bom.toml"
    config.write_text("\ufeff" + LEAGUE, encoding="utf-8")
    db = tmp_path / "l.sqlite"
    line = one_error(runner.invoke(app, ["league", str(config), "--db", str(db), "--show"]))
    assert line.startswith(f"error: no results file {db}: run the league without --show")


def test_a_league_config_that_cannot_be_read_is_named_once(tmp_path: Path) -> None:
    line = one_error(runner.invoke(app, ["league", str(tmp_path / "none.toml")]))
    assert (
        line
        == f"error: cannot read league config {tmp_path / 'none.toml'}: No such file or directory"
    )


@pytest.mark.parametrize("below", [False, True])
def test_an_output_directory_blocked_by_a_file_names_the_file(tmp_path: Path, below: bool) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    plot = afile / "charts" if below else afile
    line = one_error(runner.invoke(app, ["liars-dice", "gauntlet", "--plot", str(plot)]))
    assert line == f"error: --plot {plot}: cannot make that directory: {afile} is a file"


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_the_summaries_of_replay_and_verify_are_one_paragraph(command: str) -> None:
    """`arena --help` keeps a help text's line breaks: one inside a sentence cuts it there."""
    help_text = typer.main.get_command(app).commands[command].help  # type: ignore[attr-defined]
    assert help_text and "\n" not in help_text
    shown = runner.invoke(app, ["--help"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0
    lines = [line.strip("│ ") for line in shown.output.splitlines()]
    assert not any(line.endswith(("engine; a", "event,", "when one")) for line in lines)


def test_the_model_of_a_missing_path_says_so(tmp_path: Path) -> None:
    line = one_error(runner.invoke(app, ["liars-dice", "model", str(tmp_path / "none")]))
    assert line == f"error: {tmp_path / 'none'} does not exist"
