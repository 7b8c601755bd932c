"""Mahjong baseline players: ``random`` (a uniformly random legal action from a seeded stream)
and ``greedy`` (lower the deficiency number, always win). Both decide from the request alone."""

from collections.abc import Callable, Mapping
from typing import Any

from bots.base import Bot
from bots.mahjong.greedy import GreedyBot, choose
from bots.mahjong.random_bot import RandomBot
from bots.options import OptionInfo

BOTS: Mapping[str, Callable[[str, Mapping[str, Any]], Bot]] = {
    "greedy": GreedyBot,
    "random": RandomBot,
}


def describe_options(strategy: str) -> list[OptionInfo]:
    """The settings ``strategy``'s bot takes (`bots.options`): its class's ``OPTIONS``, what its
    constructor checks."""
    found = {"greedy": GreedyBot.OPTIONS, "random": RandomBot.OPTIONS}.get(strategy, ())
    return list(found)


__all__ = ["BOTS", "GreedyBot", "RandomBot", "choose", "describe_options"]
