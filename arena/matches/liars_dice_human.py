"""A person at the liar's dice table: the seed's human-computer interface (002 §5.1, 圖 5.4–5.5)
in a terminal, so that people can play the bots as the seed's four testers did (table 5.1).

The person is one more `Seat` of the referee: they see the events their seat may see (their own
dice, the bids, the reveal) and answer each request by typing. Input is checked before it is
sent, with the rule a bad bid breaks named, so a typo never costs a game (the referee would give
one re-ask and then play its fallback). The commands of 圖 5.4: a bid ("raise"), ``c`` (doubt,
the challenge), ``p`` (show profile: the score so far and, for the Bayesian player, what it has
learnt of you and the hand it imagines for you now) and ``q`` (leave; ``reset`` has no use here,
as every game starts fresh).

Game k seats the players in the (k mod N!)-th ordering, as `arena match liars-dice` tables do,
so over N! games the person sits in every seat and opens as often as each bot. The session is
one match in a `MatchFrame` (seed 000's commit–reveal): before the first roll every player,
the person too, is shown the commitment of the match seed, the dice come from that seed, and
when the last game ends the seed is revealed. The record — the match line, every finished
game, the reveal — is kept in memory and handed over when the session ends (`arena verify`
checks it): its ``reveal`` line publishes the match seed, from which the later games' dice
follow, so nothing is written while the person still plays. A session the person leaves early
is a match stopped early: its reveal is still written, and `arena verify` reports it short.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.dealing import MatchSeed, check_reveal
from arena.games.errors import InvalidActionError
from arena.games.liars_dice import (
    Bid,
    LiarsDiceRules,
    Reroll,
    broken_bid_rule,
    parse_action,
    raises_after,
)
from arena.matches.frame import MatchFrame
from arena.matches.liars_dice import check_table, play_table_game
from arena.matches.stats import Interval, exact_proportion_interval
from arena.records import MemoryRecorder
from arena.transports.base import Seat
from protocol.games.common import GameEnd, GameStart, MatchEnd, MatchStart, Penalty
from protocol.games.liars_dice import (
    BidMade,
    DiceRolled,
    LiarsDiceObservation,
    Rerolled,
    Reveal,
    RoundStart,
)
from protocol.messages import Action, Error, Event, Request

HUMAN_DEADLINE_MS = 24 * 3600 * 1000
"""A person may think as long as they like; the referee's deadline applies to every seat, and
the in-process bots answer at once."""

HELP = """\
Bids count all dice on the table: "4 5" (or "4x5") claims at least four dice showing 5.
A raise is a higher count, or the same count with a higher face; the opening claims at least
{min_open}. Other commands: c = challenge (doubt the standing bid), p = profile, ? = this help,
q = leave (the game in play is not counted).{reroll}"""

REROLL_HELP = """
Re-roll rule: "r 66" shows two 6s of your cup and re-rolls the rest ("r -" shows none); then
you must bid."""

_BID_RE = re.compile(r"(?:bid\s*)?(\d+)\s*(?:x|\s)\s*(\d)s?")
_REROLL_RE = re.compile(r"r(?:eroll)?\s*([1-6 ]+|-)")


class Quit(Exception):
    """The person left the table."""


@dataclass(frozen=True, slots=True)
class Terminal:
    """The terminal, injected so that tests can script a person."""

    ask: Callable[[str], str]
    """Show a prompt and return the line typed; raises `EOFError` when input ends."""
    say: Callable[[str], None]


def read_command(text: str) -> str:
    """The action text (or a command word) for what the person typed: ``4 5``/``4x5``/``bid
    4x5`` → ``bid 4x5``; ``c``/``doubt`` → ``challenge``; ``r 66`` → ``reroll 66``; ``p``,
    ``?`` and ``q`` → ``profile``, ``help`` and ``quit``. Anything else is returned as typed,
    for the engine's parser to judge."""
    cleaned = " ".join(text.strip().lower().split())
    words = {
        "c": "challenge",
        "doubt": "challenge",
        "challenge": "challenge",
        "p": "profile",
        "profile": "profile",
        "?": "help",
        "h": "help",
        "help": "help",
        "q": "quit",
        "quit": "quit",
        "exit": "quit",
    }
    if cleaned in words:
        return words[cleaned]
    bid = _BID_RE.fullmatch(cleaned)
    if bid is not None:
        return f"bid {bid.group(1)}x{bid.group(2)}"
    reroll = _REROLL_RE.fullmatch(cleaned)
    if reroll is not None:
        return f"reroll {reroll.group(1).replace(' ', '')}"
    return cleaned


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice) or "-"


class HumanSeat:
    """A `Seat` played by a person at a `Terminal`."""

    def __init__(
        self, console: Terminal, name: str, profile: Callable[[], None] | None = None
    ) -> None:
        self.console = console
        self.name = name
        self.profile = profile
        """Called for ``p``: shows the score and what the bots know (the CLI draws it)."""
        self.players: list[str] = []
        self.seat = 0
        self.commitment: str | None = None
        """The match seed's commitment, from ``match_start``: the revealed seed is checked
        against it."""

    def _who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.players[seat]

    async def send(self, message: Event | Error) -> None:
        if isinstance(message, Error):
            self.console.say(f"referee: {message.text}")
            return
        for line in self._describe(message.payload):
            self.console.say(line)

    def _describe(self, payload: Any) -> list[str]:
        if isinstance(payload, MatchStart):
            self.commitment = payload.seed_commitment
            return [
                f"A match of {payload.games} games. The dealer commits to seed SHA-256 "
                f"{payload.seed_commitment}; the seed is shown when the match ends, and every "
                "die can then be checked against it (arena verify)."
            ]
        if isinstance(payload, MatchEnd):
            return self._match_end(payload)
        if isinstance(payload, GameStart):
            self.players = list(payload.players)
            self.seat = payload.seat
            order = ", ".join(f"{s}: {self._who(s)}" for s in range(len(self.players)))
            return ["", f"A new game. Seats {order}."]
        if isinstance(payload, RoundStart):
            counts = " · ".join(
                f"{self._who(s)} {n}" for s, n in enumerate(payload.dice_counts) if n
            )
            opener = (
                "you open" if payload.first == self.seat else f"{self._who(payload.first)} opens"
            )
            return [f"Round {payload.round + 1} (dice: {counts}); {opener}."]
        if isinstance(payload, DiceRolled) and payload.seat == self.seat:
            return [f"Your dice: {_dice(payload.dice)}"]
        # The person's own moves are echoed too, so that a transcript (or a log of the
        # session) shows the bid a bot answers, not only the bot's answer.
        if isinstance(payload, BidMade):
            who = "You bid" if payload.seat == self.seat else f"{self._who(payload.seat)} bids"
            return [f"{who} {payload.count}x{payload.face}."]
        if isinstance(payload, Rerolled):
            shown, rolled = _dice(payload.revealed), payload.rerolled
            if payload.seat == self.seat:
                return [f"You show {shown} and re-roll {rolled} dice."]
            return [f"{self._who(payload.seat)} shows {shown} and re-rolls {rolled} dice."]
        if isinstance(payload, Reveal):
            return self._reveal(payload)
        if isinstance(payload, Penalty):
            return [f"penalty: {payload.model_dump_json()}"]
        if isinstance(payload, GameEnd):
            won = self.seat in payload.winners
            return ["You win the game." if won else "You lose the game."]
        return []

    def _match_end(self, end: MatchEnd) -> list[str]:
        if self.commitment is None:
            verdict = "no commitment was shown at the start to check it against"
        elif check_reveal(self.commitment, end.seed):
            verdict = "its SHA-256 is the commitment shown at the start"
        else:
            verdict = "its SHA-256 is NOT the commitment shown at the start"
        return ["", f"The match is over. The dealer reveals the seed {end.seed}: {verdict}."]

    def _reveal(self, reveal: Reveal) -> list[str]:
        hands = " · ".join(
            f"{self._who(s)} {_dice(dice)}" for s, dice in enumerate(reveal.dice) if dice
        )
        wild = " (ones wild)" if reveal.ones_wild else ""
        holds = reveal.actual >= reveal.count
        verdict = "holds" if holds else "fails"
        lost = "you lose" if reveal.loser == self.seat else f"{self._who(reveal.loser)} loses"
        who = (
            "You challenge"
            if reveal.challenger == self.seat
            else f"{self._who(reveal.challenger)} challenges"
        )
        whose = "your" if reveal.bidder == self.seat else f"{self._who(reveal.bidder)}'s"
        return [
            f"{who} {whose} {reveal.count}x{reveal.face}.",
            f"Dice: {hands}. {reveal.actual} show {reveal.face}{wild}: the bid {verdict}, "
            f"{lost} the round.",
        ]

    async def ask(self, request: Request) -> Action:
        observation = request.observation
        if not isinstance(observation, LiarsDiceObservation):
            raise TypeError("a person's seat here plays liar's dice only")
        # Without a list of legal actions (the protocol allows it) the referee judges alone.
        legal = None if request.legal is None else set(request.legal)
        while True:
            command = read_command(self._prompt(observation))
            if not command:
                continue
            if command == "quit":
                raise Quit
            if command == "help":
                reroll = REROLL_HELP if observation.reroll else ""
                self.console.say(HELP.format(min_open=observation.min_open, reroll=reroll))
                continue
            if command == "profile":
                if self.profile is not None:
                    self.profile()
                else:
                    self.console.say("no profile to show")
                continue
            try:
                action = parse_action(command)
            except InvalidActionError as exc:
                if command.split(" ", 1)[0] in ("bid", "challenge", "reroll"):
                    self.console.say(f"{exc} (? for help)")  # read, but breaks a rule
                else:
                    # The engine's message teaches the protocol's words; a person types these.
                    reroll = ", 'r 66' to re-roll" if observation.reroll else ""
                    self.console.say(
                        f"cannot read {command!r}: type '4 5' to bid four 5s, 'c' to challenge"
                        f"{reroll} (? for help)"
                    )
                continue
            if legal is None or str(action) in legal:
                return Action(seq=request.seq, action=str(action), seat=request.seat)
            self.console.say(_why_not(action, observation))

    def _prompt(self, observation: LiarsDiceObservation) -> str:
        if observation.bids:
            last = observation.bids[-1]
            standing = f"{self._who(last.seat)} bid {last.count}x{last.face}"
        else:
            standing = "you open"
        shown = observation.revealed[observation.seat] if observation.revealed else []
        mine = _dice(observation.dice) + (f" (shown: {_dice(shown)})" if shown else "")
        wild = " | ones wild" if observation.ones_wild else ""
        try:
            return self.console.ask(f"[{mine} | {standing}{wild}] your move (? for help): ")
        except (EOFError, KeyboardInterrupt):
            # Ctrl-C at the prompt is 'q' (RULES.md): the session ends with its finished games.
            raise Quit from None


def _why_not(action: Any, observation: LiarsDiceObservation) -> str:
    """The rule an action the person typed breaks now, in words: the engine's rules (RULES.md,
    "Re-roll rule") checked in the engine's order, said to the person."""
    last = Bid(observation.bids[-1].count, observation.bids[-1].face) if observation.bids else None
    total = sum(observation.dice_counts)
    if isinstance(action, Bid):
        broken = broken_bid_rule(action, last, observation.min_open, total)
        if broken is not None:
            return broken
    if isinstance(action, Reroll):
        return _why_not_reroll(action, observation, last, total)
    if observation.must_bid:
        return "you have re-rolled this turn: now you must bid, not challenge"
    if last is None:
        return "there is no bid to challenge: you open, so you must bid"
    return f"{action} is not legal now"


def _why_not_reroll(
    action: Reroll, observation: LiarsDiceObservation, last: Bid | None, total: int
) -> str:
    if not observation.reroll:
        return "re-rolling is off in these rules"
    if observation.must_bid:
        return "you have already re-rolled this turn: one re-roll a turn, and now you must bid"
    if not raises_after(last, observation.min_open, total):
        # A re-roll must be followed by a bid, and none is left above the standing one.
        return f"no bid is left above {last}, and a re-roll must be followed by a bid"
    cup = Counter(observation.dice)
    for face, wanted in sorted(Counter(action.reveal).items()):
        if cup[face] < wanted:
            return (
                f"{action} shows {wanted} × {face} but your cup holds {cup[face]} "
                f"({_dice(observation.dice)})"
            )
    if len(action.reveal) >= len(observation.dice):
        return (
            f"{action} leaves no die in the cup to re-roll: show fewer than the "
            f"{len(observation.dice)} dice under your cup ({_dice(observation.dice)}); "
            "at least one must be re-rolled"
        )
    return f"{action} is not legal now"


@dataclass
class HumanSession:
    """The person's games against the bots."""

    human: str
    bots: list[str]
    seed: str
    rules: dict[str, Any]
    outcomes: list[bool] = field(default_factory=list)
    """Per finished game: whether the person was among the winners."""
    fair_shares: list[float] = field(default_factory=list)
    """Per finished game: winners ÷ seats, what every player would win if all were equal."""
    left_early: bool = False
    record: list[dict[str, Any]] = field(default_factory=list)
    """The match record: the match line, the lines of the finished games, and (once the session
    is over) the reveal (`arena verify` checks it)."""

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return sum(self.outcomes)

    def interval(self) -> Interval:
        """The win rate with its exact (Clopper–Pearson) 95% interval, as a duel's
        (`MatchReport.interval`): the verdict against the fair share is no likelier to be
        wrong than 5%, whatever the number of games."""
        return exact_proportion_interval(self.wins, self.games)

    @property
    def fair_share(self) -> float:
        # fsum: the built-in sum of floats rounds differently from Python 3.12 on, and the same
        # seed must give the same figures on every Python.
        return math.fsum(self.fair_shares) / len(self.fair_shares) if self.fair_shares else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "human": self.human,
            "bots": self.bots,
            "seed": self.seed,
            "rules": self.rules,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.wins / self.games, 4) if self.games else None,
            "win_rate_ci95": self.interval().to_json() if self.games else None,
            "fair_share": round(self.fair_share, 4) if self.games else None,
            "left_early": self.left_early,
            "outcomes": self.outcomes,
        }


async def play_session(
    person: HumanSeat,
    bots: Sequence[tuple[str, Seat]],
    games: int,
    seed_text: str,
    *,
    rules: LiarsDiceRules | None = None,
    on_game: Callable[[HumanSession], None] | None = None,
) -> HumanSession:
    """Up to ``games`` games of the person against ``bots`` (name, seat), one match announced
    as ``games`` games; ends early, keeping the finished games, when the person quits (the
    match's seed is then revealed in the record, but no ``match_end`` is sent: the match did not
    finish). ``on_game`` hears of each finished game."""
    players = [person.name, *(name for name, _ in bots)]
    rules = check_table(players, rules)
    seats: list[Seat] = [person, *(seat for _, seat in bots)]
    seed = MatchSeed.from_text(seed_text)
    # The frame writes the match line and the reveal straight into the session's record; each
    # game's lines join it only once the game has finished.
    framing = MemoryRecorder()
    session = HumanSession(
        person.name, players[1:], seed_text, rules.to_mapping(), record=framing.lines
    )
    frame = MatchFrame(
        "liars_dice", seed, seats, players, games, framing, "permutations", rules.to_mapping()
    )
    match_id = frame.match_id
    try:
        await frame.start()
        for k in range(games):
            recorder = MemoryRecorder()
            try:
                played = await play_table_game(
                    k,
                    players,
                    seats,
                    seed,
                    rules,
                    match_id,
                    deadline_ms=HUMAN_DEADLINE_MS,
                    recorder=recorder,
                    reveal=False,
                )
            except Quit:
                session.left_early = True
                break
            winners = played.winners
            frame.tally(players, [float(player in winners) for player in range(len(players))])
            session.outcomes.append(0 in winners)
            session.fair_shares.append(len(winners) / len(players))
            session.record.extend(recorder.lines)
            if on_game is not None:
                on_game(session)
        else:
            await frame.finish()
    finally:
        # Also when the person leaves or Ctrl-C stops a bot: nothing more is dealt from the seed.
        frame.close()
    return session
