"""Seeded, verifiable randomness for every deal in the arena (seed 000: Fisher–Yates).

Byte layout (version ``arena-dealing/1``), kept stable because records name it and
``arena verify`` re-derives deals from it:

* A match seed is 32 bytes (256 bits) from the OS unless given.
* A stream is named by a label, the ``/``-joined text of its parts, e.g. ``mahjong/round/3/wall``.
* Block ``i`` of a stream is ``HMAC-SHA256(key=seed, msg=b"arena-dealing/1" 0x00 label 0x00
  i as 8-byte big-endian)``; the stream is the concatenation of its blocks.
* ``randbelow(n)`` takes the fewest whole bytes that hold ``n - 1``, masks them to its bit
  length and rejects values ``>= n`` (no modulo bias).
* ``shuffle`` is Fisher–Yates, last position first: for ``i = n-1 … 1`` swap ``i`` with
  ``randbelow(i + 1)``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import TypeVar

from arena.errors import ArenaError

DEALING_VERSION = "arena-dealing/1"
SEED_BYTES = 32

T = TypeVar("T")


class DealingError(ArenaError, ValueError):
    """A seed or a stream request is malformed."""


@dataclass(frozen=True, slots=True)
class MatchSeed:
    """The one secret every random choice of a match is derived from."""

    value: bytes

    def __post_init__(self) -> None:
        if len(self.value) != SEED_BYTES:
            raise DealingError(f"a match seed is {SEED_BYTES} bytes, got {len(self.value)}")

    @classmethod
    def generate(cls) -> MatchSeed:
        return cls(secrets.token_bytes(SEED_BYTES))

    @classmethod
    def from_hex(cls, text: str) -> MatchSeed:
        try:
            raw = bytes.fromhex(text)
        except ValueError as exc:
            raise DealingError(f"a match seed in hex must be {2 * SEED_BYTES} hex digits") from exc
        return cls(raw)

    @classmethod
    def from_text(cls, text: str | int) -> MatchSeed:
        """Accept a 64-hex-digit seed as is; hash any other text (e.g. ``--seed 5``) to 32 bytes.

        Short human seeds are convenient for reproducing a run; they are not secret, and the
        record says which text the seed came from.
        """
        text = str(text)
        if len(text) == 2 * SEED_BYTES:
            try:
                return cls(bytes.fromhex(text))
            except ValueError:
                pass
        return cls(hashlib.sha256(f"{DEALING_VERSION}/seed-text/{text}".encode()).digest())

    def hex(self) -> str:
        return self.value.hex()

    def commitment(self) -> str:
        """SHA-256 of the seed: published when a match starts, checked when the seed is revealed."""
        return hashlib.sha256(self.value).hexdigest()

    def stream(self, *parts: str | int) -> RandomStream:
        return RandomStream(self, label(*parts))


def label(*parts: str | int) -> str:
    if not parts:
        raise DealingError("a stream needs a label")
    text = "/".join(str(part) for part in parts)
    if "\x00" in text:
        raise DealingError("a stream label may not contain NUL")
    return text


def random_seed() -> MatchSeed:
    return MatchSeed(os.urandom(SEED_BYTES))


class RandomStream:
    """An unbounded deterministic byte stream with unbiased integer draws and Fisher–Yates."""

    __slots__ = ("_buffer", "_counter", "_key", "_prefix", "label", "position")

    def __init__(self, seed: MatchSeed, stream_label: str) -> None:
        self.label = stream_label
        self._key = seed.value
        self._prefix = DEALING_VERSION.encode() + b"\x00" + stream_label.encode() + b"\x00"
        self._counter = 0
        self._buffer = b""
        self.position = 0  # bytes consumed, so a verifier can report where streams diverge

    def _refill(self) -> None:
        block = hmac.new(
            self._key, self._prefix + self._counter.to_bytes(8, "big"), hashlib.sha256
        ).digest()
        self._counter += 1
        self._buffer += block

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._refill()
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        self.position += n
        return out

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling."""
        if n <= 0:
            raise DealingError(f"randbelow needs n >= 1, got {n}")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        nbytes = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self.read(nbytes), "big") & mask
            if value < n:
                return value

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]`` (both ends included)."""
        if high < low:
            raise DealingError(f"randint needs low <= high, got {low} > {high}")
        return low + self.randbelow(high - low + 1)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place: every permutation equally likely."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise DealingError("choice from an empty sequence")
        return items[self.randbelow(len(items))]
