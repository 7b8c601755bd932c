"""The greedy baseline: play to lower the deficiency number (進胡數, seed 003 §3), nothing else.

* Win whenever the referee lists ``tsumo`` or ``ron``.
* Discard the tile that leaves the lowest deficiency; among equals, the one that leaves the most
  unseen copies of useful tiles (tiles whose arrival lowers the deficiency, counted against every
  tile this seat can see); then the highest tile index (honours before suits).
* Claim (chi, pon, open kong) only when the claim, followed by the best discard, leaves a lower
  deficiency than passing; among claims that do, the lowest deficiency, then kong, pon, chi.
* Declare a concealed or added kong when the hand without the kong's tiles is no further from
  winning than after the best discard (the replacement draw is free).

No defence, no Tai chasing: the floor every strategy must beat.

Option ``think_ms`` (default 0, at most 60 000): spend that much CPU time on every decision
before answering, the same decisions otherwise. It stands in for a strategy that thinks longer
when measuring what a transport costs (`arena bench network --think-ms`); it never changes a
result.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.games.mahjong.deficiency import deficiency, useful_tiles
from bots.base import Bot
from bots.mahjong.view import TILE_INDEX, TableView, read
from bots.options import OptionInfo, did_you_mean
from protocol.games.mahjong import MahjongObservation
from protocol.messages import Request


def _best_discard(
    hand: list[int], candidates: Sequence[int], visible: list[int]
) -> tuple[int, int]:
    """(tile, deficiency after discarding it) by the order of the module docstring."""
    scored: list[tuple[int, int]] = []
    for t in candidates:
        hand[t] -= 1
        scored.append((deficiency(hand), t))
        hand[t] += 1
    low = min(d for d, _ in scored)
    ties = [t for d, t in scored if d == low]
    if len(ties) == 1:
        return ties[0], low
    best_tile, best_key = -1, (-1, -1)
    for t in ties:
        hand[t] -= 1
        unseen = sum(n for _, n in useful_tiles(hand, visible=visible))
        hand[t] += 1
        key = (unseen, t)
        if key > best_key:
            best_tile, best_key = t, key
    return best_tile, low


def _after_claim(hand: list[int], removed: Sequence[int]) -> int:
    """Deficiency after taking a set out of the hand with ``removed`` and then discarding best."""
    for t in removed:
        hand[t] -= 1
    try:
        if sum(hand) % 3 == 1:
            # An open kong: the replacement draw comes before any discard.
            return deficiency(hand)
        low = 99
        for t in range(34):
            if hand[t]:
                hand[t] -= 1
                low = min(low, deficiency(hand))
                hand[t] += 1
        return low
    finally:
        for t in removed:
            hand[t] += 1


def choose(observation: MahjongObservation, legal: Sequence[str]) -> str:
    """The greedy answer to a request (its legal actions as text)."""
    for win in ("tsumo", "ron"):
        if win in legal:
            return win
    view = read(observation)
    if observation.phase == "discard":
        return _own_turn(view, legal)
    return _claim(view, legal)


def _own_turn(view: TableView, legal: Sequence[str]) -> str:
    hand = view.hand
    discards = [TILE_INDEX[text[8:]] for text in legal if text.startswith("discard ")]
    tile, low = _best_discard(hand, discards, view.visible)
    for text in legal:
        verb, _, tile_text = text.partition(" ")
        if verb == "ckong":
            t = TILE_INDEX[tile_text]
            hand[t] -= 4
            after = deficiency(hand)
            hand[t] += 4
            if after <= low:
                return text
        elif verb == "akong":
            t = TILE_INDEX[tile_text]
            hand[t] -= 1
            after = deficiency(hand)
            hand[t] += 1
            if after <= low:
                return text
    return f"discard {_TILE_TEXT[tile]}"


def _claim(view: TableView, legal: Sequence[str]) -> str:
    hand = view.hand
    tile = view.claim_tile
    now = deficiency(hand)
    best_text, best_value = "pass", now
    for text in legal:
        verb, _, run_text = text.partition(" ")
        if verb == "kong":
            removed: list[int] = [tile] * 3
        elif verb == "pon":
            removed = [tile] * 2
        elif verb == "chi":
            first = TILE_INDEX[run_text[0] + run_text[-1]]
            removed = [t for t in (first, first + 1, first + 2) if t != tile]
        else:
            continue
        value = _after_claim(hand, removed)
        if value < best_value:
            best_text, best_value = text, value
    return best_text


_TILE_TEXT = {index: text for text, index in TILE_INDEX.items()}

MAX_THINK_MS: Final = 60_000
"""The most ``think_ms`` may ask. The thinking is a busy loop that holds the event loop, so an
in-process referee's deadline cannot interrupt it: an unbounded value would hang the match."""
DEFAULT_THINK_MS: Final = 0


class GreedyBot(Bot):
    """`choose` as a bot."""

    games = ("mahjong",)
    OPTIONS: Final = (OptionInfo("think_ms", "number", DEFAULT_THINK_MS, f"0 to {MAX_THINK_MS}"),)
    """Its one setting, as `__init__` checks it (`bots list --options` shows it)."""

    def __init__(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(name)
        options = dict(config or {})
        think_ms = options.pop("think_ms", DEFAULT_THINK_MS)
        if options:
            unknown = sorted(options)
            hint = did_you_mean(unknown[0], [option.name for option in self.OPTIONS])
            raise ValueError(
                f"the greedy mahjong bot takes one setting, think_ms (beside a config file's "
                f"strategy key), got {unknown}{hint}"
            )
        if (
            isinstance(think_ms, bool)
            or not isinstance(think_ms, int | float)
            # Also refuses inf and nan (nan compares false with both bounds).
            or not 0 <= think_ms <= MAX_THINK_MS
        ):
            raise ValueError(
                f"think_ms must be a number of milliseconds from 0 to {MAX_THINK_MS}, "
                f"got {think_ms!r}"
            )
        self.think_s = float(think_ms) / 1000.0

    async def act(self, request: Request) -> str:
        observation = request.observation
        if not isinstance(observation, MahjongObservation) or request.legal is None:
            raise ValueError("the greedy mahjong bot needs a mahjong request with legal actions")
        started = time.thread_time()
        chosen = choose(observation, request.legal)
        # CPU time, not wall time: a slower strategy competes for the cores like this does.
        while time.thread_time() - started < self.think_s:
            pass
        return chosen
