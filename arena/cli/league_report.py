"""What `arena league` prints of a league run: the standings, the match table and the notes
under them (an interval not defined over one round, games without spread, penalties, matches
reused from another league), and the ``--json`` object. It is apart from `arena.cli.league`,
which checks the options, plays or reads the league and says how to resume it when it fails:
this module only turns a `LeagueRun` into text and JSON, so the wording of the figures is read in
one place."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from arena.cli.common import output_console
from arena.dealing import MatchSeed
from arena.leagues.config import LeagueConfig
from arena.leagues.outcomes import MatchOutcome
from arena.leagues.reuse import ReusedMatch
from arena.leagues.runner import LeagueRun
from arena.leagues.standings import MatchLine, Standing, match_lines, standings
from arena.matches.seating import HANDS_PER_ROUND
from arena.matches.stats import Interval

out = output_console()


def _figure(game: str) -> str:
    return "points/hand" if game == "mahjong" else "score rate"


def _value(game: str, value: float) -> str:
    if not math.isfinite(value):
        return "—"
    return f"{value:+,.0f}" if game == "mahjong" else f"{value:.1%}"


def _defined(ci: Interval) -> bool:
    return math.isfinite(ci.low) and math.isfinite(ci.high)


UNDEFINED = "[—, —]"
"""An interval that is not defined (a mahjong figure over one round), in both tables."""

MATCHES_WON = "matches won (shown)"
"""The standings' column of matches won: only those whose interval shows the bot stronger
(`arena.leagues.standings.MatchLine.winners`), as the match table's "won by" names them."""

NO_DIFFERENCE = "no difference shown"
"""The match table's "won by" for a match whose interval does not exclude 0, as `arena match
liars-dice` says it."""


def _show_standings(game: str, table_rows: list[Standing], title: str) -> list[Interval]:
    """Print the standings; return the intervals shown as `UNDEFINED`."""
    out.print(title, markup=False)  # the title holds the league's seed and name, any text
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("#", "bot", "games", _figure(game), "95% CI", MATCHES_WON):
        table.add_column(column, justify="left" if column == "bot" else "right", no_wrap=True)
    undefined = []
    for rank, row in enumerate(table_rows, 1):
        ci = row.per_game
        if not row.games:
            interval = "no games yet"
        elif _defined(ci):
            interval = f"[{_value(game, ci.low)}, {_value(game, ci.high)}]"
        else:
            interval = UNDEFINED
            undefined.append(ci)
        table.add_row(
            str(rank),
            row.bot,
            str(row.games),
            _value(game, ci.estimate) if row.games else "—",
            interval,
            f"{row.match_points:g}/{row.matches}",
        )
    out.print(table)
    return undefined


def _match_figure(game: str, lines: list[MatchLine]) -> str:
    """The heading of the match table's figure column. A two-bot match shows A − B per game
    with its interval; a four-bot match (mahjong's rotate layout) has no A and B and shows each
    bot's total. Every match of a league seats the same number of bots."""
    if all(line.difference is not None for line in lines):
        return "A − B per game, 95% CI"
    return "total points per bot" if game == "mahjong" else "total score per bot"


def _show_matches(game: str, outcomes: list[MatchOutcome]) -> list[Interval]:
    """Print the match table; return the intervals shown as `UNDEFINED`."""
    lines = match_lines(game, outcomes)
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("match", "games", _match_figure(game, lines), "won by"):
        # Bot names may be long: they wrap, the figures never do.
        names = column in ("match", "won by")
        table.add_column(column, justify="left" if names else "right", no_wrap=not names)
    number = "{:+,.0f}" if game == "mahjong" else "{:+.3f}"
    undefined = []
    for line in lines:
        diff = line.difference
        if diff is None:
            shown = ", ".join(f"{bot} {_value(game, s)}" for bot, s in line.totals.items())
        elif not _defined(diff):
            # As in the standings: an interval over one round is no interval, not ±infinity.
            shown = f"{number.format(diff.estimate)} {UNDEFINED}"
            undefined.append(diff)
        else:
            shown = (
                f"{number.format(diff.estimate)} "
                f"[{number.format(diff.low)}, {number.format(diff.high)}]"
                f"{NO_SPREAD_MARK if line.no_spread else ''}"
            )
        table.add_row(line.key, str(line.games), shown, ", ".join(line.winners) or NO_DIFFERENCE)
    out.print(table)
    if any(line.no_spread for line in lines):
        # Without the note an interval from identical games reads as a measured one.
        out.print(f"{NO_SPREAD_MARK} {_no_spread_note(game)}")
    out.print(_won_by_note(lines), markup=False, soft_wrap=True)
    return undefined


def _won_by_note(lines: list[MatchLine]) -> str:
    """How "won by" and "matches won (shown)" are decided: by the interval, not the estimate."""
    if all(line.difference is not None for line in lines):
        rule = "its 95% interval of A − B excludes 0"
    else:
        rule = (
            "the 95% interval of its leader's points minus each other bot's, per hand over "
            "the rounds, excludes 0"
        )
    return (
        f"won by: a match names a winner only when {rule}, else {NO_DIFFERENCE} (whoever leads "
        f"the estimate); {MATCHES_WON} counts those matches"
    )


def _undefined_note(undefined: list[Interval]) -> str:
    """Why an interval is shown as `UNDEFINED`, worded as `arena match mahjong` says it: a
    mahjong interval is over rounds, and one round gives none."""
    rounds = min(ci.n for ci in undefined)
    return (
        f"{UNDEFINED} not defined over {rounds} round{'s' if rounds != 1 else ''} (it needs "
        f"two): a round is {HANDS_PER_ROUND} hands, the four seatings of one wall"
    )


NO_SPREAD_MARK = "*"


def _no_spread_note(game: str) -> str:
    if game == "mahjong":
        # Mahjong points have no range to fall back on (`MatchLine.no_spread`).
        return (
            "every round gave the same A − B: no spread to measure; the zero width is exact only "
            "if the bots cannot play differently"
        )
    return (
        "every game gave the same A − B: no spread to measure; the interval is the exact one "
        "from what a game can give, not from a measured spread"
    )


def _seed_shown(config: LeagueConfig, run: LeagueRun) -> str | None:
    """The league seed, or `None` while a secret one must stay hidden: standings shown before
    the last match is played would otherwise give away the deals of the matches to come."""
    return config.league_seed if run.complete or not config.secret_seed else None


def _seed_commitment(config: LeagueConfig) -> str | None:
    return MatchSeed.from_hex(config.league_seed).commitment() if config.secret_seed else None


def _seed_text(config: LeagueConfig, run: LeagueRun) -> str:
    shown = _seed_shown(config, run)
    if shown is not None:
        return f"seed {shown!r}"
    commitment = _seed_commitment(config)
    assert commitment is not None
    return f"secret seed, commitment {commitment[:12]}…"


def league_json(config: LeagueConfig, run: LeagueRun, db: Path) -> dict[str, object]:
    table = standings(config.game, run.outcomes, config.bot_names)
    lines = match_lines(config.game, run.outcomes)
    return {
        "league": config.name,
        "game": config.game,
        "seed": _seed_shown(config, run),
        "seed_commitment": _seed_commitment(config),
        "games_per_match": config.games_per_match,
        "db": str(db),
        "league_id": run.league.id,
        "matches_planned": len(run.plans),
        "matches_stored": len(run.outcomes),
        "matches_resumed": run.resumed,
        "matches_played": run.played,
        "matches_reused": len(run.reused),
        "reused": [
            {"match": match.plan.key, "from_league_id": match.source.id} for match in run.reused
        ],
        "seconds": round(run.seconds, 3),
        "bots": _bots_json(config),
        "standings": [row.to_json() for row in table],
        "matches": [
            line.to_json()
            | {
                "summary": outcome.summary,
                "seconds": round(outcome.seconds, 3),
                # What a bot that played it can check its record against: the commitment its
                # match_start gave, and the record's file.
                "seed_commitment": MatchSeed.from_text(outcome.plan.seed).commitment(),
                "record": outcome.record,
            }
            for line, outcome in zip(lines, run.outcomes, strict=True)
        ],
    }


def _bots_json(config: LeagueConfig) -> dict[str, dict[str, Any]]:
    """Per bot: its strategy, its config file (`None`: built in) and its inline options."""
    found = {}
    for entry in config.bots:
        strategy, _options = config.contents.bots[entry.name]
        found[entry.name] = {
            "strategy": strategy,
            "config": None if entry.config is None else str(entry.config),
            "options": entry.options,
        }
    return found


def _show_bot_configs(config: LeagueConfig) -> None:
    """Which config each bot played, for the bots that are not a built-in strategy of their
    own name with its defaults: a name alone does not say it."""
    for entry in config.bots:
        strategy, _options = config.contents.bots[entry.name]
        if entry.config is None and not entry.options and strategy == entry.name:
            continue
        parts = [f"config {entry.config}" if entry.config is not None else "built-in"]
        if entry.options:
            shown = ", ".join(f"{key} = {value!r}" for key, value in entry.options.items())
            parts.append(f"options {{{shown}}}")
        out.print(f"{entry.name}: {strategy}, {' and '.join(parts)}", markup=False, soft_wrap=True)


def print_report(config: LeagueConfig, run: LeagueRun, db: Path) -> None:
    if not run.outcomes:
        out.print(f"league {config.name!r}: no match stored yet in {db}", markup=False)
        return
    title = (
        f"league {config.name!r} ({config.game}, {config.games_per_match} games a match, "
        f"{_seed_text(config, run)}): {len(run.outcomes)}/{len(run.plans)} matches"
    )
    table = standings(config.game, run.outcomes, config.bot_names)
    undefined = _show_standings(config.game, table, title)
    _show_bot_configs(config)
    undefined += _show_matches(config.game, run.outcomes)
    if undefined:
        out.print(_undefined_note(undefined), markup=False)
    penalties = _penalties_note(run.outcomes)
    if penalties is not None:
        out.print(penalties, markup=False, soft_wrap=True)
    note = "" if run.complete else " — incomplete: run again to play the rest"
    reused = f"; {reused_words(run.reused)}" if run.reused else ""
    out.print(
        f"results: {db} (league id {run.league.id}{reused}){note}", markup=False, soft_wrap=True
    )


def reused_words(reused: list[ReusedMatch]) -> str:
    """``3 matches reused from league id 1, not played again (…)``: what this run copied."""
    ids = sorted({match.source.id for match in reused})
    where = ", ".join(map(str, ids))
    count = f"{len(reused)} match{'es' if len(reused) != 1 else ''}"
    return (
        f"{count} reused from league id{'s' if len(ids) > 1 else ''} {where}, not played again "
        "(the same bots, seed, games and rules give the same games; --restart plays them)"
    )


def _penalties_note(outcomes: list[MatchOutcome]) -> str | None:
    """``penalties (…): bob 1683 in alice vs bob``: the decisions the referee played for a bot
    (its fallback, for an answer late, missing or illegal), which the figures count as the bot's
    own play; None when there were none. A bot whose connection was lost played so."""
    found = [
        f"{bot} {count} in {outcome.plan.key}"
        for outcome in outcomes
        for bot, count in sorted(outcome.penalties.items())
        if count
    ]
    if not found:
        return None
    return (
        "penalties (decisions the referee played for a bot: an answer late, missing or "
        f"illegal; counted in the figures as the bot's own): {'; '.join(found)}"
    )
