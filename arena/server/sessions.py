"""A bot's session on the server: its link, its seat, its pending request, its journal.

A session outlives its connection: when a seated bot's link drops, the session turns ``absent``
and every event for the bot is kept until it comes back with its resume token. For the first
``reconnect_grace_s`` of its absence its requests wait for it, as for a slow bot (a blip of the
network costs no decision): the one pending is sent again when it resumes. After that the referee
is told at once, so the engine's fallback plays without waiting out each deadline. A bot that
says ``bye`` itself (over a websocket: `leave`) leaves at once: no grace, no resume.

    lobby ──seat──▶ seated ──link lost──▶ absent ──resume──▶ seated
      ▲                │                     │
      └────unseat──────┘                     └──unseat──▶ closed
    seated ──bye──▶ closed (its requests answered for it at once until the table unseats it)
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import structlog

from arena.server.frames import Frame
from arena.server.journal import Journal
from arena.server.links import Link, SeatSink
from protocol.codec import encode
from protocol.messages import Action, Bye, Error, ErrorCode

log = structlog.get_logger(__name__)

DEFAULT_JOURNAL_CAP = 100_000
"""Events kept for an absent bot; a 384-hand mahjong match sends one bot about 35,000."""
DEFAULT_RECONNECT_GRACE_S = 10.0
"""How long a dropped bot's requests wait for it to resume (`bots run` retries after 0.2 s, and
has tried five times within 8 s)."""
UNANSWERED_KEPT = 16
"""Requests a bot was sent and has not answered, remembered so that a late answer to one is
known for what it is. Only one request is pending at a time: the last few cover any bot that
answers at all."""


class SessionState(StrEnum):
    LOBBY = "lobby"
    SEATED = "seated"
    ABSENT = "absent"
    CLOSED = "closed"


class SessionStateError(RuntimeError):
    """A session method was called in a state where it makes no sense (a server bug)."""


@dataclass(slots=True)
class Binding:
    table: str
    slot: int
    sink: SeatSink | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a bot's action was not handed on. ``answered``: it was a bad answer to the pending
    request and the referee has been told (it sends the bot its error and asks again), so the
    server must not send ``error`` itself."""

    error: Error
    answered: bool = False
    late: bool = False
    """An answer to a request this bot was sent, after the request stopped pending (the
    referee gave up on it, or it was abandoned when the bot resumed): a slow bot's, not a
    flood."""


@dataclass(frozen=True, slots=True)
class _Pending:
    """The request awaiting this bot's answer. Its ``seat`` is the game seat, which may differ
    from game to game (mahjong rotates players through the seats)."""

    seq: int
    seat: int | None
    match: str | None
    game: str | None
    text: str = ""
    """The request as the bot reads it, to send again when the bot resumes."""


def _mismatch(*fields: tuple[str, object, object]) -> str | None:
    """The first of ``(name, given, wanted)`` that is given and differs, said for an error."""
    return next(
        (
            f"{name} is {json.dumps(given)}; the pending request's {name} is {json.dumps(wanted)}"
            for name, given, wanted in fields
            if given is not None and given != wanted
        ),
        None,
    )


class BotSession:
    """One bot known to the server (see the module docstring for its states).

    The `Journal` holds the match's ``match_start``, the events of the game in progress (from
    its ``game_start``) and, while the bot is absent, every event after that. A resumed bot gets
    the whole journal: events lost with a dying connection are in it, at the price of repeating
    some the bot saw — harmless to a bot that rebuilds its view at ``game_start``, as the
    protocol asks.
    """

    def __init__(
        self,
        name: str,
        games: Sequence[str],
        link: Link,
        journal_cap: int = DEFAULT_JOURNAL_CAP,
        *,
        wants_events: bool = True,
        features: Iterable[str] = (),
        reconnect_grace_s: float = DEFAULT_RECONNECT_GRACE_S,
    ) -> None:
        self.name = name
        self.games = tuple(games)
        self.features = frozenset(features)
        """The v1 additions the bot asked for (``hello.features``): it gets no other."""
        self.wants_events = wants_events
        """The bot's ``hello.events``: False means its events are neither sent nor journaled
        (a bot that turns them on when it resumes gets them from then on)."""
        self.link: Link | None = link
        self.transport = link.transport
        self.session_id = secrets.token_hex(6)
        self.resume_token = secrets.token_urlsafe(24)
        self.state = SessionState.LOBBY
        self.binding: Binding | None = None
        self.journal = Journal(journal_cap)
        self.ended: str | None = None
        """Why the session ended, once it has (for a bot that comes back with its token)."""
        self._last_match: str | None = None
        self._given_up = False
        """The absent bot's requests are answered for it: its grace is over."""
        self.reconnect_grace_s = reconnect_grace_s
        self._grace: asyncio.Task[None] | None = None
        """While it runs, the absent bot's requests wait for it to resume."""
        self._pending: _Pending | None = None
        self._unanswered: dict[int, _Pending] = {}
        """Requests sent to the bot and not answered yet, by seq, oldest first (at most
        `UNANSWERED_KEPT`); the pending one among them."""
        self._where: tuple[str | None, str | None, int | None] = (None, None, None)
        self.match: str | None = None
        """The match under way at this bot's table: set by its ``match_start``, cleared by its
        ``match_end``. A table that closes while it is set has stopped the match (`unseat`)."""
        self._stopped: tuple[str, str] | None = None
        """The match its last table stopped before the end, and why (`unseat`): said in why the
        session ended if its connection goes next (`link_lost`)."""
        self.log = log.bind(bot=name, session=self.session_id)

    def __repr__(self) -> str:
        return f"BotSession({self.name!r}, {self.state.value})"

    # -- the table's side -------------------------------------------------------------------

    def seat_at(self, table: str, slot: int) -> None:
        if self.state is not SessionState.LOBBY:
            raise SessionStateError(f"cannot seat {self.name}: it is {self.state.value}")
        self.state = SessionState.SEATED
        self.binding = Binding(table, slot)
        self._stopped = None
        self.log = self.log.bind(table=table, slot=slot)

    @property
    def pending_seq(self) -> int | None:
        """The ``seq`` of the request waiting for this bot's answer, if one is."""
        return None if self._pending is None else self._pending.seq

    def unseat(self, reason: str | None = None) -> str | None:
        """The table closed (``reason``: why, for a match cut short): a connected bot returns
        to the lobby, an absent one is forgotten. Returns the id of the match that this cut
        short (started, not ended) for a bot still connected, which should be told
        (`tell_aborted`); else None."""
        aborted = self.match if self.state is SessionState.SEATED else None
        self.log.info("seat_released", state=self.state.value, match_aborted=aborted)
        self._stopped = (
            (self.match, reason) if self.match is not None and reason is not None else None
        )
        if self.state is SessionState.ABSENT:
            self.ended = self._ended_away()
        self.match = self._last_match = None
        self.binding = None
        self._stop_grace()
        self._pending = None
        self._unanswered.clear()  # the next table numbers its requests from 1 again
        self.journal.clear()
        self.log = log.bind(bot=self.name, session=self.session_id)
        self._where = (None, None, None)
        if self.state is SessionState.SEATED:
            self.state = SessionState.LOBBY
        elif self.state is SessionState.ABSENT:
            self.state = SessionState.CLOSED
        return aborted

    def _ended_away(self) -> str:
        """Why an absent bot's session ends with its table, said to the bot if it comes back."""
        last = self._last_match
        if last is None:
            why = "its table closed while the bot was away"
        elif self.match is not None:
            why = f"its table closed before the end of match {last}, while the bot was away"
        else:
            why = f"match {last} ended while the bot was away"
        if self._stopped is not None:
            why += f" ({self._stopped[1]})"
        if self._given_up:
            why += ", after its reconnect grace had run out (the referee played its fallbacks)"
        return why

    async def tell_aborted(self, match: str, reason: str, outlook: str) -> None:
        """Tell the bot its match ``match`` was stopped, and ``outlook`` (what comes next: the
        lobby, a bye): else it could not tell an aborted match from a slow opponent, and its
        pending request would simply vanish."""
        link = self.link
        if link is None or self.state is not SessionState.LOBBY:
            return
        if "match_aborted" not in self.features:
            return  # a bot written before the notice would refuse its unknown code
        notice = Error(
            code=ErrorCode.MATCH_ABORTED,
            match=match or None,
            text=f"match {match} was stopped before its end ({reason}); {outlook}",
        )
        if not await link.send(encode(notice)):
            await self.link_lost(link)

    async def replace(self, reason: str) -> None:
        """Another connection takes this waiting bot's name (`Lobby.admit`): say ``bye`` on the
        old link, close it, and end the session."""
        if self.state is not SessionState.LOBBY:
            raise SessionStateError(f"cannot replace {self.name}: it is {self.state.value}")
        link, self.link = self.link, None
        self.state = SessionState.CLOSED
        self.ended = f"another connection took the name in the lobby ({reason})"
        self.log.info("bot_replaced", reason=reason)
        if link is not None:
            await link.send(encode(Bye(reason=reason)))
            await link.close(reason)

    async def to_bot(self, frame: Frame) -> None:
        """A frame from the referee for this bot."""
        binding = self.binding
        if binding is None:
            return
        text = self._as_it_reads(frame)
        if frame.game_start or frame.kind == "request":
            self._context(frame)
        if frame.kind == "event":
            if frame.payload_kind == "match_start":
                self.match = self._last_match = frame.match or ""
            elif frame.payload_kind == "match_end":
                self.match = None
            if not self.wants_events or self.state is SessionState.CLOSED:
                return
            connected = self.state is SessionState.SEATED
            if frame.payload_kind == "match_start":
                self.journal.match_started(text, connected=connected)
            else:
                if frame.game_start and connected:
                    self.journal.game_started()
                self.journal.remember(text)
        elif frame.kind == "request" and frame.seq is not None:
            reachable = self.state is SessionState.SEATED and self.link is not None
            if not reachable and not self._waits_for_resume():
                if binding.sink is not None:
                    gone = "has left" if self.state is SessionState.CLOSED else "is disconnected"
                    why = f"bot {self.name} {gone}; the referee plays its fallback"
                    await binding.sink.fail(frame.seq, why)
                return
            # Held while the bot is away: sent when it resumes (`resume`).
            self._pending = _Pending(frame.seq, frame.seat, frame.match, frame.game, text)
            self._unanswered.pop(frame.seq, None)
            self._unanswered[frame.seq] = self._pending
            if len(self._unanswered) > UNANSWERED_KEPT:
                del self._unanswered[next(iter(self._unanswered))]
        elif frame.kind == "error" and self._pending is not None and frame.seq == self._pending.seq:
            # The referee gave up on that request (late answer): a later action for it is stale.
            self._pending = None
        link = self.link
        if (
            self.state is SessionState.SEATED
            and link is not None
            and not await link.send(text, urgent=frame.kind != "event")
        ):
            await self.link_lost(link)

    def _as_it_reads(self, frame: Frame) -> str:
        """``frame``'s text without ``bank_ms`` for a bot that did not ask for it: a bot
        written before it refuses a request with a field it does not know."""
        if frame.kind != "request" or "bank_ms" in self.features or '"bank_ms"' not in frame.text:
            return frame.text
        data = json.loads(frame.text)
        data.pop("bank_ms", None)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    def _context(self, frame: Frame) -> None:
        """Keep the match, game and seat of the bot's current game in its log context."""
        if (frame.match, frame.game, frame.seat) != self._where:
            self._where = (frame.match, frame.game, frame.seat)
            self.log = self.log.bind(match=frame.match, game=frame.game, seat=frame.seat)

    # -- the bot's side ---------------------------------------------------------------------

    def _late(self, action: Action) -> bool:
        """``action`` answers a request this bot was sent that no longer pends, and is the
        first answer to it: a late answer. Forgets the request, so that answering it again
        counts as a bad frame like any other."""
        asked = self._unanswered.get(action.seq)
        if asked is None or asked is self._pending:
            return False
        if _mismatch(("match", action.match, asked.match), ("game", action.game, asked.game)):
            return False
        del self._unanswered[action.seq]
        return True

    async def from_bot(self, action: Action) -> Refusal | None:
        """The bot's action: forwarded to the referee, or why not."""
        binding = self.binding
        pending = self._pending
        if self.state is not SessionState.SEATED or binding is None:
            return Refusal(
                Error(
                    code=ErrorCode.NOT_EXPECTED,
                    text="you are not seated: your table has closed, or none has seated you yet",
                    seq=action.seq,
                )
            )
        if pending is None or binding.sink is None:
            return Refusal(
                Error(code=ErrorCode.NOT_EXPECTED, text="no request is pending", seq=action.seq),
                late=self._late(action),
            )
        if action.seq != pending.seq:
            # An answer to another request (most likely one the referee gave up on): the
            # pending one may still be answered.
            return Refusal(
                Error(
                    code=ErrorCode.STALE_SEQ,
                    text=f"action for seq {action.seq}; the pending request is seq {pending.seq}",
                    seq=action.seq,
                    match=pending.match,
                    game=pending.game,
                ),
                late=self._late(action),
            )
        other_game = _mismatch(
            ("match", action.match, pending.match), ("game", action.game, pending.game)
        )
        if other_game is not None:
            # An answer to another game's request (a late one: the referee numbers a seat's
            # requests across the games of a match, so the seq can only match by accident):
            # stale like any other answer to another request, and the pending one stays pending.
            return Refusal(
                Error(
                    code=ErrorCode.STALE_SEQ,
                    text=f"action.{other_game}: an answer to another game's request",
                    seq=action.seq,
                    match=pending.match,
                    game=pending.game,
                )
            )
        wrong_seat = _mismatch(("seat", action.seat, pending.seat))
        if wrong_seat is not None:
            # The answer to the pending request, but a bad one: like any bad answer, the referee
            # says so and asks again (a silent wait would end in ``late`` instead).
            error = Error(code=ErrorCode.BAD_MESSAGE, text=f"action.{wrong_seat}", seq=pending.seq)
            await self._fail_pending(error)
            return Refusal(error, answered=True)
        self._pending = None
        self._unanswered.pop(pending.seq, None)
        await binding.sink.answer(
            Action(
                match=pending.match,
                game=pending.game,
                seat=pending.seat,
                seq=pending.seq,
                action=action.action,
            )
        )
        return None

    async def malformed_answer(
        self, frame: dict[str, Any] | None, code: ErrorCode, text: str
    ) -> bool:
        """A frame that failed validation: when it is an ``action`` for the pending request
        (its ``seq`` that request's, or unreadable, and no other ``match`` or ``game`` named),
        tell the referee, which errors and asks again, and return True. False: not an answer;
        the caller sends the error."""
        pending = self._pending
        if (
            frame is None
            or frame.get("type") != "action"
            or pending is None
            or self.state is not SessionState.SEATED
            or self.binding is None
            or self.binding.sink is None
        ):
            return False
        seq = frame.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool) and seq != pending.seq:
            return False
        if any(
            isinstance(frame.get(name), str) and frame.get(name) != wanted
            for name, wanted in (("match", pending.match), ("game", pending.game))
        ):
            return False  # another game's action: not an answer to the pending request
        await self._fail_pending(Error(code=code, text=f"malformed action: {text}"))
        return True

    async def _fail_pending(self, error: Error) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            # Answered, if badly: another answer to it later is no late answer.
            self._unanswered.pop(pending.seq, None)
        binding = self.binding
        if pending is not None and binding is not None and binding.sink is not None:
            await binding.sink.fail(pending.seq, error.text, error.code)

    async def _abandon_pending(self, why: str) -> None:
        pending, self._pending = self._pending, None
        binding = self.binding
        if pending is not None and binding is not None and binding.sink is not None:
            await binding.sink.fail(pending.seq, f"bot {self.name} {why}")

    async def link_lost(self, link: Link, why: str | None = None) -> None:
        """``link`` dropped (``why``: the server's own side dropped it, e.g. it lost its MQTT
        broker). Only the current link counts: an old one closing after a resume is not this
        session's loss."""
        if link is not self.link:
            return
        self.link = None
        if self.state is SessionState.LOBBY:
            self.state = SessionState.CLOSED
            self.ended = self._ended_in_lobby(why)
            self.log.info("bot_left", **({"why": why} if why else {}))
        elif self.state is SessionState.SEATED:
            self.state = SessionState.ABSENT
            self.log.warning("bot_absent", grace_s=self.reconnect_grace_s)
            await self._start_grace()

    def _ended_in_lobby(self, why: str | None) -> str:
        """Why a session waiting in the lobby ended with its connection, said to the bot if it
        comes back: after a table that stopped its match, that match and why come first."""
        stopped = self._stopped
        if stopped is None:
            if why is None:
                return "the bot left the lobby (its connection closed)"
            return f"the server dropped the bot's connection ({why})"
        match, reason = stopped
        if why is None:
            return f"match {match} was stopped ({reason}), and then the bot's connection closed"
        if reason == why:
            return f"{why}: it stopped match {match}, and then dropped the bot's connection"
        return (
            f"match {match} was stopped ({reason}), and then the server dropped the bot's "
            f"connection ({why})"
        )

    async def leave(self, link: Link, reason: str) -> None:
        """The bot said ``bye`` on ``link``: it leaves now. Unlike a lost link, that ends the
        session at once, with no grace and no resume; a seated bot's pending request, and every
        later one until its table releases it, is answered for it at once (the referee plays its
        fallback), as for a bot past its grace."""
        if link is not self.link:
            return
        self.link = None
        seated = self.binding is not None
        self.state = SessionState.CLOSED
        self.ended = "the bot said bye" + (f" ({reason})" if reason else "")
        self._stop_grace()
        self.journal.clear()
        self.log.info("bot_left", reason=reason, seated=seated)
        await self._abandon_pending("has left (bye); the referee plays its fallback")

    async def _start_grace(self) -> None:
        """The bot has just gone: its requests wait ``reconnect_grace_s`` for it to resume."""
        self._stop_grace()
        if self.reconnect_grace_s > 0:
            self._grace = asyncio.create_task(self._grace_period())
        else:
            self._given_up = True
            await self._abandon_pending("disconnected; the referee plays its fallback")

    async def _grace_period(self) -> None:
        await asyncio.sleep(self.reconnect_grace_s)
        self._grace = None
        if self.state is SessionState.ABSENT and self.link is None:
            self.log.info("reconnect_grace_over")
            self._given_up = True
            await self._abandon_pending("disconnected; the referee plays its fallback")

    def _stop_grace(self) -> None:
        grace, self._grace = self._grace, None
        if grace is not None and grace is not asyncio.current_task():
            grace.cancel()

    def _waits_for_resume(self) -> bool:
        """Whether a request for the absent bot is held for it: while it resumes (its link is
        back, the journal on its way) or within the grace after it went."""
        return self.state is SessionState.ABSENT and (
            self.link is not None or self._grace is not None
        )

    async def resume(self, link: Link) -> None:
        """Rebind to a new link (the welcome is already sent) and replay the journal."""
        if self.state is SessionState.CLOSED:
            raise SessionStateError(f"cannot resume {self.name}: the session is closed")
        old, self.link = self.link, link
        self.transport = link.transport
        self._given_up = False
        if old is not None and old is not link:
            # The same bot on a fresh connection (its own, or another process holding its
            # resume token): the old one would only confuse it. Told why, so a client still
            # reading it stops rather than take the session back in turn.
            reason = "replaced by a resumed connection"
            self.log.info("bot_taken_over", old_peer=old.peer, peer=link.peer)
            await old.send(encode(Bye(reason=reason)))
            await old.close(reason)
        self._stop_grace()
        if self.binding is None:
            return
        if self.reconnect_grace_s <= 0:
            # Without a grace a request in flight on the old link is given up: fall back now.
            await self._abandon_pending("reconnected while a request was pending")
        self.state = SessionState.ABSENT
        if not self.wants_events:
            self.journal.clear()  # its new hello declines events: only the request is sent
        if self.journal.dropped:
            # `internal` (PROTOCOL.md, "Error codes"): no code of its own for a rare notice.
            notice = f"{self.journal.dropped} oldest events of your absence were dropped"
            await link.send(encode(Error(code=ErrorCode.INTERNAL, text=notice)))
        # Absent while replaying: events arriving meanwhile join the journal and are sent too.
        sent = 0
        while sent < len(self.journal):
            if not await link.send(self.journal[sent], urgent=False):
                self.link = None
                await self._start_grace()
                return
            sent += 1
        self.state = SessionState.SEATED
        self.log.info("bot_resumed", transport=link.transport, replayed=sent)
        pending = self._pending
        # The request it was asked before it went (or while it came back), asked again as it
        # was: its answer may have been lost with the old link.
        if pending is not None and pending.text and not await link.send(pending.text):
            await self.link_lost(link)
