"""A 1A2B answerer that joins its game late (a `bots run` process restarted mid-game and
resumed) keeps to the answers its seat already gave: its secret is drawn among the codes they
allow, not afresh."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.bulls_cows import code_space
from bots.bulls_cows.bot import BullsCowsBot
from bots.registry import make_bot
from protocol.games.bulls_cows import BullsCowsObservation, Exchange

DIGITS, ALPHABET = 3, "123456789"
SPACE = code_space(DIGITS, ALPHABET)


def observation(
    phase: str, answers: list[Exchange], pending: str | None = None
) -> BullsCowsObservation:
    return BullsCowsObservation(
        mode="duel",
        digits=DIGITS,
        alphabet=ALPHABET,
        seat=1,
        max_guesses=20,
        phase=phase,
        to_act=[1],
        guesses=[],
        answers=answers,
        pending_guess=pending,
    )


def feedback(secret: str, guess: str) -> str:
    return SPACE.feedback_text(int(SPACE.table[SPACE.index[guess], SPACE.index[secret]]))


@settings(max_examples=25, deadline=None)
@given(
    secret=st.sampled_from(SPACE.codes),
    guesses=st.lists(st.sampled_from(SPACE.codes), min_size=2, max_size=5, unique=True),
    seed=st.text(min_size=1, max_size=8),
)
def test_a_late_fixed_answerer_agrees_with_the_answers_given(
    secret: str, guesses: list[str], seed: str
) -> None:
    """The answers came from ``secret`` (the process before the restart); a new bot of the same
    config answers the next guess and reveals a code that every answer, old and new, fits."""
    *earlier, pending = guesses
    given_answers = [Exchange(guess=g, feedback=feedback(secret, g)) for g in earlier]
    bot = make_bot("bulls_cows", "frequency", {"answerer": "fixed", "seed": seed})
    assert isinstance(bot, BullsCowsBot)
    answer = bot.decide(observation("answer", given_answers, pending)).removeprefix("answer ")
    answers = [*given_answers, Exchange(guess=pending, feedback=answer)]
    revealed = bot.decide(observation("reveal", answers)).removeprefix("reveal ")
    assert all(feedback(revealed, e.guess) == e.feedback for e in answers)
