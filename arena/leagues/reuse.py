"""Matches a league need not play: finished matches of other leagues of the same results file
that give exactly the games it would play, copied into it instead.

A match's games follow from its inputs alone (`LeagueConfig.match_fingerprint`: the game and
rules, both bots' names, strategies and configs, the match seed, the games, the layout and the
time controls), never from the league's other bots, its name or the order of play. So after one
bot is changed or added (a new league: its fingerprint changed), every pairing whose inputs did
not change would replay bit for bit; it is copied instead, games, summary and penalties, so the
standings, ``--show``, ``--json`` and the file's rows are as if it had been played.

Only in-process matches are reused, from leagues played in-process, whose stored config this
release reads back to the very fingerprint they were stored under (`league_from_stored`): a
league an earlier release stored under another fingerprint played other games, or might have.
A league on a server plays connected bots, which no config describes, and deals every later
run anew: it neither reuses nor lends. A ``--restart`` plays every match, reusing none.

Only a whole match is reused, not the first games of a longer one (``games`` raised): a match's
in-process bots live through all its games (their random streams, what a learning bot has
learnt, the time bank), and every bot is told the number of games at ``match_start``, so game k
of a longer match may differ from game k of a shorter one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog

from arena.errors import ArenaError
from arena.leagues.config import LeagueConfig, league_from_stored
from arena.leagues.outcomes import MatchOutcome, MatchPlan
from arena.leagues.play import RecordWriteError, copy_record, plan_matches
from arena.store import ResultStore, StoredLeague

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class ReusedMatch:
    """A match copied into a league, and the league it was copied from."""

    plan: MatchPlan
    source: StoredLeague


def _lender_plans(stored: StoredLeague) -> dict[str, tuple[MatchPlan, str]] | None:
    """Match key → (plan, match fingerprint) of a stored league whose matches may be reused,
    or `None`: one played on a server, one whose stored config this release cannot read, or
    reads to another fingerprint than it was stored under."""
    if stored.config.get("server") is not None:
        return None
    try:
        config = league_from_stored(stored.config)
        if config.server is not None or stored.fingerprint not in (
            config.fingerprint(),
            *config.fingerprint_aliases(),
        ):
            return None
        return {
            plan.key: (plan, config.match_fingerprint(plan.bots, plan.seed))
            for plan in plan_matches(config)
        }
    except ArenaError:
        return None


def reuse_matches(
    config: LeagueConfig,
    store: ResultStore,
    league: StoredLeague,
    todo: Sequence[MatchPlan],
) -> list[ReusedMatch]:
    """Copy into ``league`` every match of ``todo`` that another league of ``store`` holds with
    the same match fingerprint (with its record, when this league keeps records: a match whose
    record is gone is played instead); return those copied, in plan order."""
    if config.server is not None or not todo:
        return []
    wanted = {plan.key: (plan, config.match_fingerprint(plan.bots, plan.seed)) for plan in todo}
    found: dict[str, tuple[MatchOutcome, StoredLeague]] = {}
    for other in reversed(store.leagues()):  # the latest first
        if len(found) == len(wanted):
            break
        if other.id == league.id or other.game != config.game:
            continue
        lent = _lender_plans(other)
        if lent is None:
            continue
        keys = {
            key
            for key in store.stored_keys(other)
            if key not in found and key in wanted and key in lent and lent[key][1] == wanted[key][1]
        }
        if not keys:
            continue
        for outcome in store.matches(other):
            key = outcome.plan.key
            plan = wanted.get(key, (None, ""))[0]
            if key not in keys or plan is None:
                continue
            # What the fingerprint promises, checked on what is stored: the same seed and
            # bots, every game there.
            if (outcome.plan.seed, outcome.plan.bots) != (plan.seed, plan.bots) or len(
                outcome.games
            ) != config.games_per_match:
                continue
            found[key] = (outcome, other)
    reused = []
    for plan in todo:
        if plan.key not in found:
            continue
        outcome, source = found[plan.key]
        record = None
        if config.records is not None:
            record = _copied_record(config, plan, outcome)
            if record is None:
                continue  # played instead, which writes its record
        copied = MatchOutcome(
            plan, outcome.games, outcome.summary, outcome.seconds, record, dict(outcome.penalties)
        )
        store.save_match(league, copied)
        log.info("match_reused", league=config.name, match=plan.key, source=source.id)
        reused.append(ReusedMatch(plan, source))
    return reused


def _copied_record(config: LeagueConfig, plan: MatchPlan, outcome: MatchOutcome) -> str | None:
    """This league's copy of the lender's record of the match (its path), or `None` when that
    record is gone or cannot be copied."""
    source = None if outcome.record is None else Path(outcome.record)
    if source is None or not source.is_file():
        return None
    try:
        return copy_record(config, plan, source)
    except RecordWriteError as exc:
        # Played instead: a records directory that cannot be written says so then.
        log.warning("match_reuse_record_not_copied", match=plan.key, error=str(exc))
        return None
