"""Liar's dice tables: two to five bots at one table for a series of games, every seating in turn.

Game k seats the bots in the (k mod N!)-th ordering of `itertools.permutations` (N bots), and
seat 0 opens it; so over any multiple of N! games every bot sits in every seat, behind and ahead
of every other bot equally often, and opens as often as any other. Who sits next to whom matters
in a common-hand game (a bot answers the bid of the seat before it), which is why every ordering
is played, not only the N rotations of one. Game k rolls the dice of game index k.

Each bot's score is the share of its games it is among the winners: in a single-round game
everyone but the loser of the challenge, in a dice-loss series the last seat with dice. The fair
share — what every bot would get if all were equally strong — is the mean of (winners / N) over
the games, the same for every bot; the exact (Clopper–Pearson) interval of a bot's share tells
whether it lies above or below that. A table of N bots names N verdicts, so each bot's interval
is at 1 − 0.05/N (Bonferroni): the N hold together 95% of the time, and a table of equally
strong bots calls one of them above or below the fair share in at most 5% of matches (at 95%
each, 17.0% of 5-bot 120-game tables did). Games are independent (fresh dice, bots that may
learn but are not reset), so the interval is the plain binomial one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.games.liars_dice import LiarsDiceRules
from arena.matches.bot_seeds import bot_options
from arena.matches.frame import MatchFrame
from arena.matches.liars_dice_series import make_ld_bot, play_seats
from arena.matches.seating import table_seating as seating
from arena.matches.stats import CONFIDENCE, Interval, exact_proportion_interval
from arena.records import Recorder
from arena.referee import TimeBank
from arena.transports.base import Seat

MAX_SEATS = 5
"""The engine's upper bound on seats (and a bound on N!, the games of one full cycle)."""


class TableError(ArenaError, ValueError):
    """A table that cannot be played as asked (too few bots, a ruleset for another number)."""


def table_names(bots: Sequence[str]) -> list[str]:
    """Seat names for in-process bots: a strategy named more than once gets ``#1``, ``#2`` … so
    that its copies keep apart (their random streams and learnt tables are keyed by name)."""
    return [
        f"{name}#{bots[: i + 1].count(name)}" if bots.count(name) > 1 else name
        for i, name in enumerate(bots)
    ]


@dataclass(frozen=True, slots=True)
class TableStanding:
    bot: str
    games: int
    wins: int
    penalties: int = 0
    """Decisions the referee played for this bot (the engine's fallback): late, illegal or
    missing answers."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self, confidence: float = CONFIDENCE) -> Interval:
        """The win rate with its exact (Clopper–Pearson) interval, 95% by default, as a duel's
        (`MatchReport.interval`): a verdict read from it is no likelier to be wrong than 1 −
        ``confidence``, whatever the number of games. A table's verdicts read it at
        `TableReport.verdict_confidence`."""
        return exact_proportion_interval(self.wins, self.games, confidence)


@dataclass
class TableReport:
    bots: list[str]
    games: int
    """The games played: all of them once the table is over, fewer in one stopped early
    (`run_table`'s ``on_start``)."""
    seed: str
    rules: dict[str, Any]
    standings: list[TableStanding]
    fair_share: float
    decisions: int
    seconds: float
    won: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    """Game by game, the bots (by index into `bots`) among the winners."""

    @property
    def seatings(self) -> int:
        """The games of one full cycle of seatings (N!)."""
        return math.factorial(len(self.bots))

    @property
    def verdict_confidence(self) -> float:
        """The confidence of each bot's interval that the verdicts read: 1 − 0.05/N for N bots
        (Bonferroni), so that the table's N verdicts are all right 95% of the time."""
        return 1 - (1 - CONFIDENCE) / max(len(self.standings), 1)

    def verdict_interval(self, standing: TableStanding) -> Interval:
        """The interval `verdict` reads (at `verdict_confidence`), the one the report shows."""
        return standing.interval(self.verdict_confidence)

    def verdict(self, standing: TableStanding) -> str:
        """``above`` / ``below`` the fair share when `verdict_interval` excludes it, else
        ``even``."""
        interval = self.verdict_interval(standing)
        if not interval.excludes(self.fair_share):
            return "even"
        return "above" if standing.win_rate > self.fair_share else "below"

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": self.bots,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules,
            "seatings": self.seatings,
            "every_seating_equally": self.games % self.seatings == 0,
            "fair_share": round(self.fair_share, 4),
            "verdict_confidence": round(self.verdict_confidence, 6),
            "results": [
                {
                    "bot": s.bot,
                    "wins": s.wins,
                    "games": s.games,
                    "win_rate": round(s.win_rate, 4),
                    "win_rate_ci95": s.interval().to_json(),
                    "verdict_interval": self.verdict_interval(s).to_json(),
                    "verdict": self.verdict(s),
                    "penalties": s.penalties,
                }
                for s in self.standings
            ],
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
        }


def check_table(names: Sequence[str], rules: LiarsDiceRules | None) -> LiarsDiceRules:
    """The ruleset for a table of the players ``names`` (the default one for that many when
    ``rules`` is ``None``); raises `TableError` when they cannot sit down together."""
    count = len(names)
    if not 2 <= count <= MAX_SEATS:
        raise TableError(f"a liar's dice table seats 2 to {MAX_SEATS} players, got {count}")
    if len(set(names)) != count:
        raise TableError(f"the players at a table need distinct names, got {list(names)}")
    rules = rules or LiarsDiceRules(players=count)
    if rules.players != count:
        raise TableError(
            f"the ruleset has players = {rules.players}, but the table has {count} "
            f"({', '.join(names)}): seat {rules.players} or use a ruleset for {count}"
        )
    return rules


@dataclass(frozen=True, slots=True)
class TableGame:
    """One game of a table, by player index (not seat: the seating changes every game)."""

    winners: tuple[int, ...]
    """Sorted."""
    decisions: int
    penalties: tuple[int, ...]


async def play_table_game(
    game: int,
    names: Sequence[str],
    seats: Sequence[Seat],
    seed: MatchSeed,
    rules: LiarsDiceRules,
    match_id: str,
    *,
    deadline_ms: int,
    recorder: Recorder | None = None,
    reveal: bool = False,
    time_bank: TimeBank | None = None,
) -> TableGame:
    """Game ``game`` of a table: player i (``names[i]`` at ``seats[i]``) seated by the
    `seating` of that game, seat 0 opening, on the dice of that game index."""
    order = seating(game, len(seats))
    played = await play_seats(
        [seats[i] for i in order],
        [names[i] for i in order],
        seed,
        game_index=game,
        first=0,
        rules=rules,
        match_id=match_id,
        deadline_ms=deadline_ms,
        recorder=recorder,
        reveal=reveal,
        time_bank=time_bank,
    )
    penalties = [0] * len(seats)
    for seat, player in enumerate(order):
        penalties[player] = played.penalties[seat]
    return TableGame(
        tuple(sorted(order[s] for s in played.result.winners)),
        played.decisions,
        tuple(penalties),
    )


async def run_table(
    names: Sequence[str],
    seats: Sequence[Seat],
    games: int,
    seed_text: str,
    *,
    rules: LiarsDiceRules | None = None,
    progress: Callable[[int], None] | None = None,
    recorder: Recorder | None = None,
    deadline_ms: int = 5000,
    time_bank: TimeBank | None = None,
    on_start: Callable[[TableReport], None] | None = None,
) -> TableReport:
    """``games`` games through the referee between ``seats`` (bot i at ``seats[i]``, named
    ``names[i]``: in-process bots or bots on a server), each game in the next seating.
    ``on_start`` is given the report before the first game; the games are tallied into it one
    by one (its `games` and standings are of the games played so far, its `seconds` set
    however the table ends), so a caller whose table is stopped (Ctrl-C) still has the
    figures of the games played."""
    if len(names) != len(seats):
        raise TableError(f"{len(names)} names for {len(seats)} seats")
    rules = check_table(names, rules)
    count = len(seats)
    seed = MatchSeed.from_text(seed_text)
    wins = [0] * count
    penalties = [0] * count
    winner_share = 0.0
    report = TableReport(
        list(names),
        0,
        seed_text,
        dict(rules.to_mapping()),
        [TableStanding(name, 0, 0, 0) for name in names],
        0.0,
        0,
        0.0,
    )
    if on_start is not None:
        on_start(report)
    started = time.perf_counter()
    frame = MatchFrame(
        "liars_dice", seed, seats, names, games, recorder, "permutations", rules.to_mapping()
    )
    match_id = frame.match_id
    try:
        await frame.start()
        for k in range(games):
            played = await play_table_game(
                k,
                names,
                seats,
                seed,
                rules,
                match_id,
                deadline_ms=deadline_ms,
                recorder=recorder,
                reveal=False,
                time_bank=time_bank,
            )
            winners = played.winners
            for bot in winners:
                wins[bot] += 1
            for bot, given in enumerate(played.penalties):
                penalties[bot] += given
            frame.tally(names, [float(bot in winners) for bot in range(count)])
            winner_share += len(winners) / count
            report.won.append(winners)
            report.games = done = k + 1
            report.standings = [
                TableStanding(names[i], done, wins[i], penalties[i]) for i in range(count)
            ]
            report.fair_share = winner_share / done
            report.decisions += played.decisions
            if progress is not None:
                progress(1)
        await frame.finish()
    finally:
        frame.close()
        report.seconds = time.perf_counter() - started
    return report


def in_process_seats(
    strategies: Sequence[str], seed_text: str, configs: Mapping[str, Mapping[str, Any]]
) -> tuple[list[str], list[Seat]]:
    """Build the in-process bots of a table: the names (copies numbered, `table_names`) and their
    seats; ``configs`` maps a strategy name to the options of every copy of it, or one copy's
    name (``bayes#2``) to that copy's own."""
    from arena.transports.inprocess import InProcessSeat

    names = table_names(strategies)
    seats: list[Seat] = []
    # Never the match seed itself (a bot holding it could derive every die of the match), and
    # a seed of each bot's own (one holding another's could replay that bot's random choices).
    match_seed = MatchSeed.from_text(seed_text)
    for strategy, name in zip(strategies, names, strict=True):
        config = configs.get(name, configs.get(strategy, {}))
        bot = make_ld_bot(strategy, bot_options(match_seed, name, config))
        bot.name = name
        seats.append(InProcessSeat(bot))
    return names, seats
