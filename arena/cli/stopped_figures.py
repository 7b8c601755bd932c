"""The figures of a match stopped early (Ctrl-C, SIGTERM, SIGHUP: `arena.cli.stopping`).

`arena match` shows the figures of the games played before the stop, marked partial, and then
stops as before: one ``error: interrupted`` line and exit 130 (143, 129), the record closed
with the games played (`arena.cli.common.interrupt_exits`). A long run stopped at last is not
thrown away: its games are figures as good as a shorter match's. `running_match` nests that
stop, the match's record and its fresh seed around a duel or table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli.common import interrupt_exits, match_recorder, seed_shown_at_end
from arena.records import JsonlRecorder


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


@contextmanager
def running_match(
    record: Path | None,
    prefix: str,
    seed: str,
    console: Console,
    *,
    lineup: str,
    fresh: bool,
    show_if_stopped: Callable[[], None],
) -> Iterator[JsonlRecorder | None]:
    """Around an `arena match` duel or table (its progress bar inside): the match's record
    (`match_recorder`, yielded; ``None`` without ``record``) and, for a ``fresh`` seed, its
    commitment first and the seed itself last (`seed_shown_at_end`), both on ``console``. A
    stop shows the figures so far (``show_if_stopped``) only once the record is closed and the
    seed shown, and then exits as `interrupt_exits` says. A mahjong series opens a record per
    match, inside its seed's, so it nests these itself."""
    with (
        interrupt_exits(record),
        figures_if_stopped(show_if_stopped),
        match_recorder(record, prefix, seed, console, lineup=lineup) as recorder,
        seed_shown_at_end(seed, fresh, console),
    ):
        yield recorder


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
