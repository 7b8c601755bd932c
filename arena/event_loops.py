"""The event loop a network command runs on, and its stop signals, on Windows as elsewhere.

Windows differs in two ways here (Python's "asyncio: Platform Support"): no event loop there has
`loop.add_signal_handler`, and its default loop (Proactor) has no `loop.add_reader` /
`add_writer`, which the MQTT client needs (aiomqtt over paho; aiomqtt's README, "Note for Windows
users"). Its selector loop has them, but cannot start subprocesses and watches at most 512
sockets, so only a command that speaks MQTT gets it (`run_command`), on a loop of its own rather
than through a process-wide event loop policy (deprecated from Python 3.14).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable, Iterator
from types import FrameType
from typing import Any, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")

MQTT_SCHEMES = frozenset({"mqtt", "mqtts"})

WAKE_EVERY_S = 0.5
"""Where a stop signal's handler is Python's own (Windows), how often the loop is woken so that
the handler runs: a selector loop's wait is not cut short by Ctrl-C there, and the handler would
wait for the next network event or timer (python/cpython#101166)."""


def is_mqtt_url(url: str) -> bool:
    """Whether ``url`` names an MQTT broker (``mqtt://``, ``mqtts://``)."""
    try:
        return urlsplit(url).scheme.lower() in MQTT_SCHEMES
    except ValueError:
        return False


def loop_factory(*, speaks_mqtt: bool) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop of a command: asyncio's default (None), except for one that speaks MQTT
    on Windows, which needs the selector loop."""
    if speaks_mqtt and sys.platform == "win32":
        return asyncio.SelectorEventLoop
    return None


def run_command(main: Coroutine[Any, Any, T], *, speaks_mqtt: bool) -> T:
    """`asyncio.run(main)`, on the loop `loop_factory` chooses."""
    with asyncio.Runner(loop_factory=loop_factory(speaks_mqtt=speaks_mqtt)) as runner:
        return runner.run(main)


def signals_named(*names: str) -> tuple[int, ...]:
    """The signals of ``names`` that this platform has: no SIGHUP on Windows, and SIGBREAK
    (Ctrl-Break) only there."""
    return tuple(getattr(signal, name) for name in names if hasattr(signal, name))


@contextlib.contextmanager
def stop_signals_handled(
    loop: asyncio.AbstractEventLoop, numbers: Iterable[int], handler: Callable[[int], object]
) -> Iterator[None]:
    """While the block runs, each signal of ``numbers`` calls ``handler(number)`` in ``loop``;
    afterwards the handlers found before are back. ``loop.add_signal_handler`` takes a signal
    where it can; where it cannot (Windows), Python's handler passes it on to the loop."""
    numbers = tuple(numbers)
    before = {number: signal.getsignal(number) for number in numbers}
    by_loop: list[int] = []
    waker: _Waker | None = None
    try:
        for number in numbers:
            try:
                loop.add_signal_handler(number, handler, number)
                by_loop.append(number)
            except NotImplementedError:
                signal.signal(number, functools.partial(_pass_to_loop, loop, handler))
                if waker is None:
                    waker = _Waker(loop)
        yield
    finally:
        if waker is not None:
            waker.stop()
        for number in numbers:
            if number in by_loop:
                loop.remove_signal_handler(number)
            # remove_signal_handler leaves the default action (death, for SIGHUP): whoever
            # handled the signal before must see one that comes during the teardown.
            previous = before[number]
            if previous is not None:
                signal.signal(number, previous)


def _pass_to_loop(
    loop: asyncio.AbstractEventLoop,
    handler: Callable[[int], object],
    number: int,
    _frame: FrameType | None,
) -> None:
    # Python runs this between two bytecodes of the main thread, maybe inside the loop's own
    # bookkeeping: the handler runs later, as a callback, and the loop wakes for it.
    loop.call_soon_threadsafe(handler, number)


class _Waker:
    """A no-op callback every `WAKE_EVERY_S` in ``loop``, until `stop`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._next = loop.call_later(WAKE_EVERY_S, self._again)

    def _again(self) -> None:
        self._next = self._loop.call_later(WAKE_EVERY_S, self._again)

    def stop(self) -> None:
        self._next.cancel()
