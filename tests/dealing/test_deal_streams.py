"""Pinned outputs of the seeded stream: games and records depend on these bytes never changing.

The vectors were computed once from the stream as first written (before the batch API and the
faster byte path were added) and checked in. The seed is the 32 bytes 00 01 02 … 1f, so anyone
can recompute them with any HMAC-SHA256; docs/DEALING.md walks through the first one.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.dealing import DEALING_VERSION, DealingError, MatchSeed, RandomStream, random_seed
from arena.dealing.streams import BlockHasher, block_message

SEED = MatchSeed(bytes(range(32)))

# b"arena-dealing/1" 00 b"bridge/0" 00 and block index 0 as 8 big-endian bytes
BRIDGE0_MESSAGE = "6172656e612d6465616c696e672f31006272696467652f30000000000000000000"
BRIDGE0_FIRST_40 = (
    "19b56419095a06f684cc573b032732e6872fb8e393ab7124bbbb9c6b1d336d8f"  # block 0
    "e2df86a70fe560a8"  # the start of block 1
)


def test_version_is_pinned() -> None:
    assert DEALING_VERSION == "arena-dealing/1"


def test_block_message_layout() -> None:
    assert block_message("bridge/0", 0).hex() == BRIDGE0_MESSAGE


def test_first_bytes_of_a_stream() -> None:
    assert SEED.stream("bridge", 0).read(40).hex() == BRIDGE0_FIRST_40


def test_block_is_plain_hmac_sha256() -> None:
    message = bytes.fromhex(BRIDGE0_MESSAGE)
    expected = hmac.new(SEED.value, message, hashlib.sha256).digest()
    assert BlockHasher(SEED).block("bridge/0", 0) == expected
    assert expected.hex() == BRIDGE0_FIRST_40[:64]


def test_randbelow_draws_are_pinned() -> None:
    # Bytes 0x19, 0xb5, 0x64 …: 0x19 & 63 = 25 < 52 is kept; 0xb5 & 63 = 53 >= 51 is rejected.
    stream = SEED.stream("bridge", 0)
    assert [stream.randbelow(52 - i) for i in range(10)] == [25, 36, 25, 9, 26, 6, 4, 12, 23, 3]


def test_shuffle_is_pinned() -> None:
    assert SEED.stream("mahjong", 1, "wall").shuffled(range(20)) == [
        15,
        8,
        16,
        18,
        1,
        10,
        0,
        7,
        3,
        9,
        5,
        12,
        14,
        11,
        4,
        17,
        6,
        19,
        13,
        2,
    ]


def test_multi_byte_draws_and_helpers_are_pinned() -> None:
    assert SEED.stream("x").randbelow(10**30) == 521542160902389256541073762655
    assert SEED.stream("x").randint(1, 6) == 6
    assert SEED.stream("x").choice("abcdef") == "f"


def test_seed_text_and_commitment_are_pinned() -> None:
    assert MatchSeed.from_text("5").hex() == (
        "ca1ca6f5eda83004363e0f18852113e96e8bcd7c640cf65839aad1059d86a1ef"
    )
    assert SEED.commitment() == ("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")


def test_position_counts_rejected_bytes() -> None:
    stream = SEED.stream("bridge", 0)
    stream.randbelow(52)
    stream.randbelow(51)  # one byte rejected, one kept
    assert stream.position == 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 70_000), min_size=1, max_size=40), st.text(min_size=1, max_size=8))
def test_draws_equal_the_documented_rule(bounds: list[int], name: str) -> None:
    """Any sequence of draws reads the bytes the docstring's rule says, whatever the bounds."""
    if "\x00" in name:
        return
    stream = SEED.stream(name)
    reference = SEED.stream(name)
    for n in bounds:
        bits = (n - 1).bit_length()
        nbytes = (bits + 7) // 8
        expected = 0
        if n > 1:
            while True:
                expected = int.from_bytes(reference.read(nbytes), "big") & ((1 << bits) - 1)
                if expected < n:
                    break
        assert stream.randbelow(n) == expected
    assert stream.position == reference.position


def test_os_seeds_are_256_bits_and_differ() -> None:
    a, b = random_seed(), MatchSeed.generate()
    assert len(a.value) == len(b.value) == 32
    assert a != b


def test_malformed_requests_raise() -> None:
    with pytest.raises(DealingError):
        MatchSeed(b"short")
    with pytest.raises(DealingError):
        SEED.stream("a\x00b")
    with pytest.raises(DealingError):
        RandomStream(SEED, "x").randbelow(0)
