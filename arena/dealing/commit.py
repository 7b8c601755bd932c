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


def _normalised_commitment(text: str) -> str | None:
    text = text.strip().lower()
    if len(text) != COMMITMENT_HEX_DIGITS or any(c not in "0123456789abcdef" for c in text):
        return None
    return text


def check_reveal(commitment_hex: str, seed_hex: str) -> bool:
    """True when ``seed_hex`` is a 32-byte seed whose SHA-256 is ``commitment_hex``.

    Malformed input is a failed check rather than an exception, because a verifier reading a
    tampered record wants a verdict, not a crash; `verify_commitment` says what was wrong.
    """
    expected = _normalised_commitment(commitment_hex)
    if expected is None:
        return False
    try:
        seed = MatchSeed.from_hex(seed_hex.strip())
    except DealingError:
        return False
    # compare_digest keeps a verifier service from leaking, by its timing, how close a guess was.
    return hmac.compare_digest(commitment(seed), expected)


def verify_commitment(commitment_hex: str, seed_hex: str) -> MatchSeed:
    """The revealed seed, or a `DealingError` naming why it does not match the commitment."""
    expected = _normalised_commitment(commitment_hex)
    if expected is None:
        raise DealingError(
            f"a commitment is {COMMITMENT_HEX_DIGITS} hex digits (SHA-256), got {commitment_hex!r}"
        )
    try:
        seed = MatchSeed.from_hex(seed_hex.strip())
    except DealingError as exc:
        raise DealingError(
            f"the revealed seed must be {2 * SEED_BYTES} hex digits, got {seed_hex!r}"
        ) from exc
    actual = commitment(seed)
    if not hmac.compare_digest(actual, expected):
        raise DealingError(
            f"the revealed seed hashes to {actual}, not to the published commitment {expected}"
        )
    return seed
