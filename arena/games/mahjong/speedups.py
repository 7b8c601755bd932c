"""The optional C versions of the one-hand win check and deficiency (``_speedups.c``).

The package builds them when it is installed with a C compiler at hand; without one, or with
``ARENA_PURE_PYTHON=1`` in the environment, every check runs in Python. Both give the same
answers (the tests compare them hand by hand); the C ones return ``None`` for any input they do
not handle, and the Python function then answers or raises as it always has.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON"

c_is_winning: Callable[[Any, Any], bool | None] | None = None
c_deficiency: Callable[[Any, int], int | None] | None = None
c_install: Callable[..., None] | None = None

if os.environ.get(PURE_PYTHON_VARIABLE, "") in ("", "0"):
    try:
        from arena.games.mahjong import _speedups
    except ImportError:
        pass
    else:
        c_is_winning = _speedups.is_winning
        c_deficiency = _speedups.deficiency
        c_install = _speedups.install

IMPLEMENTATION = "C" if c_is_winning is not None else "Python"
"""Which implementation the one-hand checks use in this process: shown by ``arena bench
mahjong``, since its figures depend on it."""
