"""What a strategy's settings are, as its factory checks them, and the checks the games share.

Each game's bot package describes its strategies' settings (`describe_options`) from what its
factory validates against (the tables of known keys, the constants the range checks use, the
strategy classes' own defaults), not from a second list kept by hand: `bots list --options`
shows them, and a test builds every strategy with every setting described, and refuses one
not described.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

SEED_TYPE = "text or integer"
"""How a ``seed`` setting is described: every strategy that makes random choices takes one."""


@dataclass(frozen=True)
class OptionInfo:
    """One setting of a strategy: its name, the type its factory accepts, its default (a JSON
    value; ``None`` when unset by default or not a constant, ``default_text`` then says what it
    is), and the values allowed when narrower than the type."""

    name: str
    type: str
    default: Any = None
    allowed: str | None = None
    default_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        default = list(self.default) if isinstance(self.default, tuple) else self.default
        return {
            "name": self.name,
            "type": self.type,
            "default": default,
            "default_text": self.default_text,
            "allowed": self.allowed,
        }

    def __str__(self) -> str:
        default = self.default_text or _shown(self.default)
        allowed = f"; {self.allowed}" if self.allowed else ""
        return f"{self.name} ({self.type}, default {default}{allowed})"


def _shown(value: Any) -> str:
    """A default as a TOML config would write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return "none" if value is None else str(value)


def type_name(wanted: type) -> str:
    """How a setting's Python type reads in a config (TOML): ``true/false`` for a bool."""
    names = {bool: "true/false", str: "text", int: "integer", float: "number", list: "list"}
    return names.get(wanted, wanted.__name__)


def one_of(values: Iterable[Any]) -> str:
    """``one of a, b, c``: a setting's allowed values."""
    return "one of " + ", ".join(str(value) for value in values)


def did_you_mean(key: str, known: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the known setting ``key`` most resembles (difflib's
    closest, as league files and the greedy mahjong bot suggest), or nothing when none is
    close."""
    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def seed_problem(seed: Any) -> str | None:
    """Why ``seed`` is no seed setting (text or an integer; ``true``, ``1.5``, a list or a
    table would be folded in as their text unseen), or ``None`` when it is one."""
    if isinstance(seed, bool) or not isinstance(seed, str | int):
        return f"seed: must be text or an integer, got {seed!r}"
    return None


def strategy_options(game: str, strategy: str) -> list[OptionInfo] | None:
    """The settings of ``strategy`` of ``game`` (a wire name), as its package describes them
    (`describe_options`), or ``None`` when the package does not describe its strategies."""
    from bots.registry import BOT_MODULES

    module = importlib.import_module(BOT_MODULES[game])
    describe = getattr(module, "describe_options", None)
    if describe is None:
        return None
    found: list[OptionInfo] = describe(strategy)
    return found
