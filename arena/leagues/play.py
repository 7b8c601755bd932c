"""What a league plays: its matches (`plan_matches`) and one match played to a `MatchOutcome`
(`play_league_match`), in-process or on an arena server.

Every match is one of the existing formats, unchanged: a mahjong 384-hand match (A B A B for a
pair, or the four-bot rotation), a liar's dice series (seats and opener alternating), a 1A2B
duel series (who starts alternating). A match's seed is derived from the league seed and the
match's bots, so a match gives the same games whichever order or process plays it.
"""

from __future__ import annotations

import itertools
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from arena.leagues.config import LeagueConfig, bot_options
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.records import JsonlRecorder
from arena.referee import TimeBank, TimeControl
from arena.transports.base import Seat
from bots.registry import make_bot

if TYPE_CHECKING:
    from arena.games.liars_dice import LiarsDiceRules
    from arena.matches.liars_dice_series import MatchReport

Progress = Callable[[int], None]
"""Called with the number of games just finished."""

_SAFE = re.compile(r"[^A-Za-z0-9_.#+-]+")


def plan_matches(config: LeagueConfig) -> list[MatchPlan]:
    """Every pairing of the league's bots (every four, for mahjong's rotate layout), in the
    order the bots are listed."""
    size = 4 if config.game == "mahjong" and config.mahjong_layout == "rotate" else 2
    groups = itertools.combinations(config.bot_names, size)
    return [
        MatchPlan(index, group, f"{config.league_seed}/{' vs '.join(group)}")
        for index, group in enumerate(groups)
    ]


FINGERPRINT_CHARS = 8
"""Hex digits of the league's fingerprint in its record file names: enough that two leagues of
one name (a changed config) never share a file, short enough to read."""


def record_path(config: LeagueConfig, records: Path, plan: MatchPlan) -> Path:
    """The JSONL record of ``plan`` in ``records``:
    ``<league>-<fingerprint[:8]>-<match index>-<bots>.jsonl``.

    The fingerprint, not the league's id in the results file: it is the same for the same league
    in any results file, and differs for a changed config (a new league), so a new league never
    writes over the records of an old one, even when the two share a records directory but not a
    results file."""
    fingerprint = config.fingerprint()[:FINGERPRINT_CHARS]
    stem = f"{config.name}-{fingerprint}-{plan.index:03d}-{'-'.join(plan.bots)}"
    return records / f"{_SAFE.sub('_', stem)}.jsonl"


def _part(path: Path) -> Path:
    """Where a match's record is written until the match finishes."""
    return path.with_name(path.name + ".part")


def _remove_part(part: Path) -> None:
    # A directory is what earlier releases left for an unfinished 1A2B series.
    if part.is_dir():
        shutil.rmtree(part, ignore_errors=True)
    else:
        part.unlink(missing_ok=True)


def discard_partial_record(config: LeagueConfig, plan: MatchPlan) -> None:
    """Remove what an unfinished match of ``plan`` wrote (a worker stopped mid-match cannot);
    a finished match's record is left alone."""
    if config.records is None:
        return
    _remove_part(_part(record_path(config, config.records, plan)))


@contextmanager
def _finished_file(path: Path) -> Iterator[Path]:
    """Where to write ``path``: a ``.part`` file beside it, moved onto ``path`` only when the
    match finishes. An interrupted or failed match leaves the stored match's complete record (if
    any) as it was and removes its own partial one."""
    part = _part(path)
    _remove_part(part)  # left by a worker that was killed before it could clean up
    try:
        yield part
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    part.replace(path)


@contextmanager
def _recording(
    config: LeagueConfig, plan: MatchPlan
) -> Iterator[tuple[JsonlRecorder | None, str | None]]:
    """The match's JSONL recorder and final file (`record_path`) when the league keeps records,
    else ``(None, None)``."""
    if config.records is None:
        yield None, None
        return
    config.records.mkdir(parents=True, exist_ok=True)
    path = record_path(config, config.records, plan)
    with _finished_file(path) as part:
        recorder = JsonlRecorder(part)
        try:
            yield recorder, str(path)
        finally:
            recorder.close()


async def play_league_match(
    config: LeagueConfig,
    plan: MatchPlan,
    *,
    progress: Progress | None = None,
    seats: Sequence[Seat] | None = None,
) -> MatchOutcome:
    """Play ``plan``: with in-process bots built from the config, or on the given ``seats``
    (bots on a server, in ``plan.bots`` order)."""
    started = time.perf_counter()
    if config.game == "mahjong":
        outcome = await _mahjong(config, plan, progress, seats)
    elif config.game == "liars-dice":
        outcome = await _liars_dice(config, plan, progress, seats)
    else:
        outcome = await _bulls_cows(config, plan, progress, seats)
    outcome.seconds = time.perf_counter() - started
    return outcome


def _time_bank(config: LeagueConfig) -> TimeBank | None:
    """A fresh bank for one match, when the league gives one."""
    return TimeControl(config.deadline_ms, config.bank_ms).new_bank()


async def _mahjong(
    config: LeagueConfig, plan: MatchPlan, progress: Progress | None, seats: Sequence[Seat] | None
) -> MatchOutcome:
    from arena.matches.mahjong import HANDS_PER_ROUND, MatchSpec, play_match

    spec = MatchSpec(
        plan.bots,
        plan.seed,
        config.games_per_match,
        config.mahjong_rules(),
        config.mahjong_layout,
        config.deadline_ms,
    )

    def on_hand(_done: int, _total: int) -> None:
        if progress is not None:
            progress(1)

    with _recording(config, plan) as (recorder, record):
        if seats is not None:
            result = await play_match(
                spec,
                seats=seats,
                names=plan.bots,
                recorder=recorder,
                on_hand=on_hand,
                time_bank=_time_bank(config),
            )
        else:
            bots = []
            for player, program in enumerate(spec.program_of):
                strategy, options = bot_options(config.bot(plan.bots[program]))
                name = f"{plan.bots[program]}-{player}"
                bots.append(make_bot("mahjong", strategy, options, name=name))
            result = await play_match(
                spec, bots=bots, recorder=recorder, on_hand=on_hand, time_bank=_time_bank(config)
            )
    games = [
        GameOutcome(k, k // HANDS_PER_ROUND, dict(zip(plan.bots, map(float, points), strict=True)))
        for k, points in enumerate(result.hand_points)
    ]
    penalties = {p.bot: p.penalties for p in result.programs}
    return MatchOutcome(plan, games, result.to_json(), 0.0, record, penalties)


async def _liars_dice(
    config: LeagueConfig, plan: MatchPlan, progress: Progress | None, seats: Sequence[Seat] | None
) -> MatchOutcome:
    a, b = plan.bots
    rules = config.dice_rules()
    with _recording(config, plan) as (recorder, record):
        report = await _dice_series(config, plan, rules, progress, seats, recorder)
    games = [
        GameOutcome(k, k, {a: float(won), b: float(not won)}) for k, won in enumerate(report.a_won)
    ]
    penalties = dict(zip((a, b), report.penalties, strict=True))
    # The league's names, not the report's roles (its A and B may be one strategy twice).
    summary = report.to_json() | {"a": a, "b": b, "penalties": penalties}
    return MatchOutcome(plan, games, summary, 0.0, record, penalties)


async def _dice_series(
    config: LeagueConfig,
    plan: MatchPlan,
    rules: LiarsDiceRules,
    progress: Progress | None,
    seats: Sequence[Seat] | None,
    recorder: JsonlRecorder | None,
) -> MatchReport:
    from arena.matches.liars_dice_series import run_match

    a, b = plan.bots
    # A partial rather than a dict of keyword arguments, so that mypy checks each of them.
    series = partial(
        run_match,
        rules=rules,
        progress=progress,
        recorder=recorder,
        deadline_ms=config.deadline_ms,
        time_bank=_time_bank(config),
    )
    if seats is not None:
        return await series(a, b, config.games_per_match, plan.seed, seats=(seats[0], seats[1]))
    strategy_a, options_a = bot_options(config.bot(a))
    strategy_b, options_b = bot_options(config.bot(b))
    return await series(
        strategy_a,
        strategy_b,
        config.games_per_match,
        plan.seed,
        config_a=options_a,
        config_b=options_b,
    )


async def _bulls_cows(
    config: LeagueConfig, plan: MatchPlan, progress: Progress | None, seats: Sequence[Seat] | None
) -> MatchOutcome:
    from arena.matches.bulls_cows import play_series

    a, b = plan.bots
    rules = config.bulls_cows_rules()
    # A partial rather than a dict of keyword arguments, so that mypy checks each of them.
    series = partial(
        play_series,
        names=(a, b),
        digits=rules.digits,
        alphabet=rules.alphabet,
        max_guesses=rules.max_guesses,
        deadline_ms=config.deadline_ms,
        time_bank=_time_bank(config),
        progress=progress,
    )
    with _recording(config, plan) as (recorder, record):
        if seats is not None:
            report = await series(
                a,
                b,
                config.games_per_match,
                plan.seed,
                seats=(seats[0], seats[1]),
                recorder=recorder,
            )
        else:
            strategy_a, options_a = bot_options(config.bot(a))
            strategy_b, options_b = bot_options(config.bot(b))
            report = await series(
                strategy_a,
                strategy_b,
                config.games_per_match,
                plan.seed,
                a_config=options_a,
                b_config=options_b,
                recorder=recorder,
            )
    games = [GameOutcome(k, k, {a: sa, b: sb}) for k, (sa, sb) in enumerate(report.scores)]
    penalties = dict(zip((a, b), report.penalties, strict=True))
    return MatchOutcome(plan, games, report.to_json(), 0.0, record, penalties)
