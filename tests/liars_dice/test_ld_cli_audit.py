"""The liar's dice CLI audit: Ctrl-C at the play prompt, tables files per name, a tables
directory that cannot be written, user text in rich output, duplicate opponents and an empty
seed in the gauntlet, Ctrl-C in the bench."""

from __future__ import annotations

import errno
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from bots.liars_dice import Bayes, OpponentModel
from bots.liars_dice.opponent_model import model_path, save_model
from tests.leagues.test_league_interrupt import CLI, WAIT_S
from tests.liars_dice.test_ld_cli import _config

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- 1. Ctrl-C at the move prompt leaves like q ----------------------------------------------


def _read_until(process: subprocess.Popen[bytes], text: bytes) -> bytes:
    """What the process wrote on stdout up to ``text``: the signal must come while it waits
    for the person, not before."""
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + WAIT_S
    while text not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or process.poll() is not None:
            process.kill()
            pytest.fail(f"no {text!r} on stdout within {WAIT_S:.0f} s: {seen!r}")
        ready, _, _ = select.select([process.stdout], [], [], min(left, 1.0))
        if ready:
            seen += os.read(process.stdout.fileno(), 4096)
    return seen


def test_the_first_ctrl_c_at_the_prompt_leaves_like_q(tmp_path: Path) -> None:
    command = [sys.executable, "-c", CLI, "liars-dice", "play", "--games", "5", "--seed", "s3"]
    process = subprocess.Popen(
        [*command, "--against", "probability"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,  # kept open: the person types nothing
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    shown = _read_until(process, b"your move (? for help): ")
    process.send_signal(signal.SIGINT)
    try:
        # stdin stays open: the end of input would leave the table too, and hide a lost Ctrl-C.
        process.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the first Ctrl-C at the prompt did not leave the table")
    out, err = process.communicate()
    text = (shown + out).decode()
    assert process.returncode == 0, err.decode()
    assert "No game finished (you left early)" in text
    assert "match seed: s3" in text
    assert b"Traceback" not in err


# -- 2. a tables file per name -----------------------------------------------------------------


def test_names_that_differ_never_share_a_tables_file(tmp_path: Path) -> None:
    names = ["小明", "小華", "a/b", "a_b", "a b", "", "x" * 300]
    paths = [model_path(tmp_path, name) for name in names]
    assert len(set(paths)) == len(names)
    # A name that is already safe keeps its file, so the tables saved before still load.
    assert model_path(tmp_path, "type5").name == "type5.json"
    assert model_path(tmp_path, "a_b").name == "a_b.json"
    assert all(len(path.name) < 100 for path in paths)


def _learnt(name: str, games: int) -> OpponentModel:
    return OpponentModel(opponent=name, games=games)


def test_bayes_never_plays_one_person_with_anothers_tables(tmp_path: Path) -> None:
    save_model(_learnt("小明", 3), model_path(tmp_path, "小明"))
    bayes = Bayes(tables_dir=tmp_path)
    assert bayes.model_for("小明").games == 3
    assert bayes.model_for("小華").games == 0


def test_tables_saved_under_the_old_shared_name_load_only_for_their_player(
    tmp_path: Path,
) -> None:
    legacy = tmp_path / "__.json"  # where an older arena saved 小明's, 小華's … tables
    save_model(_learnt("小明", 4), legacy)
    bayes = Bayes(tables_dir=tmp_path)
    assert bayes.model_for("小華").games == 0
    assert bayes.model_for("小明").games == 4


def test_a_file_holding_another_players_tables_is_neither_used_nor_overwritten(
    tmp_path: Path,
) -> None:
    path = model_path(tmp_path, "小華")
    save_model(_learnt("小明", 5), path)  # copied by hand under the wrong name
    before = path.read_text(encoding="utf-8")
    bayes = Bayes(tables_dir=tmp_path)
    assert bayes.model_for("小華") == OpponentModel(opponent="小華")
    assert "小華" in bayes._unsaved
    assert path.read_text(encoding="utf-8") == before


PLAY = ["liars-dice", "play", "--games", "2"]


def test_two_people_learnt_through_play_are_shown_apart(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    config = _config(tmp_path, f'tables_dir = "{tables}"\n')
    for name, seed in (("小明", "a"), ("小華", "b")):
        result = runner.invoke(
            app,
            [*PLAY, "--seed", seed, "--name", name, "--config", f"bayes={config}"],
            input="2 3\nc\n" * 6,
        )
        assert result.exit_code == 0, result.output
    shown = runner.invoke(app, ["liars-dice", "model", str(tables), "--json"])
    assert shown.exit_code == 0, shown.output
    assert sorted(model["opponent"] for model in json.loads(shown.stdout)["models"]) == [
        "小明",
        "小華",
    ]


# -- 3. a tables directory that cannot be written ------------------------------------------------

GAUNTLET = ["liars-dice", "gauntlet", "--bot", "bayes"]
UNWRITABLE = 'tables_dir = "/proc/no-such-dir"\n'


@pytest.mark.parametrize(
    "args",
    [
        ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "2", "--opponents", "type1"],
        ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "2", "--driver", "direct"],
        ["match", "liars-dice", "--a", "bayes", "--b", "type1", "--games", "2", "--config-a"],
        ["match", "liars-dice", "--bots", "bayes,type1", "--games", "2", "--config"],
        ["liars-dice", "play", "--games", "2", "--config"],
    ],
)
def test_a_tables_dir_that_cannot_be_made_is_refused_before_any_game(
    tmp_path: Path, args: list[str]
) -> None:
    path = _config(tmp_path, UNWRITABLE)
    if args[-1] == "--config" and "gauntlet" not in args:
        path = f"bayes={path}"
    if "gauntlet" in args:
        args = [*args, "--config"]
    result = runner.invoke(app, [*args, path], input="q\n")
    assert result.exit_code == 2, result.output
    assert "tables_dir /proc/no-such-dir: cannot make that directory" in _flat(result.output)
    assert "Traceback" not in result.output
    assert "personalities" not in result.output and "A match of" not in result.output


def test_a_missing_tables_dir_is_made_up_front(tmp_path: Path) -> None:
    tables = tmp_path / "new" / "tables"
    Bayes(tables_dir=tables)
    assert tables.is_dir() and list(tables.iterdir()) == []  # no probe left behind


@pytest.mark.parametrize(
    "args",
    [
        [*GAUNTLET, "--opponents", "type1,type2", "--config"],
        [*GAUNTLET, "--opponents", "type1", "--driver", "direct", "--config"],
        ["match", "liars-dice", "--bots", "bayes,type1", "--config"],
    ],
)
def test_a_save_that_fails_later_stops_the_command_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    path = _config(tmp_path, f'tables_dir = "{tmp_path / "tables"}"\n')
    if "match" in args:
        path = f"bayes={path}"

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("bots.liars_dice.bayes.save_model", full)
    result = runner.invoke(app, [*args, path, "--games", "40", "--seed", "1"])
    assert result.exit_code == 2, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("error: bayes cannot save its tables of 'type1'"), result.output
    assert "No space left on device" in last
    assert "Traceback" not in result.output


# -- 4. user text is not rich markup -----------------------------------------------------------


def test_seeds_and_names_are_shown_as_typed_not_read_as_markup(tmp_path: Path) -> None:
    gauntlet = ["liars-dice", "gauntlet", "--games", "2", "--opponents", "type1", "--seed"]
    crashed = runner.invoke(app, [*gauntlet, "[/]"])
    assert crashed.exit_code == 0, crashed.output
    assert "(seed [/])" in crashed.stdout
    shown = runner.invoke(app, [*gauntlet, "run[red]2"])
    assert "(seed run[red]2)" in shown.stdout

    table = ["match", "liars-dice", "--bots", "bayes,type1", "--games", "2", "--seed", "run[/x]"]
    result = runner.invoke(app, table)
    assert result.exit_code == 0, result.output
    assert "(seed run[/x])" in _flat(result.stdout)

    targets = ["liars-dice", "targets", "--games", "1", "--seeds", "s[/]"]
    result = runner.invoke(app, targets)
    assert result.exit_code == 0, result.output
    assert "seeds s[/]" in _flat(result.stdout)

    play = ["liars-dice", "play", "--games", "1", "--seed", "x", "--name", "[red]bob"]
    result = runner.invoke(app, play, input="p\nq\n")
    assert result.exit_code == 0, result.output
    assert "[red]bob: 0 games learnt" in result.output


# -- 5. the gauntlet's opponents and seed --------------------------------------------------------


def test_a_personality_named_twice_is_refused() -> None:
    args = ["liars-dice", "gauntlet", "--games", "3", "--opponents", "type1,type2,type1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert _flat(result.output) == "error: --opponents names type1 more than once; name each once"


def test_an_empty_seed_is_the_text_seed_as_in_a_match() -> None:
    gauntlet = ["liars-dice", "gauntlet", "--games", "3", "--opponents", "type1", "--json"]
    empty = runner.invoke(app, [*gauntlet, "--seed", ""])
    assert empty.exit_code == 0, empty.output
    assert json.loads(empty.stdout)["seed"] == ""
    default = json.loads(runner.invoke(app, gauntlet).stdout)
    assert default["seed"] == "1"
    shown = runner.invoke(app, [*gauntlet[:-1], "--seed", ""])
    assert "(seed '')" in shown.stdout


# -- 6. Ctrl-C in the bench ----------------------------------------------------------------------


def test_ctrl_c_in_the_bench_is_one_line_and_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("arena.cli.liars_dice_bench.run_bench", interrupted)
    result = runner.invoke(app, ["bench", "liars-dice", "--games", "1"])
    assert result.exit_code == 130
    assert result.output.strip().splitlines()[-1].startswith("error: interrupted")


def test_a_duel_stops_when_bayes_cannot_save_its_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee's in-process seat swallows a bot's exception; the duel looks for a failed
    save after each game and stops with it rather than play on learning into nothing."""
    import asyncio

    import bots.liars_dice.bayes as bayes_module
    from arena.matches.liars_dice_series import run_match
    from bots.liars_dice.opponent_model import TablesSaveError

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bayes_module, "save_model", refuse)
    with pytest.raises(TablesSaveError, match="No space left on device"):
        asyncio.run(
            run_match("bayes", "type5", 6, "full-disk", config_a={"tables_dir": str(tmp_path)})
        )
