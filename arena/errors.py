"""Root of the arena's exception tree: every error the arena raises on purpose derives from it."""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every deliberate arena error."""


class ServerLost(ArenaError):
    """The referee's connection to the arena server is gone (the server stopped, or closed the
    table): no seat of that table can be asked any more, so its match stops here.

    Not a bot's failure and never a fallback: a bot that disconnects is answered ``late`` by the
    server, which stays, and the referee plays that bot's fallback. ``games``: the games of the
    match that had ended when the connection was lost."""

    def __init__(self, reason: str, games: int = 0) -> None:
        self.reason = reason
        self.games = games
        played = f"{games} game" if games == 1 else f"{games} games"
        super().__init__(f"lost the connection to the server after {played} ({reason})")

    def __reduce__(self) -> tuple[type[ServerLost], tuple[str, int]]:
        return type(self), (self.reason, self.games)
