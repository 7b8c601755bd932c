"""Commit–reveal for match seeds: publish SHA-256(seed) at the start, the seed at the end.

Anyone holding the commitment can check a revealed seed without trusting the referee: the seed
could not have been chosen after the games were seen, because its hash was public before them.
"""

from __future__ import annotations

import hashlib
import hmac

from arena.dealing.streams import SEED_BYTES, DealingError, MatchSeed

COMMITMENT_HEX_DIGITS = 64


def commitment(seed: MatchSeed) -> str:
    """The lowercase hex SHA-256 of the 32 seed bytes (not of their hex text)."""
    return hashlib.sha256(seed.value).hexdigest()


def _lowercase_hex(text: object, digits: int) -> bool:
    """Whether ``text`` is exactly ``digits`` lowercase hex digits: no case change, no
    whitespace, as the referee writes a commitment and a seed."""
    return (
        isinstance(text, str) and len(text) == digits and all(c in "0123456789abcdef" for c in text)
    )


def check_reveal(commitment_hex: str, seed_hex: str) -> bool:
    """True when ``seed_hex`` is a 32-byte seed whose SHA-256 is ``commitment_hex``.

    For a person or a bot comparing two values it was shown (a commitment pasted from a log):
    case and surrounding whitespace are ignored. Malformed input is a failed check rather than
    an exception, because a verifier reading a tampered record wants a verdict, not a crash;
    `verify_commitment`, which a record's check uses, takes both exactly as the referee writes
    them and says what was wrong.
    """
    if not isinstance(commitment_hex, str) or not isinstance(seed_hex, str):
        return False
    try:
        verify_commitment(commitment_hex.strip().lower(), seed_hex.strip().lower())
    except DealingError:
        return False
    return True


def published_commitment(commitment_hex: str) -> str:
    """``commitment_hex``, or a `DealingError` unless it is exactly what the referee writes: 64
    lowercase hex digits, nothing around them."""
    if not _lowercase_hex(commitment_hex, COMMITMENT_HEX_DIGITS):
        raise DealingError(
            f"a commitment is {COMMITMENT_HEX_DIGITS} lowercase hex digits (SHA-256, as the "
            f"referee writes it), got {commitment_hex!r}"
        )
    return commitment_hex


def revealed_seed(seed_hex: str) -> MatchSeed:
    """The seed a record reveals, or a `DealingError` unless it is exactly what the referee
    writes: 64 lowercase hex digits, nothing around them."""
    if not _lowercase_hex(seed_hex, 2 * SEED_BYTES):
        raise DealingError(
            f"the revealed seed must be {2 * SEED_BYTES} lowercase hex digits (as the referee "
            f"writes it), got {seed_hex!r}"
        )
    return MatchSeed.from_hex(seed_hex)


def verify_commitment(commitment_hex: str, seed_hex: str) -> MatchSeed:
    """The revealed seed, or a `DealingError` naming why it does not match the commitment.

    Both must be exactly what the referee writes: 64 lowercase hex digits, nothing around them
    (a record is checked byte for byte, docs/DEALING.md); an upper-case or padded value is an
    error, not a value compared after tidying."""
    published_commitment(commitment_hex)
    seed = revealed_seed(seed_hex)
    actual = commitment(seed)
    # compare_digest keeps a verifier service from leaking, by its timing, how close a guess was.
    if not hmac.compare_digest(actual, commitment_hex):
        raise DealingError(
            f"the revealed seed hashes to {actual}, not to the published commitment "
            f"{commitment_hex}"
        )
    return seed
