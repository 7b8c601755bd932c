"""Play a league: every match not yet stored, several at once, each stored when it finishes.

In-process the matches run in worker processes (``jobs`` of them; one runs in this process);
on a server they are tables played at once, a bot never at two tables at the same time. The
games of a match do not depend on which process plays it or when (its seed is its own), so a
league gives the same results for any ``jobs`` and after any interruption and resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import structlog

from arena.errors import ArenaError
from arena.leagues.config import LeagueConfig
from arena.leagues.in_play import hold_league
from arena.leagues.outcomes import MatchOutcome, MatchPlan
from arena.leagues.play import (
    discard_partial_record,
    discard_stale_records,
    finish_record,
    plan_matches,
    play_league_match,
)
from arena.leagues.reuse import ReusedMatch, reuse_matches
from arena.logs import configure_logging, logging_settings
from arena.processes import WorkerDiedError, report, run_in_processes
from arena.store import ResultStore, StoredLeague
from arena.store_open import ResultsReplacedError

log = structlog.get_logger(__name__)

GamesDone = Callable[[int], None]
MatchDone = Callable[[MatchOutcome], None]
MatchesReused = Callable[[list[ReusedMatch]], None]


class LeagueIncompleteError(ArenaError):
    """Some matches of a league on a server could not be played (bots absent, server gone);
    ``run`` holds what was stored."""

    run: LeagueRun | None = None


class LeagueWorkerDiedError(ArenaError):
    """A worker process died mid-league (the OOM killer, ``kill -9``): the other workers are
    stopped (their matches dropped), the matches finished before are stored, and the same
    command resumes."""


SERVER_JOBS = 4
"""Tables at once on a server when the config does not say."""
_PROGRESS_EVERY_S = 0.1


@dataclass(slots=True)
class LeagueRun:
    config: LeagueConfig
    league: StoredLeague
    plans: list[MatchPlan]
    outcomes: list[MatchOutcome]
    """Every stored match of the league (those resumed and those played now), in plan order."""
    resumed: int
    played: int
    seconds: float
    reused: list[ReusedMatch] = field(default_factory=list)
    """The matches this run copied from other leagues of the file (`arena.leagues.reuse`)
    instead of playing them; stored in the league as if played, and in ``outcomes``."""

    @property
    def complete(self) -> bool:
        return len(self.outcomes) == len(self.plans)


def default_jobs(config: LeagueConfig) -> int:
    if config.jobs is not None:
        return config.jobs
    return SERVER_JOBS if config.server is not None else max(1, os.cpu_count() or 1)


def open_league(config: LeagueConfig, store: ResultStore) -> StoredLeague:
    """The league's entry in the results file, made if new. Its config is stored with what the
    bot config and ruleset files said (``contents``), which is what the matches play."""
    return store.open_league(
        config.name,
        config.game,
        config.league_seed,
        config.fingerprint(),
        config.model_dump(mode="json", exclude={"source"})
        | {"contents": config.contents.to_json()},
        aliases=config.fingerprint_aliases(),
    )


def pending_plans(
    config: LeagueConfig, store: ResultStore, league: StoredLeague
) -> list[MatchPlan]:
    stored = store.stored_keys(league)
    return [plan for plan in plan_matches(config) if plan.key not in stored]


def run_league(
    config: LeagueConfig,
    store: ResultStore,
    *,
    restart: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_games: GamesDone | None = None,
    on_match: MatchDone | None = None,
    on_reused: MatchesReused | None = None,
) -> LeagueRun:
    """Play what is left of ``config``'s league and return every stored match; ``on_start``
    hears (matches to play, matches planned) before the first game, after ``on_reused`` has
    heard the matches copied from other leagues of the file instead (`reuse_matches`; not
    on a ``restart``), which count as stored.

    ``restart`` plays every match again, each stored match replaced only when its new result is
    stored: an interrupted restart leaves every match stored once, old or new (a league on a
    server cannot be played again identically, so nothing stored is forgotten before its
    replacement is there)."""
    started = time.perf_counter()
    if config.server is not None:
        _refuse_seed_of_another_league(config, store)
    league = open_league(config, store)
    hooks = _Hooks(on_start, on_games, on_match, on_reused)
    # A second run of the league on this file would play every match again: refused.
    with hold_league(store.path, league.id, config.name):
        return _play_held(config, store, league, restart, started, hooks)


@dataclass(frozen=True, slots=True)
class _Hooks:
    """What the caller of `run_league` hears while it runs."""

    on_start: Callable[[int, int], None] | None
    on_games: GamesDone | None
    on_match: MatchDone | None
    on_reused: MatchesReused | None


def _refuse_seed_of_another_league(config: LeagueConfig, store: ResultStore) -> None:
    """A league on a server whose seed another league of the file played from on a server (a
    config copied with its seed, then renamed or given other games): refused, since its matches
    of the same bots would deal what the connected bots saw there (each match seed is derived
    from the league seed and its bots alone). A league played in-process showed its deals to
    no connected bot."""
    this = {config.fingerprint(), *config.fingerprint_aliases()}
    seed = config.league_seed.lower()
    for other in store.leagues():
        played_on_server = other.config.get("server") is not None
        if (
            played_on_server
            and other.seed.lower() == seed
            and not (other.name == config.name and other.fingerprint in this)
        ):
            raise ArenaError(
                f"{config.source or config.name}: the league seed is that of league "
                f"{other.name!r} (id "
                f"{other.id}) in {store.path}, whose matches dealt from it; a league on a "
                "server needs a seed of its own, or bots that played there know its deals "
                '(seed = "…" or --seed; e.g. from `python -c \'import secrets; '
                "print(secrets.token_hex(32))'`)"
            )


def _play_held(
    config: LeagueConfig,
    store: ResultStore,
    league: StoredLeague,
    restart: bool,
    started: float,
    hooks: _Hooks,
) -> LeagueRun:
    on_games, on_match = hooks.on_games, hooks.on_match
    plans = plan_matches(config)
    todo = plans if restart else pending_plans(config, store, league)
    resumed = len(plans) - len(todo)
    # Partial records of processes that are gone (a worker killed with its parent) belong to no
    # stored match: removed now, whether or not their match is played again.
    discard_stale_records(config, plans)
    reused = [] if restart else reuse_matches(config, store, league, todo)
    if reused:
        copied = {match.plan.key for match in reused}
        todo = [plan for plan in todo if plan.key not in copied]
        if hooks.on_reused is not None:
            hooks.on_reused(reused)
    if hooks.on_start is not None:
        hooks.on_start(len(todo), len(plans))
    played = 0

    def note(outcome: MatchOutcome, stored: bool) -> None:
        nonlocal played
        played += 1
        log.info(
            "match_stored" if stored else "match_already_stored",
            league=config.name,
            match=outcome.plan.key,
            games=len(outcome.games),
            seconds=round(outcome.seconds, 3),
        )
        if on_match is not None:
            on_match(outcome)

    def save(outcome: MatchOutcome) -> None:
        note(outcome, store.save_match(league, outcome, replace=restart))

    async def save_off_loop(outcome: MatchOutcome) -> None:
        # Every table of a league on a server plays on this event loop: a write waiting for the
        # file's lock (up to the store's timeout) must not freeze the other tables' referees,
        # whose bots would be timed through the stall. The thread only writes; the rest stays
        # here.
        note(outcome, await asyncio.to_thread(store.save_match, league, outcome, replace=restart))

    jobs = min(default_jobs(config), max(1, len(todo)))
    incomplete: LeagueIncompleteError | None = None

    if config.server is not None:
        # The connected bots saw the deals of an earlier run's matches (those cut short too):
        # a later run deals every match it plays from a seed of its own.
        run_number = store.begin_run(league)
        if run_number:
            log.info("league_run_fresh_seeds", league=config.name, run=run_number)
            todo = [replace(plan, seed=config.match_seed(plan.bots, run_number)) for plan in todo]
        try:
            asyncio.run(_on_server(config, todo, jobs, save_off_loop, on_games))
        except LeagueIncompleteError as exc:
            incomplete = exc
    elif jobs == 1:
        for plan in todo:
            save(asyncio.run(play_league_match(config, plan, progress=on_games)))
    else:
        _in_processes(config, todo, jobs, save, on_games)
    outcomes = store.matches(league)
    if len(outcomes) == len(plans):
        # A restart that played every match again finished the league anew.
        store.mark_finished(league, again=restart and incomplete is None)
    seconds = time.perf_counter() - started
    run = LeagueRun(config, league, plans, outcomes, resumed, played, seconds, reused)
    if incomplete is not None:
        incomplete.run = run
        raise incomplete
    return run


# -- in-process: worker processes ------------------------------------------------------------


class _ProgressToParent:
    """In a worker: its finished-game counts go to the league's process, over the worker's own
    pipe (`arena.processes.report`)."""

    @staticmethod
    def put(games: int) -> None:
        report(games)


_worker_progress: Any = None
"""In a worker process: where its finished-game counts go, by ``put`` (set by
`_start_worker`)."""


def _start_worker(log_level: str, log_file: Path | None) -> None:
    global _worker_progress
    _worker_progress = _ProgressToParent()
    configure_logging(log_level, log_file)


def _play_in_worker(config: LeagueConfig, plan: MatchPlan) -> MatchOutcome:
    """A worker plays one match, sending its finished-game counts at most every 0.1 s."""
    pending = 0
    last = time.monotonic()

    def tick(games: int) -> None:
        nonlocal pending, last
        pending += games
        now = time.monotonic()
        if now - last >= _PROGRESS_EVERY_S:
            _worker_progress.put(pending)
            pending, last = 0, now

    # The record stays partial: the parent moves it into place when it stores the match
    # (`finish_record`), so a worker that outlives a killed parent never finishes one.
    outcome = asyncio.run(play_league_match(config, plan, progress=tick, finish=False))
    if pending:
        _worker_progress.put(pending)
    return outcome


def _in_processes(
    config: LeagueConfig,
    todo: Sequence[MatchPlan],
    jobs: int,
    save: Callable[[MatchOutcome], None],
    on_games: GamesDone | None,
) -> None:
    stored = 0

    def store(outcome: MatchOutcome) -> None:
        nonlocal stored
        finish_record(outcome)  # the complete record first: a stored match names it
        save(outcome)
        stored += 1

    def discard() -> None:
        # The stopped workers could not remove their partial records; they belong to no match.
        for plan in todo:
            discard_partial_record(config, plan)

    # Ctrl-C, a failed match or a dead worker stops the workers at once, then their partial
    # records go (a second Ctrl-C cannot come between: `run_in_processes`); finished matches
    # are stored.
    try:
        run_in_processes(
            _play_in_worker,
            [(config, plan) for plan in todo],
            jobs,
            initializer=_start_worker,
            initargs=logging_settings(),
            on_done=store,
            on_report=on_games,
            on_stop=discard,
        )
    except WorkerDiedError as exc:
        playing = None if exc.call is None else f"playing {todo[exc.call].key}"
        # What is stored and how to resume, `arena league` says after it (one line).
        raise LeagueWorkerDiedError(f"{exc.line(playing)}, {_finished(stored)}") from exc


def _finished(stored: int) -> str:
    if stored == 0:
        return "before any match of this run finished"
    if stored == 1:
        return "after 1 match of this run finished"
    return f"after {stored} matches of this run finished"


# -- on a server: tables at once -------------------------------------------------------------


async def _on_server(
    config: LeagueConfig,
    todo: Sequence[MatchPlan],
    jobs: int,
    save: Callable[[MatchOutcome], Awaitable[None]],
    on_games: GamesDone | None,
) -> None:
    from arena.server.remote import (
        AdminRefused,
        RemoteTableError,
        play_on_server,
        server_status,
    )

    assert config.server is not None
    url = config.server
    # Asked once before any table: a server that refuses the admin name or token refuses every
    # table alike, so the league stops at once with one message. Any other failure is each
    # table's to report, as it would be without this look.
    try:
        status = await server_status(url)
    except AdminRefused:
        raise
    except (RemoteTableError, OSError):
        status = None
    here = {bot.name for bot in status.bots if config.engine_game in bot.games} if status else set()
    missing = [name for name in config.bot_names if name not in here]
    if status is not None and missing:
        # Not an error: a bot may connect in time. But its tables wait for it, and the
        # operator should hear why before they do.
        log.warning(
            "league_bots_not_connected",
            league=config.name,
            bots=missing,
            game=config.engine_game,
            start_timeout_s=config.start_timeout_s,
        )
    busy = {name: asyncio.Lock() for name in config.bot_names}
    tables = asyncio.Semaphore(jobs)

    async def one(plan: MatchPlan) -> None:
        async with contextlib.AsyncExitStack() as stack:
            # A bot sits at one table at a time; sorted order cannot deadlock.
            for name in sorted(plan.bots):
                await stack.enter_async_context(busy[name])
            await stack.enter_async_context(tables)
            outcome = await play_on_server(
                url,
                plan.bots,
                config.engine_game,
                lambda seats: play_league_match(config, plan, progress=on_games, seats=seats),
                start_timeout_s=config.start_timeout_s,
                label=f"{config.name}: {plan.key}",
            )
        await save(outcome)

    results = await asyncio.gather(*(one(plan) for plan in todo), return_exceptions=True)
    # Every other match has finished and is stored; then the failures are reported together.
    failed = [
        (plan, result)
        for plan, result in zip(todo, results, strict=True)
        if isinstance(result, BaseException)
    ]
    for _plan, error in failed:
        if not isinstance(error, ArenaError | OSError):
            raise error  # Ctrl-C, a bug: not a table that could not be played
    for plan, error in failed:
        log.warning("match_not_played", league=config.name, match=plan.key, error=str(error))
    for _plan, error in failed:
        if isinstance(error, ResultsReplacedError):
            # The results went to a saved copy, the later tables' too: that file, not the
            # --db given, is the one a retry must name, so this is the error to report.
            raise error
    if failed:
        lines = "; ".join(f"{plan.key}: {error}" for plan, error in failed)
        stored = "the others are stored; " if len(failed) < len(todo) else ""
        raise LeagueIncompleteError(
            f"{len(failed)} of {len(todo)} matches could not be played ({stored}run again to "
            f"retry): {lines}"
        )
