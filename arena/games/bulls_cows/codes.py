"""Codes and feedback of 1A2B (Bulls and Cows), shared by the engine and the bots.

A code is ``digits`` distinct symbols of an alphabet. Codes are numbered in lexicographic order
of the alphabet, so "the smallest code" means the lowest index. Feedback ``xAyB`` (x symbols in
the right place, y present elsewhere) is encoded as the small int ``x * (digits + 1) + y``; the
whole guess×secret table of a code space is computed once with numpy and cached.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from arena.games.errors import InvalidActionError, RulesetError

_FEEDBACK = re.compile(r"([0-9]{1,2})A([0-9]{1,2})B", re.ASCII)

#: above this many codes the N×N feedback table (one byte per pair) stops being cheap
MAX_CODES = 8_000
#: symbol sets are int64 bit masks
MAX_ALPHABET = 62
#: rows of the table built at once, to bound the temporaries
_CHUNK = 512

DEFAULT_ALPHABET = "123456789"
DEFAULT_DIGITS = 3


@dataclass(frozen=True, eq=False, slots=True)
class CodeSpace:
    """Every code of ``digits`` distinct symbols of ``alphabet``, and their feedback table.

    ``table[g, s]`` is the encoded feedback of guess ``g`` against secret ``s`` (symmetric).
    """

    digits: int
    alphabet: str
    codes: tuple[str, ...]
    table: npt.NDArray[np.uint8]
    index: dict[str, int] = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.codes)

    @property
    def classes(self) -> int:
        """Number of feedback encodings (some, like (n-1)A1B, never occur)."""
        return (self.digits + 1) ** 2

    @property
    def solved(self) -> int:
        """The encoding of ``nA0B``."""
        return self.digits * (self.digits + 1)

    @property
    def feasible(self) -> tuple[int, ...]:
        """Encodings that some guess/secret pair produces, in increasing order."""
        return _feasible(self.digits, len(self.alphabet))

    def encode(self, bulls: int, cows: int) -> int:
        return bulls * (self.digits + 1) + cows

    def split(self, feedback: int) -> tuple[int, int]:
        return divmod(feedback, self.digits + 1)

    def feedback_text(self, feedback: int) -> str:
        bulls, cows = self.split(feedback)
        return f"{bulls}A{cows}B"

    def parse_feedback(self, text: str) -> int:
        """Read ``xAyB`` (case-insensitive); raise `InvalidActionError` saying what is wrong."""
        # ASCII digits only: str.isdigit() also passes "²" or "①", which int() then rejects
        # with a plain ValueError, and a bot's text must never raise anything but this error.
        match = _FEEDBACK.fullmatch(text.strip().upper())
        if match is None:
            raise InvalidActionError(f"feedback {text[:40]!r} is not of the form xAyB, e.g. 1A2B")
        bulls, cows = int(match[1]), int(match[2])
        encoded = self.encode(bulls, cows)
        least = _least_shared(self.digits, len(self.alphabet))
        if bulls + cows <= self.digits and bulls + cows < least:
            raise InvalidActionError(
                f"feedback {bulls}A{cows}B cannot occur: any two {self.digits}-symbol codes of "
                f"{self.alphabet} share at least {least} symbols"
            )
        if bulls + cows > self.digits or encoded not in self.feasible:
            raise InvalidActionError(
                f"feedback {bulls}A{cows}B cannot occur with {self.digits}-symbol codes"
            )
        return encoded

    def parse_code(self, text: str) -> int:
        """The index of a code; raise `InvalidActionError` naming the problem."""
        code = text.strip()
        if len(code) != self.digits:
            raise InvalidActionError(
                f"code {code!r} has {len(code)} symbols; expected {self.digits} distinct "
                f"symbols of {self.alphabet}"
            )
        for symbol in code:
            if symbol not in self.alphabet:
                raise InvalidActionError(
                    f"code {code!r} has the symbol {symbol!r}, which is not in {self.alphabet}"
                )
        for symbol in code:
            if code.count(symbol) > 1:
                raise InvalidActionError(f"code {code!r} repeats the symbol {symbol!r}")
        return self.index[code]

    def consistent_mask(self, history: list[tuple[int, int]]) -> npt.NDArray[np.bool_]:
        """Codes that would have produced every (guess, feedback) of ``history``."""
        mask = np.ones(self.size, dtype=bool)
        for guess, feedback in history:
            mask &= self.table[guess] == feedback
        return mask


@lru_cache(maxsize=8)
def _feasible(digits: int, symbols: int) -> tuple[int, ...]:
    # (n-1) bulls leave one symbol of each code, which either matches in place or not at all;
    # two codes of n symbols out of k share at least 2n - k of them.
    least = _least_shared(digits, symbols)
    return tuple(
        bulls * (digits + 1) + cows
        for bulls in range(digits + 1)
        for cows in range(digits + 1 - bulls)
        if not (bulls == digits - 1 and cows == 1) and bulls + cows >= least
    )


def _least_shared(digits: int, symbols: int) -> int:
    """The fewest symbols two codes of ``digits`` distinct symbols out of ``symbols`` share."""
    return max(0, 2 * digits - symbols)


def check_space(digits: int, alphabet: str) -> None:
    """Raise `RulesetError` (naming the key) unless (digits, alphabet) makes a usable game."""
    if not isinstance(alphabet, str) or not alphabet:
        raise RulesetError("alphabet: must be a non-empty string of symbols")
    if any(symbol.isspace() for symbol in alphabet):
        raise RulesetError("alphabet: may not contain whitespace")
    if len(set(alphabet)) != len(alphabet):
        raise RulesetError(f"alphabet: {alphabet!r} repeats a symbol")
    if len(alphabet) > MAX_ALPHABET:
        raise RulesetError(f"alphabet: at most {MAX_ALPHABET} symbols are supported")
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise RulesetError(f"digits: must be an integer, got {digits!r}")
    if not 1 <= digits <= len(alphabet):
        raise RulesetError(
            f"digits: {digits} distinct symbols cannot be drawn from the {len(alphabet)} "
            f"of {alphabet!r}"
        )
    count = 1
    for i in range(digits):
        count *= len(alphabet) - i
    if count > MAX_CODES:
        raise RulesetError(
            f"digits: {digits} of {len(alphabet)} symbols makes {count} codes; at most "
            f"{MAX_CODES} are supported"
        )


_SWAR_PAIRS = np.uint64(0x5555_5555_5555_5555)
_SWAR_QUADS = np.uint64(0x3333_3333_3333_3333)
_SWAR_NIBBLES = np.uint64(0x0F0F_0F0F_0F0F_0F0F)
_SWAR_BYTE_SUM = np.uint64(0x0101_0101_0101_0101)


def popcount(masks: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Set bits of each (non-negative) mask.

    np.bitwise_count is numpy >= 2.0; pyproject.toml allows numpy 1.26, where the same counts
    come from the classic bit-parallel (SWAR) sums: a few more passes over the array.
    """
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(masks).astype(np.uint8)
    bits = masks.astype(np.uint64)
    bits = bits - ((bits >> np.uint64(1)) & _SWAR_PAIRS)
    bits = (bits & _SWAR_QUADS) + ((bits >> np.uint64(2)) & _SWAR_QUADS)
    bits = (bits + (bits >> np.uint64(4))) & _SWAR_NIBBLES
    # The product sums every byte's count into the top byte (uint64 wraps, as intended).
    return ((bits * _SWAR_BYTE_SUM) >> np.uint64(56)).astype(np.uint8)


@lru_cache(maxsize=4)
def code_space(digits: int = DEFAULT_DIGITS, alphabet: str = DEFAULT_ALPHABET) -> CodeSpace:
    """The (cached) code space; raise `RulesetError` for an unusable combination."""
    check_space(digits, alphabet)
    codes = tuple("".join(p) for p in itertools.permutations(alphabet, digits))
    symbols = np.array(
        [[alphabet.index(s) for s in code] for code in codes], dtype=np.int64
    ).reshape(len(codes), digits)
    size = len(codes)
    # Symbols are distinct within a code, so shared symbols = popcount of the symbol-set masks.
    masks = np.bitwise_or.reduce(np.left_shift(1, symbols), axis=1)
    table = np.empty((size, size), dtype=np.uint8)
    for start in range(0, size, _CHUNK):
        rows = slice(start, start + _CHUNK)
        bulls = np.zeros((len(codes[rows]), size), dtype=np.uint8)
        for position in range(digits):
            column = symbols[:, position]
            bulls += column[rows, None] == column[None, :]
        common = popcount(masks[rows, None] & masks[None, :])
        table[rows] = bulls * np.uint8(digits + 1) + (common - bulls)
    table.setflags(write=False)
    return CodeSpace(
        digits=digits,
        alphabet=alphabet,
        codes=codes,
        table=table,
        index={code: i for i, code in enumerate(codes)},
    )


def feedback_of(guess: str, secret: str) -> str:
    """Feedback text of one pair, straight from the definition (no table): a reference for tests."""
    bulls = sum(1 for g, s in zip(guess, secret, strict=True) if g == s)
    cows = len(set(guess) & set(secret)) - bulls
    return f"{bulls}A{cows}B"
