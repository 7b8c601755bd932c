"""Mutation audit of the stop-signal machinery (`arena.cli.stopping`): the re-delivered stop is
one stop, not two (a later SIGTERM still must not cut the clean-up short); a second swallowed
stop does not schedule a second re-delivery; a Ctrl-C swallowed with no stop under way is left to
the previous hook; an ignored signal (``nohup``) stays ignored; and other unraisable errors reach
the hook installed before ours, not the one Python started with."""

from __future__ import annotations

import signal
import sys
from types import SimpleNamespace
from typing import Any, cast

import pytest

from arena.cli import stopping


def unraisable(exc: BaseException) -> Any:
    # sys.UnraisableHookArgs cannot be built from Python; the hook reads exc_value only.
    return cast(Any, SimpleNamespace(exc_type=type(exc), exc_value=exc))


@pytest.fixture
def raised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """SIGINT as a handler is installed (Ctrl-C handled): what `_stop` raises, recorded."""
    sent: list[int] = []
    monkeypatch.setattr(signal, "getsignal", lambda _number: signal.default_int_handler)
    monkeypatch.setattr(signal, "raise_signal", sent.append)
    return sent


def test_the_redelivered_stop_is_the_same_stop_and_a_later_one_is_ignored(
    monkeypatch: pytest.MonkeyPatch, raised: list[int]
) -> None:
    monkeypatch.setattr(stopping, "_stopped_by", [signal.SIGTERM])
    monkeypatch.setattr(stopping, "_swallowed", [signal.SIGTERM])
    stopping._stop(signal.SIGTERM, None)  # the swallowed stop, delivered again
    assert raised == [signal.SIGINT]
    assert stopping._swallowed == []
    stopping._stop(signal.SIGTERM, None)  # a second SIGTERM during the clean-up
    assert raised == [signal.SIGINT], "a second stop signal cut the clean-up short"
    assert stopping.interrupted_exit() == 128 + signal.SIGTERM


def test_a_stop_swallowed_again_before_its_redelivery_is_not_scheduled_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    timers: list[tuple[Any, ...]] = []

    class FakeTimer:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            timers.append(args)
            self.daemon = False

        def start(self) -> None:
            pass

    monkeypatch.setattr(stopping.threading, "Timer", FakeTimer)
    monkeypatch.setattr(stopping, "_stopped_by", [signal.SIGTERM])
    monkeypatch.setattr(stopping, "_swallowed", [])
    stopping._deliver_a_swallowed_stop(unraisable(KeyboardInterrupt()))
    assert len(timers) == 1 and stopping._swallowed == [signal.SIGTERM]
    stopping._deliver_a_swallowed_stop(unraisable(KeyboardInterrupt()))
    assert len(timers) == 1, "one stop, delivered again once"
    assert stopping._swallowed == [signal.SIGTERM]


def test_a_ctrl_c_swallowed_with_no_stop_under_way_goes_to_the_previous_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[BaseException | None] = []
    monkeypatch.setattr(stopping, "_stopped_by", [])
    monkeypatch.setattr(stopping, "_swallowed", [])
    monkeypatch.setattr(
        stopping, "_previous_unraisablehook", lambda args: seen.append(args.exc_value)
    )
    interrupt = KeyboardInterrupt()
    stopping._deliver_a_swallowed_stop(unraisable(interrupt))
    assert seen == [interrupt] and stopping._swallowed == []


def test_install_keeps_ignored_signals_ignored_and_chains_the_current_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dispositions: dict[int, Any] = {number: signal.SIG_DFL for number in stopping.STOP_SIGNALS}
    ignored = stopping.STOP_SIGNALS[-1]
    dispositions[ignored] = signal.SIG_IGN  # as under nohup (SIGHUP)
    monkeypatch.setattr(signal, "getsignal", lambda number: dispositions[number])
    monkeypatch.setattr(
        signal, "signal", lambda number, handler: dispositions.update({number: handler})
    )
    seen: list[BaseException | None] = []

    def earlier_hook(args: Any) -> None:
        seen.append(args.exc_value)

    monkeypatch.setattr(sys, "unraisablehook", earlier_hook)
    monkeypatch.setattr(stopping, "_previous_unraisablehook", sys.__unraisablehook__)
    monkeypatch.setattr(stopping, "_stopped_by", [])
    stopping.stop_like_ctrl_c()
    assert dispositions[ignored] is signal.SIG_IGN
    for number in stopping.STOP_SIGNALS:
        if number != ignored:
            assert dispositions[number] is stopping._stop
    assert sys.unraisablehook is stopping._deliver_a_swallowed_stop
    failure = ValueError("a finalizer's own error")
    sys.unraisablehook(unraisable(failure))
    assert seen == [failure]
