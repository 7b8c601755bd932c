"""Standings with error bars, from the stored games of a league.

* Liar's dice and 1A2B: a bot's figure is its score rate (wins, with a 1A2B draw as ½), with a
  Wilson 95% interval over its games (Clopper–Pearson's under 30 games, `proportion_interval`).
* Mahjong: points per hand (total points over hands), with a Student-t 95% interval over the
  rounds (the four hands of a round replay one wall, so a round's total is one observation, as
  in `arena match mahjong`); the interval of the mean round total is scaled by rounds over hands,
  so a last round cut short by ``--games`` weighs by the hands it holds.

Per match, the difference A − B per game and its interval over the same observations: for
liar's dice and 1A2B, whose games give A − B = +1, 0 (a 1A2B draw) or −1, Clopper–Pearson's
interval of A's score rate mapped onto the difference (`difference_interval`: it never covers
less often than it says, where a t interval over ±1 values fell to 85% in lopsided or short
matches); for mahjong, a t interval over the rounds. A bot wins a match only when the match shows
it stronger: a two-bot match when the interval of A − B excludes 0 (else no difference is shown,
whoever has the most score), a four-bot match (mahjong's rotate layout) when the interval of the
leader's points minus each other bot's, per hand over the rounds, excludes 0; a bot's "matches
won" counts those matches. When every observation gave the same difference (three liar's dice
games all won by A) the sample shows no spread: the interval is then the exact one for a
quantity bounded as a game's difference is (`no_spread_interval`), and the line says so
(`MatchLine.no_spread`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.leagues.formats import LEAGUE_FORMATS
from arena.leagues.outcomes import MatchOutcome
from arena.matches.stats import (
    Interval,
    difference_interval,
    mean_interval,
    proportion_interval,
    spread_free,
)


@dataclass(frozen=True, slots=True)
class Standing:
    bot: str
    games: int
    score: float
    """Total score: wins (and halves), or mahjong points."""
    per_game: Interval
    """Mean score per game (the win rate, or points per hand) with its 95% interval."""
    matches: int
    match_points: float
    """Matches won: those whose interval shows this bot stronger (`MatchLine.winners`); a match
    that shows no difference counts for no bot."""

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": self.games,
            "score": round(self.score, 4),
            "per_game": round(self.per_game.estimate, 4),
            "per_game_ci95": self.per_game.to_json(),
            "matches": self.matches,
            "match_points": self.match_points,
        }


@dataclass(frozen=True, slots=True)
class MatchLine:
    key: str
    bots: tuple[str, ...]
    games: int
    totals: dict[str, float]
    difference: Interval | None
    """Two-bot matches: A's score minus B's per game, 95% interval."""
    winners: tuple[str, ...]
    """The bot the match shows stronger (its interval excludes 0), or none: a match that shows
    no difference has no winner, whoever has the most score (`leaders`)."""
    no_spread: bool = False
    """Two-bot matches: every observation (game, or mahjong round) gave the same A − B, so the
    interval rests on the range a game's difference can take, not on a measured spread; for
    mahjong, which has no such range, it has zero width, exact only if the bots cannot differ
    (two mirrored copies of one deterministic bot)."""
    leaders: tuple[str, ...] = ()
    """The bots with the most score (the point estimate's leaders), shown or not."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "match": self.key,
            "bots": list(self.bots),
            "games": self.games,
            "totals": {bot: round(score, 4) for bot, score in self.totals.items()},
            "winners": list(self.winners),
            "leaders": list(self.leaders),
        }
        if self.difference is not None:
            data["difference_per_game_ci95"] = self.difference.to_json()
            data["difference_no_spread"] = self.no_spread
        return data


def _unit_sums(outcome: MatchOutcome, value: Callable[[dict[str, float]], float]) -> list[float]:
    """Per unit (round, or game), the sum over its games of ``value(scores)``."""
    sums: dict[int, float] = defaultdict(float)
    for game in outcome.games:
        sums[game.unit] += value(game.scores)
    return [sums[unit] for unit in sorted(sums)]


def per_game_interval(
    unit_sums: Sequence[float], games: int, bounds: tuple[float, float] | None = None
) -> Interval:
    """The mean per game with its interval, from independent units of one or more games: the
    interval of the mean unit total scaled by units over games. Its estimate is the total over
    the games, so a short unit (a round cut short) counts by the games it holds, not as a whole
    unit (a mean of unit means would)."""
    if games == 0:
        return mean_interval([])
    return mean_interval(unit_sums, bounds=bounds).scaled(len(unit_sums) / games)


def _score_of(bot: str) -> Callable[[dict[str, float]], float]:
    return lambda scores: scores[bot]


def _difference(a: str, b: str) -> Callable[[dict[str, float]], float]:
    return lambda scores: scores[a] - scores[b]


def difference_bounds(game: str) -> tuple[float, float] | None:
    """The range of A − B in one game of ``game`` (`LeagueFormat.difference_bounds`: a game
    scores each bot 0, ½ or 1; mahjong points have no useful bound): a bounded difference gets
    `difference_interval`, inside this range. A game without a league format (its config is
    refused when it loads) counts as unbounded, whose interval holds for any scores, rather
    than stopping the standings of games already played."""
    league_format = LEAGUE_FORMATS.get(game)
    return None if league_format is None else league_format.difference_bounds


def match_lines(game: str, outcomes: Sequence[MatchOutcome]) -> list[MatchLine]:
    lines = []
    for outcome in outcomes:
        bots = outcome.plan.bots
        totals = {bot: math.fsum(g.scores[bot] for g in outcome.games) for bot in bots}
        best = max(totals.values(), default=0.0)
        difference = None
        no_spread = False
        if len(bots) == 2:
            bounds = difference_bounds(game)
            if bounds is None:
                diffs = _unit_sums(outcome, _difference(bots[0], bots[1]))
                difference = per_game_interval(diffs, len(outcome.games))
            else:
                # Games of one game each per unit (liar's dice, 1A2B): each is an observation.
                diffs = [g.scores[bots[0]] - g.scores[bots[1]] for g in outcome.games]
                difference = difference_interval(diffs, bounds=bounds)
            no_spread = spread_free(diffs)
        leaders = tuple(bot for bot in bots if totals[bot] == best)
        if difference is not None:
            winners = _shown_winner(bots[0], bots[1], difference)
        else:
            winners = _shown_leader(outcome, leaders)
        lines.append(
            MatchLine(
                outcome.plan.key,
                bots,
                len(outcome.games),
                totals,
                difference,
                winners,
                no_spread,
                leaders,
            )
        )
    return lines


def _shown_winner(a: str, b: str, difference: Interval) -> tuple[str, ...]:
    """A when the interval of A − B lies above 0, B when below, else no one (an interval
    that is not defined, over one mahjong round, shows nothing)."""
    if not difference.excludes(0.0):
        return ()
    return (a,) if difference.low > 0 else (b,)


def _shown_leader(outcome: MatchOutcome, leaders: tuple[str, ...]) -> tuple[str, ...]:
    """A match of more than two bots (mahjong's rotate layout): its one leader, when the
    interval of the leader's points minus each other bot's, per hand over the rounds, lies above
    0; else no one."""
    if len(leaders) != 1:
        return ()
    (leader,) = leaders
    for other in outcome.plan.bots:
        if other == leader:
            continue
        gaps = _unit_sums(outcome, _difference(leader, other))
        if not per_game_interval(gaps, len(outcome.games)).low > 0:
            return ()
    return leaders


def standings(game: str, outcomes: Sequence[MatchOutcome], bots: Sequence[str]) -> list[Standing]:
    """Every listed bot's standing (bots with no match yet show zero games), best first."""
    games: dict[str, int] = defaultdict(int)
    score: dict[str, float] = defaultdict(float)
    unit_sums: dict[str, list[float]] = defaultdict(list)
    matches: dict[str, int] = defaultdict(int)
    match_points: dict[str, float] = defaultdict(float)
    for outcome, line in zip(outcomes, match_lines(game, outcomes), strict=True):
        for bot in outcome.plan.bots:
            games[bot] += len(outcome.games)
            score[bot] += line.totals[bot]
            unit_sums[bot].extend(_unit_sums(outcome, _score_of(bot)))
            matches[bot] += 1
            if bot in line.winners:
                match_points[bot] += 1.0
    table = []
    for bot in bots:
        if game == "mahjong":
            per_game = per_game_interval(unit_sums[bot], games[bot])
        else:
            per_game = proportion_interval(score[bot], games[bot])
        table.append(
            Standing(bot, games[bot], score[bot], per_game, matches[bot], match_points[bot])
        )
    table.sort(key=lambda s: (-(s.per_game.estimate if s.games else -math.inf), s.bot))
    return table
