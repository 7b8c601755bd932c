"""Deliberately wrong dealers, planted so the audit can show it catches them.

Never used for a game. Each is a mistake real programs have shipped:

* `swap_with_any`: "for every position, swap it with any position". It makes n^n equally
  likely swap sequences, which cannot spread evenly over the n! orders (n^n is not a multiple
  of n! for n > 2), so some orders come up more often than others.
* `seed_c_literal`: seed 000's C fragment read literally. Its comment says "a random number
  between i and 52" but Turbo C's ``random(52-i)`` returns 0 … 51-i, so ``j`` never reaches 52
  and the last card (♣K) never moves: West holds it in every deal.
* `mask_modulo_die`: a die from three random bits taken modulo 6, so 1 and 2 come up twice as
  often as 3 … 6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from arena.dealing.streams import DealingError, RandomStream

T = TypeVar("T")


def swap_with_any(stream: RandomStream, items: Sequence[T]) -> list[T]:
    out = list(items)
    n = len(out)
    for i in range(n):
        j = stream.randbelow(n)
        out[i], out[j] = out[j], out[i]
    return out


def seed_c_literal(stream: RandomStream, items: Sequence[T]) -> list[T]:
    out = list(items)
    n = len(out)
    for i in range(n):
        # Turbo C's random(0) is 0, so the last step swaps the last card with itself.
        span = n - 1 - i
        j = i + (stream.randbelow(span) if span > 0 else 0)
        out[i], out[j] = out[j], out[i]
    return out


def mask_modulo_die(stream: RandomStream, count: int, faces: int = 6) -> list[int]:
    if count < 0 or not 1 <= faces <= 8:
        raise DealingError(f"cannot roll {count} dice of {faces} faces from three bits")
    return [1 + (stream.read(1)[0] & 7) % faces for _ in range(count)]


Shuffle = Callable[[RandomStream, Sequence[int]], list[int]]

PLANTED_SHUFFLES: dict[str, Shuffle] = {
    "swap-with-any": swap_with_any,
    "seed-c-literal": seed_c_literal,
}
PLANTED_DICE = {"mask-modulo": mask_modulo_die}
