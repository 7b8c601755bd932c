"""Codes, feedback and the feedback table of 1A2B."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games.bulls_cows import code_space, feedback_of
from arena.games.errors import InvalidActionError, RulesetError

VECTORS = Path(__file__).with_name("feedback_vectors.txt")


def _vectors() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            alphabet, secret, guess, feedback = line.split()
            rows.append((alphabet, secret, guess, feedback))
    return rows


@pytest.mark.parametrize(("alphabet", "secret", "guess", "feedback"), _vectors())
def test_feedback_vectors(alphabet: str, secret: str, guess: str, feedback: str) -> None:
    space = code_space(len(secret), alphabet)
    s, g = space.parse_code(secret), space.parse_code(guess)
    assert space.feedback_text(int(space.table[g, s])) == feedback
    assert space.feedback_text(int(space.table[s, g])) == feedback
    assert feedback_of(guess, secret) == feedback


def test_vector_file_covers_every_reachable_three_digit_class() -> None:
    space = code_space()
    seen = {f for a, _, _, f in _vectors() if a == "123456789"}
    assert seen == {space.feedback_text(f) for f in space.feasible}


@pytest.mark.parametrize(("digits", "alphabet"), [(3, "123456789"), (4, "0123456789"), (2, "abc")])
def test_table_matches_the_definition_everywhere(digits: int, alphabet: str) -> None:
    space = code_space(digits, alphabet)
    step = max(1, space.size // 60)
    for g in range(0, space.size, step):
        for s in range(0, space.size, step):
            text = feedback_of(space.codes[g], space.codes[s])
            assert space.feedback_text(int(space.table[g, s])) == text


@given(st.integers(0, 5039), st.integers(0, 5039))
def test_classic_table_pairs(g: int, s: int) -> None:
    space = code_space(4, "0123456789")
    assert space.feedback_text(int(space.table[g, s])) == feedback_of(
        space.codes[g], space.codes[s]
    )


def test_space_sizes_order_and_classes() -> None:
    three = code_space()
    assert three.size == 504 and three.codes[0] == "123" and three.codes[-1] == "987"
    assert list(three.codes) == sorted(three.codes)
    assert code_space(4, "0123456789").size == 5040
    # 2A1B cannot happen: the last symbol is either in place or absent.
    assert [three.feedback_text(f) for f in three.feasible] == [
        "0A0B", "0A1B", "0A2B", "0A3B", "1A0B", "1A1B", "1A2B", "2A0B", "3A0B",
    ]  # fmt: skip
    used = set(np.unique(three.table).tolist())
    assert used == set(three.feasible)
    assert code_space() is three


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("12", "has 2 symbols; expected 3"),
        ("1234", "has 4 symbols"),
        ("", "has 0 symbols"),
        ("112", "repeats the symbol '1'"),
        ("120", "the symbol '0', which is not in 123456789"),
        ("1a3", "the symbol 'a'"),
    ],
)
def test_bad_codes_name_the_problem(text: str, problem: str) -> None:
    with pytest.raises(InvalidActionError, match=problem):
        code_space().parse_code(text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1A", "not of the form xAyB"),
        ("AB", "not of the form xAyB"),
        ("1X2B", "not of the form xAyB"),
        ("2A1B", "cannot occur"),
        ("4A0B", "cannot occur"),
        ("2A2B", "cannot occur"),
    ],
)
def test_bad_feedback_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(InvalidActionError, match=problem):
        code_space().parse_feedback(text)


@pytest.mark.parametrize(
    ("digits", "alphabet"),
    [(3, "1234"), (3, "123"), (3, "12345"), (2, "abc"), (4, "123456"), (5, "abcdefg"), (1, "ab")],
)
def test_feasible_answers_are_those_the_space_produces(digits: int, alphabet: str) -> None:
    # A small alphabet forces two codes to share symbols: with 3 of 1234 any two share two, so
    # 0A0B and 1A0B never happen, and the engine must list and accept only what can.
    space = code_space(digits, alphabet)
    assert set(space.feasible) == set(np.unique(space.table).tolist())


def test_an_answer_the_alphabet_rules_out_says_why() -> None:
    space = code_space(3, "1234")
    for text in ("0A0B", "1A0B", "0A1B"):
        with pytest.raises(
            InvalidActionError, match="any two 3-symbol codes of 1234 share at least 2"
        ):
            space.parse_feedback(text)
    assert space.feedback_text(space.parse_feedback("0A2B")) == "0A2B"


def test_an_alphabet_with_whitespace_is_refused_for_it_before_any_repeat() -> None:
    # "a b c" repeats its space: the whitespace is the problem to name.
    with pytest.raises(RulesetError, match=r"^alphabet: may not contain whitespace"):
        code_space(2, "a b c")


def test_feedback_text_round_trips_and_ignores_case() -> None:
    space = code_space()
    for f in space.feasible:
        assert space.parse_feedback(space.feedback_text(f)) == f
    assert space.parse_feedback("1a2b") == space.encode(1, 2)


@pytest.mark.parametrize(
    ("digits", "alphabet", "key"),
    [
        (4, "123", "digits"),
        (0, "123", "digits"),
        (3, "1123", "alphabet"),
        (3, "", "alphabet"),
        (2, "1 2", "alphabet"),
        (6, "0123456789", "digits"),
    ],
)
def test_unusable_spaces_are_ruleset_errors(digits: int, alphabet: str, key: str) -> None:
    with pytest.raises(RulesetError, match=f"^{key}:"):
        code_space(digits, alphabet)
