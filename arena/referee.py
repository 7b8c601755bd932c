"""The referee: drives a pure engine through seats, with deadlines, penalties and a record.

For each due seat it sends a `Request` (the legal actions and the seat's observation), waits up to
the deadline, and checks the answer. A late, malformed or illegal answer gets an ``error``
message and one re-ask; a second failure plays the engine's documented fallback and counts a
penalty. Nothing a bot does can stop the game or crash the referee.

Time controls (`TimeControl`): besides the per-decision deadline a match may give each player a
`TimeBank`. An answer after the deadline is then still taken while the bank covers the overrun,
and the overrun is spent from the bank; an answer the bank cannot cover (or none at all) empties
the bank and plays the fallback at once, without a re-ask. A ``late`` that the seat reports
itself (a server's word that the bot is gone, or came back while a request was pending) is no
timeout: it spends nothing and is asked again, as without a bank.

The referee plays games; what frames a match (`arena.matches.frame`) and who sits where
(`arena.matches.seating`) belong to the match formats, which import the referee, never the
reverse.
"""

from __future__ import annotations

import asyncio
import copy
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from arena.dealing import DEALING_VERSION, MatchSeed
from arena.games import rulesets
from arena.games.base import Game, GameResult
from arena.games.errors import (
    DecisionCapError,
    IllegalActionError,
    InvalidActionError,
    RulesetError,
)
from arena.games.registry import canonical_name, get_spec
from arena.records import RECORD_VERSION, Recorder
from arena.transports.base import Seat, SeatFailure
from protocol.games.common import GameEnd, GameStart, Penalty
from protocol.messages import Error, ErrorCode, Event, Request

log = structlog.get_logger(__name__)

DEFAULT_DEADLINE_MS = 10_000
DEFAULT_START_TIMEOUT_MS = 30_000


@dataclass
class TimeBank:
    """Each player's reserve of milliseconds for a whole match, shared by all its games.

    Keyed by player name, because players change seats between games; a player not listed
    starts with ``initial_ms``, so a match can hand out a bank before it knows who plays.
    ``clock`` (seconds) is what the referee times answers with; tests pass a scripted one.
    """

    remaining_ms: dict[str, float]
    clock: Callable[[], float] = field(default=time.monotonic)
    initial_ms: float = 0.0

    @classmethod
    def for_players(cls, players: Sequence[str], bank_ms: float) -> TimeBank:
        return cls({player: float(bank_ms) for player in players}, initial_ms=float(bank_ms))

    def left(self, player: str) -> float:
        return self.remaining_ms.get(player, self.initial_ms)

    def spend(self, player: str, ms: float) -> None:
        self.remaining_ms[player] = max(0.0, self.left(player) - ms)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A match's time rules: the per-decision deadline, the per-match bank of each player
    (None: no bank, a late answer gets the ordinary re-ask), and how long a match waits for
    remote bots to connect before it starts."""

    deadline_ms: int = DEFAULT_DEADLINE_MS
    bank_ms: int | None = None
    start_timeout_ms: int = DEFAULT_START_TIMEOUT_MS

    def __post_init__(self) -> None:
        if self.deadline_ms <= 0 or self.start_timeout_ms < 0:
            raise ValueError("deadline_ms must be > 0 and start_timeout_ms >= 0")
        if self.bank_ms is not None and self.bank_ms < 0:
            raise ValueError("bank_ms must be >= 0")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TimeControl:
        """From a ruleset or match file's ``[time]`` table (keys as the fields)."""
        unknown = set(data) - {"deadline_ms", "bank_ms", "start_timeout_ms"}
        if unknown:
            raise ValueError(f"unknown time control keys: {', '.join(sorted(unknown))}")
        for key, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{key} must be an integer number of milliseconds")
        return cls(**dict(data))

    @classmethod
    def from_ruleset(
        cls,
        game: str,
        name: str | Path | None,
        *,
        game_key_required: bool = True,
        deadline_ms: int | None = None,
        default_deadline_ms: int = DEFAULT_DEADLINE_MS,
    ) -> TimeControl:
        """The ``[time]`` table of a ruleset file (no file: the defaults). A ``deadline_ms``
        given (a command-line option) overrides the table's, which overrides
        ``default_deadline_ms``."""
        path, table = (
            (None, {})
            if name is None
            else rulesets.time_table(
                canonical_name(game), name, game_key_required=game_key_required
            )
        )
        table = dict(table)
        if deadline_ms is not None:
            table["deadline_ms"] = deadline_ms
        table.setdefault("deadline_ms", default_deadline_ms)
        try:
            return cls.from_mapping(table)
        except ValueError as exc:
            raise RulesetError(f"{path}: [time]: {exc}") from exc

    def new_bank(self, players: Sequence[str] = ()) -> TimeBank | None:
        """A fresh bank for one match (None without ``bank_ms``)."""
        return None if self.bank_ms is None else TimeBank.for_players(players, self.bank_ms)


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """What the referee reports of one game."""

    result: GameResult
    penalties: tuple[int, ...]
    decisions: int


@dataclass(frozen=True, slots=True)
class _Failure:
    code: ErrorCode
    text: str
    out_of_time: bool = False
    """The referee's own clock ran past the deadline and the bank: only that spends the bank
    and skips the re-ask. A ``late`` the server reports (the bot is gone, or came back while a
    request was pending) used no time of the bot's."""


class _RequestNumbers:
    """The request numbers (``seq``) of each seat connection: 1, 2, 3, … for as long as the
    `Seat` object lives, across every game it plays in — never again from 1 in the next game of a
    match. A late answer to an earlier game's request then never carries the pending request's
    number, so it is ``stale_seq`` and cannot be taken for an answer to another position (a bot
    may leave ``game`` out of its action).

    Counted per seat object, never table-wide: a shared counter would let a seat count, from the
    gaps in its own numbers, the requests other seats were sent privately (mahjong claims). A
    seat object that cannot be weakly referenced gets None, and its table counts for it (from 1
    in each game)."""

    def __init__(self) -> None:
        self._last: weakref.WeakKeyDictionary[Seat, int] = weakref.WeakKeyDictionary()

    def next(self, seat: Seat) -> int | None:
        try:
            number = self._last.get(seat, 0) + 1
            self._last[seat] = number
        except TypeError:  # unhashable, or no weak reference possible
            return None
        return number


_REQUEST_NUMBERS = _RequestNumbers()


class _Table:
    """One game in progress: the engine, its seats, and the bookkeeping of requests."""

    def __init__(
        self,
        game: Game[Any],
        seats: Sequence[Seat],
        *,
        match_id: str,
        game_id: str,
        deadline_ms: int,
        retries: int,
        recorder: Recorder | None,
        players: Sequence[str] = (),
        time_bank: TimeBank | None = None,
        max_decisions: int | None = None,
    ) -> None:
        self.game = game
        self.max_decisions = max_decisions
        self.seats = seats
        self.players = players
        self.bank = time_bank
        self.match_id = match_id
        self.game_id = game_id
        self.deadline_ms = deadline_ms
        self.retries = retries
        self.recorder = recorder
        # Request numbers come from `_REQUEST_NUMBERS`, per seat connection and across games;
        # these per-game counters serve only seats it cannot count for.
        self.seqs = [0] * len(seats)
        self.decisions = 0
        self.penalties = [0] * len(seats)
        self.log = log.bind(match=match_id, game=game_id)

    def record(self, line: dict[str, Any]) -> None:
        if self.recorder is not None:
            self.recorder.write(line)

    async def broadcast(self, payload: Any, to: frozenset[int] | None = None) -> None:
        for seat, client in enumerate(self.seats):
            # A seat may say it drops events unread (`InProcessSeat.wants_events`): then the
            # message is not built at all.
            if (to is None or seat in to) and getattr(client, "wants_events", True):
                await client.send(
                    Event(match=self.match_id, game=self.game_id, seat=seat, payload=payload)
                )

    async def flush_events(self) -> None:
        for event in self.game.drain_events():
            if self.recorder is not None:
                self.record(
                    {
                        "type": "event",
                        "to": None if event.to is None else sorted(event.to),
                        "payload": event.payload.model_dump(mode="json"),
                    }
                )
            await self.broadcast(event.payload, event.to)

    def _next_seq(self, seat: int) -> int:
        number = _REQUEST_NUMBERS.next(self.seats[seat])
        if number is None:
            self.seqs[seat] += 1
            number = self.seqs[seat]
        return number

    def _illegal_reason(self, seat: int, action: Any) -> str:
        # Only on the failure path: ask the engine on a copy so the bot is told which rule it broke.
        try:
            self.game.copy().apply(seat, action)
        except IllegalActionError as exc:
            return str(exc)
        return f"{action} is not legal now"

    async def _ask_once(self, seat: int, request: Request) -> Any | _Failure:
        # Suspend once per request, before the bot's clock starts: with in-process bots nothing
        # else may ever suspend this task (a liar's dice match runs start to end in one step),
        # and a cancellation — Ctrl-C under asyncio.run — is only delivered when it suspends.
        await asyncio.sleep(0)
        player = self.players[seat] if self.bank is not None else ""
        bank_ms = self.bank.left(player) if self.bank is not None else 0.0
        limit_ms = self.deadline_ms + bank_ms
        clock = self.bank.clock if self.bank is not None else time.monotonic
        started = clock()
        try:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns the answer when the
            # bot has already answered and swallows a cancellation (Ctrl-C) that came meanwhile,
            # so a match of CPU-bound in-process bots could not be stopped. timeout() runs the
            # ask in this task and lets an outside cancellation through.
            async with asyncio.timeout(limit_ms / 1000):
                reply = await self.seats[seat].ask(request)
        except TimeoutError:
            if self.bank is not None:
                self.bank.spend(player, bank_ms)
            return _Failure(ErrorCode.LATE, f"no action within {limit_ms:.0f} ms", out_of_time=True)
        except SeatFailure as failure:
            # The seat's own failure (a bot gone or resumed, a malformed answer) still spends
            # the time it held the request: else a bot could think past its deadline and then
            # resume to be asked again with its bank untouched.
            held_ms = (clock() - started) * 1000
            if held_ms > self.deadline_ms and self.bank is not None:
                self.bank.spend(player, min(held_ms, limit_ms) - self.deadline_ms)
            return _Failure(failure.code, failure.text, out_of_time=held_ms > limit_ms)
        # A CPU-bound in-process bot never yields, so the timeout cannot interrupt it: time it too.
        elapsed_ms = (clock() - started) * 1000
        if elapsed_ms > self.deadline_ms:
            if self.bank is not None:
                self.bank.spend(player, elapsed_ms - self.deadline_ms)
            if elapsed_ms > limit_ms:
                return _Failure(
                    ErrorCode.LATE,
                    f"answered after {elapsed_ms:.0f} ms > {limit_ms:.0f} ms",
                    out_of_time=True,
                )
        if reply.seq != request.seq:
            return _Failure(
                ErrorCode.STALE_SEQ, f"action for seq {reply.seq}, pending seq is {request.seq}"
            )
        try:
            action = self.game.parse_action(reply.action)
        except InvalidActionError as exc:
            return _Failure(ErrorCode.INVALID_ACTION, str(exc))
        except Exception as exc:
            # A parser must raise InvalidActionError; when one does not, the bot's text is
            # still what went wrong, and nothing a bot sends may stop the game. Logged as an
            # error so the engine's slip is seen.
            self.log.error("parse_action_raised", seat=seat, action=reply.action[:80], exc_info=exc)
            return _Failure(ErrorCode.INVALID_ACTION, f"the action could not be read ({exc!s:.80})")
        if not self.game.is_legal(seat, action):
            return _Failure(ErrorCode.ILLEGAL_ACTION, self._illegal_reason(seat, action))
        return action

    async def decide(self, seat: int) -> tuple[Any, bool]:
        """The action to apply for ``seat`` and whether it is the referee's fallback."""
        legal, hint = self.game.describe_legal(seat)
        observation = self.game.observation(seat)
        for _attempt in range(1 + self.retries):
            request = Request(
                match=self.match_id,
                game=self.game_id,
                seat=seat,
                seq=self._next_seq(seat),
                deadline_ms=self.deadline_ms,
                bank_ms=(
                    round(self.bank.left(self.players[seat])) if self.bank is not None else None
                ),
                legal=legal,
                hint=hint,
                observation=observation,
            )
            outcome = await self._ask_once(seat, request)
            if not isinstance(outcome, _Failure):
                return outcome, False
            last_chance = self.bank is not None and outcome.out_of_time
            self.record(
                {
                    "type": "failure",
                    "seat": seat,
                    "seq": request.seq,
                    "code": outcome.code.value,
                    "text": outcome.text,
                }
            )
            self.log.info("seat_failure", seat=seat, code=outcome.code.value, text=outcome.text)
            await self.seats[seat].send(
                Error(
                    match=self.match_id,
                    game=self.game_id,
                    seat=seat,
                    seq=request.seq,
                    code=outcome.code,
                    text=outcome.text,
                )
            )
            if last_chance:
                break
        fallback = self.game.fallback_action(seat)
        self.penalties[seat] += 1
        # Only the failing seat is told: in a mahjong claim only the seats that can claim are
        # asked, so a penalty shown to the others would tell them what that seat holds.
        penalty = Penalty(seat=seat, code=outcome.code.value, action=str(fallback))
        await self.broadcast(penalty, to=frozenset({seat}))
        return fallback, True

    async def _decide_together(self, due: Sequence[int]) -> list[tuple[Any, bool]]:
        """`decide` for each seat in ``due`` at once. When one ask raises (`ServerLost`, a bug)
        the others are cancelled, instead of running out their deadlines and then sending
        errors and penalties to seats of a stopped match; that seat's exception is raised.

        Not a TaskGroup: on Python 3.11 a group whose child fails in the same loop step as the
        match is cancelled from outside (Ctrl-C) raises the child's error and drops the
        cancellation, so a stopped match would read as a server fault."""
        tasks = [asyncio.create_task(self.decide(seat)) for seat in due]
        stopped_while_cleaning_up = False
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            # A seat failed, or this match is being stopped: no ask may outlive this call, so
            # the others are cancelled and waited for, through a further stop too (it is
            # raised once they are done).
            unfinished = [task for task in tasks if not task.done()]
            for task in unfinished:
                task.cancel()
            while unfinished:
                try:
                    await asyncio.wait(unfinished)
                except asyncio.CancelledError:
                    stopped_while_cleaning_up = True
                unfinished = [task for task in unfinished if not task.done()]
            # Read every failure now, so that none is reported as never retrieved when the
            # match stops with a cancellation instead.
            failures = [
                error
                for task in tasks
                if not task.cancelled() and (error := task.exception()) is not None
            ]
        if stopped_while_cleaning_up:
            raise asyncio.CancelledError
        if failures:
            raise failures[0]
        return [task.result() for task in tasks]

    async def run(self) -> PlayedGame:
        game = self.game
        await self.flush_events()
        while not game.is_over():
            if self.max_decisions is not None and self.decisions >= self.max_decisions:
                # Nothing a bot plays can make a legal game this long: the engine never ends.
                message = (
                    f"{game.name} engine: game {self.game_id} is not over after "
                    f"{self.decisions} decisions, its cap (GameSpec.max_decisions "
                    f"{self.max_decisions}, above any legal game): a bug in the engine, not "
                    "a bot's fault; the match stops"
                )
                self.log.error("decision_cap", decisions=self.decisions, cap=self.max_decisions)
                raise DecisionCapError(message)
            due = game.to_act()
            if not due:
                raise RuntimeError(f"{game.name} engine: game not over but no seat to act")
            if len(due) == 1:
                choices = [await self.decide(due[0])]
            else:
                choices = await self._decide_together(due)
            for seat, (action, fallback) in zip(due, choices, strict=True):
                game.apply(seat, action)
                self.decisions += 1
                line: dict[str, Any] = {"type": "decision", "seat": seat, "action": str(action)}
                if fallback:
                    line["fallback"] = True
                self.record(line)
                await self.flush_events()
        return PlayedGame(game.result(), tuple(self.penalties), self.decisions)


async def play_game(
    game_kind: str,
    seats: Sequence[Seat],
    *,
    rules: Mapping[str, Any],
    seed: MatchSeed,
    deal: Mapping[str, Any],
    players: Sequence[str],
    match_id: str = "m",
    game_id: str = "g0",
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    retries: int = 1,
    recorder: Recorder | None = None,
    time_bank: TimeBank | None = None,
    reveal: bool = False,
) -> PlayedGame:
    """Play one game of ``game_kind`` between ``seats`` and return its outcome.

    ``time_bank`` (keyed by the names in ``players``) lets late answers spend a match-long
    reserve; pass the same bank to every game of a match. ``reveal`` writes the seed to the
    record after the game: right for a lone game, wrong inside a match, whose later games the
    seed would give away (a `MatchFrame` reveals it once, at the end), so off unless asked.
    """
    kind = canonical_name(game_kind)
    spec = get_spec(kind)
    game = spec.new_game(rules, seed, deal)
    if len(seats) != game.num_seats or len(players) != game.num_seats:
        raise ValueError(
            f"{kind} with these rules seats {game.num_seats}; got {len(seats)} seats, "
            f"{len(players)} players"
        )
    table = _Table(
        game,
        seats,
        match_id=match_id,
        game_id=game_id,
        deadline_ms=deadline_ms,
        retries=retries,
        recorder=recorder,
        players=players,
        time_bank=time_bank,
        max_decisions=spec.decision_cap(rules),
    )
    table.record(
        {
            "type": "header",
            "record_version": RECORD_VERSION,
            "dealing_version": DEALING_VERSION,
            "game_kind": kind,
            "match": match_id,
            "game": game_id,
            "players": list(players),
            "rules": dict(rules),
            "deal": dict(deal),
            "seed_commitment": seed.commitment(),
        }
    )
    for seat in range(game.num_seats):
        await seats[seat].send(
            Event(
                match=match_id,
                game=game_id,
                seat=seat,
                payload=GameStart(
                    game_kind=kind,
                    seat=seat,
                    players=list(players),
                    rules=dict(rules),
                ),
            )
        )
    played = await table.run()
    result = played.result
    # The line is made before any bot sees the end, and the end deep-copied: an in-process bot
    # gets the object itself, whose lists and dicts are not frozen, and must not reach the record
    # or the engine's result. It is written after the broadcast, with no await until the return:
    # a match stopped while a seat is told the end then records no game it does not count.
    end = GameEnd(
        scores=list(result.scores),
        winners=list(result.winners),
        reason=result.reason,
        detail=copy.deepcopy(dict(result.detail)),
    )
    line = {"type": "result", **end.model_dump(mode="json"), "penalties": list(played.penalties)}
    await table.broadcast(end)
    table.record(line)
    if reveal:
        table.record({"type": "reveal", "seed": seed.hex()})
    table.log.debug("game_over", reason=result.reason, scores=list(result.scores))
    return played
