"""Strategy configs as every match command reads them: the registry's way (a ``strategy`` key
must name the bot configured), one config per bot and never a silent second, files that are
not UTF-8 named in one line, mahjong A/B matches of configs, and configs refused at once with
--server (the server's bots are configured where they run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.games import rulesets
from arena.games.mahjong.rules import ruleset_path
from arena.matches.mahjong import MatchSpec, build_bots
from bots.mahjong import RandomBot

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
BC_CONFIG = REPO / "configs" / "bots" / "bulls_cows" / "optimal-evader.toml"
SERVER = ["--server", "ws://127.0.0.1:9"]
BASELINE_FILE = ["--baseline-config", "{file}"]  # nothing listens: only a refusal answers at once


def _flat(text: str) -> str:
    return " ".join(text.split())


def _write(directory: Path, name: str, text: str, encoding: str = "utf-8") -> str:
    path = directory / name
    path.write_text(text, encoding=encoding)
    return str(path)


def _refused(args: list[str]) -> str:
    """The one error line of a command that must stop before playing."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    flat = _flat(result.output)
    assert flat.startswith("error: "), flat
    return flat


def _json(args: list[str]) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- liar's dice: one config per strategy at a table ----------------------------------------


def test_a_second_config_for_one_strategy_at_a_table_is_refused(tmp_path: Path) -> None:
    first = _write(tmp_path, "uniform.toml", 'guess = "uniform"\n')
    second = _write(tmp_path, "odds.toml", 'guess = "odds"\n')
    table = ["--bots", "bayes,bayes,probability,type5", "--rules", "liars_dice_party"]
    for clash in ("bayes", "bayes#2"):
        twice = ["--config", f"bayes={first}", "--config", f"{clash}={second}"]
        said = _refused(["match", "liars-dice", *table, "--games", "2", *twice])
        assert f"bayes already has a config ({first})" in said and second in said
        assert "--config bayes#1=FILE --config bayes#2=FILE" in said  # the way to give two
    # The documented form still plays: one config for every copy of the strategy.
    data = _json(
        ["match", "liars-dice", *table, "--games", "2", "--seed", "1", "--config", f"bayes={first}"]
    )
    assert data["bots"] == ["bayes#1", "bayes#2", "probability", "type5"]


def test_each_copy_of_a_strategy_at_a_table_can_play_its_own_config(tmp_path: Path) -> None:
    from arena.matches.liars_dice import in_process_seats
    from arena.transports.inprocess import InProcessSeat
    from bots.liars_dice import LiarsDiceBot
    from bots.liars_dice.random_guess import RandomGuess

    uniform = _write(tmp_path, "uniform.toml", 'guess = "uniform"\n')
    odds = _write(tmp_path, "odds.toml", 'guess = "odds"\n')
    args = ["match", "liars-dice", "--bots", "bayes,type5,bayes", "--games", "6", "--seed", "1"]
    data = _json([*args, "--config", f"bayes#1={uniform}", "--config", f"bayes#2={odds}"])
    assert data["bots"] == ["bayes#1", "type5", "bayes#2"]
    configs = {"bayes#1": {"guess": "uniform"}, "bayes#2": {"guess": "odds"}}
    _, seats = in_process_seats(["bayes", "type5", "bayes"], "1", configs)
    bots = [seat.bot for seat in seats if isinstance(seat, InProcessSeat)]
    first, _, second = (bot.strategy for bot in bots if isinstance(bot, LiarsDiceBot))
    assert isinstance(first, RandomGuess) and isinstance(second, RandomGuess)
    assert first.odds is None and second.odds is not None  # uniform guess, odds guess
    said = _refused([*args, "--config", f"bayes#3={odds}"])
    assert "'bayes#3' is not one of the bots at the table" in said


# -- liar's dice: configs read as leagues and `bots run --config` read them ------------------


def test_a_config_naming_its_strategy_is_taken_by_the_duel_and_the_gauntlet(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "bayes-odds.toml", 'strategy = "bayes"\nguess = "odds"\n')
    duel = ["match", "liars-dice", "--a", "bayes", "--config-a", path, "--b", "random-guess"]
    assert _json([*duel, "--games", "2", "--seed", "1"])["games"] == 2
    gauntlet = ["liars-dice", "gauntlet", "--bot", "bayes", "--config", path, "--games", "1"]
    data = _json([*gauntlet, "--opponents", "type5", "--driver", "direct"])
    assert [row["opponent"] for row in data["results"]] == ["type5"]


def test_a_config_of_another_strategy_is_refused_naming_the_file_and_its_strategy() -> None:
    args = ["match", "liars-dice", "--a", "bayes", "--config-a", str(BC_CONFIG)]
    said = _refused([*args, "--b", "random-guess", "--games", "2"])
    assert str(BC_CONFIG) in said and "'optimal'" in said and "'bayes'" in said
    assert "unknown liar's dice bot option" not in said


# -- files that are not UTF-8 -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["match", "liars-dice", "--a", "bayes", "--config-a", "{file}", "--b", "random-guess"],
        ["liars-dice", "gauntlet", "--bot", "bayes", "--config", "{file}", "--driver", "direct"],
        ["liars-dice", "gauntlet", "--bot", "bayes", "--baseline", "bayes", *BASELINE_FILE],
        ["match", "liars-dice", "--a", "bayes", "--b", "random-guess", "--rules", "{file}"],
        ["match", "liars-dice", "--bots", "bayes,type5,type9", "--config", "bayes={file}"],
        ["match", "bulls-cows", "--a", "{file}", "--b", "optimal"],
        ["match", "mahjong", "--bots", "greedy,random", "--layout", "ab", "--ruleset", "{file}"],
        ["match", "mahjong", "--bots", "greedy,random", "--layout", "ab", "--config-b", "{file}"],
        ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--config", "greedy={file}"],
    ],
    ids=[
        "liars-dice --config-a",
        "gauntlet --config",
        "gauntlet --baseline-config",
        "liars-dice --rules",
        "liars-dice table --config",
        "bulls-cows --a",
        "mahjong --ruleset",
        "mahjong --config-b",
        "mahjong --config",
    ],
)
def test_a_file_that_is_not_utf8_is_one_line_naming_it(tmp_path: Path, args: list[str]) -> None:
    # A legacy code page (Big5, a Windows "ANSI" file): UTF-16 with its mark is read as such.
    path = _write(tmp_path, "big5.toml", '# 最佳\nstrategy = "optimal"\n', encoding="cp950")
    said = _refused([arg.replace("{file}", path) for arg in args] + ["--games", "2"])
    assert path in said and "utf-8" in said.lower()


def test_a_ruleset_directory_with_a_file_that_is_not_utf8_still_lists_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "broken.toml", '# 規則\ngame = "mahjong"\n', encoding="cp950")
    _write(tmp_path, "fine.toml", 'game = "mahjong"\n')
    monkeypatch.setattr(rulesets, "RULESET_DIR", tmp_path)
    with pytest.raises(rulesets.RulesetError, match=r"known: fine$"):
        ruleset_path("nosuch")


# -- mahjong: A/B matches of strategy configs -------------------------------------------------


def _record_players(directory: Path) -> list[str]:
    (record,) = directory.glob("*.jsonl")
    first = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
    players: list[str] = first["players"]
    return players


def test_an_ab_mahjong_match_of_two_configs_of_one_strategy_shows_each(tmp_path: Path) -> None:
    slow = _write(tmp_path, "greedy-slow.toml", 'strategy = "greedy"\nthink_ms = 0.01\n')
    plain = _write(tmp_path, "greedy-plain.toml", "think_ms = 0\n")
    args = ["match", "mahjong", "--bots", "greedy,greedy", "--layout", "ab", "--games", "4"]
    args += ["--seed", "1", "--config-a", slow, "--config-b", plain]
    data = _json([*args, "--record", str(tmp_path / "records")])
    assert [(p["bot"], p["strategy"], p["config"]) for p in data["players"]] == [
        ("greedy-slow", "greedy", slow),
        ("greedy-plain", "greedy", plain),
    ]
    # The record says which config each player played, as a 1A2B record names its bots.
    assert _record_players(tmp_path / "records") == [
        "greedy-slow-0",
        "greedy-plain-1",
        "greedy-slow-2",
        "greedy-plain-3",
    ]
    shown = _flat(runner.invoke(app, args).output)
    assert f"greedy-slow: greedy with config {slow}" in shown
    # Without configs nothing changes: a program is its strategy, with no config keys.
    bare = _json(["match", "mahjong", "--bots", "greedy,random", "--layout", "ab", "--games", "4"])
    assert [set(p) & {"strategy", "config"} for p in bare["players"]] == [set(), set()]


def test_a_rotate_mahjong_match_takes_a_config_per_strategy_or_per_program(
    tmp_path: Path,
) -> None:
    seeded = _write(tmp_path, "rnd.toml", 'seed = "mine"\n')
    args = ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--games", "4"]
    data = _json([*args, "--config", f"random={seeded}"])
    assert [(p["bot"], p.get("config")) for p in data["players"]] == [
        ("greedy-0", None),
        ("rnd-1", seeded),
        ("greedy-2", None),
        ("rnd-3", seeded),
    ]
    one = _json([*args, "--config", f"random-3={seeded}"])
    assert [p["bot"] for p in one["players"]] == ["greedy-0", "random", "greedy-2", "rnd"]


def test_an_in_process_mahjong_bot_gets_its_config_seed_from_the_match_seed() -> None:
    from arena.matches.mahjong import ProgramConfig

    config = ProgramConfig("rnd.toml", {"seed": "mine"})
    spec = MatchSpec(("random", "greedy"), "match", 4, layout="ab", configs=(config, None))
    bots = build_bots(spec)
    assert [bot.name for bot in bots] == ["rnd-0", "greedy-1", "rnd-2", "greedy-3"]
    match_seed = MatchSeed.from_text("match")
    for bot in (bots[0], bots[2]):
        assert isinstance(bot, RandomBot)
        derived = match_seed.derive("bots", bot.name, "config-seed:mine").hex()
        assert bot.seed == MatchSeed.from_text(derived)
        assert bot.seed not in (match_seed, MatchSeed.from_text("mine"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--config-a", "{slow}"], "--config-a/--config-b are for --layout ab"),
        (["--config", "greedy={slow}", "--config", "greedy-0={slow}"], "given two configs"),
        (["--config", "nosuch={slow}"], "'nosuch' is not one of --bots"),
        (["--config", "greedy"], "--config takes BOT=FILE"),
        (["--config", "random={slow}"], "configures the 'greedy' bot"),
        (["--config", "greedy={bad}"], "--config greedy={bad}: the greedy mahjong bot takes"),
        (["--config", "greedy={slow}", *SERVER], "with --server name bots connected there"),
    ],
)
def test_a_mahjong_config_that_cannot_be_played_is_refused_before_the_match(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    files = {
        "slow": _write(tmp_path, "slow.toml", 'strategy = "greedy"\nthink_ms = 1\n'),
        "bad": _write(tmp_path, "bad.toml", "depth = 2\n"),
    }
    args = ["match", "mahjong", "--bots", "greedy,random,greedy,random", "--games", "4"]
    said = _refused(args + [arg.format(**files) for arg in extra])
    assert message.format(**files) in said


def test_mahjong_ab_takes_its_configs_by_side(tmp_path: Path) -> None:
    args = ["match", "mahjong", "--bots", "greedy,random", "--layout", "ab", "--games", "4"]
    path = _write(tmp_path, "slow.toml", "think_ms = -1\n")
    assert f"--config-a {path}: think_ms must be" in _refused([*args, "--config-a", path])
    assert "--layout ab takes --config-a/--config-b" in _refused(
        [*args, "--config", f"greedy={path}"]
    )
    # A config file in --bots stands for its strategy (as --a FILE does in the other games);
    # one that is not there is named.
    said = _refused(["match", "mahjong", "--bots", "greedy.toml,random", "--layout", "ab"])
    assert said == "error: --bots: cannot read bot config greedy.toml: No such file or directory"


# -- 1A2B: a config path with --server, config errors by side ---------------------------------


def test_a_1a2b_config_path_with_server_is_refused_at_once() -> None:
    args = ["match", "bulls-cows", "--a", "bcA", "--b", str(BC_CONFIG), *SERVER]
    said = _refused(args)
    assert f"--b {BC_CONFIG}" in said and "bots run --config" in said


def test_a_1a2b_config_error_names_the_side_and_the_file(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.toml", 'strategy = "optimal"\nanswerer = "sly"\n')
    said = _refused(["match", "bulls-cows", "--a", "optimal", "--b", bad, "--games", "2"])
    assert said == f"error: --b {bad}: answerer: must be one of fixed, evader"


def test_the_shipped_mahjong_config_plays_the_readme_example_exactly_even() -> None:
    """README's A/B example of two configs of one strategy, with the shipped greedy-slow: its
    thinking never changes a decision, so the duplicate layout scores both sides the same."""
    shipped = REPO / "configs" / "bots" / "mahjong" / "greedy-slow.toml"
    args = ["match", "mahjong", "--bots", "greedy,greedy", "--layout", "ab", "--games", "8"]
    data = _json([*args, "--seed", "1", "--config-a", str(shipped)])
    slow, plain = data["players"]
    assert (slow["bot"], slow["strategy"], plain["bot"]) == ("greedy-slow", "greedy", "greedy")
    assert slow["points"] == plain["points"] == 0
