"""Many bridge deals at once, identical to dealing them one by one (for the audit and the bench).

Deal ``k`` is `bridge.deal_bridge(seed, k)`: stream ``bridge/<k>``, Fisher–Yates last position
first, each ``randbelow(n)`` one byte masked to the bit length of ``n - 1`` and rejected when
``>= n``. Here the HMAC blocks of every deal are made first (the only per-deal Python work),
and then the 51 Fisher–Yates steps run once each across all deals as numpy operations. A deal
whose byte is rejected reads its next byte, exactly as the scalar loop would; the few deals that
run out of bytes get their next HMAC block on demand, so no deal's bytes are ever guessed.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from arena.dealing.bridge import DECK, bridge_label
from arena.dealing.streams import BLOCK_BYTES, BlockHasher, DealingError, MatchSeed

DEFAULT_BLOCKS = 3
"""Blocks made up front per deal: a deal reads 71.4 bytes on average and more than 96 with
probability 1.4e-4 (exact, by convolving the 51 geometric byte counts), so a fourth block is
made on demand for about 140 deals in a million rather than for all of them."""

DEFAULT_CHUNK = 32_768
"""Deals per numpy pass: large enough to amortise the per-step overhead, small enough for cache."""

Orders = npt.NDArray[np.uint8]


def deal_orders(
    seed: MatchSeed,
    start: int,
    count: int,
    *,
    blocks: int = DEFAULT_BLOCKS,
    hasher: BlockHasher | None = None,
) -> Orders:
    """Shuffled decks of deals ``start … start+count-1``: ``out[k, p]`` is the card at p."""
    if count < 0 or start < 0 or blocks < 1:
        raise DealingError(f"cannot deal {count} deals from {start} with {blocks} blocks")
    hasher = hasher if hasher is not None else BlockHasher(seed)
    labels = [bridge_label(start + k) for k in range(count)]
    raw = hasher.first_blocks(labels, blocks)
    buffer = np.frombuffer(raw, dtype=np.uint8).reshape(count, blocks * BLOCK_BYTES)
    return _shuffle(buffer, labels, hasher)


def iter_orders(
    seed: MatchSeed, count: int, *, start: int = 0, chunk: int = DEFAULT_CHUNK
) -> Iterator[Orders]:
    """Deals ``start … start+count-1`` in chunks, sharing one hasher."""
    hasher = BlockHasher(seed)
    for first in range(start, start + count, chunk):
        yield deal_orders(seed, first, min(chunk, start + count - first), hasher=hasher)


def _shuffle(buffer: npt.NDArray[np.uint8], labels: list[str], hasher: BlockHasher) -> Orders:
    count = buffer.shape[0]
    orders = np.tile(np.arange(DECK, dtype=np.uint8), (count, 1))
    pointer = np.zeros(count, dtype=np.int64)
    made = np.full(count, buffer.shape[1] // BLOCK_BYTES, dtype=np.int64)
    rows = np.arange(count)
    picks = np.empty(count, dtype=np.int64)
    for i in range(DECK - 1, 0, -1):
        n = i + 1
        mask = (1 << (n - 1).bit_length()) - 1
        waiting = rows
        while waiting.size:
            short = waiting[pointer[waiting] >= made[waiting] * BLOCK_BYTES]
            if short.size:
                buffer = _extend(buffer, short, made, labels, hasher)
            values = buffer[waiting, pointer[waiting]] & mask
            pointer[waiting] += 1
            accepted = values < n
            picks[waiting[accepted]] = values[accepted]
            waiting = waiting[~accepted]
        held = orders[:, i].copy()
        orders[:, i] = orders[rows, picks]
        orders[rows, picks] = held
    return orders


def _extend(
    buffer: npt.NDArray[np.uint8],
    rows: npt.NDArray[np.int64],
    made: npt.NDArray[np.int64],
    labels: list[str],
    hasher: BlockHasher,
) -> npt.NDArray[np.uint8]:
    """Give each deal in ``rows`` its next HMAC block, widening the buffer if needed."""
    needed = int(made[rows].max() + 1) * BLOCK_BYTES
    if needed > buffer.shape[1]:
        wider = np.zeros((buffer.shape[0], needed), dtype=np.uint8)
        wider[:, : buffer.shape[1]] = buffer
        buffer = wider
    elif not buffer.flags.writeable:
        buffer = buffer.copy()
    for row in rows.tolist():
        block = hasher.block(labels[row], int(made[row]))
        offset = int(made[row]) * BLOCK_BYTES
        buffer[row, offset : offset + BLOCK_BYTES] = np.frombuffer(block, dtype=np.uint8)
        made[row] += 1
    return buffer
