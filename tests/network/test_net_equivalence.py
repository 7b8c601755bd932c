"""The same match (same seed, same bots) in-process, over websockets and over MQTT: identical
records and results. The bots are the very `Bot` objects the in-process match uses, driven by
`BotClient` over real sockets (and a real broker)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from net_helpers import LOOPBACK, clients, mosquitto, running_server, scaled, ws_url

from arena.dealing import MatchSeed
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.server.remote import remote_seats
from arena.transports.base import Seat
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot


@dataclass(frozen=True)
class Case:
    game: str
    strategies: tuple[str, ...]
    games: int
    configs: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def names(self) -> list[str]:
        return [f"p{i}-{strategy}" for i, strategy in enumerate(self.strategies)]

    def bots(self) -> dict[str, Any]:
        configs = self.configs or tuple({} for _ in self.strategies)
        return {
            name: make_bot(self.game, strategy, config, name=name)
            for name, strategy, config in zip(self.names, self.strategies, configs, strict=True)
        }


CASES = {
    "bulls_cows": Case(
        "bulls_cows",
        ("super-comparison", "random"),
        4,
        ({"answerer": "evader", "seed": "a"}, {"seed": "b"}),
    ),
    "liars_dice": Case("liars_dice", ("random-guess", "type7"), 6),
    "mahjong": Case("mahjong", ("greedy", "random", "greedy", "random"), 4),
}
RULES = {
    "bulls_cows": {"mode": "duel", "digits": 3, "alphabet": "123456789", "max_guesses": 20},
}


async def play(case: Case, seats: Sequence[Seat]) -> tuple[list[Any], list[dict[str, Any]]]:
    """The case's match on ``seats`` (in ``case.names`` order): results and the record."""
    recorder = MemoryRecorder()
    deadline = round(scaled(10_000))
    if case.game == "mahjong":
        from arena.matches.mahjong import MatchSpec, play_match

        spec = MatchSpec(case.strategies, "net-equivalence", games=case.games, deadline_ms=deadline)
        result = await play_match(spec, seats=seats, names=case.names, recorder=recorder)
        return [player.to_json() for player in result.programs], recorder.lines
    if case.game == "liars_dice":
        from arena.games.liars_dice.rules import LiarsDiceRules

        rules = LiarsDiceRules().to_mapping()
    else:
        rules = RULES[case.game]
    seed = MatchSeed.from_text(f"net-equivalence-{case.game}")
    results = []
    for k in range(case.games):
        order = [0, 1] if k % 2 == 0 else [1, 0]
        deal: dict[str, Any] = {"game_index": k}
        if case.game == "liars_dice":
            deal["first"] = (k // 2) % 2
        played = await play_game(
            case.game,
            [seats[i] for i in order],
            rules=rules,
            seed=seed,
            deal=deal,
            players=[case.names[i] for i in order],
            match_id="equivalence",
            game_id=f"g{k}",
            deadline_ms=deadline,
            recorder=recorder,
        )
        results.append((played.result.scores, played.result.reason, played.penalties))
    return results, recorder.lines


SeatsMaker = Callable[[str, Case], AbstractAsyncContextManager[Sequence[Seat]]]


@asynccontextmanager
async def over_network(
    case: Case, *, bot_url: Callable[[Any], str], local: bool, **server_options: Any
) -> AsyncIterator[Sequence[Seat]]:
    async with (
        running_server(**server_options) as server,
        clients(bot_url(server), case.game, case.bots()),
    ):
        if local:
            async with server.hub.local_seats(case.names, case.game) as seats:
                yield seats
        else:
            async with remote_seats(ws_url(server), case.names, game=case.game) as remote:
                yield remote


@pytest.fixture(scope="module")
def broker_port(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with mosquitto(tmp_path_factory.mktemp("mosquitto")) as port:
        yield port


@pytest.mark.parametrize("game", sorted(CASES))
async def test_websockets_play_exactly_the_in_process_match(game: str) -> None:
    case = CASES[game]
    expected = await play(case, [InProcessSeat(bot) for bot in case.bots().values()])
    async with over_network(case, bot_url=ws_url, local=False) as seats:
        assert await play(case, seats) == expected
    async with over_network(case, bot_url=ws_url, local=True) as seats:
        assert await play(case, seats) == expected


@pytest.mark.parametrize("game", sorted(CASES))
async def test_mqtt_plays_exactly_the_in_process_match(game: str, broker_port: int) -> None:
    case = CASES[game]
    mqtt = f"mqtt://{LOOPBACK}:{broker_port}"
    expected = await play(case, [InProcessSeat(bot) for bot in case.bots().values()])
    async with over_network(case, bot_url=lambda _server: mqtt, local=False, mqtt=mqtt) as seats:
        assert await play(case, seats) == expected


async def test_the_embedded_broker_plays_the_same_match(tmp_path: Path) -> None:
    """No broker answers at the address: the server starts its own (amqtt) there."""
    from net_helpers import free_port

    case = CASES["bulls_cows"]
    mqtt = f"mqtt://{LOOPBACK}:{free_port()}"
    expected = await play(case, [InProcessSeat(bot) for bot in case.bots().values()])
    async with over_network(case, bot_url=lambda _server: mqtt, local=True, mqtt=mqtt) as seats:
        assert await play(case, seats) == expected
