"""The player side: the `Bot` interface, strategies per game, the network client."""

from bots.base import Bot

__all__ = ["Bot"]
