"""The deals every game makes, in one place so the audit tests exactly what the games use."""

from __future__ import annotations

from collections.abc import Sequence

from arena.dealing.streams import DealingError, RandomStream


def shuffled_wall(stream: RandomStream, tiles: Sequence[int]) -> list[int]:
    """A wall: the given tile multiset in Fisher–Yates order (index 0 is drawn first)."""
    return stream.shuffled(tiles)


def roll_dice(stream: RandomStream, count: int, faces: int = 6) -> list[int]:
    """``count`` independent fair dice, faces 1..``faces``."""
    if count < 0 or faces < 1:
        raise DealingError(f"cannot roll {count} dice of {faces} faces")
    return [1 + stream.randbelow(faces) for _ in range(count)]


def draw_code(stream: RandomStream, alphabet: str, length: int) -> str:
    """A uniform code of ``length`` distinct symbols of ``alphabet`` (a partial Fisher–Yates)."""
    symbols = list(alphabet)
    if not 0 < length <= len(symbols):
        raise DealingError(f"cannot draw {length} distinct symbols from {len(symbols)}")
    # Running Fisher–Yates only over the first `length` positions keeps every code equally likely.
    for i in range(length):
        j = i + stream.randbelow(len(symbols) - i)
        symbols[i], symbols[j] = symbols[j], symbols[i]
    return "".join(symbols[:length])
