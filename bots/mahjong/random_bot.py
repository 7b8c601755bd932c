"""The random baseline: a uniformly random legal action, from a seeded stream.

The stream is named by the bot's ``seed`` option (default: the bot's name), the match and game
ids and the seat of the request, so a match replays exactly with the same seed and bots, and
two copies of the bot at one table still play differently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arena.dealing import MatchSeed, RandomStream
from bots.base import Bot
from bots.options import SEED_TYPE, OptionInfo, did_you_mean, seed_problem
from protocol.messages import Request


class RandomBot(Bot):
    games = ("mahjong",)
    OPTIONS: Final = (OptionInfo("seed", SEED_TYPE, default_text="the bot's name"),)
    """Its one setting, as `__init__` checks it (`bots list --options` shows it)."""

    def __init__(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(name)
        options = dict(config or {})
        seed = options.pop("seed", name)
        if options:
            unknown = sorted(options)
            hint = did_you_mean(unknown[0], [option.name for option in self.OPTIONS])
            raise ValueError(f"unknown random mahjong bot options: {unknown}{hint}")
        # Text or an integer, as the other games' bots take it: true, 1.5, a list or a table
        # would be folded in as their text unseen.
        problem = seed_problem(seed)
        if problem is not None:
            raise ValueError(problem)
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
