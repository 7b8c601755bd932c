"""Mahjong baseline players: ``random`` (a uniformly random legal action from a seeded stream)
and ``greedy`` (lower the deficiency number, always win). Both decide from the request alone."""

from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot
from bots.mahjong.greedy import GreedyBot, choose
from bots.mahjong.random_bot import RandomBot

BOTS: Mapping[str, Callable[[str, Mapping[str, Any]], Bot]] = {
    "greedy": GreedyBot,
    "random": RandomBot,
}

__all__ = ["BOTS", "GreedyBot", "RandomBot", "choose"]
