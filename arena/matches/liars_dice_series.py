"""Liar's dice between two bots: the drivers that play one game, the duel and the match.

Two drivers play a game with the same `LiarsDiceBot` objects:

* `play_direct` — a synchronous loop over the engine interface (to_act, observation, apply,
  drain_events) that calls the bots' synchronous core. No envelopes, no asyncio, no deadlines.
* `play_refereed` — the lead's async referee with in-process seats: every event and request is a
  protocol message, every answer parsed and checked (`play_seats`: the same between any seats,
  which is what every format here and the tables of `arena.matches.liars_dice` play).

Both feed a bot exactly the same payloads and observations, so a seed gives the same games
either way (a test checks it). The seed's gauntlet plays `play_direct`, because the referee's
per-decision cost is what dominates a 16,000-game run; `arena bench liars-dice` measures both.

Two formats of two bots: `play_duel` (a bot at seat 0 against one opponent, who opens set by
an `Opener` — the gauntlet's unit) and `run_match` (seats and opener alternating, through the
referee and recorded — what `arena match liars-dice --a/--b` and a league play).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from arena.dealing import MatchSeed
from arena.games.base import GameResult
from arena.games.liars_dice import LiarsDiceGame, LiarsDiceRules
from arena.matches.bot_seeds import bot_options
from arena.matches.frame import MatchFrame
from arena.matches.seating import seat_order
from arena.matches.stats import (
    CONFIDENCE,
    Interval,
    exact_proportion_interval,
    proportion_interval,
)
from arena.records import Recorder
from arena.referee import PlayedGame, TimeBank, play_game
from arena.transports.base import Seat
from bots.liars_dice import LiarsDiceBot
from bots.registry import make_bot

Progress = Callable[[int], None]
"""Called with the number of games just finished."""


def make_ld_bot(strategy: str, config: Mapping[str, Any] | None = None) -> LiarsDiceBot:
    bot = make_bot("liars_dice", strategy, config)
    if not isinstance(bot, LiarsDiceBot):
        raise TypeError(f"{strategy} is not a liar's dice strategy bot")
    return bot


def play_direct(
    bots: Sequence[LiarsDiceBot],
    seed: MatchSeed,
    *,
    game_index: int,
    first: int,
    rules: LiarsDiceRules | None = None,
    match_id: str = "m",
    players: Sequence[str] | None = None,
) -> tuple[GameResult, int]:
    """One game through the engine interface, synchronously; returns the result and decisions."""
    rules = rules or LiarsDiceRules(players=len(bots))
    game = LiarsDiceGame(rules, seed, game_index=game_index, first=first)
    game_id = f"g{game_index}"
    names = list(players) if players is not None else [bot.name for bot in bots]
    for seat, bot in enumerate(bots):
        bot.begin(match_id, game_id, seat, names)
    decisions = 0
    while True:
        for event in game.drain_events():
            for seat, bot in enumerate(bots):
                if event.visible_to(seat):
                    bot.handle(match_id, game_id, event.payload)
        if game.is_over():
            return game.result(), decisions
        (seat,) = game.to_act()
        text = bots[seat].choose(match_id, game_id, game.observation(seat))
        game.apply(seat, game.parse_action(text))
        decisions += 1


async def play_refereed(
    bots: Sequence[LiarsDiceBot],
    seed: MatchSeed,
    *,
    game_index: int,
    first: int,
    rules: LiarsDiceRules | None = None,
    match_id: str = "m",
    players: Sequence[str] | None = None,
    deadline_ms: int = 5000,
) -> tuple[GameResult, int]:
    """The same game through the referee with in-process seats."""
    from arena.transports.inprocess import InProcessSeat

    names = list(players) if players is not None else [bot.name for bot in bots]
    played = await play_seats(
        [InProcessSeat(bot) for bot in bots],
        names,
        seed,
        game_index=game_index,
        first=first,
        rules=rules,
        match_id=match_id,
        deadline_ms=deadline_ms,
    )
    return played.result, played.decisions


async def play_seats(
    seats: Sequence[Seat],
    names: Sequence[str],
    seed: MatchSeed,
    *,
    game_index: int,
    first: int,
    rules: LiarsDiceRules | None = None,
    match_id: str = "m",
    deadline_ms: int = 5000,
    recorder: Recorder | None = None,
    reveal: bool = False,
    time_bank: TimeBank | None = None,
) -> PlayedGame:
    """One game through the referee between any seats (in-process or on a server), written to
    ``recorder`` when one is given (``reveal``: with the seed after it, for a game played on
    its own; a match reveals it once, at its end). The result, the decisions and each seat's
    penalties (the fallbacks it played for that seat)."""
    rules = rules or LiarsDiceRules(players=len(seats))
    return await play_game(
        "liars_dice",
        list(seats),
        rules=rules.to_mapping(),
        seed=seed,
        deal={"game_index": game_index, "first": first},
        players=list(names),
        match_id=match_id,
        game_id=f"g{game_index}",
        deadline_ms=deadline_ms,
        recorder=recorder,
        reveal=reveal,
        time_bank=time_bank,
    )


# -- duels: a bot at seat 0 against one opponent ----------------------------------------------


@dataclass
class Duel:
    """A bot's record against one opponent: game by game, in order (for the trend charts)."""

    opponent: str
    outcomes: list[bool] = field(default_factory=list)
    decisions: int = 0
    give_ups: int = 0
    """Decisions where random-guess's §4.2.3 flow ran out of tries (see `RandomGuess`)."""

    @property
    def wins(self) -> int:
        return sum(self.outcomes)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(
        self,
        confidence: float = CONFIDENCE,
        *,
        opener: Opener = "alternate",
        seed_games: int | None = None,
    ) -> Interval:
        """The win rate with its Wilson 95% interval (Clopper–Pearson under 30 games), for the
        duel's games played under ``opener`` (``seed_games``: a pooled duel's games per seed,
        as `opened_games` takes them).

        Under ``alternate``, ``bot`` and ``opponent`` who opens does not depend on the games,
        which are independent. Under ``winner`` and ``loser`` it does: the outcomes form a
        two-state Markov chain whose lag-1 correlation ρ is `chain_correlation` (under
        ``winner`` the bot's win rate when it opens minus that when it answers, up to +0.17
        for random-guess against type7). The variance of its mean rate is p(1 − p)/n ·
        (1 + ρ)/(1 − ρ), so when ρ > 0 the interval is that of n (1 − ρ)/(1 + ρ) independent
        games (`proportion_interval`'s ``design_effect``), with ρ estimated from this duel's
        own opening and answering win rates; as if independent, the 95% interval covered the
        true rate in 90.1% of 2,000-game duels against type7. When ρ ≤ 0 (under ``loser``
        for a bot that wins more when it opens) the plain interval is conservative and kept."""
        rho = chain_correlation(self.outcomes, opener, seed_games)
        return proportion_interval(
            self.wins, self.games, confidence, design_effect=chain_design_effect(rho, self.games)
        )

    def to_json(
        self, *, opener: Opener = "alternate", seed_games: int | None = None
    ) -> dict[str, Any]:
        interval = self.interval(opener=opener, seed_games=seed_games)
        return {
            "opponent": self.opponent,
            "wins": self.wins,
            "games": self.games,
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": interval.to_json(),
            "decisions_per_game": round(self.decisions / self.games, 3) if self.games else 0.0,
        }


Driver = Literal["referee", "direct"]
Opener = Literal["alternate", "bot", "opponent", "loser", "winner"]
OPENERS: tuple[Opener, ...] = ("alternate", "bot", "opponent", "loser", "winner")
"""Who opens the games of a duel. The seed does not say who opened in its experiments; the
issue asks for alternating openers. `bot` and `opponent` measure each side of that; `loser` and
`winner` (the previous game's, the bot opening the first) are the usual rules at a table."""


CHAIN_OPENERS: tuple[Opener, ...] = ("loser", "winner")
"""The openers under which who opens a game depends on the previous game's result: a duel's
outcomes are then a Markov chain, not independent games (`Duel.interval`)."""


def first_player(opener: Opener, game: int, bot_won_last: bool | None = None) -> int:
    """The seat that opens game ``game`` of a duel (the bot sits at seat 0); ``bot_won_last``
    is the previous game's result for the bot (``None`` before the first)."""
    if opener == "alternate":
        return game % 2
    # Before the None check: the personality opens every game, the first included.
    if opener == "opponent":
        return 1
    if opener == "bot" or bot_won_last is None:
        return 0
    loser = 1 if bot_won_last else 0
    return loser if opener == "loser" else 1 - loser


def opened_games(
    opener: Opener, outcomes: Sequence[bool], seed_games: int | None = None
) -> list[bool]:
    """Game by game, whether the bot opened: `first_player`, which `play_duel` follows,
    replayed over ``outcomes``. ``seed_games``: a pooled duel's games of each seed, which
    follow each other (every seed starts a new duel); ``None``: one duel."""
    per_seed = max(1, seed_games or len(outcomes))
    opened: list[bool] = []
    for start in range(0, len(outcomes), per_seed):
        games = outcomes[start : start + per_seed]
        opened += [
            first_player(opener, k, games[k - 1] if k else None) == 0 for k in range(len(games))
        ]
    return opened


def chain_correlation(
    outcomes: Sequence[bool], opener: Opener, seed_games: int | None = None
) -> float:
    """The lag-1 correlation of a duel's outcomes that who opens brings about, estimated from
    the duel: 0 unless ``opener`` is one of `CHAIN_OPENERS`. Under ``winner`` a win makes the
    bot open the next game, so P(win | won the last) is its win rate a when opening and
    P(win | lost the last) its rate b when answering: the two-state chain's correlation is
    a − b. Under ``loser`` it is b − a. 0 too when either side opened no game."""
    if opener not in CHAIN_OPENERS:
        return 0.0
    opened = opened_games(opener, outcomes, seed_games)
    return chain_correlation_of(
        sum(opened),
        sum(won for won, bot_opens in zip(outcomes, opened, strict=True) if bot_opens),
        len(outcomes) - sum(opened),
        sum(won for won, bot_opens in zip(outcomes, opened, strict=True) if not bot_opens),
        opener,
    )


def chain_design_effect(rho: float, games: int) -> float:
    """The variance of the mean of ``games`` outcomes of a two-state chain of lag-1 correlation
    ``rho``, over the binomial variance: (1 + ρ)/(1 − ρ) when ρ > 0, else 1 (a negative
    correlation narrows the true interval; the plain one is kept, conservative). At most
    ``games``: a chain that never left its state is as informative as one game."""
    if rho <= 0 or games <= 1:
        return 1.0
    if rho >= 1:
        return float(games)
    return min(float(games), (1 + rho) / (1 - rho))


def chain_correlation_of(
    opened: int, opened_wins: int, answered: int, answered_wins: int, opener: Opener
) -> float:
    """`chain_correlation` from the counts: the games the bot opened and won in them, the games
    it answered and won in them."""
    if opener not in CHAIN_OPENERS or not opened or not answered:
        return 0.0
    gap = opened_wins / opened - answered_wins / answered
    return gap if opener == "winner" else -gap


def play_duel(
    bot: LiarsDiceBot,
    opponent: LiarsDiceBot,
    games: int,
    seed: MatchSeed,
    *,
    match_id: str,
    driver: Driver = "referee",
    progress: Progress | None = None,
    opener: Opener = "alternate",
) -> Duel:
    """``games`` two-seat games, ``bot`` at seat 0, the first player alternating (seat 0 opens the
    even games) unless ``opener`` says otherwise (`first_player`). Game k uses the dice stream of
    game index k, so every opponent faces the same dice and two bots run with the same seed are
    compared on identical deals."""
    duel = Duel(opponent.name)
    pair = (bot, opponent)
    names = [bot.name, opponent.name]

    def first(game: int) -> int:
        return first_player(opener, game, duel.outcomes[-1] if duel.outcomes else None)

    def record(result: GameResult, decisions: int) -> None:
        duel.outcomes.append(0 in result.winners)
        duel.decisions += decisions
        if progress is not None:
            progress(1)

    if driver == "direct":
        direct = partial(play_direct, pair, seed, match_id=match_id, players=names)
        for k in range(games):
            record(*direct(game_index=k, first=first(k)))
        duel.give_ups = getattr(bot.strategy, "give_ups", 0)
        return duel

    async def refereed() -> None:
        referee = partial(play_refereed, pair, seed, match_id=match_id, players=names)
        for k in range(games):
            record(*await referee(game_index=k, first=first(k)))

    asyncio.run(refereed())
    duel.give_ups = getattr(bot.strategy, "give_ups", 0)
    return duel


# -- matches between two named bots -----------------------------------------------------------


@dataclass
class MatchReport:
    a: str
    b: str
    games: int
    """The games played: all of them once the match is over, fewer in one stopped early
    (`run_match`'s ``on_start``)."""
    wins_a: int
    decisions: int
    seconds: float
    a_won: list[bool] = field(default_factory=list, repr=False)
    """Game by game, whether A won (what a league stores)."""
    penalties: list[int] = field(default_factory=lambda: [0, 0])
    """A's and B's penalties: decisions the referee played for them (the engine's fallback)
    after a late, malformed or illegal answer, or none at all."""

    def interval(self) -> Interval:
        """A's win rate with its exact (Clopper–Pearson) 95% interval, for any number of games.

        It is the interval a league gives the same games (its A − B line is this interval
        mapped onto 2 × rate − 1, `difference_interval`), so the match and the league name a
        stronger bot on the same evidence. It never excludes the true rate more often than 5%:
        Wilson's, used here from 30 games before, excluded an even 50% in up to 7.1% of
        matches (31 games), and called 60 wins of 100 a difference the exact interval holds."""
        return exact_proportion_interval(self.wins_a, self.games)

    def to_json(self) -> dict[str, Any]:
        rate = self.wins_a / self.games if self.games else 0.0
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "wins_a": self.wins_a,
            "wins_b": self.games - self.wins_a,
            "win_rate_a": round(rate, 4),
            "win_rate_a_ci95": self.interval().to_json(),
            "decisions": self.decisions,
            # By role: A and B may be the same strategy (the names would collide).
            "penalties": {"a": self.penalties[0], "b": self.penalties[1]},
            "seconds": round(self.seconds, 3),
        }


def duel_opener(game: int) -> int:
    """The seat that opens game ``game`` of a two-bot match (`run_match`): 0, 0, 1, 1, 0, 0, …
    With the seats swapped every game (``alternate``), each bot opens from each seat once in
    every four games. `arena verify` checks a record's openers against this rule."""
    return (game // 2) % 2


async def run_match(
    a: str,
    b: str,
    games: int,
    seed_text: str,
    *,
    config_a: Mapping[str, Any] | None = None,
    config_b: Mapping[str, Any] | None = None,
    rules: LiarsDiceRules | None = None,
    progress: Progress | None = None,
    seats: tuple[Seat, Seat] | None = None,
    recorder: Recorder | None = None,
    deadline_ms: int = 5000,
    time_bank: TimeBank | None = None,
    names: tuple[str, str] | None = None,
    on_start: Callable[[MatchReport], None] | None = None,
) -> MatchReport:
    """``games`` games through the referee, in-process seats (or the given ``seats`` of A and
    B, e.g. bots on a server, named ``a`` and ``b``), the first player alternating. Seat order
    alternates too, so neither bot always sits at seat 0. ``recorder`` gets every game;
    ``time_bank`` (keyed by the players' names) is the match's. ``names``: what the record and
    the bots call the two players (a league's names for its bots), by default ``a`` and ``b``
    on seats, the bots' own names in-process. ``on_start`` is given the report before the
    first game; the games are tallied into it one by one (its `games` are those played so
    far, its `seconds` set however the match ends), so a caller whose match is stopped
    (Ctrl-C) still has the figures of the games played."""
    from arena.transports.inprocess import InProcessSeat
    from bots.liars_dice.bayes import raise_failed_save

    seed = MatchSeed.from_text(seed_text)
    if seats is None:
        # Never the match seed itself (a bot holding it could derive every die of the match),
        # and a seed of each bot's own (one holding the other's could replay its choices).
        bot_a = make_ld_bot(a, bot_options(seed, "a", config_a or {}))
        bot_b = make_ld_bot(b, bot_options(seed, "b", config_b or {}))
        # Two copies of one strategy must still be told apart by name (streams, tables).
        if bot_a.name == bot_b.name:
            bot_a.name, bot_b.name = f"{a}#a", f"{b}#b"
        seats = (InProcessSeat(bot_a), InProcessSeat(bot_b))
        in_process: tuple[LiarsDiceBot, LiarsDiceBot] | None = (bot_a, bot_b)
        # The bots keep their own names even when ``names`` are given: a bot's random stream
        # is named after it, so renaming it would change the games a seed gives.
        played_as = (bot_a.name, bot_b.name)
    else:
        played_as = (a, b)
        in_process = None
    if names is None:
        names = played_as
    elif names[0] == names[1]:
        # The record and the match totals tell the players apart by name.
        names = (f"{names[0]}#a", f"{names[1]}#b")
    report = MatchReport(a, b, 0, 0, 0, 0.0)
    if on_start is not None:
        on_start(report)
    started = time.perf_counter()
    duel_rules = (rules or LiarsDiceRules(players=2)).to_mapping()
    frame = MatchFrame("liars_dice", seed, seats, names, games, recorder, "alternate", duel_rules)
    match_id = frame.match_id
    try:
        await frame.start()
        for k in range(games):
            order = seat_order("alternate", k, 2)
            played = await play_seats(
                [seats[i] for i in order],
                [names[i] for i in order],
                seed,
                game_index=k,
                first=duel_opener(k),
                rules=rules,
                match_id=match_id,
                deadline_ms=deadline_ms,
                recorder=recorder,
                reveal=False,
                time_bank=time_bank,
            )
            if in_process is not None:
                # A referee logs a bot's exception and plays on: a Bayesian player that could
                # not save its tables would go on learning into nothing.
                raise_failed_save(in_process)
            result = played.result
            frame.tally([names[i] for i in order], result.scores)
            seat_a = order.index(0)
            a_won = seat_a in result.winners
            report.a_won.append(a_won)
            report.games += 1
            report.wins_a += a_won
            report.decisions += played.decisions
            report.penalties[0] += played.penalties[seat_a]
            report.penalties[1] += played.penalties[1 - seat_a]
            if progress is not None:
                progress(1)
        await frame.finish()
    finally:
        frame.close()
        report.seconds = time.perf_counter() - started
    return report
