from __future__ import annotations

import hashlib

import pytest

from arena.dealing import DealingError, MatchSeed
from arena.dealing.commit import check_reveal, commitment, verify_commitment

SEED = MatchSeed.from_text("commit-test")


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED.value).hexdigest() == SEED.commitment()


def test_the_revealed_seed_checks() -> None:
    assert check_reveal(commitment(SEED), SEED.hex())
    assert check_reveal(commitment(SEED).upper(), f" {SEED.hex()}\n")
    assert verify_commitment(commitment(SEED), SEED.hex()) == SEED


def test_another_seed_fails() -> None:
    other = MatchSeed.from_text("other")
    assert not check_reveal(commitment(SEED), other.hex())
    with pytest.raises(DealingError, match="not to the published commitment"):
        verify_commitment(commitment(SEED), other.hex())


@pytest.mark.parametrize(
    ("commit", "seed_hex"),
    [
        ("zz", SEED.hex()),
        (commitment(SEED), "00ff"),
        (commitment(SEED), "not hex at all"),
        (commitment(SEED)[:-1], SEED.hex()),
    ],
)
def test_malformed_input_is_a_failed_check(commit: str, seed_hex: str) -> None:
    assert not check_reveal(commit, seed_hex)
    with pytest.raises(DealingError):
        verify_commitment(commit, seed_hex)
