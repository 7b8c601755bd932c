"""The bot client's side where a mutation audit found the suite blind: the reconnect backoff,
the hello it says (its games, its events flag, the additions a server refused), how it takes a
first answer that is not a welcome, a legacy refusal of a stale resume token, the routing of
events and requests to the bot of their game, the keepalive, the resume file, the adapters' URLs
and a few `bots run` options (docs/NETWORK.md, "A bot's session", "Drops, reconnects and
resume")."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer
from net_helpers import LOOPBACK, REPO, ScriptedAdapter, free_port, scaled
from typer.testing import CliRunner
from wire_samples import solve_observation

from bots import cli as bots_cli
from bots import client as client_module
from bots.adapters import (
    AdapterClosed,
    AdapterRefused,
    ClientMessage,
    MqttAdapter,
    ServerAdapter,
    ServerMessage,
    WebSocketAdapter,
    adapter_for,
)
from bots.base import Bot
from bots.client import (
    Backoff,
    BotClient,
    ClientRefused,
    ResumeFileError,
    check_resume_file,
    read_resume_token,
    write_resume_token,
)
from bots.mahjong.greedy import GreedyBot
from bots.registry import make_bot
from protocol.games.bulls_cows import GuessMade
from protocol.games.common import GameEnd, GameStart
from protocol.messages import (
    FEATURES,
    Action,
    Bye,
    Error,
    ErrorCode,
    Event,
    Hello,
    Ping,
    Request,
    Welcome,
)


class Unreachable(ScriptedAdapter):
    """A server that is not there (yet): every connect fails as a refused TCP connect does."""

    def __init__(self) -> None:
        super().__init__([], [])

    async def connect(self) -> None:
        raise AdapterClosed("cannot connect: connection refused")


def links(*adapters: ServerAdapter) -> Callable[[], ServerAdapter]:
    """An adapter factory handing out ``adapters`` in order, one per connection."""
    given: Iterator[ServerAdapter] = iter(adapters)
    return lambda: next(given)


def welcome(token: str = "r1") -> Welcome:
    return Welcome(name="b", session="s1", resume_token=token)


LOST = Error(code=ErrorCode.NO_SESSION, text="no session on this connection")
"""What a restarted server says: the client reconnects and says hello again."""


def hellos(sent: list[ClientMessage]) -> list[Hello]:
    return [message for message in sent if isinstance(message, Hello)]


@dataclass(frozen=True)
class CountingBackoff(Backoff):
    """No wait at all, and a note of each attempt number the client asked a delay for."""

    attempts: list[int] = field(default_factory=list)

    def delay(self, attempt: int) -> float:
        self.attempts.append(attempt)
        return 0.0


def dice_client(
    adapter_factory: Callable[[], ServerAdapter],
    *,
    backoff: Backoff | None = None,
    resume_file: Path | None = None,
) -> BotClient:
    return BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess", {}, "b")},
        name="b",
        adapter_factory=adapter_factory,
        backoff=backoff or CountingBackoff(),
        resume_file=resume_file,
    )


# -- the backoff between reconnects (0.2 s doubling to 10 s, plus up to 25% jitter) -----------


def test_the_backoff_doubles_from_its_first_delay_and_stops_at_its_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(client_module.random, "random", lambda: 0.0)
    backoff = Backoff(first_s=1.0, most_s=10.0)
    assert [backoff.delay(attempt) for attempt in range(7)] == [1, 2, 4, 8, 10, 10, 10]


def test_the_jitter_adds_up_to_a_quarter_of_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    backoff = Backoff(first_s=2.0, most_s=2.0)
    monkeypatch.setattr(client_module.random, "random", lambda: 0.0)
    assert backoff.delay(0) == 2.0
    highest = math.nextafter(1.0, 0.0)  # random.random() is below 1
    monkeypatch.setattr(client_module.random, "random", lambda: highest)
    assert 2.49 < backoff.delay(0) <= 2.5


def test_the_backoff_grows_while_the_server_is_away_and_starts_over_after_a_session() -> None:
    sent: list[ClientMessage] = []
    backoff = CountingBackoff()
    client = dice_client(
        links(
            ScriptedAdapter([welcome(), LOST], sent),
            Unreachable(),
            Unreachable(),
            ScriptedAdapter([welcome(), LOST], sent),
            Unreachable(),
            ScriptedAdapter([welcome(), Bye(reason="done")], sent),
        ),
        backoff=backoff,
    )
    assert asyncio.run(client.run()) == "done"
    assert backoff.attempts == [0, 1, 2, 0, 1]
    assert client.welcomes == 3


def test_a_drop_after_a_welcome_starts_the_backoff_over() -> None:
    """A session the server welcomed, then lost with its connection, means the server was there:
    the next reconnect waits the first delay, not one grown with every drop of the process's
    life (it grew to the 10 s most after six drops, past the server's reconnect grace)."""
    sent: list[ClientMessage] = []
    backoff = CountingBackoff()
    client = dice_client(
        links(
            *(ScriptedAdapter([welcome()], sent) for _ in range(4)),
            Unreachable(),
            ScriptedAdapter([welcome(), Bye(reason="done")], sent),
        ),
        backoff=backoff,
    )
    assert asyncio.run(client.run()) == "done"
    assert backoff.attempts == [0, 0, 0, 0, 1]


# -- the hello, and the answers to it that are not a welcome --------------------------------


class Listener(Bot):
    """Keeps every event, request and error the client hands it, by kind."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.seen: list[str] = []
        self.errors: list[Error] = []

    async def on_event(self, event: Event) -> None:
        self.seen.append(event.payload.kind)

    async def act(self, request: Request) -> str:
        self.seen.append(f"request {request.seq}")
        return "guess 1234"

    async def on_error(self, error: Error) -> None:
        self.errors.append(error)


def test_the_hello_gives_the_token_names_every_game_and_says_whether_events_are_read() -> None:
    """docs/NETWORK.md: `bots run` says ``events: false`` for a bot that keeps `Bot.on_event`."""
    sent: list[ClientMessage] = []
    adapters = [ScriptedAdapter([welcome(), Bye(reason="done")], sent) for _ in range(2)]
    listening = BotClient(
        {"bulls_cows": Listener("l"), "liars_dice": make_bot("liars_dice", "random-guess")},
        name="b",
        token="t0k3n",
        adapter_factory=links(adapters[0]),
    )
    assert asyncio.run(listening.run()) == "done"
    deaf = BotClient(
        {"mahjong": make_bot("mahjong", "greedy")}, name="b", adapter_factory=links(adapters[1])
    )
    assert asyncio.run(deaf.run()) == "done"
    # The adapter of a bot that reads no events may drop any that come unread.
    assert [adapter.wants_events for adapter in adapters] == [True, False]
    said = [(hello.token, hello.games, hello.events) for hello in hellos(sent)]
    assert said == [("t0k3n", ["bulls_cows", "liars_dice"], True), (None, ["mahjong"], False)]


def test_a_bad_message_about_anything_but_the_additions_refuses_the_hello() -> None:
    """Only a refusal of ``hello.features`` is a server from before them (said again without);
    any other ``bad_message`` for the hello is a refusal like ``auth_failed``."""
    sent: list[ClientMessage] = []
    refusal = Error(code=ErrorCode.BAD_MESSAGE, text="hello.games: unknown game 'chess'")
    client = dice_client(links(ScriptedAdapter([refusal, welcome(), Bye(reason="done")], sent)))
    with pytest.raises(ClientRefused) as refused:
        asyncio.run(client.run())
    assert refused.value.code is ErrorCode.BAD_MESSAGE
    assert len(hellos(sent)) == 1


def test_a_server_without_the_additions_is_not_asked_for_them_again_after_a_reconnect() -> None:
    sent: list[ClientMessage] = []
    features_refused = Error(
        code=ErrorCode.BAD_MESSAGE, text="hello.features: Extra inputs are not permitted"
    )
    client = dice_client(
        links(
            ScriptedAdapter([features_refused, welcome(), LOST], sent),
            ScriptedAdapter([welcome(), Bye(reason="done")], sent),
        )
    )
    assert asyncio.run(client.run()) == "done"
    assert [hello.features for hello in hellos(sent)] == [list(FEATURES), None, None]


def test_a_bye_for_the_hello_stops_the_client_with_its_reason() -> None:
    """A draining server answers a new bot's hello with ``bye``: no reconnect after it."""
    sent: list[ClientMessage] = []
    client = dice_client(
        links(
            ScriptedAdapter([Bye(reason="the server is shutting down")], sent),
            ScriptedAdapter([welcome(), Bye(reason="played on")], sent),
        )
    )
    assert asyncio.run(client.run()) == "the server is shutting down"
    assert len(hellos(sent)) == 1


def test_every_resume_is_counted() -> None:
    sent: list[ClientMessage] = []
    client = dice_client(
        links(
            ScriptedAdapter([welcome("r1"), LOST], sent),
            ScriptedAdapter([welcome("r1"), LOST], sent),
            ScriptedAdapter([welcome("r1"), Bye(reason="done")], sent),
        )
    )
    assert asyncio.run(client.run()) == "done"
    assert (client.welcomes, client.resumes) == (3, 2)
    assert [hello.resume for hello in hellos(sent)] == [None, "r1", "r1"]


def test_an_old_servers_auth_failed_for_a_stale_resume_token_says_hello_afresh(
    tmp_path: Path,
) -> None:
    """A server from before ``resume_unknown`` refused a stale resume token with
    ``auth_failed``: the client drops the token and says hello without it (client.py)."""
    resume = tmp_path / "resume"
    resume.write_text("stale", encoding="utf-8")
    sent: list[ClientMessage] = []
    stale = Error(code=ErrorCode.AUTH_FAILED, text="unknown resume token for bot b")
    client = dice_client(
        links(
            ScriptedAdapter([stale], sent), ScriptedAdapter([welcome(), Bye(reason="done")], sent)
        ),
        resume_file=resume,
    )
    assert asyncio.run(client.run()) == "done"
    assert [hello.resume for hello in hellos(sent)] == ["stale", None]
    assert resume.read_text(encoding="utf-8") == "r1"


# -- what the client hands its bots -----------------------------------------------------------


OBSERVATION = solve_observation(seat=0)


def event(payload: GameStart | GameEnd | GuessMade) -> Event:
    return Event(match="m1", game="g1", seat=0, payload=payload)


def test_events_requests_and_errors_go_to_the_bot_of_their_game() -> None:
    """A client playing two games hands each message to the bot of the game it belongs to; an
    ``arena`` event (``game_end``) and an error, to the bot of the game being played."""
    cows, dice = Listener("cows"), Listener("dice")
    error = Error(code=ErrorCode.INVALID_ACTION, text="not a guess", seq=3)
    script: list[ServerMessage] = [
        welcome(),
        event(GameStart(game_kind="liars_dice", seat=0, players=["b", "c"])),
        event(GameEnd(scores=[1, 0], winners=[0], reason="last dice")),
        error,
        event(GameStart(game_kind="bulls_cows", seat=0, players=["b", "c"])),
        event(GuessMade(seat=1, guess="1234", number=1)),
        Request(match="m1", game="g2", seat=0, seq=3, deadline_ms=60_000, observation=OBSERVATION),
        Bye(reason="done"),
    ]
    sent: list[ClientMessage] = []
    client = BotClient(
        {"bulls_cows": cows, "liars_dice": dice},
        name="b",
        adapter_factory=links(ScriptedAdapter(script, sent)),
    )
    assert asyncio.run(client.run()) == "done"
    assert dice.seen == ["game_start", "game_end"] and dice.errors == [error]
    assert cows.seen == ["game_start", "guess", "request 3"] and not cows.errors
    assert [message.seq for message in sent if isinstance(message, Action)] == [3]
    assert client.decisions == 1


class Broken(Bot):
    async def act(self, request: Request) -> str:
        raise RuntimeError("a bug in the bot")


def test_a_bot_that_fails_to_decide_leaves_the_request_unanswered_and_plays_on() -> None:
    """No answer: the referee's deadline runs out and it plays the fallback (client.py); the
    session goes on to the next message."""
    sent: list[ClientMessage] = []
    request = Request(
        match="m1", game="g1", seat=0, seq=1, deadline_ms=60_000, observation=OBSERVATION
    )
    client = BotClient(
        {"bulls_cows": Broken("broken")},
        name="b",
        adapter_factory=links(ScriptedAdapter([welcome(), request, Bye(reason="done")], sent)),
    )
    assert asyncio.run(client.run()) == "done"
    assert not [message for message in sent if isinstance(message, Action)]
    assert client.decisions == 0


# -- over MQTT, a ping whenever the client has been silent for its keepalive --------------------


class ScriptedMqtt(MqttAdapter):
    """An MQTT link in name only (the client pings over `MqttAdapter`s alone): it welcomes the
    bot, then says bye as soon as ``enough`` holds."""

    def __init__(self, sent: list[ClientMessage], enough: Callable[[], bool]) -> None:
        super().__init__(LOOPBACK, 1, "b")
        self.sent = sent
        self.enough = enough
        self.script: list[ServerMessage] = [welcome()]

    async def connect(self) -> None:
        return None

    async def send(self, message: ClientMessage) -> None:
        await asyncio.sleep(0)
        self.sent.append(message)

    async def receive(self) -> ServerMessage:
        if self.script:
            return self.script.pop(0)
        while not self.enough():
            await asyncio.sleep(0.01)
        return Bye(reason="done")

    async def close(self) -> None:
        return None


def pings(sent: list[ClientMessage]) -> int:
    return sum(isinstance(message, Ping) for message in sent)


def test_a_silent_mqtt_client_pings() -> None:
    sent: list[ClientMessage] = []
    client = BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess")},
        name="b",
        adapter_factory=links(ScriptedMqtt(sent, lambda: pings(sent) >= 2)),
        keepalive_s=0.01,
    )
    assert asyncio.run(asyncio.wait_for(client.run(), scaled(20))) == "done"


def test_an_mqtt_client_that_has_just_spoken_does_not_ping() -> None:
    """The keepalive counts from the last message sent (here the hello), not from the start
    of the event loop's clock: the bot pings only after ``keepalive_s`` of its own silence."""
    sent: list[ClientMessage] = []
    polls = iter(range(20))
    client = BotClient(
        {"liars_dice": make_bot("liars_dice", "random-guess")},
        name="b",
        adapter_factory=links(ScriptedMqtt(sent, lambda: next(polls, None) is None)),
        keepalive_s=30.0,  # far beyond this session's few polls
    )
    assert asyncio.run(client.run()) == "done"
    assert pings(sent) == 0 and len(hellos(sent)) == 1


# -- the resume file -----------------------------------------------------------------------------


def test_the_resume_file_holds_the_token_alone_and_none_as_nothing(tmp_path: Path) -> None:
    kept = tmp_path / "resume"
    assert read_resume_token(kept) is None
    kept.write_text("r1\n", encoding="utf-8")  # as an editor or `echo` leaves it
    assert read_resume_token(kept) == "r1"
    kept.write_text(" \n", encoding="utf-8")
    assert read_resume_token(kept) is None
    write_resume_token(kept, "r2")
    assert read_resume_token(kept) == "r2"
    write_resume_token(kept, None)
    assert kept.read_text(encoding="utf-8") == "" and read_resume_token(kept) is None


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_resume_file_where_no_file_can_be_made_is_refused_even_for_root() -> None:
    """`check_resume_file` tries a file in the directory: permission bits do not stop root,
    but nobody can make a file in /proc."""
    with pytest.raises(ResumeFileError, match="cannot write in /proc/self"):
        check_resume_file(Path("/proc/self/resume"))


# -- the adapters' URLs ------------------------------------------------------------------------


def test_mqtt_urls_give_tls_the_default_ports_and_the_decoded_login() -> None:
    plain = adapter_for("mqtt://broker.example", "b")
    secure = adapter_for("mqtts://us%40er:p%3Ass%2Fw@broker.example", "b")
    assert isinstance(plain, MqttAdapter) and isinstance(secure, MqttAdapter)
    assert (plain.tls, plain.port, plain.username, plain.password) == (False, 1883, None, None)
    assert (secure.tls, secure.port, secure.username, secure.password) == (
        True,
        8883,
        "us@er",
        "p:ss/w",
    )
    assert isinstance(adapter_for("ws://broker.example:8765", "b"), WebSocketAdapter)


def test_a_server_not_listening_yet_is_retried_not_refused() -> None:
    """A refused TCP connect may pass (the server is starting): `AdapterClosed`, retried with
    the backoff, even before the first welcome."""
    sent: list[ClientMessage] = []
    client = dice_client(
        links(
            WebSocketAdapter(f"ws://{LOOPBACK}:{free_port()}"),
            ScriptedAdapter([welcome(), Bye(reason="done")], sent),
        )
    )
    assert asyncio.run(client.run()) == "done"


def test_a_websocket_url_that_cannot_work_is_refused_without_its_password() -> None:
    """An invalid URL is `AdapterRefused` (no reconnect could help), and neither it nor the
    no-welcome text shows the password."""
    with pytest.raises(AdapterRefused) as refused:
        asyncio.run(WebSocketAdapter("http://user:s3cret@broker.example:1").connect())
    assert "not a valid websocket URL" in str(refused.value)
    said = WebSocketAdapter("ws://user:s3cret@broker.example:1").no_welcome(10)
    assert "s3cret" not in str(refused.value) + said and "within 10 s" in said


# -- `bots run`'s options, as far as the clients it builds --------------------------------------


def clients_of_bots_run(monkeypatch: pytest.MonkeyPatch, *arguments: str) -> list[BotClient]:
    """The clients ``bots run ARGUMENTS`` would play, stopped before anything connects."""
    played: list[BotClient] = []

    async def play(clients: list[BotClient]) -> list[str]:
        played.extend(clients)
        return ["done"] * len(clients)

    monkeypatch.setattr(bots_cli, "_play", play)
    shown = CliRunner().invoke(bots_cli.app, ["run", *arguments])
    assert shown.exit_code == 0, shown.output
    return played


def test_bots_run_builds_each_copy_as_its_options_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = REPO / "configs" / "bots" / "mahjong" / "greedy-slow.toml"  # think_ms = 2
    # ``random`` plays 1A2B too: --game keeps it to mahjong.
    more = ["--game", "mahjong", "--url", "mqtt://127.0.0.1:1", "--log-level", "warning"]
    clients = clients_of_bots_run(
        monkeypatch,
        "greedy",
        *more,
        "--name",
        "g",
        "--copies",
        "3",
        "--config",
        str(slow),
        "--resume-file",
        str(tmp_path / "resume"),
        *("--token", "t-a", "--token", "t-b", "--token", "t-c"),
    )
    assert [client.name for client in clients] == ["g-0", "g-1", "g-2"]
    assert [client.token for client in clients] == ["t-a", "t-b", "t-c"]
    # One file per copy: copies sharing one would each take the others' seats back.
    assert [client.resume_file for client in clients] == [
        tmp_path / f"resume.g-{i}" for i in range(3)
    ]
    links = [client.adapter_factory() for client in clients]
    assert [link.name for link in links if isinstance(link, MqttAdapter)] == ["g-0", "g-1", "g-2"]
    for client in clients:
        [(game, bot)] = client.bots.items()
        assert game == "mahjong" and isinstance(bot, GreedyBot) and bot.think_s == 0.002
    assert not logging.getLogger("bots.client").isEnabledFor(logging.INFO)
    [played] = clients_of_bots_run(monkeypatch, "random", *more)
    assert list(played.bots) == ["mahjong"]


def test_bots_run_takes_as_many_copies_as_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    most = bots_cli.MAX_COPIES
    clients = clients_of_bots_run(
        monkeypatch,
        "random",
        *("--game", "mahjong", "--url", "ws://127.0.0.1:1", "--log-level", "warning"),
        *("--copies", str(most)),
    )
    assert len(clients) == most and clients[-1].name == f"random-{most - 1}"


def test_a_config_seed_that_is_not_text_or_an_integer_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Folded into the derived seed as text, ``true`` would pass unnoticed (cli.py)."""
    for wrong in (True, 1.5):
        with pytest.raises(typer.Exit):
            bots_cli.build_bots("random", "mahjong", {"seed": wrong}, "r")
        assert f"seed: must be text or an integer, got {wrong!r}" in capsys.readouterr().err
