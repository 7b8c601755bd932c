"""The lobby: who is connected, who may log in, and waiting for the bots a table needs."""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from arena.server.auth import TokenStore, digest
from arena.server.links import MQTT_TRANSPORT, Link
from arena.server.sessions import (
    DEFAULT_JOURNAL_CAP,
    DEFAULT_RECONNECT_GRACE_S,
    BotSession,
    SessionState,
)
from protocol.codec import name_problem
from protocol.messages import Error, ErrorCode, Hello, Welcome, is_bot_name

log = structlog.get_logger(__name__)

ENDED_KEPT = 4096
"""Sessions that ended, remembered (by a digest of their resume token) to tell a bot that comes
back too late why its session is gone."""

SHUTTING_DOWN = (
    "the server is shutting down: it takes no new bot or table now; say hello again later, "
    "once it is back"
)
"""Why a hello (or an admin's table) is refused during a drain (``shutting_down``)."""

IN_LOBBY = "you are back in the lobby"
"""What a bot told its match was stopped (``match_aborted``) is told comes next, by default."""
IN_LOBBY_DRAINING = (
    "you are back in the lobby, but the server is shutting down: no new table will seat you "
    "before its bye"
)


def _same_secret(given: str, secret: str) -> bool:
    """In constant time, so that a guesser cannot learn a resume token from how long a refusal
    takes; as bytes, since a hello may carry any text (compare_digest refuses non-ASCII str)."""
    # surrogatepass: JSON can carry a lone surrogate, which plain UTF-8 refuses to encode.
    return secrets.compare_digest(
        given.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass")
    )


class EndedSessions:
    """Why recently ended sessions ended, by the SHA-256 of their resume token (the tokens
    themselves are not kept): at most `ENDED_KEPT`, the oldest forgotten first. Only a bot that
    holds a token learns anything from it, and only of that token's own session."""

    def __init__(self, kept: int = ENDED_KEPT) -> None:
        self.kept = kept
        self._why: OrderedDict[str, tuple[str, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._why)

    def note(self, session: BotSession) -> None:
        self._why[digest(session.resume_token)] = (session.name, session.ended or "it ended")
        while len(self._why) > self.kept:
            self._why.popitem(last=False)

    def why(self, name: str, token: str) -> str | None:
        """Why the session of bot ``name`` with resume token ``token`` ended, if known."""
        known = self._why.get(digest(token))
        return known[1] if known is not None and known[0] == name else None


def _replaceable(session: BotSession, link: Link) -> bool:
    """A hello on ``link`` may take over ``session``'s name from it: both came over MQTT (on
    different topic pairs, as two links are) and the old one waits in the lobby. Over a
    websocket the server sees a connection close, so a second one under the name is another
    program; a seated session keeps its seat for the bot that proves it is the same one
    (``hello.resume``, or its token once the seat is absent)."""
    return (
        session.state is SessionState.LOBBY
        and session.transport == link.transport == MQTT_TRANSPORT
        and session.link is not None
        and session.link is not link
    )


@dataclass(frozen=True, slots=True)
class Admitted:
    """A hello the lobby accepted: the session, and whether it is a resumed one (the caller
    sends the welcome, then calls `BotSession.resume`, so the welcome comes first)."""

    session: BotSession
    resumed: bool

    def welcome(self) -> Welcome:
        return Welcome(
            name=self.session.name,
            session=self.session.session_id,
            resume_token=self.session.resume_token,
            resumed=self.resumed if "resumed" in self.session.features else None,
        )


class Lobby:
    """Every live bot session by name; the one place that admits, resumes and reserves bots."""

    def __init__(
        self,
        tokens: TokenStore,
        journal_cap: int = DEFAULT_JOURNAL_CAP,
        reconnect_grace_s: float = DEFAULT_RECONNECT_GRACE_S,
    ) -> None:
        self.tokens = tokens
        self.journal_cap = journal_cap
        self.reconnect_grace_s = reconnect_grace_s
        self.sessions: dict[str, BotSession] = {}
        self.ended = EndedSessions()
        self.draining = False
        self.waiting = 0
        """Tables waiting for bots to arrive."""
        self._changed = asyncio.Condition()

    async def notify(self) -> None:
        """Wake every table waiting for bots: something in the lobby changed."""
        async with self._changed:
            self._changed.notify_all()

    def _live(self, name: str) -> BotSession | None:
        session = self.sessions.get(name)
        if session is not None and session.state is SessionState.CLOSED:
            del self.sessions[name]
            self.ended.note(session)
            return None
        return session

    async def admit(self, hello: Hello, link: Link) -> Admitted | Error:
        """Check a hello; an `Error` means: send it and close the connection.

        ``auth_failed`` is for a hello that can never pass (a wrong or missing token); a name
        already in use (``name_in_use``) and a resume token that matches no session
        (``resume_unknown``) are refusals a bot can recover from, so they have codes of their
        own."""
        if not is_bot_name(hello.name):
            # `Hello` already refuses such a name as a malformed message; this is a second line.
            return Error(
                code=ErrorCode.BAD_MESSAGE,
                text=f"hello.name: bad name {hello.name!r}: 1-64 of A-Z a-z 0-9 _ . -",
            )
        if not self.tokens.check_bot(hello.name, hello.token):
            log.warning("auth_failed", bot=hello.name, peer=link.peer)
            given = (
                ""
                if hello.token
                else ": the hello gave none, and this server admits only bots with a token (its "
                f"operator makes one with `arena tokens add {hello.name}`)"
            )
            return Error(
                code=ErrorCode.AUTH_FAILED, text=f"unknown token for bot {hello.name}{given}"
            )
        session = self._live(hello.name)
        if session is not None:
            if hello.resume is not None and _same_secret(hello.resume, session.resume_token):
                session.wants_events = hello.events
                session.features = frozenset(hello.features or ())
                return Admitted(session, resumed=True)
            if session.state is SessionState.ABSENT and not self.tokens.open:
                # The token already proves who this is: a restarted bot that lost its resume
                # token still gets its seat back.
                session.wants_events = hello.events
                session.features = frozenset(hello.features or ())
                return Admitted(session, resumed=True)
            if not _replaceable(session, link):
                return self._refusal(hello, session)
            if self.draining:
                return Error(code=ErrorCode.SHUTTING_DOWN, text=SHUTTING_DOWN)
            # An MQTT bot waiting in the lobby that says hello on a new topic pair: most likely
            # the same bot restarted after leaving without `bye` (a clean MQTT disconnect
            # discards its will), whose old pair the server would otherwise keep for up to the
            # silence limit, refusing the restarted bot meanwhile and seating the dead session
            # at the next table. It has passed the same check of its token as the old one.
            await session.replace("replaced by a new connection")
            taken = self._live(hello.name)  # forgets the replaced session
            if taken is not None:
                # Another hello for the name got in while the old link was closing.
                return self._refusal(hello, taken)
        elif hello.resume is not None:
            ended = self.ended.why(hello.name, hello.resume)
            text = (
                f"the session of {hello.name} that this resume token names has ended: {ended}"
                if ended is not None
                else f"no session of {hello.name} to resume (the session has ended: its table "
                "closed while the bot was away, it left the lobby, or the server restarted)"
            )
            return Error(
                code=ErrorCode.RESUME_UNKNOWN,
                text=f"{text}; say hello without resume to start afresh",
            )
        if self.draining:
            return Error(code=ErrorCode.SHUTTING_DOWN, text=SHUTTING_DOWN)
        session = BotSession(
            hello.name,
            hello.games,
            link,
            self.journal_cap,
            wants_events=hello.events,
            features=hello.features or (),
            reconnect_grace_s=self.reconnect_grace_s,
        )
        self.sessions[hello.name] = session
        session.log.info("bot_joined", games=list(hello.games), transport=link.transport)
        await self.notify()
        return Admitted(session, resumed=False)

    def hello_again(
        self, hello: Hello, first: Hello | None, session: BotSession, link: Link
    ) -> Admitted | Error:
        """A ``hello`` on ``link``, which already carries ``session`` (opened by the hello
        ``first``): the session again when the hello repeats ``first`` or carries the session's
        resume token (with a token the server accepts), resumed if it holds a seat; else the
        ``not_expected`` to send, naming the cause and the remedy (`Connection._hello_again`
        says why this is safe)."""
        repeats = first is not None and hello == first
        proves = hello.resume is not None and _same_secret(hello.resume, session.resume_token)
        if (
            (repeats or proves)
            and hello.name == session.name
            and session.link is link
            and session.state is not SessionState.CLOSED
            and self.tokens.check_bot(hello.name, hello.token)
        ):
            if proves:
                session.wants_events = hello.events
                session.features = frozenset(hello.features or ())
            return Admitted(session, resumed=session.binding is not None)
        mqtt = link.transport == MQTT_TRANSPORT
        here = "this topic pair" if mqtt else "this connection"
        fresh = (
            "connect with a fresh <conn> (a new topic pair, and client id <name>-<conn>), "
            "subscribe to its down topic, then say hello there"
            if mqtt
            else "open a new connection"
        )
        return Error(
            code=ErrorCode.NOT_EXPECTED,
            text=f"{here} already has a session (bot {session.name}, {session.state.value}): a "
            "hello here gets the welcome again only if it repeats the first hello or carries "
            f"that session's resume token; to start another session, {fresh}",
        )

    def _refusal(self, hello: Hello, session: BotSession) -> Error:
        state = session.state.value
        # The operator sees it too: two participants who chose one name, or a bot that
        # restarted without its resume token, are theirs to sort out.
        log.info(
            "hello_refused", bot=hello.name, session_state=state, resume=hello.resume is not None
        )
        if hello.resume is not None:
            why = self.ended.why(hello.name, hello.resume)
            earlier = (
                f": it named an earlier session of the bot, which has ended ({why})" if why else ""
            )
            return Error(
                code=ErrorCode.RESUME_UNKNOWN,
                text=f"the resume token is not that of bot {hello.name}'s session ({state})"
                f"{earlier}; say hello without resume to start afresh",
            )
        return Error(
            code=ErrorCode.NAME_IN_USE,
            text=f"bot {hello.name} already has a session ({state}); send hello.resume with "
            "its resume token, retry later, or choose another name",
        )

    async def link_lost(self, session: BotSession, link: Link, why: str | None = None) -> None:
        await session.link_lost(link, why)
        if session.state is SessionState.CLOSED:
            self._live(session.name)
            await self.notify()

    async def leave(self, session: BotSession, link: Link, reason: str) -> None:
        """The bot said ``bye`` on ``link``: its session ends now (`BotSession.leave`), and its
        name is free."""
        await session.leave(link, reason)
        if session.state is SessionState.CLOSED:
            self._live(session.name)
            await self.notify()

    async def release(
        self, session: BotSession, reason: str, *, outlook: str | None = None
    ) -> None:
        """``session``'s table is done with it (``reason``: why, for a match cut short;
        ``outlook``: what comes next for the bot then, if not the lobby)."""
        aborted = session.unseat(reason)
        self._live(session.name)
        if aborted is not None:
            outlook = outlook or (IN_LOBBY_DRAINING if self.draining else IN_LOBBY)
            await session.tell_aborted(aborted, reason, outlook)

    def _missing(self, names: Sequence[str], game: str) -> tuple[list[str], list[str]]:
        """Names not yet available, and problems no wait can fix."""
        waiting: list[str] = []
        fatal: list[str] = []
        for name in names:
            session = self._live(name)
            if session is None or session.state is not SessionState.LOBBY:
                waiting.append(name)
            elif game not in session.games:
                fatal.append(f"{name} does not play {game} (it plays {', '.join(session.games)})")
        return waiting, fatal

    async def reserve(
        self, names: Sequence[str], game: str, timeout_s: float
    ) -> list[BotSession] | Error:
        """Wait until every named bot is in the lobby, then take them all at once."""
        if len(set(names)) != len(names):
            return Error(code=ErrorCode.BAD_MESSAGE, text="a bot can take only one seat")
        for name in names:
            if not is_bot_name(name):
                return Error(code=ErrorCode.BAD_MESSAGE, text=f"bots: {name_problem(name)}")
        waiting: list[str] = []

        def ready() -> bool:
            nonlocal waiting
            waiting, fatal = self._missing(names, game)
            return bool(fatal) or not waiting or self.draining

        self.waiting += 1
        try:
            async with asyncio.timeout(timeout_s), self._changed:
                await self._changed.wait_for(ready)
        except TimeoutError:
            return Error(
                code=ErrorCode.LATE,
                text=f"bots not available within {timeout_s * 1000:.0f} ms: {', '.join(waiting)}",
            )
        finally:
            self.waiting -= 1
        if self.draining:
            return Error(code=ErrorCode.SHUTTING_DOWN, text=SHUTTING_DOWN)
        waiting, fatal = self._missing(names, game)
        if fatal:
            return Error(code=ErrorCode.BAD_MESSAGE, text="; ".join(fatal))
        return [self.sessions[name] for name in names]
