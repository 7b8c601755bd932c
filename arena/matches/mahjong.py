"""The competition mahjong match (seed 003 §2.1 rules 4–5, §4.1): 384 hands under one seed.

Hands are grouped in rounds of four (hand ``g`` is hand ``g % 4`` of round ``g // 4``). A round
keeps one seating and one wall (``wall.py``: it depends on the match seed and the round only) and
the deal passes every hand (no 連莊), so seat ``h`` deals hand ``h`` and each player receives each
of the four starting hands, and the draws that go with them, once per round. Rounds cycle through
the seatings:

* ``rotate`` (four programs): the six cyclic orders of four players (player 0 at seat 0, the
  others in each of their 3! orders), round ``r`` using order ``r % 6``; 384 hands = 96 rounds =
  16 of each order, so everyone sits after (上家 of) everyone equally often.
* ``ab`` (two programs, two copies each, seed 003 圖四-2): copies at opposite seats, A B A B, with
  the two B copies swapped every other round. Each side's figures add its two copies.

``--games`` below 384 plays the first rounds of this schedule. A count that is not a multiple of
4 ends with a partial round, so some players miss some starting hands (and deal less often); a
multiple of 24 (``rotate``) or 8 (``ab``) also balances the seatings.

All randomness comes from the match seed: the walls, and the streams of the bots, whose seeds are
derived from it (`build_bots`). So the same seed and bots replay the match bit for bit, and no
one without the seed can foresee a bot's choices.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.dealing import MatchSeed
from arena.games.mahjong.rules import SEATS, MahjongRules
from arena.games.mahjong.tiles import MahjongError
from arena.matches.bot_seeds import seeded_options
from arena.matches.frame import MatchFrame
from arena.matches.seating import AB_ORDERS as AB_ORDERS  # re-exported: defined here once
from arena.matches.seating import CYCLIC_ORDERS as CYCLIC_ORDERS  # re-exported: likewise
from arena.matches.seating import HANDS_PER_ROUND
from arena.matches.seating import mahjong_seating as seating
from arena.matches.stats import Interval, mean_interval, proportion_interval, spread_free
from arena.records import Recorder
from arena.referee import DEFAULT_DEADLINE_MS, PlayedGame, TimeBank, play_game
from arena.transports.base import Seat
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.registry import make_bot

MATCH_HANDS: Final = 384
LAYOUTS: Final = ("rotate", "ab")
WINDS: Final = ("E", "S", "W", "N")

FEW_ROUNDS: Final = 8
"""Below this many rounds a match's Student-t intervals over its round totals are approximate:
the round totals are far from normal (a hand's points are lumpy, a round can turn on one
win), and with so few of them the t interval covers the true mean less often than it says. A/B
matches of greedy against random (750 each) missed it in 7.5% at 2 and 4 rounds (56 of 750,
about 3 standard errors above 5%) and 4.5% at 8. Below it `MatchResult.to_json` says
``intervals_approximate: true`` and the text says so (`arena match mahjong`)."""


@dataclass(frozen=True)
class ProgramConfig:
    """A program's strategy config: the file as given, which the figures show and whose stem
    names the program's players, and the bot settings read from it."""

    file: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return Path(self.file).stem


@dataclass(frozen=True)
class MatchSpec:
    """What to play: the programs (bot strategy names, and each one's config if any), the
    hands, the seed and the rules."""

    bots: tuple[str, ...]
    seed: str
    games: int = MATCH_HANDS
    rules: MahjongRules = field(default_factory=MahjongRules)
    layout: str = "rotate"
    deadline_ms: int = DEFAULT_DEADLINE_MS
    configs: tuple[ProgramConfig | None, ...] = ()
    """One per program (``None``: the strategy's defaults), or empty: no program has one."""

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}")
        wanted = SEATS if self.layout == "rotate" else 2
        if len(self.bots) != wanted:
            hint = {"rotate": "; two bots play --layout ab", "ab": "; four play --layout rotate"}
            raise ValueError(
                f"the {self.layout} layout takes {wanted} bots, got {len(self.bots)}: "
                f"{','.join(self.bots)}{hint[self.layout] if len(self.bots) in (2, 4) else ''}"
            )
        if self.games < 1:
            raise ValueError(f"a match plays at least one hand, got {self.games}")
        if self.configs and len(self.configs) != len(self.bots):
            raise ValueError(f"{len(self.configs)} configs for {len(self.bots)} programs")

    def config_of(self, program: int) -> ProgramConfig | None:
        return self.configs[program] if self.configs else None

    def program_name(self, program: int) -> str:
        """A program's name: its config's (the file's stem, as a 1A2B match names a bot after
        its config), else its strategy's."""
        config = self.config_of(program)
        return config.name if config is not None else self.bots[program]

    def player_names(self) -> list[str]:
        """The names of the four in-process players: ``<program name>-<player>``."""
        return [f"{self.program_name(program)}-{p}" for p, program in enumerate(self.program_of)]

    @property
    def program_of(self) -> tuple[int, ...]:
        """The program each of the four players (bot instances) belongs to."""
        return (0, 1, 2, 3) if self.layout == "rotate" else (0, 1, 0, 1)


@dataclass
class ProgramStats:
    """One program's figures over a match (both copies added in the A/B layout)."""

    bot: str
    copies: int
    strategy: str = ""
    config: str | None = None
    """The config file the program played, as given (``None``: the strategy's defaults)."""
    hands: int = 0
    seat_counts: list[int] = field(default_factory=lambda: [0] * SEATS)
    """Hands played in each seat wind E, S, W, N (E = dealer), copies added."""
    points: int = 0
    discard_wins: int = 0
    """Wins on another seat's discard (他家放槍), robbed kongs included."""
    self_draws: int = 0
    """Self-drawn wins (自摸)."""
    deal_ins: int = 0
    """Discards (or added kongs) another seat won on (放槍)."""
    tai: int = 0
    """Tai of all wins (莊家 included when the winner dealt)."""
    penalties: int = 0
    round_points: list[int] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return self.discard_wins + self.self_draws

    @property
    def win_rate(self) -> float:
        """Wins over hands played by one copy (the seed's 胡牌率: wins / hands of the match)."""
        per_copy = self.hands / self.copies
        return self.wins / per_copy if per_copy else 0.0

    @property
    def deal_in_rate(self) -> float:
        per_copy = self.hands / self.copies
        return self.deal_ins / per_copy if per_copy else 0.0

    @property
    def average_tai(self) -> float:
        return self.tai / self.wins if self.wins else 0.0

    def points_interval(self) -> Interval:
        """95% interval of the match total, from the per-round totals (rounds are independent:
        each has its own wall)."""
        return mean_interval(self.round_points).scaled(len(self.round_points))

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            **self.config_json(),
            "copies": self.copies,
            "hands": self.hands,
            "seat_counts": list(self.seat_counts),
            "points": self.points,
            "discard_wins": self.discard_wins,
            "self_draws": self.self_draws,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "deal_ins": self.deal_ins,
            "deal_in_rate": round(self.deal_in_rate, 4),
            "average_tai": round(self.average_tai, 3),
            "penalties": self.penalties,
            "points_ci95": self.points_interval().to_json(1),
        }

    def config_json(self) -> dict[str, Any]:
        """The strategy and config file of a configured program (nothing for the others, whose
        ``bot`` is their strategy or its players)."""
        return {} if self.config is None else {"strategy": self.strategy, "config": self.config}


@dataclass
class MatchResult:
    spec: MatchSpec
    programs: list[ProgramStats]
    seed_hex: str
    hands: int = 0
    exhaustive: int = 0
    decisions: int = 0
    hand_points: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    """Each hand's points per program (copies added), in play order: what a league stores."""
    seconds: float = 0.0
    """Wall time of the match: its hands so far while it plays, all of them once it is over
    (not in `to_json`, which a seed and bots repeat bit for bit; `arena match` adds it)."""

    @property
    def rounds(self) -> int:
        """Rounds begun (the last one partial when the hands are not a multiple of four)."""
        return len(self.programs[0].round_points)

    def intervals_approximate(self) -> bool:
        """Whether the match has too few rounds (`FEW_ROUNDS`) for its t intervals to be more
        than approximate. A one-round match has none (they need two rounds), so nothing to
        qualify."""
        return 2 <= self.rounds < FEW_ROUNDS

    def winners(self) -> list[int]:
        """Programs with the most points (several on a tie)."""
        best = max(p.points for p in self.programs)
        return [i for i, p in enumerate(self.programs) if p.points == best]

    def round_differences(self) -> list[float] | None:
        """A/B: A's points minus B's in each round (``None`` for four programs)."""
        if len(self.programs) != 2:
            return None
        a, b = self.programs
        return [float(x - y) for x, y in zip(a.round_points, b.round_points, strict=True)]

    def difference_interval(self) -> Interval | None:
        """A/B: 95% interval of A's points minus B's, from the per-round differences."""
        diffs = self.round_differences()
        if diffs is None:
            return None
        return mean_interval(diffs).scaled(len(diffs))

    def difference_no_spread(self) -> bool:
        """A/B: every round gave the same A − B (two rounds or more), so the difference's t
        interval has zero width. It shows no spread in these rounds, not a difference known
        exactly, unless the programs cannot play differently (two copies of one deterministic
        bot); mahjong points have no range to fall back on, so the width stays zero and the
        match says so (as a league's match line does: `MatchLine.no_spread`)."""
        diffs = self.round_differences()
        return diffs is not None and spread_free(diffs)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "games": self.hands,
            "seed": self.spec.seed,
            "seed_hex": self.seed_hex,
            "layout": self.spec.layout,
            "rounds": self.rounds,
            "intervals_approximate": self.intervals_approximate(),
            "exhaustive_draws": self.exhaustive,
            "decisions": self.decisions,
            "players": [p.to_json() for p in self.programs],
            "winners": [self.programs[i].bot for i in self.winners()],
        }
        diff = self.difference_interval()
        if diff is not None:
            data["points_difference_ci95"] = diff.to_json(1)
            data["points_difference_no_spread"] = self.difference_no_spread()
        return data


def _tally(
    spec: MatchSpec,
    result: MatchResult,
    seat_player: Sequence[int],
    played: PlayedGame,
    dealer: int,
) -> None:
    detail = played.result.detail
    programs = result.programs
    program_at = [spec.program_of[player] for player in seat_player]
    hand = [0] * len(programs)
    for seat in range(SEATS):
        hand[program_at[seat]] += int(detail["deltas"][seat])
        stats = programs[program_at[seat]]
        stats.hands += 1
        stats.seat_counts[(seat - dealer) % SEATS] += 1
        stats.points += int(detail["deltas"][seat])
        stats.round_points[-1] += int(detail["deltas"][seat])
        stats.penalties += played.penalties[seat]
    for win in detail["wins"]:
        winner = programs[program_at[int(win["seat"])]]
        winner.tai += int(win["tai"])
        if win["how"] == "tsumo":
            winner.self_draws += 1
        else:
            winner.discard_wins += 1
            programs[program_at[int(win["from_seat"])]].deal_ins += 1
    result.hand_points.append(tuple(hand))
    if not detail["wins"]:
        result.exhaustive += 1
    result.hands += 1
    result.decisions += played.decisions


def build_bots(spec: MatchSpec, options: Mapping[str, Any] | None = None) -> list[Bot]:
    """The four bot instances, named as `MatchSpec.player_names`, each given ``options`` and its
    program's config settings over them (unknown names or options raise)."""
    seed = MatchSeed.from_text(spec.seed)
    bots = []
    for player, name in enumerate(spec.player_names()):
        program = spec.program_of[player]
        settings = dict(options or {})
        config = spec.config_of(program)
        if config is not None:
            settings.update(config.settings)
        # As in the other games and `bots run`: every bot that takes a seed plays one derived
        # from the match seed and its name (and its config's seed, if any). Left to itself a
        # random bot seeds itself from its public name, so anyone could replay its choices.
        strategy = spec.bots[program]
        settings = seeded_options("mahjong", strategy, seed, name, settings)
        bots.append(make_bot("mahjong", strategy, settings, name=name))
    return bots


def program_labels(spec: MatchSpec, players: Sequence[str]) -> list[str]:
    """Each program's name in the figures and winners: `MatchSpec.program_name` (its strategy's,
    or its config's), unless two programs share it (``--bots greedy,random,greedy,random``);
    then the names its players have in the record headers (``greedy-0``, ``greedy-2``; an A/B
    pair of copies ``greedy-0+greedy-2``), so that its rows and wins can be told apart and
    found in the record."""
    names = [spec.program_name(program) for program in range(len(spec.bots))]
    labels = []
    for program, name in enumerate(names):
        if names.count(name) == 1:
            labels.append(name)
        else:
            own = [players[p] for p, owner in enumerate(spec.program_of) if owner == program]
            labels.append("+".join(own))
    return labels


async def play_match(
    spec: MatchSpec,
    *,
    bots: Sequence[Bot] | None = None,
    seat_factory: Callable[[Bot], Seat] = InProcessSeat,
    recorder: Recorder | None = None,
    on_hand: Callable[[int, int], None] | None = None,
    match_id: str | None = None,
    seats: Sequence[Seat] | None = None,
    names: Sequence[str] | None = None,
    time_bank: TimeBank | None = None,
    on_start: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """Play ``spec`` through the referee; ``on_hand(done, total)`` reports progress.

    ``seats`` with their players' ``names`` replace ``bots`` when the seats are made elsewhere
    (`arena.server.remote.remote_seats`: bots on a server); ``time_bank`` is the match's.
    ``on_start`` is given the result before the first hand; the hands are tallied into it one
    by one (its `seconds` too, however the match ends), so a caller whose match is stopped
    (Ctrl-C) still has the figures of the hands played.
    """
    seed = MatchSeed.from_text(spec.seed)
    if seats is not None:
        if names is None or len(names) != len(seats):
            raise ValueError("seats need their players' names, one each")
        players = list(names)
    else:
        bot_list = list(bots) if bots is not None else build_bots(spec)
        seats = [seat_factory(bot) for bot in bot_list]
        players = [bot.name for bot in bot_list]
    if len(seats) != SEATS:
        raise ValueError(f"a mahjong match seats {SEATS} bots, got {len(seats)}")
    copies = 1 if spec.layout == "rotate" else 2
    programs = []
    for program, label in enumerate(program_labels(spec, players)):
        config = spec.config_of(program)
        programs.append(
            ProgramStats(
                bot=label,
                copies=copies,
                strategy=spec.bots[program],
                config=None if config is None else config.file,
            )
        )
    result = MatchResult(spec=spec, programs=programs, seed_hex=seed.hex())
    if on_start is not None:
        on_start(result)
    started = time.perf_counter()
    totals = [0] * SEATS
    rules = spec.rules.to_mapping()
    first_seating = seating(spec.layout, 0)
    frame = MatchFrame(
        "mahjong",
        seed,
        [seats[player] for player in first_seating],
        [players[player] for player in first_seating],
        spec.games,
        recorder,
        f"mahjong-{spec.layout}",
        rules,
        match_id or "",
    )
    match = frame.match_id
    try:
        await frame.start()
        for game in range(spec.games):
            round_index, hand = divmod(game, HANDS_PER_ROUND)
            seat_player = seating(spec.layout, round_index)
            played = await play_game(
                "mahjong",
                [seats[player] for player in seat_player],
                rules=rules,
                seed=seed,
                deal={
                    "round": round_index,
                    "hand": hand,
                    "scores": [totals[p] for p in seat_player],
                },
                players=[players[player] for player in seat_player],
                match_id=match,
                game_id=f"r{round_index}h{hand}",
                deadline_ms=spec.deadline_ms,
                recorder=recorder,
                time_bank=time_bank,
                reveal=False,
            )
            if hand == 0:
                # Once the round's first hand is over, not before: a match stopped during it
                # has no round of no hands among its figures.
                for stats in result.programs:
                    stats.round_points.append(0)
            for seat, player in enumerate(seat_player):
                totals[player] += int(played.result.scores[seat])
            frame.tally([players[player] for player in seat_player], played.result.scores)
            _tally(spec, result, seat_player, played, dealer=hand)
            if on_hand is not None:
                on_hand(game + 1, spec.games)
        await frame.finish()
    finally:
        frame.close()
        result.seconds = time.perf_counter() - started
    points = [p.points for p in result.programs]
    if sum(points) != 0:  # not an assert: `python -O` would drop it
        raise MahjongError(f"the programs' points {points} are not zero-sum")
    return result


def series_seed(seed: str, index: int, matches: int) -> str:
    """Seed text of match ``index`` of a series (the seed itself for a single match)."""
    return seed if matches == 1 else f"{seed}/{index}"


@dataclass
class SeriesResult:
    """Several matches of the same programs under derived seeds (seed 003 §4.1: 30 matches)."""

    seed: str
    matches: list[MatchResult]

    def to_json(self) -> dict[str, Any]:
        first = self.matches[0]
        n = len(self.matches)
        programs = []
        for i, stats in enumerate(first.programs):
            won = tied = 0
            score = 0.0
            for match in self.matches:
                winners = match.winners()
                if i in winners:
                    won += len(winners) == 1
                    tied += len(winners) > 1
                    score += 1 / len(winners)
            per_match = [float(m.programs[i].points) for m in self.matches]
            hands = sum(m.programs[i].hands for m in self.matches)
            wins = sum(m.programs[i].wins for m in self.matches)
            programs.append(
                {
                    "bot": stats.bot,
                    **stats.config_json(),
                    "points": int(sum(per_match)),
                    "discard_wins": sum(m.programs[i].discard_wins for m in self.matches),
                    "self_draws": sum(m.programs[i].self_draws for m in self.matches),
                    "deal_ins": sum(m.programs[i].deal_ins for m in self.matches),
                    "win_rate": round(wins / (hands / stats.copies), 4) if hands else 0.0,
                    # Ties apart: a tie counted as half a win read "matches won 5/10" for ten
                    # tied matches. The score (a tie shared) is what the interval is of.
                    "matches_won": won,
                    "matches_tied": tied,
                    "match_score": score,
                    "match_score_rate_ci95": proportion_interval(score, n).to_json(),
                    "points_per_match_ci95": mean_interval(per_match).to_json(1),
                }
            )
        data: dict[str, Any] = {
            "matches": n,
            "games": sum(m.hands for m in self.matches),
            "seed": self.seed,
            "layout": first.spec.layout,
            "players": programs,
        }
        if len(first.programs) == 2:
            diffs = [float(m.programs[0].points - m.programs[1].points) for m in self.matches]
            data["points_difference_per_match_ci95"] = mean_interval(diffs).to_json(1)
            # Every match the same A − B (two copies of one deterministic bot tie each one):
            # the zero width shows no spread over the matches (`MatchResult.difference_no_spread`).
            data["points_difference_per_match_no_spread"] = spread_free(diffs)
        return data
