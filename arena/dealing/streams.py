"""Seeded, verifiable randomness for every deal in the arena (seed 000: Fisher–Yates).

Byte layout (version ``arena-dealing/1``), kept stable because records name it and
``arena verify`` re-derives deals from it (docs/DEALING.md has a worked example):

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
import os
import secrets
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from arena.errors import ArenaError

DEALING_VERSION = "arena-dealing/1"
SEED_BYTES = 32
BLOCK_BYTES = 32
"""Bytes per HMAC-SHA256 block."""

_SHA256_BLOCK = 64
_VERSION_PREFIX = DEALING_VERSION.encode() + b"\x00"

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

    def derive(self, *parts: str | int) -> MatchSeed:
        """A seed of its own for one purpose, read from the stream ``derived-seed/<parts>``: an
        HMAC of this seed, so whoever holds it (a bot seeded with it) learns nothing of this
        seed, its deals or its other streams."""
        return MatchSeed(self.stream("derived-seed", *parts).read(SEED_BYTES))


def label(*parts: str | int) -> str:
    if not parts:
        raise DealingError("a stream needs a label")
    text = "/".join(str(part) for part in parts)
    if "\x00" in text:
        raise DealingError("a stream label may not contain NUL")
    return text


def random_seed() -> MatchSeed:
    return MatchSeed(os.urandom(SEED_BYTES))


def block_message(stream_label: str, index: int) -> bytes:
    """The HMAC input of block ``index``: the bytes a verifier in any language hashes."""
    return _VERSION_PREFIX + stream_label.encode() + b"\x00" + index.to_bytes(8, "big")


class BlockHasher:
    """HMAC-SHA256 keyed by one seed, with the key pads hashed once.

    Equal to ``hmac.digest(seed, message, "sha256")`` (RFC 2104); copying the two pre-keyed
    SHA-256 states instead of re-deriving them per block makes a block about 2.5 times cheaper,
    which is most of the cost of dealing a million bridge hands.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: MatchSeed) -> None:
        # A 32-byte key is shorter than SHA-256's 64-byte block, so RFC 2104 zero-pads it.
        key = seed.value.ljust(_SHA256_BLOCK, b"\x00")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def block(self, stream_label: str, index: int) -> bytes:
        return self.digest(block_message(stream_label, index))

    def blocks(self, stream_label: str, start: int, count: int) -> bytes:
        """Blocks ``start … start+count-1`` of one stream, concatenated."""
        return self.first_blocks([stream_label], count, start)

    def first_blocks(self, stream_labels: Sequence[str], count: int, start: int = 0) -> bytes:
        """Blocks ``start … start+count-1`` of each stream in turn, all concatenated.

        The batch dealers' hot loop: one call per chunk of deals keeps the per-block Python
        overhead to two state copies and two updates.
        """
        inner_base, outer_base = self._inner, self._outer
        counters = [i.to_bytes(8, "big") for i in range(start, start + count)]
        out: list[bytes] = []
        append = out.append
        for stream_label in stream_labels:
            prefix = _VERSION_PREFIX + stream_label.encode() + b"\x00"
            for counter in counters:
                inner = inner_base.copy()
                inner.update(prefix + counter)
                outer = outer_base.copy()
                outer.update(inner.digest())
                append(outer.digest())
        return b"".join(out)


@lru_cache(maxsize=64)
def _hasher_for(seed: MatchSeed) -> BlockHasher:
    return BlockHasher(seed)


class RandomStream:
    """An unbounded deterministic byte stream with unbiased integer draws and Fisher–Yates."""

    __slots__ = ("_buffer", "_counter", "_hasher", "_offset", "label", "position")

    def __init__(
        self, seed: MatchSeed, stream_label: str, hasher: BlockHasher | None = None
    ) -> None:
        self.label = stream_label
        # The pre-keyed states are shared per seed (they are only ever copied), so opening a
        # stream per wall or per deal does not re-hash the key pads.
        self._hasher = hasher if hasher is not None else _hasher_for(seed)
        self._counter = 0
        self._buffer = b""
        self._offset = 0
        self.position = 0  # bytes consumed, so a verifier can report where streams diverge

    def _refill(self) -> None:
        self._buffer = self._buffer[self._offset :] + self._hasher.block(self.label, self._counter)
        self._offset = 0
        self._counter += 1

    def read(self, n: int) -> bytes:
        while len(self._buffer) - self._offset < n:
            self._refill()
        start = self._offset
        self._offset += n
        self.position += n
        return self._buffer[start : start + n]

    def _byte(self) -> int:
        if self._offset >= len(self._buffer):
            self._refill()
        value = self._buffer[self._offset]
        self._offset += 1
        self.position += 1
        return value

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling."""
        if n <= 0:
            raise DealingError(f"randbelow needs n >= 1, got {n}")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        mask = (1 << bits) - 1
        if bits <= 8:
            # One byte per try covers every deal in the arena (cards, tiles, dice, code symbols);
            # the same bytes and the same rejections as the general path, without slicing.
            while True:
                value = self._byte() & mask
                if value < n:
                    return value
        nbytes = (bits + 7) // 8
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
