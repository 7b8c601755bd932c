"""The referee side of the table-game bot arena: engines, dealing, referee, matches, transports."""

from arena.errors import ArenaError

__all__ = ["ArenaError"]
