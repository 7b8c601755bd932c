"""The random baseline: a uniformly random legal action, from a seeded stream.

The stream is named by the bot's ``seed`` option (default: the bot's name), the match and game
ids and the seat of the request, so a match replays exactly with the same seed and bots, and
two copies of the bot at one table still play differently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.dealing import MatchSeed, RandomStream
from bots.base import Bot
from protocol.messages import Request


class RandomBot(Bot):
    games = ("mahjong",)

    def __init__(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(name)
        options = dict(config or {})
        seed = options.pop("seed", name)
        if options:
            raise ValueError(f"unknown random mahjong bot options: {sorted(options)}")
        self.seed = MatchSeed.from_text(str(seed))
        self._key: tuple[str | None, str | None, int | None] | None = None
        self._stream: RandomStream | None = None

    async def act(self, request: Request) -> str:
        if request.legal is None or not request.legal:
            raise ValueError("the random mahjong bot needs a request that lists legal actions")
        key = (request.match, request.game, request.seat)
        if self._stream is None or key != self._key:
            self._key = key
            self._stream = self.seed.stream(
                "bots",
                "mahjong",
                "random",
                str(request.match),
                str(request.game),
                str(request.seat),
            )
        return self._stream.choice(request.legal)
