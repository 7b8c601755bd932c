"""Rules of the league runner, the match player and the config that a plausible slip could
break with the rest of the suite still green (found by a mutation audit of `arena.leagues`).
Each test states the rule it checks, from docs/LEAGUES.md or the code's own contract."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import arena.leagues.runner as runner
from arena.errors import ArenaError
from arena.games.liars_dice.rules import load_ruleset as load_dice_ruleset
from arena.leagues.config import LeagueConfig, load_league
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.leagues.play import plan_matches, play_league_match
from arena.leagues.runner import (
    LeagueIncompleteError,
    default_jobs,
    open_league,
    pending_plans,
    run_league,
)
from arena.matches.liars_dice_series import MatchReport
from arena.store import ResultStore

RULESETS = Path(__file__).resolve().parents[2] / "configs" / "rulesets"

SECRET_SEED = "0123456789abcdef" * 4
"""A league seed of 64 hex digits, as a league on a server needs."""

DICE_BOTS = '[[bots]]\nname = "random-guess"\n[[bots]]\nname = "probability"\n'
THREE_DICE_BOTS = DICE_BOTS + '[[bots]]\nname = "type5"\n'


def load(tmp_path: Path, text: str, **overrides: Any) -> LeagueConfig:
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return load_league(path, **overrides)


def secret_dice(tmp_path: Path, **overrides: Any) -> LeagueConfig:
    """A three-match liar's dice league of two games a match with a secret seed, so that it may
    also be played on a server (which only changes how it is run, not the league)."""
    text = f'name = "dice"\ngame = "liars-dice"\ngames = 2\nseed = "{SECRET_SEED}"\n'
    return load(tmp_path, text + THREE_DICE_BOTS, **overrides)


def finished(db: Path) -> list[str | None]:
    with closing(sqlite3.connect(db)) as connection:
        return [row[0] for row in connection.execute("SELECT finished FROM leagues")]


PlayOnServer = Callable[..., Awaitable[Any]]


def fake_server(absent: Sequence[str] = ()) -> PlayOnServer:
    """`play_on_server` without a server: a table with a bot of ``absent`` fails as one whose
    bots never came; the others are played by in-process bots of the same names."""

    async def play_on_server(
        url: str,
        bot_names: Sequence[str],
        game: str,
        play: Callable[[Any], Awaitable[Any]],
        *,
        start_timeout_s: float = 30.0,
        label: str = "",
    ) -> Any:
        if set(bot_names) & set(absent):
            raise ArenaError(f"{label}: the bots did not all come")
        return await play(None)

    return play_on_server


# -- finishing a league -------------------------------------------------------------------------


def test_a_server_league_that_could_not_play_every_match_is_not_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: a table whose bots do not come fails, the others are stored; the league is
    # finished only once every match is stored.
    monkeypatch.setattr("arena.server.remote.play_on_server", fake_server(absent=["type5"]))
    config = secret_dice(tmp_path, server="ws://127.0.0.1:9")
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store, pytest.raises(LeagueIncompleteError) as stopped:
        run_league(config, store)
    run = stopped.value.run
    assert run is not None and not run.complete
    assert [o.plan.key for o in run.outcomes] == ["random-guess vs probability"]
    assert finished(db) == [None]


def played_then_edited(tmp_path: Path, statement: str) -> Path:
    """The results file of the whole league played in-process, then changed by ``statement``
    (so that what a later run keeps or replaces shows)."""
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        assert run_league(secret_dice(tmp_path, jobs=1), store).complete
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(statement)
    return db


def test_a_restart_on_a_server_that_fails_keeps_when_the_league_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # runner.run_league: only "a restart that played every match again finished the league
    # anew"; one whose tables failed left old matches stored, played when the league finished.
    db = played_then_edited(tmp_path, "UPDATE leagues SET finished = '2000-01-01T00:00:00+00:00'")
    monkeypatch.setattr("arena.server.remote.play_on_server", fake_server(absent=["type5"]))
    on_server = secret_dice(tmp_path, server="ws://127.0.0.1:9")
    with ResultStore(db) as store, pytest.raises(LeagueIncompleteError) as stopped:
        run_league(on_server, store, restart=True)
    assert stopped.value.run is not None and stopped.value.run.complete
    assert finished(db) == ["2000-01-01T00:00:00+00:00"]


def test_a_restart_on_a_server_replaces_every_stored_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: --restart plays every match again, each stored match replaced when its new
    # result is stored (on a server as in-process).
    db = played_then_edited(tmp_path, """UPDATE matches SET summary = '{"old": true}'""")
    monkeypatch.setattr("arena.server.remote.play_on_server", fake_server())
    on_server = secret_dice(tmp_path, server="ws://127.0.0.1:9")
    with ResultStore(db) as store:
        run = run_league(on_server, store, restart=True)
    assert run.complete and run.played == 3
    assert all("old" not in outcome.summary for outcome in run.outcomes)
    assert [outcome.summary["games"] for outcome in run.outcomes] == [2, 2, 2]


def test_default_jobs_are_the_cores_in_process_and_four_tables_on_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: "jobs: matches at once; default: the cores (4 tables on a server)".
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 7)
    assert default_jobs(secret_dice(tmp_path)) == 7
    assert default_jobs(secret_dice(tmp_path, server="ws://127.0.0.1:9")) == 4
    assert default_jobs(secret_dice(tmp_path, jobs=3, server="ws://127.0.0.1:9")) == 3


# -- matches played by workers ----------------------------------------------------------------


def in_this_process(
    stop_after: int | None = None,
) -> Callable[..., list[MatchOutcome]]:
    """`run_in_processes` playing each match here, as a worker does (its record left partial
    for the storing process); with ``stop_after``, a Ctrl-C after that many matches, while the
    next one's partial record is on disk, as a stopped worker leaves it."""

    def run_in_processes(
        function: Callable[..., MatchOutcome],
        calls: Sequence[tuple[LeagueConfig, MatchPlan]],
        jobs: int,
        *,
        on_done: Callable[[MatchOutcome], None] | None = None,
        on_stop: Callable[[], None] | None = None,
        **_ignored: Any,
    ) -> list[MatchOutcome]:
        done = []
        for k, (config, plan) in enumerate(calls):
            outcome = asyncio.run(play_league_match(config, plan, finish=False))
            if k == stop_after:
                if on_stop is not None:
                    on_stop()
                raise KeyboardInterrupt
            if on_done is not None:
                on_done(outcome)
            done.append(outcome)
        return done

    return run_in_processes


def test_a_match_from_a_worker_is_stored_only_once_its_record_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: a worker's record is "moved there by the arena process just before it stores
    # the match", so a stored match always names a complete record.
    monkeypatch.setattr(runner, "run_in_processes", in_this_process())
    records = tmp_path / "records"
    config = secret_dice(tmp_path, jobs=2, records=records)
    seen: list[str] = []
    with ResultStore(tmp_path / "r.sqlite") as store:
        save_match = store.save_match

        def save_checked(league: Any, outcome: MatchOutcome, *, replace: bool = False) -> bool:
            assert outcome.record is not None and Path(outcome.record).is_file()
            assert not list(records.glob("*.part"))
            seen.append(outcome.plan.key)
            return save_match(league, outcome, replace=replace)

        monkeypatch.setattr(store, "save_match", save_checked)
        assert run_league(config, store).complete
    assert len(seen) == 3


def test_workers_stopped_mid_match_leave_no_partial_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: interrupted, "the workers are stopped and their partial records removed
    # before the command ends"; the finished matches stay stored.
    monkeypatch.setattr(runner, "run_in_processes", in_this_process(stop_after=1))
    records = tmp_path / "records"
    config = secret_dice(tmp_path, jobs=2, records=records)
    with ResultStore(tmp_path / "r.sqlite") as store, pytest.raises(KeyboardInterrupt):
        run_league(config, store)
    assert not list(records.glob("*.part"))
    assert len(list(records.glob("*.jsonl"))) == 1


def test_an_interrupted_match_removes_its_partial_record(tmp_path: Path) -> None:
    # LEAGUES.md: "An interrupted match removes its partial record".
    records = tmp_path / "records"
    config = secret_dice(tmp_path, records=records, games=5)

    class Stop(Exception):
        pass

    def stop(_games: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        asyncio.run(play_league_match(config, plan_matches(config)[0], progress=stop))
    assert list(records.iterdir()) == []


# -- what a match stores ----------------------------------------------------------------------


def test_liars_dice_game_scores_go_to_the_bot_that_won_them(tmp_path: Path) -> None:
    # LEAGUES.md: games.scores gives each bot of the match its score, 1 a win and 0 a loss; the
    # match's summary is the format's own report, whose wins_a counts A's wins.
    text = 'name = "dice"\ngame = "liars-dice"\ngames = 12\njobs = 1\n' + THREE_DICE_BOTS
    config = load(tmp_path, text)
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_league(config, store)
    lopsided = 0
    for outcome in run.outcomes:
        a, b = outcome.plan.bots
        wins_a = sum(game.scores[a] for game in outcome.games)
        wins_b = sum(game.scores[b] for game in outcome.games)
        assert (wins_a, wins_b) == (outcome.summary["wins_a"], outcome.summary["wins_b"])
        lopsided += wins_a != wins_b
    assert lopsided  # else A's and B's scores could be swapped unseen


def test_bulls_cows_game_scores_go_to_the_bot_that_won_them(tmp_path: Path) -> None:
    # LEAGUES.md: 1 a win, 0 a loss, 1/2 a 1A2B draw; the summary's `wins` per bot.
    text = (
        'name = "duels"\ngame = "bulls-cows"\ngames = 6\njobs = 1\n'
        '[[bots]]\nname = "random"\n[[bots]]\nname = "frequency"\n'
    )
    config = load(tmp_path, text)
    with ResultStore(tmp_path / "r.sqlite") as store:
        (outcome,) = run_league(config, store).outcomes
    wins, draws = outcome.summary["wins"], outcome.summary["draws"]
    totals = {bot: sum(game.scores[bot] for game in outcome.games) for bot in outcome.plan.bots}
    assert totals == {bot: wins[bot] + draws / 2 for bot in outcome.plan.bots}
    assert totals["random"] != totals["frequency"]  # else a swap would go unseen


def test_a_match_plays_under_the_leagues_deadline_and_time_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LEAGUES.md: deadline_ms is per decision, bank_ms a time bank per bot per match.
    seen: dict[str, Any] = {}

    async def run_match(a: str, b: str, games: int, seed: str, **options: Any) -> MatchReport:
        seen.update(options)
        return MatchReport(a, b, games, 0, 0, 0.0, [False] * games, [0, 0])

    monkeypatch.setattr("arena.matches.liars_dice_series.run_match", run_match)
    text = 'name = "dice"\ngame = "liars-dice"\ngames = 2\ndeadline_ms = 4321\nbank_ms = 1234\n'
    config = load(tmp_path, text + DICE_BOTS)
    asyncio.run(play_league_match(config, plan_matches(config)[0]))
    assert seen["deadline_ms"] == 4321
    bank = seen["time_bank"]
    assert bank is not None and bank.left("random-guess") == bank.left("probability") == 1234


# -- the fingerprint: what decides the games --------------------------------------------------

MAHJONG_WRITTEN_OUT = (
    'name = "mj"\ngame = "mahjong"\ngames = 384\nseed = "mj"\nlayout = "ab"\n'
    'ruleset = "competition-server"\n[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n'
)

MAHJONG_FINGERPRINT = "0db4af77a26a3e7a661a67d8c34564ccf8b9454f8a80d16f718e53278f81d176"
"""The in-process mahjong league of `MAHJONG_WRITTEN_OUT`: the same as under `competition`
(who is asked on a claim changes no game) and as with its defaults left out
(tests/leagues/test_league_fingerprint_defaults.py)."""

SERVER_RULES_WITH_CLAIM_PROMPTS = "d0af5d1fa8a72a94c302285a725c70cf385066dcc17ae07f0340a04016e9fab5"
"""What a release that already took written-out defaults as left out, but still hashed the
ruleset's `claims_ask_every_seat`, stored that league as under `competition-server`."""


def test_a_league_stored_with_the_claim_prompts_hashed_resumes(tmp_path: Path) -> None:
    # LeagueConfig.fingerprint_aliases: a league an earlier release stored under another
    # fingerprint of the same games "is this league, and resumes" (LEAGUES.md).
    config = load(tmp_path, MAHJONG_WRITTEN_OUT)
    first = plan_matches(config)[0]
    with ResultStore(tmp_path / "r.sqlite") as store:
        old = store.open_league("mj", "mahjong", "mj", SERVER_RULES_WITH_CLAIM_PROMPTS, {})
        games = [GameOutcome(0, 0, dict.fromkeys(first.bots, 0.0))]
        store.save_match(old, MatchOutcome(first, games, {}, 1.0))
        league = open_league(config, store)
        assert league.id == old.id and league.fingerprint == MAHJONG_FINGERPRINT
        assert first not in pending_plans(config, store, league)


# -- what the config's files and options say --------------------------------------------------


def test_an_override_naming_another_ruleset_plays_that_ruleset(tmp_path: Path) -> None:
    # LeagueConfig.with_overrides keeps what the files said "unless a change names other files".
    base = str(RULESETS / "liars_dice.toml")
    other = str(RULESETS / "liars_dice_ones_wild.toml")
    text = f'name = "dice"\ngame = "liars-dice"\nruleset = "{base}"\n{DICE_BOTS}'
    config = load(tmp_path, text)
    assert load_dice_ruleset(base) != load_dice_ruleset(other)
    changed = config.with_overrides(ruleset=other)
    assert changed.dice_rules() == load_dice_ruleset(other)
    assert changed.fingerprint() != config.fingerprint()


def test_inline_options_override_the_bot_config_file(tmp_path: Path) -> None:
    # LEAGUES.md: options = { ... } are "config keys inline; they override the file's".
    (tmp_path / "bayes.toml").write_text("psychology = 0.5\nguess = 'odds'\n", encoding="utf-8")
    text = (
        f'name = "dice"\ngame = "liars-dice"\n{DICE_BOTS}'
        f'[[bots]]\nname = "mine"\nbot = "bayes"\nconfig = "{tmp_path / "bayes.toml"}"\n'
        "options = { psychology = 0.3 }\n"
    )
    strategy, options = load(tmp_path, text).bot_options("mine")
    assert strategy == "bayes"
    assert options["psychology"] == 0.3 and options["guess"] == "odds"


def test_a_bots_options_are_a_copy_the_caller_may_change(tmp_path: Path) -> None:
    # LeagueConfig.bot_options: "(a copy: the caller may change it)"; the league plays on
    # what the files said.
    text = (
        f'name = "dice"\ngame = "liars-dice"\n{DICE_BOTS}'
        '[[bots]]\nname = "mine"\nbot = "bayes"\noptions = { guess = "odds", psychology = 0.3 }\n'
    )
    config = load(tmp_path, text)
    fingerprint = config.fingerprint()
    _strategy, options = config.bot_options("mine")
    options["psychology"] = 0.9
    assert config.bot_options("mine")[1]["psychology"] == 0.3
    assert config.fingerprint() == fingerprint
