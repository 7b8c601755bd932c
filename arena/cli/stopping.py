"""SIGTERM and SIGHUP stop an `arena` command the way Ctrl-C does (`stop_like_ctrl_c`).

Python runs a signal's handler in the main thread between two bytecodes of whatever runs there,
a finalizer (``__del__``, a weakref callback) included, and an exception raised in a finalizer
cannot reach the command: Python prints "Exception ignored in …" and goes on. A stop raised as
`KeyboardInterrupt` from the handler was lost that way once in CI (a server match under
SIGTERM played on). So the stop is handed to the event loop when one runs, which raises it
between two callbacks, and a stop swallowed by a finalizer all the same (no loop to hand it
to) is delivered again (`_deliver_a_swallowed_stop`).

A process started with SIGINT ignored (a background job of a script) keeps ignoring it, except
in a command that stops on it all the same (`arena serve`): `hold_an_ignored_sigint` keeps one
that comes before the command is known, and `settle_sigint` acts on it.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from types import FrameType

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGBREAK") if hasattr(signal, name)
)
"""The signals that stop a command the way Ctrl-C (SIGINT) does, once `stop_like_ctrl_c` is
installed: what `kill`, `timeout`, systemd, ``docker stop`` and CI cancellation send, what a
dropped terminal or SSH session sends, and Ctrl-Break on Windows (SIGBREAK, only there), which
would otherwise end the process at once, the record unrevealed. SIGKILL cannot be caught:
nothing runs after it."""

REDELIVERY_DELAY_S = 0.05
"""How long a swallowed stop waits before it is raised again: long enough for the finalizer
that swallowed it, and the hook that noticed, to have returned (a stop raised inside the hook
itself could not be noticed again), short beside any clean-up."""

_stopped_by: list[int] = []
"""The stop signal that arrived first (empty: none, or only Ctrl-C)."""

_swallowed: list[int] = []
"""A stop a finalizer swallowed, waiting to be delivered again (at most one entry)."""

_held_interrupts: list[int] = []
"""The SIGINTs that came while `hold_an_ignored_sigint` held them."""


def _stop(number: int, _frame: FrameType | None) -> None:
    """SIGTERM or SIGHUP: raise SIGINT, so that whatever handles Ctrl-C at this moment handles
    this stop too — `asyncio.run` cancels its task (a match then writes its reveal line in its
    ``finally``), a plain wait gets `KeyboardInterrupt`, `arena serve` starts its drain — and
    every ``except KeyboardInterrupt`` path (one error line, the seed shown, a league's
    workers stopped) applies unchanged. Where SIGINT is ignored (a background job of a
    script: the shell ignores Ctrl-C for it), the stop is raised as `KeyboardInterrupt`, since
    the signal was meant to stop the command all the same: by the running event loop between
    two callbacks, or here when no loop runs."""
    if _swallowed:
        _swallowed.clear()  # the same stop again, not a second one
    elif _stopped_by:
        return  # already stopping: a second SIGTERM or SIGHUP must not cut the clean-up short
    else:
        _stopped_by.append(number)
    sigint = signal.getsignal(signal.SIGINT)
    if callable(sigint) and sigint is not _hold_interrupt:
        signal.raise_signal(signal.SIGINT)
        return
    # Not imported by this module: `arena` imports it first thing, for `hold_an_ignored_sigint`,
    # and asyncio's import would more than double the time before that hold. No event loop runs
    # where asyncio was never imported.
    asyncio = sys.modules.get("asyncio")
    try:
        loop = asyncio.get_running_loop() if asyncio is not None else None
    except RuntimeError:
        loop = None
    if loop is None:
        raise KeyboardInterrupt
    loop.call_soon_threadsafe(_interrupt)


def _interrupt() -> None:
    """A loop callback: the stop leaves `asyncio.run` as Ctrl-C would, and `asyncio.run`
    cancels the command's task on the way out, so its ``finally`` clauses run."""
    raise KeyboardInterrupt


def _deliver_a_swallowed_stop(unraisable: sys.UnraisableHookArgs) -> None:
    """`sys.unraisablehook` while a stop is under way: a `KeyboardInterrupt` a finalizer
    swallowed is the stop (or a Ctrl-C after it), so it is raised again, as the same stop,
    rather than shown as a traceback from an object that happened to be collected. Anything
    else goes to the hook that was there before."""
    swallowed_stop = _stopped_by and isinstance(unraisable.exc_value, KeyboardInterrupt)
    if not swallowed_stop:
        _previous_unraisablehook(unraisable)
        return
    if _swallowed:
        return  # already due again
    _swallowed.append(_stopped_by[0])
    # `interrupt_main` runs `_stop` in the main thread as if the signal came again; from a
    # timer, so that it cannot land in this hook or the finalizer that called it.
    again = threading.Timer(REDELIVERY_DELAY_S, _thread.interrupt_main, args=(_stopped_by[0],))
    again.daemon = True
    again.start()


_previous_unraisablehook = sys.unraisablehook


def stop_like_ctrl_c() -> None:
    """Make `STOP_SIGNALS` stop the running command as Ctrl-C does (`_stop`); `arena`'s entry
    point installs it before the command runs. A signal whose disposition is "ignore" (a
    command started under ``nohup`` ignores SIGHUP) stays ignored; a handler a command installs
    later (`arena serve`'s) takes over for its signal while it is in place."""
    global _previous_unraisablehook
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers belong to the main thread
    for number in STOP_SIGNALS:
        if signal.getsignal(number) is signal.SIG_IGN:
            continue
        signal.signal(number, _stop)
    if sys.unraisablehook is not _deliver_a_swallowed_stop:
        _previous_unraisablehook = sys.unraisablehook
        sys.unraisablehook = _deliver_a_swallowed_stop


def hold_an_ignored_sigint() -> None:
    """`arena`'s first step, before its slow imports: if the process was started ignoring
    SIGINT (a background job of a script: the shell keeps Ctrl-C from it), a SIGINT is held
    (`_hold_interrupt`) until the command is known, and `settle_sigint` decides what it means.
    The kernel drops a signal whose disposition is "ignore": `arena serve`, which stops on
    SIGINT even then, lost a ``kill -INT`` sent during the second or so of its start-up and
    then ran until another signal."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, _hold_interrupt)


def _hold_interrupt(number: int, _frame: FrameType | None) -> None:
    _held_interrupts.append(number)


def settle_sigint(*, stops_the_command: bool) -> None:
    """Once the command is known, end `hold_an_ignored_sigint`'s hold. For a command that
    ``stops_the_command`` on SIGINT although started ignoring it, SIGINT is Ctrl-C's from now
    on, and one held meanwhile stops it here as Ctrl-C would have (`KeyboardInterrupt`: the
    start-up is cut short with one line). Any other command ignores SIGINT again, as it was
    started to, and a held one is forgotten (it would have been dropped)."""
    if signal.getsignal(signal.SIGINT) is not _hold_interrupt:
        return  # nothing held: SIGINT was not ignored (a terminal), or not the main thread
    if not stops_the_command:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _held_interrupts.clear()
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if _held_interrupts:
        _held_interrupts.clear()
        raise KeyboardInterrupt


def interrupted_exit() -> int:
    """The exit status of an interrupted command: 128 + the signal that stopped it, as a shell
    reports a command killed by it (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP)."""
    return 128 + (_stopped_by[0] if _stopped_by else signal.SIGINT)
