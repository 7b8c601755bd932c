"""Windows' asyncio event loops as our code meets them, simulated on Linux for the tests of
`arena.event_loops` and its callers: the default loop (Proactor) has no readers or writers, which
the MQTT client needs; no loop takes signal handlers; and a selector loop's wait is not cut short
by Ctrl-C (python/cpython#101166)."""

from __future__ import annotations

import asyncio
import selectors
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVarTuple

Ts = TypeVarTuple("Ts")


def no_signal_handlers(*_args: Any, **_kwargs: Any) -> None:
    """``loop.add_signal_handler`` on Windows: no asyncio loop there takes one."""
    raise NotImplementedError


class ProactorLikeLoop(asyncio.SelectorEventLoop):
    """Windows' default loop as the MQTT client sees it: no readers or writers."""

    def add_reader(self, fd: Any, callback: Callable[[*Ts], object], *args: *Ts) -> None:
        raise NotImplementedError

    def add_writer(self, fd: Any, callback: Callable[[*Ts], object], *args: *Ts) -> None:
        raise NotImplementedError


class CtrlCSeenWhenTheWaitEnds(selectors.DefaultSelector):
    """A selector that behaves as Windows' select(): a Ctrl-C that comes while the loop waits is
    seen only once the wait is over. Once ``ctrl_c_due`` is set, the next wait gets one: SIGINT
    stays pending (blocked) for the whole wait, and a wait with no end fails at once instead of
    hanging."""

    ctrl_c_due = False

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if not self.ctrl_c_due or timeout == 0:
            return super().select(timeout)
        self.ctrl_c_due = False
        if timeout is None:
            raise AssertionError("the loop waits with no end while a Ctrl-C waits to be seen")
        unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            return super().select(timeout)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)


class WindowsSelectorLoop(asyncio.SelectorEventLoop):
    """The selector loop the MQTT commands run on under Windows: no signal handlers, and a wait
    that Ctrl-C does not cut short."""

    def __init__(self) -> None:
        self.selector = CtrlCSeenWhenTheWaitEnds()
        super().__init__(self.selector)

    def add_signal_handler(self, sig: int, callback: Callable[[*Ts], object], *args: *Ts) -> None:
        raise NotImplementedError

    def remove_signal_handler(self, sig: int) -> bool:
        raise NotImplementedError
