"""The figures of a match stopped early (Ctrl-C, SIGTERM, SIGHUP: `arena.cli.stopping`).

`arena match` shows the figures of the games played before the stop, marked partial, and then
stops as before: one ``error: interrupted`` line and exit 130 (143, 129), the record closed
with the games played (`arena.cli.common.interrupt_exits`). A long run stopped at last is not
thrown away: its games are figures as good as a shorter match's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def figures_if_stopped(show: Callable[[], None]) -> Iterator[None]:
    """Around a match, inside `interrupt_exits` and outside its record (so that the record is
    closed and in place when ``show`` runs): a stop calls ``show`` (the figures so far, or
    nothing when no game was played) and goes on, to `interrupt_exits`. A second stop while
    ``show`` prints ends the command all the same."""
    try:
        yield
    except KeyboardInterrupt:
        show()
        raise


def partial_line(played: int, planned: int, unit: str = "games") -> str:
    """The line above the figures of a stopped match (text output)."""
    return (
        f"interrupted after {played:,} of {planned:,} {unit}: the figures below are of the "
        f"{unit} played (partial)"
    )


def partial_json(played: int, planned: int) -> dict[str, Any]:
    """The keys `arena match … --json` adds to say whether its figures are partial: ``partial``
    (false for a match played to its end) and ``games_planned`` (the games asked for; its
    ``games`` are those played)."""
    return {"partial": played < planned, "games_planned": planned}
