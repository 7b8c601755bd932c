"""What a strategy tuner ran into with leagues: every pairing replayed after one bot was changed
or added (now a stored match of the same inputs is reused), no way to show a league but through
its config (``--show --id``) or to tell leagues of one name apart (``--list``), a refused
learning bot that left its tables directory behind, winners named for matches that showed no
difference, and bot errors that named a bot otherwise than the docs and stopped at the first."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli.main import app
from arena.leagues.config import LeagueConfig, LeagueConfigError, load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.play import plan_matches
from arena.leagues.runner import LeagueRun, run_league
from arena.leagues.standings import match_lines, standings
from arena.store import ResultStore
from bots.registry import make_bot

REPO = Path(__file__).resolve().parents[2]

DICE_BOTS = """
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
[[bots]]
name = "odds"
bot = "random-guess"
options = { guess = "odds", psychology = 0.3 }
"""

LEAGUES = {
    "liars-dice": 'name = "dice"\ngame = "liars-dice"\ngames = 4\njobs = 1\n' + DICE_BOTS,
    "bulls-cows": (
        'name = "duels"\ngame = "bulls-cows"\ngames = 2\njobs = 1\n'
        'rules = { digits = 2, alphabet = "1234" }\n'
        '[[bots]]\nname = "random"\n[[bots]]\nname = "frequency"\n'
        '[[bots]]\nname = "optimal"\n'
    ),
    "mahjong": (
        'name = "mj"\ngame = "mahjong"\ngames = 4\njobs = 1\n'
        '[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n'
        '[[bots]]\nname = "greedy-2"\nbot = "greedy"\n'
    ),
}
"""A small league of three bots per game."""

EXTRA_BOT = {
    "liars-dice": '[[bots]]\nname = "type5"\n',
    "bulls-cows": '[[bots]]\nname = "entropy"\n',
    "mahjong": '[[bots]]\nname = "random-2"\nbot = "random"\n',
}

runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str, file: str = "league.toml", **overrides: Any) -> LeagueConfig:
    return load_league(write(tmp_path / file, text)).with_overrides(**overrides)


def cli(*args: str | Path) -> Result:
    return runner.invoke(app, ["league", *map(str, args)])


def played(outcome: MatchOutcome) -> tuple[Any, ...]:
    """What a match gave, without how long it took or where its record is."""
    summary = {key: value for key, value in outcome.summary.items() if key != "seconds"}
    return (
        outcome.plan,
        [(g.index, g.unit, g.scores) for g in outcome.games],
        summary,
        outcome.penalties,
    )


def stored(db: Path, config: LeagueConfig) -> list[tuple[Any, ...]]:
    with ResultStore(db, read_only=True) as store:
        league = store.league(config.name, config.fingerprint())
        assert league is not None
        return [played(outcome) for outcome in store.matches(league)]


# -- 1. a league reuses the stored matches that would come out identical ------------------------


@pytest.mark.parametrize("game", sorted(LEAGUES))
def test_a_bot_more_reuses_every_match_it_shares_and_equals_a_fresh_league(
    tmp_path: Path, game: str
) -> None:
    first = load(tmp_path, LEAGUES[game])
    more = load(tmp_path, LEAGUES[game] + EXTRA_BOT[game], "more.toml")
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        run_league(first, store)
        run = run_league(more, store)
    shared = {plan.key for plan in plan_matches(first)}
    assert {match.plan.key for match in run.reused} == shared
    assert run.played == len(plan_matches(more)) - len(shared) and run.complete
    with ResultStore(tmp_path / "fresh.sqlite") as store:
        fresh = run_league(more, store)
    assert not fresh.reused and fresh.played == len(plan_matches(more))
    # Game for game, the same as the league played from scratch, and the same SQLite rows.
    assert stored(db, more) == stored(tmp_path / "fresh.sqlite", more)
    assert [played(o) for o in run.outcomes] == [played(o) for o in fresh.outcomes]


def test_a_changed_bot_replays_only_its_own_matches(tmp_path: Path) -> None:
    text = LEAGUES["liars-dice"]
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        run_league(load(tmp_path, text), store)
        changed = load(tmp_path, text.replace("psychology = 0.3", "psychology = 0.4"), "b.toml")
        run = run_league(changed, store)
    assert [match.plan.key for match in run.reused] == ["random-guess vs probability"]
    assert run.played == 2


@pytest.mark.parametrize(
    "overrides",
    [{"games": 5}, {"seed": "other"}, {"deadline_ms": 9000}, {"bank_ms": 60000}],
)
def test_nothing_is_reused_when_what_decides_every_game_differs(
    tmp_path: Path, overrides: dict[str, Any]
) -> None:
    # ``games`` too: a match's bots live through all its games and are told how many there are,
    # so the first games of a longer match are not reused (docs/LEAGUES.md).
    config = load(tmp_path, LEAGUES["liars-dice"])
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(config, store)
        run = run_league(config.with_overrides(**overrides), store)
    assert run.reused == [] and run.played == 3


def test_other_rules_reuse_nothing(tmp_path: Path) -> None:
    text = LEAGUES["bulls-cows"]
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(load(tmp_path, text), store)
        other = load(tmp_path, text.replace("digits = 2", "digits = 2, max_guesses = 9"), "b.toml")
        assert run_league(other, store).reused == []


def test_the_match_fingerprint_is_of_the_match_alone(tmp_path: Path) -> None:
    config = load(tmp_path, LEAGUES["liars-dice"])
    (plan, *_rest) = plan_matches(config)

    def fingerprint(each: LeagueConfig, seed: str = plan.seed) -> str:
        return each.match_fingerprint(plan.bots, seed)

    same = fingerprint(config)
    # Not the league's name, its other bots, jobs or records.
    renamed = load(tmp_path, LEAGUES["liars-dice"].replace('"dice"', '"dice2"', 1), "n.toml")
    assert fingerprint(renamed) == same
    assert fingerprint(config.with_overrides(jobs=2, records=tmp_path / "rec")) == same
    more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "m.toml")
    assert fingerprint(more) == same
    # Everything a match plays from.
    assert fingerprint(config, plan.seed + "x") != same
    assert config.match_fingerprint(tuple(reversed(plan.bots)), plan.seed) != same
    for changed in ({"games": 5}, {"deadline_ms": 9000}, {"bank_ms": 1000}):
        assert fingerprint(config.with_overrides(**changed)) != same
    option = LEAGUES["liars-dice"].replace(
        'name = "probability"', 'name = "probability"\noptions = { reroll = false }'
    )
    assert fingerprint(load(tmp_path, option, "o.toml")) != same
    ruleset = write(tmp_path / "dice.toml", "[rules]\ndice = 4\n")
    assert fingerprint(config.with_overrides(ruleset=str(ruleset))) != same


def test_a_reused_match_gets_its_own_copy_of_the_record(tmp_path: Path) -> None:
    records = tmp_path / "records"
    first = load(tmp_path, LEAGUES["liars-dice"], records=records)
    more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "m.toml")
    more = more.with_overrides(records=records)
    with ResultStore(tmp_path / "r.sqlite") as store:
        lent = {o.plan.key: o.record for o in run_league(first, store).outcomes}
        run = run_league(more, store)
    assert len(run.reused) == 3
    for outcome in run.outcomes:
        assert outcome.record is not None and Path(outcome.record).is_file()
        if outcome.plan.key in lent:
            source = lent[outcome.plan.key]
            assert source is not None and outcome.record != source
            assert Path(outcome.record).read_bytes() == Path(source).read_bytes()


def test_a_match_whose_record_is_gone_is_played_instead(tmp_path: Path) -> None:
    records = tmp_path / "records"
    first = load(tmp_path, LEAGUES["liars-dice"], records=records)
    more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "m.toml")
    with ResultStore(tmp_path / "r.sqlite") as store:
        (gone, *_kept) = run_league(first, store).outcomes
        assert gone.record is not None
        Path(gone.record).unlink()
        run = run_league(more.with_overrides(records=records), store)
    assert len(run.reused) == 2 and gone.plan.key not in {m.plan.key for m in run.reused}
    assert all(o.record is not None and Path(o.record).is_file() for o in run.outcomes)


def test_a_restart_reuses_nothing(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(load(tmp_path, LEAGUES["liars-dice"]), store)
        more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "m.toml")
        run = run_league(more, store, restart=True)
    assert run.reused == [] and run.played == 6


@pytest.mark.parametrize(
    "edit",
    [
        # What an earlier release could have stored: its config reads back to another
        # fingerprint than it was stored under.
        "UPDATE leagues SET config = json_set(config, '$.contents.bots.odds.options.psychology',"
        " 0.25)",
        # A league played on a server: connected bots, which no config describes.
        "UPDATE leagues SET config = json_set(config, '$.server', 'ws://127.0.0.1:1')",
        # No contents: stored before leagues kept them.
        "UPDATE leagues SET config = json_remove(config, '$.contents')",
    ],
)
def test_a_league_this_release_cannot_vouch_for_lends_nothing(tmp_path: Path, edit: str) -> None:
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        run_league(load(tmp_path, LEAGUES["liars-dice"]), store)
    with sqlite3.connect(db) as connection:
        connection.execute(edit)
    more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "m.toml")
    with ResultStore(db) as store:
        assert run_league(more, store).reused == []


def test_the_cli_says_how_many_matches_it_reused(tmp_path: Path) -> None:
    first = write(tmp_path / "a.toml", LEAGUES["liars-dice"])
    more = write(tmp_path / "b.toml", LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"])
    db = tmp_path / "r.sqlite"
    assert cli(first, "--db", db).exit_code == 0
    result = cli(more, "--db", db)
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert "league 'dice': 3 matches reused from league id 1, not played again" in said
    assert "3 of 6 matches to play, 3 already stored" in said
    assert "3 matches reused from league id 1" in " ".join(result.stdout.split())
    again = json.loads(cli(more, "--db", db, "--json").stdout)
    assert (again["matches_reused"], again["matches_resumed"]) == (0, 6)
    fresh = json.loads(cli(more, "--db", tmp_path / "fresh.sqlite", "--json").stdout)
    assert again["standings"] == fresh["standings"]


def test_json_lists_the_matches_reused(tmp_path: Path) -> None:
    first = write(tmp_path / "a.toml", LEAGUES["liars-dice"])
    more = write(tmp_path / "b.toml", LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"])
    db = tmp_path / "r.sqlite"
    assert cli(first, "--db", db).exit_code == 0
    data = json.loads(cli(more, "--db", db, "--json").stdout)
    assert data["matches_reused"] == 3 and data["matches_played"] == 3
    assert {row["match"] for row in data["reused"]} == {
        "random-guess vs probability",
        "random-guess vs odds",
        "probability vs odds",
    }
    assert {row["from_league_id"] for row in data["reused"]} == {1}


# -- 1b. --show --id, and --list telling leagues apart -----------------------------------------


def test_show_id_shows_a_stored_league_without_its_config(tmp_path: Path) -> None:
    config = write(tmp_path / "a.toml", LEAGUES["liars-dice"])
    db = tmp_path / "r.sqlite"
    assert cli(config, "--db", db, "--games", "2").exit_code == 0
    by_config = json.loads(cli(config, "--db", db, "--games", "2", "--show", "--json").stdout)
    config.unlink()  # the stored league needs no config file
    shown = cli("--db", db, "--show", "--id", "1", "--json")
    assert shown.exit_code == 0, shown.output
    by_id = json.loads(shown.stdout)
    for key in ("league", "games_per_match", "seed", "standings", "matches", "bots"):
        assert by_id[key] == by_config[key], key
    text = cli("--db", db, "--show", "--id", "1")
    assert "league 'dice' (liars-dice, 2 games a match, seed 'dice'): 3/3 matches" in text.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--id", "1"], "give it with --show"),
        (["--show", "--id", "7"], "holds no league of id 7"),
        (["--show", "--id", "1", "--games", "3"], "without --games"),
        (["--show", "--id", "1", "--restart"], "plays nothing: give it without --restart"),
        (["--list", "--id", "1"], "without --id"),
    ],
)
def test_show_id_refuses_what_it_cannot_do(tmp_path: Path, args: list[str], said: str) -> None:
    db = tmp_path / "r.sqlite"
    assert cli(write(tmp_path / "a.toml", LEAGUES["liars-dice"]), "--db", db).exit_code == 0
    result = cli("--db", db, *args)
    assert result.exit_code == 2 and said in result.stderr


def test_show_of_another_config_names_the_show_id_of_a_league_no_override_reaches(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    assert cli(write(tmp_path / "a.toml", LEAGUES["liars-dice"]), "--db", db).exit_code == 0
    more = write(tmp_path / "b.toml", LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"])
    result = cli(more, "--db", db, "--show")
    assert result.exit_code == 2
    assert f"arena league --db {db} --show --id 1 does" in " ".join(result.stderr.split())


def test_list_tells_the_leagues_of_one_name_apart(tmp_path: Path) -> None:
    first = write(tmp_path / "a.toml", LEAGUES["liars-dice"])
    more = write(tmp_path / "b.toml", LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"])
    db = tmp_path / "r.sqlite"
    assert cli(first, "--db", db).exit_code == 0
    assert cli(more, "--db", db).exit_code == 0
    rows = json.loads(cli("--list", "--db", db, "--json").stdout)["leagues"]
    assert "differences" not in rows[0]
    assert (rows[1]["compared_with"], rows[1]["differences"]) == (1, ["bots only here: type5"])
    text = " ".join(cli("--list", "--db", db).stdout.split())
    assert rows[0]["fingerprint"][:8] in text and rows[1]["fingerprint"][:8] in text
    assert "vs id 1: bots only" in text  # the table wraps its cells on a narrow terminal
    # With a config file: how each other league differs from the one it plays.
    mine = json.loads(cli(first, "--list", "--db", db, "--json").stdout)["leagues"]
    assert [row.get("differences") for row in mine] == [None, ["bots only there: type5"]]


# -- 2. a refused config leaves no trace -----------------------------------------------------------


def test_a_refused_learning_bot_leaves_no_tables_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    learning = REPO / "configs" / "bots" / "liars_dice" / "bayes-learning.toml"
    text = (
        LEAGUES["liars-dice"]
        + f'[[bots]]\nname = "learner"\nbot = "bayes"\nconfig = "{learning}"\n'
    )
    result = cli(write(tmp_path / "a.toml", text), "--db", tmp_path / "r.sqlite")
    assert result.exit_code == 2
    assert "bot 4 ('learner') keeps state between runs: tables_dir" in result.stderr
    assert not (tmp_path / "runs").exists()
    # Nor when another option of the bot is refused too (then both are said).
    inline = text.replace('config = "', 'options = { belief = "x" }\nconfig = "')
    with pytest.raises(LeagueConfigError) as refused:
        load_league(write(tmp_path / "b.toml", inline))
    assert "keeps state" in str(refused.value) and "'belief'" in str(refused.value)
    assert not (tmp_path / "runs").exists()


def test_the_state_check_before_building_says_what_the_built_bot_says(tmp_path: Path) -> None:
    from arena.leagues.config_bots import kept_state_option

    options = {"tables_dir": str(tmp_path / "tables")}
    said = kept_state_option("liars_dice", "bayes", options)
    assert said is not None and not (tmp_path / "tables").exists()
    assert make_bot("liars_dice", "bayes", options).kept_state() == said


# -- 3. a winner only where the match shows one ---------------------------------------------------


def duel(a_scores: list[float], index: int = 0, bots: tuple[str, str] = ("a", "b")) -> MatchOutcome:
    a, b = bots
    games = [GameOutcome(k, k, {a: s, b: 1.0 - s}) for k, s in enumerate(a_scores)]
    return MatchOutcome(MatchPlan(index, bots, f"s{index}"), games, {}, 0.0)


def test_a_match_that_shows_no_difference_has_no_winner() -> None:
    close = duel([1.0] * 4 + [0.0] * 2)  # 4-2: +0.333 [-0.554, +0.913]
    (line,) = match_lines("liars-dice", [close])
    assert line.winners == () and line.leaders == ("a",)
    assert line.to_json()["winners"] == [] and line.to_json()["leaders"] == ["a"]
    (shown,) = match_lines("liars-dice", [duel([0.0] * 12)])
    assert shown.winners == ("b",) and shown.difference is not None
    assert shown.difference.high < 0


def test_matches_won_counts_only_matches_that_show_a_winner() -> None:
    outcomes = [duel([1.0] * 4 + [0.0] * 2, 0, ("x", "y")), duel([1.0] * 12, 1, ("x", "z"))]
    table = {row.bot: row for row in standings("liars-dice", outcomes, ["x", "y", "z"])}
    assert (table["x"].match_points, table["y"].match_points, table["z"].match_points) == (
        1.0,
        0.0,
        0.0,
    )


def four_bot_match(rounds: list[list[float]]) -> MatchOutcome:
    """A mahjong rotate match: per round, each of w, x, y, z's points in each of 4 hands."""
    bots = ("w", "x", "y", "z")
    games = []
    for unit, points in enumerate(rounds):
        for hand in range(4):
            games.append(GameOutcome(4 * unit + hand, unit, dict(zip(bots, points, strict=True))))
    return MatchOutcome(MatchPlan(0, bots, "s"), games, {}, 0.0)


def test_a_four_bot_match_names_its_leader_only_when_it_leads_each_bot() -> None:
    clear = four_bot_match([[30 + r, -10, -10 - r, -10] for r in range(3)])
    assert match_lines("mahjong", [clear])[0].winners == ("w",)
    noisy = four_bot_match([[30, -10, -10, -10], [-30, 10, 10, 10], [31, -11, -10, -10]])
    (line,) = match_lines("mahjong", [noisy])
    assert line.leaders == ("w",) and line.winners == ()


def test_the_match_table_says_no_difference_shown_and_why(tmp_path: Path) -> None:
    config = write(tmp_path / "a.toml", LEAGUES["liars-dice"])
    result = cli(config, "--db", tmp_path / "r.sqlite")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "matches won (shown)" in text and "no difference shown" in text
    assert "a match names a winner only when its 95% interval of A − B excludes 0" in text
    data = json.loads(cli(config, "--db", tmp_path / "r.sqlite", "--json").stdout)
    for match in data["matches"]:
        interval = match["difference_per_game_ci95"]
        assert bool(match["winners"]) == (interval["low"] > 0 or interval["high"] < 0)


# -- 4. bot errors: by number and name, all of them ---------------------------------------------


def test_bot_errors_name_the_bot_by_number_and_all_are_said(tmp_path: Path) -> None:
    text = (
        'name = "x"\ngame = "liars-dice"\n'
        '[[bots]]\nname = "random-guess"\noptions = { psychology = 2.0 }\n'
        '[[bots]]\nname = "mine"\nbot = "random-guess"\noptions = { psycology = 0.3 }\n'
        '[[bots]]\nname = "nobody"\n'
    )
    with pytest.raises(LeagueConfigError) as refused:
        load(tmp_path, text)
    message = str(refused.value)
    assert message.startswith(f"{tmp_path / 'league.toml'}: bot 1 ('random-guess'): ")
    assert "; bot 2 ('mine'): unknown liar's dice bot option 'psycology'" in message
    assert "; bot 3 ('nobody'): no liars_dice bot named 'nobody'" in message
    assert message.count(str(tmp_path / "league.toml")) == 1


def test_a_bot_config_file_that_cannot_be_read_is_said_with_the_others(tmp_path: Path) -> None:
    text = (
        'name = "x"\ngame = "liars-dice"\n'
        f'[[bots]]\nname = "a"\nbot = "bayes"\nconfig = "{tmp_path / "none.toml"}"\n'
        '[[bots]]\nname = "b"\nbot = "bayes"\noptions = { belief = "x" }\n'
    )
    with pytest.raises(LeagueConfigError) as refused:
        load(tmp_path, text)
    assert "bot 1 ('a'): cannot read bot config" in str(refused.value)
    assert "bot 2 ('b'): bot option 'belief'" in str(refused.value)


def test_show_id_run_counts_are_zero(tmp_path: Path) -> None:
    # A league shown by id played nothing now: its counts say so, as --show's do.
    config = load(tmp_path, LEAGUES["liars-dice"])
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        run: LeagueRun = run_league(config, store)
    assert run.played == 3
    data = json.loads(cli("--db", db, "--show", "--id", "1", "--json").stdout)
    assert (data["matches_played"], data["matches_reused"], data["matches_stored"]) == (0, 0, 3)
