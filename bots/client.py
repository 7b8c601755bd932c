"""The bot client: one of our `Bot` objects, unchanged, playing on a server.

It says hello, waits to be seated, hands every event to the bot and answers every request with
the bot's action, logging each decision. After a dropped connection it reconnects with
exponential backoff and resumes its session (the server then replays what it missed); it stops
when the server says ``bye`` or refuses its token, or when no server answers its first ``hello``
(`WELCOME_TIMEOUT_S`). Over MQTT it sends a ``ping`` whenever it has
sent nothing for a while, so the server does not take its silence for a dead connection.

The server's refusals of a ``hello`` (docs/PROTOCOL.md, "Error codes"): ``auth_failed`` (a wrong
token) stops the client; ``resume_unknown`` (its seat is gone) makes it say hello afresh after
the backoff's first step;
``name_in_use`` stops it at its first hello (another bot has the name: its owner should know), and
is retried with backoff once it has been welcomed (an earlier connection of its own may not be
known gone yet). ``shutting_down`` (the server is draining) stops it as the server's ``bye``
would, or with ``stay`` is retried with backoff. A ``match_aborted`` error tells it its match
was stopped: the bot hears of it through `Bot.on_error`, and the client waits in the lobby for
its next table.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import structlog
from pydantic import ValidationError

from arena.files import probe_writable, replace_file
from bots.adapters import (
    CONNECT_TIMEOUT_S,
    AdapterClosed,
    AdapterRefused,
    MqttAdapter,
    ServerAdapter,
)
from bots.base import Bot, traceback_of
from protocol.games.common import GameStart, MatchEnd, MatchStart
from protocol.messages import (
    FEATURES,
    SILENCE_LIMIT_S,
    Action,
    Bye,
    Error,
    ErrorCode,
    Event,
    GameName,
    Hello,
    Ping,
    Request,
    Welcome,
    is_bot_name,
)

log = structlog.get_logger(__name__)

WELCOME_TIMEOUT_S = CONNECT_TIMEOUT_S
"""How long a ``hello`` waits for its ``welcome``, as long as a websocket may take to open. Over
MQTT a hello nobody reads (no server on the broker, or one the broker's ACL keeps from it) is
dropped without a word: without this bound the bot would wait for ever."""


class ClientRefused(Exception):
    """The server will not take this bot (bad token, name in use); retrying would not help.
    Its text is ``"<code>: <the server's text>"``; ``code`` is the error code, if any."""

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class UnknownWireGame(Exception):
    """The client has a bot for a game the protocol's models do not know (`GameName`): it
    cannot say hello. The message is one line for a command's ``error:``."""


class _Retry(Exception):
    """This connection's hello was refused for now (``name_in_use`` after an earlier welcome,
    ``shutting_down`` for a client that stays): reconnect after the backoff."""


class ResumeFileError(ValueError):
    """A resume file that cannot be used: a directory, not UTF-8 text, in a directory that
    cannot be made or written. The message is one line for a command's ``error:``."""


def read_resume_token(path: Path) -> str | None:
    """The resume token kept in ``path``; None when there is no file or it is empty."""
    if path.is_dir():
        raise ResumeFileError(f"{path} is a directory, not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ResumeFileError(
            f"{path} does not hold a resume token (not UTF-8 text): is it the right file?"
        ) from None
    except OSError as exc:
        raise ResumeFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    return text.strip() or None


def check_resume_file(path: Path) -> str | None:
    """`read_resume_token`, after making sure a token can be saved there: its directory is
    made, and a file created and removed in it. Run before connecting, a mistake in the path
    is one clear error instead of a crash at the first welcome, in the middle of a session."""
    if path.is_dir():
        raise ResumeFileError(f"{path} is a directory, not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        in_the_way = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        why = f"{in_the_way} is a file" if in_the_way is not None else exc.strerror or exc
        raise ResumeFileError(
            f"cannot make the directory {path.parent} for {path}: {why}"
        ) from None
    # The token is saved by a rename from a file beside it (`write_resume_token`), so the
    # directory is what must be writable.
    try:
        probe_writable(path.parent, prefix=f".{path.name}.")
    except OSError as exc:
        raise ResumeFileError(
            f"cannot write in {path.parent} (for {path}): {exc.strerror or exc}"
        ) from None
    return read_resume_token(path)


def write_resume_token(path: Path, token: str | None) -> None:
    """Keep ``token`` in ``path`` (empty for none), readable by its owner only: the token takes
    the bot's seat back, so another local user holding it could play in its place. Written to a
    file beside it and renamed, so a crash never leaves half a token."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file 0600 whatever the umask.
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(token or "")
        replace_file(Path(temporary), path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@dataclass(frozen=True, slots=True)
class Backoff:
    """Reconnect delays: ``first`` doubling up to ``most``, each with up to 25% jitter so a
    crowd of bots dropped together does not return together."""

    first_s: float = 0.2
    most_s: float = 10.0

    def delay(self, attempt: int) -> float:
        base = min(self.most_s, self.first_s * 2**attempt)
        return base * (1 + random.random() / 4)


class BotClient:
    """Plays ``bots`` (one per game, by wire name) as ``name`` through a `ServerAdapter`."""

    def __init__(
        self,
        bots: Mapping[str, Bot],
        *,
        name: str,
        adapter_factory: Callable[[], ServerAdapter],
        token: str | None = None,
        resume_file: Path | None = None,
        backoff: Backoff | None = None,
        keepalive_s: float = SILENCE_LIMIT_S / 3,
        welcome_timeout_s: float = WELCOME_TIMEOUT_S,
        stay: bool = False,
    ) -> None:
        if not bots:
            raise ValueError("a client needs at least one bot")
        if not is_bot_name(name):
            raise ValueError(f"bad bot name {name!r}: a name is 1-64 of A-Z a-z 0-9 _ . -")
        self.bots = dict(bots)
        self.name = name
        self.token = token
        self.adapter_factory = adapter_factory
        self.resume_file = resume_file
        self.backoff = backoff or Backoff()
        self.keepalive_s = keepalive_s
        """Over MQTT, the longest the client stays silent: a third of the server's limit, so a
        lost or late ping still leaves time for the next."""
        self.welcome_timeout_s = welcome_timeout_s
        self.stay = stay
        """Keep playing across the server's restarts: after its ``bye``, reconnect (with
        backoff) rather than return; only `stop` ends `run` then."""
        self.byes = 0
        """``bye`` messages the server sent (with ``stay``, each was followed by a reconnect)."""
        self.resume_token = read_resume_token(resume_file) if resume_file is not None else None
        self.current_game = next(iter(self.bots))
        self.decisions = 0
        self.welcomes = 0
        self.resumes = 0
        self.welcomed = asyncio.Event()
        self.log = log.bind(bot=name)
        self._adapter: ServerAdapter | None = None
        self._stopping = False
        self._stopped = asyncio.Event()
        """Set by `stop`: cuts short a wait between reconnects."""
        self.matches_aborted = 0
        """``match_aborted`` notices received: matches the server stopped under this bot."""
        self._commitment: str | None = None
        """The seed commitment of the match in play (from ``match_start``), checked against the
        seed ``match_end`` reveals."""
        self._in_play: tuple[str | None, str] | None = None
        """The match in play (its id and commitment), from its ``match_start`` to its end: a
        resumed session's journal starts with that ``match_start`` again."""
        self._features_refused = False
        """The server refused ``hello.features`` (it is older than them): hello without."""
        self._sent_at = 0.0
        """Event loop time of the last message sent (for the keepalive)."""
        # A bot that keeps Bot.on_event (a no-op) decides from requests alone: its events need
        # not even be read.
        self._listening = any(type(bot).on_event is not Bot.on_event for bot in self.bots.values())
        # Checked once: building a log line per decision costs more than many bots' thinking.
        self._log_decisions = logging.getLogger(__name__).isEnabledFor(logging.INFO)

    async def run(self) -> str:
        """Play until the server says bye (returns its reason) or refuses us (raises
        `ClientRefused`, or `AdapterRefused` for a link that cannot work: no welcome for our
        first hello, a broker that refuses the login). Once welcomed, a refused link is logged
        and retried like a lost one. A bot of a game the protocol does not know raises
        `UnknownWireGame` at the first hello."""
        attempt = 0
        while not self._stopping:
            welcomed_before = self.welcomes
            adapter = self.adapter_factory()
            adapter.wants_events = self._listening
            self._adapter = adapter
            try:
                if not await self._connect_unless_stopped(adapter):
                    # Stopped while connecting: the bye went nowhere, and no hello may follow.
                    break
                reason = await self._session(adapter)
                if reason is not None:
                    self.byes += 1
                    if not self.stay:
                        return reason
                    # An operator restarting the server says bye to every bot: a bot told to
                    # stay comes back once it listens again (a seat of the old server is gone).
                    self.log.info("staying_after_bye", reason=reason)
                attempt = 0
            except _Retry as exc:
                self.log.warning("hello_refused", error=str(exc))
            except AdapterClosed as exc:
                if self._stopping:
                    # The close that follows our own bye, not a lost connection.
                    self.log.info("connection_closed", reason=str(exc))
                else:
                    self.log.warning("connection_lost", error=str(exc))
            except AdapterRefused as exc:
                if self.welcomes == 0:
                    raise
                # The link worked before: a refusal now (a certificate swapped during a
                # broker's restart, say) may pass, and a seat may be waiting for us.
                self.log.error("connection_refused", error=str(exc))
            finally:
                self._adapter = None
                await adapter.close()
            if self._stopping:
                break
            if self.welcomes > welcomed_before:
                attempt = 0  # the server was there: a drop after a welcome starts over
            delay = self.backoff.delay(attempt)
            attempt += 1
            self.log.info("reconnecting", in_s=round(delay, 2), attempt=attempt)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stopped.wait()
        return "stopped"

    async def _connect_unless_stopped(self, adapter: ServerAdapter) -> bool:
        """Connect, or give up at once when `stop` is called meanwhile (False): a server that
        accepts the connection and never answers would otherwise hold a stopped bot for the
        whole connect timeout."""
        connecting = asyncio.ensure_future(adapter.connect())
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({connecting, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not connecting.done():
                connecting.cancel()
                try:
                    await connecting
                except asyncio.CancelledError:
                    # The connect's own cancellation ends here; a cancel of this task itself
                    # (run() cancelled by its caller) goes on.
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise
        if connecting.cancelled() and self._stopping:
            return False
        connecting.result()  # raises what the connect raised, a cancellation included
        return not self._stopping

    async def stop(self, reason: str = "stopped by its owner") -> None:
        """End `run` (e.g. on SIGINT), saying bye. Over MQTT the bye matters: a clean
        disconnect discards the connection's will, and without it an external broker's server
        would keep the bot's session until its silence limit. A client with a resume file
        means to come back: where a bye would give the seat up (a websocket), it closes
        without one, so the seat waits the server's grace for the restarted process."""
        self._stopping = True
        self._stopped.set()
        adapter = self._adapter
        if adapter is not None:
            if self.resume_file is not None and adapter.bye_gives_up_the_seat:
                self.log.info("stopped_keeping_seat", resume_file=str(self.resume_file))
            else:
                with contextlib.suppress(AdapterClosed):
                    await adapter.send(Bye(reason=reason))
            await adapter.close()

    async def _session(self, adapter: ServerAdapter) -> str | None:
        """One connection's life; a str is the reason to stop for good, None means reconnect."""
        features = None if self._features_refused else list(FEATURES)
        try:
            async with asyncio.timeout(self.welcome_timeout_s):
                first = await self._hello(adapter, features)
                if (
                    features is not None
                    and isinstance(first, Error)
                    and first.code is ErrorCode.BAD_MESSAGE
                    and "features" in first.text
                ):
                    # A server from before `hello.features`: it keeps the connection and sends
                    # none of the additions anyway. Say hello as a bot of its time.
                    self._features_refused = True
                    self.log.info("server_without_features")
                    first = await self._hello(adapter, None)
        except TimeoutError:
            why = adapter.no_welcome(self.welcome_timeout_s)
            if self.welcomes == 0:
                raise AdapterRefused(why) from None
            # We were welcomed before: the server may be restarting. Reconnect (with backoff)
            # and say hello again.
            raise AdapterClosed(why) from None
        if isinstance(first, Error) and first.code is ErrorCode.SHUTTING_DOWN:
            # Nothing wrong with us: the server is draining, and will say bye to every bot. As
            # after its bye: stop, or (--stay) come back once it is back, with the backoff.
            if self.stay:
                raise _Retry(f"{first.code.value}: {first.text}")
            self.log.info("server_shutting_down", text=first.text)
            return first.text
        if isinstance(first, Error):
            self._refused(first)
            return None
        if isinstance(first, Bye):
            return first.reason
        if not isinstance(first, Welcome):
            raise ClientRefused(f"expected welcome, got {first.type}")
        # A server that admits a restarted bot by its token gives its session back under a
        # resume token this process never had: only the server can say it resumed.
        resumed = (
            first.resumed if first.resumed is not None else first.resume_token == self.resume_token
        )
        self.welcomes += 1
        self.resumes += resumed
        self._save_resume(first.resume_token)
        self.log.info("welcome", session=first.session, resumed=resumed)
        self.welcomed.set()
        # Only MQTT needs it: a websocket's own pings show the server the connection is alive.
        keepalive = (
            asyncio.create_task(self._keep_alive(adapter))
            if isinstance(adapter, MqttAdapter)
            else None
        )
        try:
            while True:
                message = await adapter.receive()
                if isinstance(message, Request):
                    await self._answer(adapter, message)
                elif isinstance(message, Event):
                    await self._event(message)
                elif isinstance(message, Error) and message.code is ErrorCode.NO_SESSION:
                    # The server lost our session (it restarted, or dropped a silent MQTT
                    # bot): connect and say hello again, resuming a seat if it still exists.
                    self.log.info("session_lost", text=message.text)
                    return None
                elif isinstance(message, Error) and message.code is ErrorCode.MATCH_ABORTED:
                    # The table closed before the match's end (its referee left, the server is
                    # stopping): no match_end will come, the pending request is void, and we
                    # are back in the lobby. The bot may reset what it keeps for the match.
                    self.matches_aborted += 1
                    self._in_play = None
                    self.log.warning("match_aborted", match=message.match, text=message.text)
                    await self._guard(self._bot_for(None).on_error(message), "on_error")
                elif isinstance(message, Error):
                    self.log.info("server_error", code=message.code.value, text=message.text)
                    await self._guard(self._bot_for(None).on_error(message), "on_error")
                elif isinstance(message, Bye):
                    self.log.info("bye", reason=message.reason)
                    return message.reason or "bye"
        finally:
            if keepalive is not None:
                keepalive.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keepalive

    async def _hello(self, adapter: ServerAdapter, features: list[str] | None) -> Any:
        """Say hello (asking for ``features``) and return the server's first answer."""
        try:
            hello = Hello(
                name=self.name,
                token=self.token,
                games=list(self.bots),
                resume=self.resume_token,
                events=self._listening,
                features=features,
            )
        except ValidationError as exc:
            known = set(get_args(GameName))
            unknown = sorted(game for game in self.bots if game not in known)
            if not unknown:
                raise
            raise UnknownWireGame(
                f"the protocol does not know the game {', '.join(map(repr, unknown))} (a bot "
                f"of it is in bots/registry.py, but protocol.messages.GameName holds only "
                f"{', '.join(sorted(known))}): no hello can name it"
            ) from exc
        await self._send(adapter, hello)
        return await adapter.receive()

    def _refused(self, error: Error) -> None:
        """The server refused our hello with ``error``: returns to reconnect and say hello
        afresh at once, raises `_Retry` to reconnect after the backoff, `ClientRefused` to
        stop."""
        if error.code is ErrorCode.RESUME_UNKNOWN or (
            # A server from before `resume_unknown` said auth_failed for a stale resume token;
            # if the token itself is wrong, the hello without resume is refused too, and stops.
            error.code is ErrorCode.AUTH_FAILED and self.resume_token is not None
        ):
            # Our session is gone (its table closed while we were away): start afresh.
            self.log.info("resume_refused", code=error.code.value, text=error.text)
            self._save_resume(None)
            return
        refused = ClientRefused(f"{error.code.value}: {error.text}", error.code)
        if error.code is ErrorCode.NAME_IN_USE and self.welcomes > 0:
            # We held this name: most likely a connection of ours the server does not know gone
            # yet (it keeps a seated bot's session for it), and our resume token (if any) did
            # not fit. Another bot's taking the name is for our owner to see in the log.
            raise _Retry(str(refused))
        raise refused

    async def _send(self, adapter: ServerAdapter, message: Hello | Action | Ping) -> None:
        self._sent_at = asyncio.get_running_loop().time()
        await adapter.send(message)

    async def _keep_alive(self, adapter: ServerAdapter) -> None:
        """Send ``ping`` whenever nothing else has been sent for ``keepalive_s`` — also while
        the bot thinks, since the server counts any message as a sign of life."""
        loop = asyncio.get_running_loop()
        while True:
            wait = self._sent_at + self.keepalive_s - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            try:
                await self._send(adapter, Ping())
            except AdapterClosed:
                return  # the session's receive sees the loss and reconnects

    def _save_resume(self, token: str | None) -> None:
        self.resume_token = token
        if self.resume_file is None:
            return
        try:
            write_resume_token(self.resume_file, token)
        except OSError as exc:
            # The session itself is fine: only a restart of this process would miss the token,
            # which is no reason to stop playing now.
            self.log.error(
                "resume_file_not_saved", file=str(self.resume_file), error=exc.strerror or str(exc)
            )

    def _bot_for(self, game: str | None) -> Bot:
        if game is not None and game in self.bots:
            self.current_game = game
        return self.bots[self.current_game]

    async def _event(self, event: Event) -> None:
        payload = event.payload
        if isinstance(payload, MatchStart):
            if self._in_play == (event.match, payload.seed_commitment):
                # The journal of our resumed session, which starts with the match's
                # match_start: the bot knows it already (it would begin the match again,
                # forgetting what the match has taught it so far).
                return
            self._in_play = (event.match, payload.seed_commitment)
            # What a participant needs to check the match's record later: the dealer's
            # commitment before any deal, then the seed it reveals.
            self._commitment = payload.seed_commitment
            self.log.info(
                "match_start",
                players=payload.players,
                games=payload.games,
                seed_commitment=payload.seed_commitment,
            )
        elif isinstance(payload, MatchEnd):
            self._in_play = None
            self._log_match_end(payload)
        if isinstance(payload, GameStart):
            game: str | None = payload.game_kind
        else:
            game = payload.game if payload.game != "arena" else None
        await self._guard(self._bot_for(game).on_event(event), "on_event")

    def _log_match_end(self, end: MatchEnd) -> None:
        """The revealed seed, checked against the commitment `match_start` gave: a seed that
        does not hash to it means the deals were not fixed before the match (a warning)."""
        try:
            digest = hashlib.sha256(bytes.fromhex(end.seed)).hexdigest()
        except ValueError:
            digest = None
        committed = self._commitment
        self._commitment = None
        if committed is not None and digest != committed:
            self.log.warning("match_seed_not_committed", seed=end.seed, seed_commitment=committed)
            return
        self.log.info(
            "match_end", seed=end.seed, totals=end.totals, commitment_checked=committed is not None
        )

    async def _guard(self, call: Awaitable[None], what: str) -> None:
        try:
            await call
        except Exception as exc:  # a bot's bug must not end its session
            # With the traceback: the bot's author needs to see where it failed.
            self.log.warning(
                "bot_handler_failed", handler=what, error=repr(exc), exc_info=traceback_of(exc)
            )

    async def _answer(self, adapter: ServerAdapter, request: Request) -> None:
        bot = self._bot_for(request.observation.game)
        started = time.perf_counter()
        try:
            text = await bot.act(request)
        except Exception as exc:
            # No answer: the referee's deadline runs out and it plays the fallback, as for any
            # seat that stays silent.
            self.log.warning(
                "bot_failed", seq=request.seq, error=repr(exc), exc_info=traceback_of(exc)
            )
            return
        think_ms = (time.perf_counter() - started) * 1000
        self.decisions += 1
        if self._log_decisions:
            self.log.info(
                "decision",
                match=request.match,
                game=request.game,
                seat=request.seat,
                seq=request.seq,
                action=text,
                think_ms=round(think_ms, 2),
            )
        await self._send(
            adapter,
            Action(
                match=request.match,
                game=request.game,
                seat=request.seat,
                seq=request.seq,
                action=text,
            ),
        )
