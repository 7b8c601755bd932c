"""The vectorised dealer must produce exactly the deals of the one-by-one dealer."""

from __future__ import annotations

import numpy as np

from arena.dealing import MatchSeed
from arena.dealing.batch import deal_orders, iter_orders
from arena.dealing.bridge import BridgeDeal, bridge_label, deal_bridge, deal_order
from arena.dealing.streams import BlockHasher, RandomStream

SEED = MatchSeed.from_text("batch-equality")


def _scalar(start: int, count: int) -> np.ndarray:
    hasher = BlockHasher(SEED)
    return np.array(
        [
            deal_order(RandomStream(SEED, bridge_label(k), hasher))
            for k in range(start, start + count)
        ]
    )


def test_batch_equals_one_by_one() -> None:
    assert (deal_orders(SEED, 0, 3000) == _scalar(0, 3000)).all()


def test_batch_equals_one_by_one_from_any_start() -> None:
    assert (deal_orders(SEED, 987_654, 500) == _scalar(987_654, 500)).all()


def test_running_out_of_bytes_is_handled_like_the_scalar_stream() -> None:
    # One block (32 bytes) per deal up front: every deal needs more, made on demand.
    one_block = deal_orders(SEED, 0, 400, blocks=1)
    assert (one_block == _scalar(0, 400)).all()
    # With two blocks up front about 90 % of deals read past 64 bytes, mixing both paths.
    assert (deal_orders(SEED, 0, 3000, blocks=2) == deal_orders(SEED, 0, 3000)).all()


def test_chunks_join_up_and_match_deal_bridge() -> None:
    chunks = list(iter_orders(SEED, 1000, start=10, chunk=300))
    assert [len(c) for c in chunks] == [300, 300, 300, 100]
    joined = np.concatenate(chunks)
    assert (joined == deal_orders(SEED, 10, 1000)).all()
    for k in (0, 299, 300, 999):
        assert deal_bridge(SEED, 10 + k).hands == _hands(joined[k])


def test_every_row_is_a_permutation() -> None:
    orders = deal_orders(SEED, 0, 200)
    assert (np.sort(orders, axis=1) == np.arange(52)).all()


def _hands(order: np.ndarray) -> tuple[tuple[int, ...], ...]:
    return BridgeDeal.from_order([int(c) for c in order]).hands
