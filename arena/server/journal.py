"""A bot session's journal: the events a bot that comes back is sent again (docs/NETWORK.md,
"Drops, reconnects and resume").

It holds the current match's ``match_start``, at its head whatever else is dropped, then the
events of the game in progress (from its ``game_start``) and, while the bot is absent, every event
after that. ``match_start`` stays because nothing else tells a restarted bot the match's seed
commitment (to check the seed ``match_end`` reveals), its number of games and its players.
"""

from __future__ import annotations


class Journal:
    """The texts of the events to replay, in order (see the module docstring)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        """The most events kept; beyond it the oldest half is dropped (``match_start`` aside)."""
        self.events: list[str] = []
        self.opening: str | None = None
        """The current match's ``match_start``, as the bot reads it."""
        self.dropped = 0
        """Events dropped to stay within ``cap`` since the journal last started again."""

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: int) -> str:
        return self.events[index]

    def match_started(self, text: str, *, connected: bool) -> None:
        """A ``match_start``: the journal's new head. A bot known to be connected has seen all
        before it, so the journal starts again there; an absent one still needs what came
        before (the end of an earlier match), so it is only added."""
        self.opening = text
        if connected:
            self.events.clear()
            self.dropped = 0
        self.remember(text)

    def game_started(self) -> None:
        """A ``game_start`` while the bot is connected: the journal starts again with it, after
        the match's ``match_start``."""
        self.events = [self.opening] if self.opening is not None else []
        self.dropped = 0

    def remember(self, text: str) -> None:
        if len(self.events) >= self.cap:
            self._make_room()
        self.events.append(text)

    def _make_room(self) -> None:
        """Drop the oldest half, keeping the match's ``match_start`` at the head."""
        opening = self.opening
        start = 1 if self.events and opening is not None and self.events[0] is opening else 0
        half = (len(self.events) - start) // 2
        gone = self.events[start : start + half]
        del self.events[start : start + half]
        self.dropped += half
        if opening is not None and start == 0 and any(text is opening for text in gone):
            # Came while the bot was away, after events now dropped: still the head.
            self.events.insert(0, opening)
            self.dropped -= 1

    def clear(self) -> None:
        """Forget everything: the bot's table is done, or it takes no events."""
        self.events.clear()
        self.opening = None
        self.dropped = 0
