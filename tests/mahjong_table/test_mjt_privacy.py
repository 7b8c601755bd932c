"""No seat ever receives another seat's hidden tiles: many seeded hands through the referee with
in-process seats whose bots record every message they get."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.dealing import MatchSeed
from arena.games.mahjong.rules import load_ruleset
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.base import Bot
from bots.registry import make_bot
from protocol.games.common import GameEnd
from protocol.games.mahjong import (
    Dealt,
    Drew,
    FlowerExposed,
    KongDeclared,
    MahjongObservation,
    OtherDrew,
    Win,
)
from protocol.messages import Event, Request


class Listener(Bot):
    """Plays like ``inner`` and keeps every payload it was sent, in order."""

    games = ("mahjong",)

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.seen: list[Any] = []

    async def on_event(self, event: Event) -> None:
        self.seen.append(event.payload)
        await self.inner.on_event(event)

    async def act(self, request: Request) -> str:
        self.seen.append(request.observation)
        assert not any(text.endswith("f") for text in request.legal or ()), request.legal
        return await self.inner.act(request)


def check_private(seat: int, seen: list[Any], hidden: list[str]) -> None:
    """``hidden``: the starting hands of the other seats, as compact text."""
    for payload in seen:
        if isinstance(payload, Dealt | Drew):
            assert payload.seat == seat, f"seat {seat} was sent seat {payload.seat}'s tiles"
        elif isinstance(payload, OtherDrew):
            assert payload.seat != seat
        elif isinstance(payload, KongDeclared) and payload.meld == "ckong":
            assert (payload.tile is not None) == (payload.seat == seat)
        elif isinstance(payload, MahjongObservation):
            assert payload.seat == seat
            assert "f" not in payload.tiles, "a flower never stays in a hand"
            for other, melds in enumerate(payload.melds):
                for meld in melds:
                    assert meld.kind != "ckong" or (meld.tiles is not None) == (other == seat)
        elif isinstance(payload, GameEnd):
            assert "tiles" not in str(payload.detail)
    # Belt and braces: no message before a win shows another seat's whole starting hand.
    before_win = []
    for payload in seen:
        if isinstance(payload, Win):
            break
        before_win.append(payload.model_dump_json())
    text = "\n".join(before_win)
    for hand in hidden:
        assert f'"{hand}"' not in text


async def play(
    seed: MatchSeed, round_index: int, hand: int, strategies: list[str], ruleset: str
) -> list[Listener]:
    listeners = [
        Listener(make_bot("mahjong", name, {}, name=f"{name}-{i}"))
        for i, name in enumerate(strategies)
    ]
    recorder = MemoryRecorder()
    played = await play_game(
        "mahjong",
        [InProcessSeat(listener) for listener in listeners],
        rules=load_ruleset(ruleset).to_mapping(),
        seed=seed,
        deal={"round": round_index, "hand": hand},
        players=[listener.name for listener in listeners],
        recorder=recorder,
    )
    dealt = {
        line["payload"]["seat"]: line["payload"]["tiles"]
        for line in recorder.lines
        if line["type"] == "event" and line["payload"].get("kind") == "deal"
    }
    assert played.penalties == (0, 0, 0, 0), "the bots played only legal actions in time"
    for seat, listener in enumerate(listeners):
        assert any(isinstance(p, Dealt) for p in listener.seen)
        check_private(seat, listener.seen, [dealt[s] for s in range(4) if s != seat])
    return listeners


MIXES = [["greedy"] * 4, ["random"] * 4, ["greedy", "random", "greedy", "random"]]


def test_no_seat_sees_hidden_tiles() -> None:
    seed = MatchSeed.from_text("privacy")

    async def run() -> None:
        for i in range(24):
            await play(seed, i, i % 4, MIXES[i % 3], "competition")

    asyncio.run(run())


def test_no_seat_sees_hidden_tiles_with_flowers() -> None:
    seed = MatchSeed.from_text("privacy")
    exposed = 0

    async def run() -> None:
        nonlocal exposed
        for i in range(16):
            listeners = await play(seed, i, i % 4, MIXES[i % 3], "flowers")
            # Every seat hears of every exposed flower: the events are public.
            heard = [
                [(p.seat, p.tile) for p in listener.seen if isinstance(p, FlowerExposed)]
                for listener in listeners
            ]
            assert heard[0] == heard[1] == heard[2] == heard[3]
            exposed += len(heard[0])

    asyncio.run(run())
    assert exposed > 30
