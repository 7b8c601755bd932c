"""What every pool of worker processes shares (the league runner's, the gauntlet's)."""

from __future__ import annotations

import signal


def ignore_interrupts() -> None:
    """Run at a worker's start: Ctrl-C is the parent's to handle (it stops the workers at once),
    so a worker does not also die on it mid-task and print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
