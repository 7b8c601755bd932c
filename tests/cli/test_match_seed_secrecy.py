"""The secrecy of a match seed at the command line: a text seed is refused with --server (the
bots see its commitment and could guess it), a fresh seed is shown only when the match is over
(its commitment before), and in-process mahjong bots play seeds derived from the match seed,
never from their public names."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import arena.cli.bulls_cows
import arena.cli.common as common
import arena.cli.liars_dice
import arena.cli.mahjong_match
import arena.matches.bot_seeds as bot_seeds
import arena.matches.bulls_cows
import bots.cli as bots_cli
from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.matches.mahjong import MatchSpec, build_bots
from bots.mahjong import RandomBot

runner = CliRunner()
SERVER = ["--server", "ws://127.0.0.1:9"]  # nothing listens there: only a refusal answers
SECRET = "5a" * 32

SERVER_COMMANDS = {
    "mahjong": ["match", "mahjong", "--bots", "g1,g2,g3,g4", "--games", "4"],
    "liars-dice duel": ["match", "liars-dice", "--a", "a", "--b", "b", "--games", "2"],
    "liars-dice table": ["match", "liars-dice", "--bots", "a,b,c", "--games", "2"],
    "bulls-cows": ["match", "bulls-cows", "--a", "a", "--b", "b", "--games", "2"],
}


# -- 1. a seed a bot could guess is refused on a server -------------------------------------------


@pytest.mark.parametrize("seed", ["5", "test", "5a" * 31 + "5", "zz" * 32, SECRET + "x"])
@pytest.mark.parametrize("command", sorted(SERVER_COMMANDS))
def test_a_text_seed_on_a_server_is_refused_in_one_line_before_anything_else(
    command: str, seed: str
) -> None:
    result = runner.invoke(app, [*SERVER_COMMANDS[command], *SERVER, "--seed", seed])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: --seed {seed!r}: a match on a server needs a secret seed")
    # Why, and the two ways out.
    assert "the bots see its commitment" in line
    assert "leave out --seed" in line and "64 hex digits" in line


def test_a_secret_seed_passes_and_a_text_seed_still_plays_in_process() -> None:
    url = "ws://127.0.0.1:9"
    common.refuse_public_seed_on_server(SECRET, url)
    common.refuse_public_seed_on_server(SECRET.upper(), url)
    common.refuse_public_seed_on_server(None, url)  # a fresh secret is drawn
    common.refuse_public_seed_on_server("5", None)  # in-process: no bot sees a commitment
    args = ["match", "mahjong", "--bots", "greedy,greedy,greedy,greedy", "--games", "1"]
    result = runner.invoke(app, [*args, "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seed"] == "5"


# -- 2. a fresh seed: its commitment at the start, itself at the end -------------------------------


def _stderr_so_far() -> str:
    sys.stderr.flush()
    buffer = sys.stderr.buffer
    assert hasattr(buffer, "getvalue"), "run under CliRunner"
    return bytes(buffer.getvalue()).decode()


def _spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, seen: list[str]) -> None:
    """Replace the coroutine function ``module.name`` by one that notes the command's standard
    error when the match starts, then plays it."""
    played: Callable[..., Any] = getattr(module, name)

    async def spied(*args: Any, **kwargs: Any) -> Any:
        seen.append(_stderr_so_far())
        return await played(*args, **kwargs)

    monkeypatch.setattr(module, name, spied)


IN_PROCESS = {
    "mahjong": (
        ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--games", "4"],
        arena.cli.mahjong_match,
        "play_match",
    ),
    "liars-dice duel": (
        ["match", "liars-dice", "--a", "probability", "--b", "type9", "--games", "2"],
        arena.cli.liars_dice,
        "run_match",
    ),
    "liars-dice table": (
        ["match", "liars-dice", "--bots", "probability,type9,type5", "--games", "6"],
        arena.cli.liars_dice,
        "run_table",
    ),
    "bulls-cows": (
        ["match", "bulls-cows", "--a", "optimal", "--b", "random", "--games", "2"],
        arena.matches.bulls_cows,
        "play_series",
    ),
}


@pytest.mark.parametrize("json_output", [False, True])
@pytest.mark.parametrize("command", sorted(IN_PROCESS))
def test_a_fresh_seed_shows_its_commitment_first_and_itself_only_once_the_match_is_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str, json_output: bool
) -> None:
    args, module, name = IN_PROCESS[command]
    seen: list[str] = []
    _spy(monkeypatch, module, name, seen)
    extra = ["--json"] if json_output else []
    result = runner.invoke(app, [*args, *extra, "--record", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    (seed,) = [line.removeprefix("seed: ") for line in lines if line.startswith("seed: ")]
    commitment = MatchSeed.from_hex(seed).commitment()
    (before,) = seen
    assert f"seed commitment: {commitment}" in before
    assert seed not in before, "the seed was shown while the match was played"
    # The commitment shown is the one the bots were sent, so the seed shown can be checked.
    (record,) = tmp_path.glob("*.jsonl")
    assert json.loads(record.read_text().splitlines()[0])["seed_commitment"] == commitment
    if json_output:
        data = json.loads(result.stdout)
        assert data.get("seed", seed) == seed  # what JSON names a seed names this one


def test_a_given_seed_is_shown_neither_at_the_start_nor_again_at_the_end() -> None:
    args, _, _ = IN_PROCESS["liars-dice duel"]
    result = runner.invoke(app, [*args, "--seed", SECRET])
    assert result.exit_code == 0, result.output
    assert "seed commitment:" not in result.stderr and "seed: " not in result.stderr


def test_a_match_stopped_by_an_error_shows_its_fresh_seed_before_the_error_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def lost(*_args: Any, **_kwargs: Any) -> None:
        common.fail("the match stopped")

    monkeypatch.setattr(arena.cli.liars_dice, "run_match", lost)
    args, _, _ = IN_PROCESS["liars-dice duel"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("seed commitment: ")
    assert lines[-1] == "error: the match stopped"
    assert lines[-2].startswith("seed: ")


# -- 3. in-process mahjong bots: seeds derived from the match seed ---------------------------------


def test_in_process_random_mahjong_bots_play_seeds_derived_from_the_match_seed() -> None:
    spec = MatchSpec(("greedy", "random", "random", "greedy"), "5", games=4)
    built = build_bots(spec)
    randoms = [bot for bot in built if isinstance(bot, RandomBot)]
    assert [bot.name for bot in randoms] == ["random-1", "random-2"]
    match_seed = MatchSeed.from_text("5")
    for bot in randoms:
        # Not its public name (anyone could rebuild it), nor the match seed (every deal).
        assert bot.seed not in (MatchSeed.from_text(bot.name), match_seed)
        # The derivation of every other game, and of `bots run` given the same seed and name.
        assert bot.seed.hex() == bot_seeds.bot_options(match_seed, bot.name, {})["seed"]
        ran = bots_cli.build_bots("random", "mahjong", {}, bot.name, match_seed)["mahjong"]
        assert isinstance(ran, RandomBot) and ran.seed == bot.seed
    assert randoms[0].seed != randoms[1].seed
    other = build_bots(MatchSpec(spec.bots, "6", games=4))
    assert [b.seed for b in other if isinstance(b, RandomBot)] != [b.seed for b in randoms]


def test_a_random_mahjong_match_still_verifies_and_replays_from_its_seed(tmp_path: Path) -> None:
    args = ["match", "mahjong", "--bots", "random,greedy,random,random", "--games", "4"]
    args += ["--seed", "5", "--json"]
    first = runner.invoke(app, [*args, "--record", str(tmp_path)])
    assert first.exit_code == 0, first.output
    (record,) = tmp_path.glob("*.jsonl")
    verified = runner.invoke(app, ["verify", str(record)])
    assert verified.exit_code == 0, verified.output
    again = runner.invoke(app, args)
    # The same games; only the record written (none the second time) and the time differ.
    assert {**json.loads(again.stdout), "record": None, "seconds": 0} == {
        **json.loads(first.stdout),
        "record": None,
        "seconds": 0,
    }
