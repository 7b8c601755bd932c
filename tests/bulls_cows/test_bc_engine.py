"""The 1A2B engine: conformance, solve mode, duel mode, reveals and breaches."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conformance import SpecGame, check_engine

from arena.dealing import MatchSeed
from arena.games.bulls_cows import SPEC, Answer, BullsCowsGame, Guess, Reveal, code_space
from arena.games.bulls_cows.codes import feedback_of
from arena.games.errors import (
    GameError,
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RulesetError,
)
from arena.games.registry import get_spec
from bots.bulls_cows import BullsCowsBot, build_bot
from protocol.games.bulls_cows import AnswerGiven, CodeRevealed, GuessMade

SEED = MatchSeed.from_text("bc-engine")


def solve_game(secret: str | None = None, **rules: Any) -> BullsCowsGame:
    deal: dict[str, Any] = {"game_index": 0}
    if secret is not None:
        space = code_space(rules.get("digits", 3), rules.get("alphabet", "123456789"))
        deal = {"secret_index": space.index[secret]}
    return BullsCowsGame({"mode": "solve", **rules}, SEED, deal)


def duel_game(**rules: Any) -> BullsCowsGame:
    return BullsCowsGame({"mode": "duel", **rules}, SEED, {"game_index": 0})


def play(game: BullsCowsGame, *actions: tuple[int, str]) -> None:
    for seat, text in actions:
        game.apply(seat, game.parse_action(text))


# -- conformance -------------------------------------------------------------------------------


def test_conformance_solve() -> None:
    check_engine(SpecGame("bulls_cows", {"mode": "solve"}, {"game_index": 1}), [1, 2])


def test_conformance_duel() -> None:
    check_engine(SpecGame("bulls_cows", {"mode": "duel", "max_guesses": 4}, {}), [1, 2, 3])


def test_conformance_small_duel() -> None:
    rules = {"mode": "duel", "digits": 2, "alphabet": "1234", "max_guesses": 3}
    check_engine(SpecGame("bulls_cows", rules, {}), range(12))


def test_registry_finds_the_spec() -> None:
    assert get_spec("1a2b") is SPEC and get_spec("bulls-cows") is SPEC
    assert SPEC.seats == (1, 2)


# -- rules and actions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "key"),
    [
        ({"mode": "race"}, "mode"),
        ({"max_guesses": 0}, "max_guesses"),
        ({"max_guesses": "9"}, "max_guesses"),
        ({"digits": 11}, "digits"),
        ({"alphabet": "1223"}, "alphabet"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_rules_name_the_key(rules: dict[str, Any], key: str) -> None:
    with pytest.raises(RulesetError, match=f"^{key}:"):
        BullsCowsGame(rules, SEED, {})


@pytest.mark.parametrize(
    "text", ["guess", "guess 12", "guess 1234", "guess 113", "answer 3B", "answer 2A1B", "pass 1"]
)
def test_malformed_actions_are_invalid(text: str) -> None:
    with pytest.raises(InvalidActionError):
        duel_game().parse_action(text)


def test_action_text_round_trips() -> None:
    game = duel_game()
    for text in ("guess 123", "answer 1A2B", "reveal 987"):
        assert str(game.parse_action(text)) == text
    assert game.parse_action("  GUESS   123 ") == Guess("123")
    assert game.parse_action("answer 0a3b") == Answer("0A3B")


def test_describe_legal_hints_guesses_and_lists_answers() -> None:
    game = duel_game()
    assert game.describe_legal(0) == (None, "guess <3 distinct symbols of 123456789>")
    assert game.describe_legal(1) == ([], None)
    play(game, (0, "guess 123"))
    listed, hint = game.describe_legal(1)
    assert hint is None and listed is not None
    assert listed == [f"answer {f}" for f in ("0A0B", "0A1B", "0A2B", "0A3B", "1A0B", "1A1B",
                                              "1A2B", "2A0B", "3A0B")]  # fmt: skip


# -- solve mode --------------------------------------------------------------------------------


def test_solve_mode_answers_and_ends_on_the_secret() -> None:
    game = solve_game("247")
    play(game, (0, "guess 345"), (0, "guess 284"))
    observation = game.observation(0)
    assert [(e.guess, e.feedback) for e in observation.guesses] == [
        ("345", "1A0B"),
        ("284", "1A1B"),
    ]
    assert not game.is_over()
    play(game, (0, "guess 247"))
    assert game.is_over() and game.to_act() == ()
    result = game.result()
    assert result.scores == (1.0,) and result.winners == (0,)
    assert result.detail == {"guesses": [3], "solved": [True], "secret": "247"}
    events = [e.payload for e in game.drain_events()]
    assert isinstance(events[0], GuessMade) and isinstance(events[1], AnswerGiven)
    assert events[1].seat is None
    assert events[-1] == CodeRevealed(seat=None, code="247", consistent=True)


def test_solve_mode_secret_is_seeded_and_never_observed() -> None:
    first = solve_game()
    again = solve_game()
    other = BullsCowsGame({"mode": "solve"}, SEED, {"game_index": 1})
    secrets = []
    for game in (first, again, other):
        while not game.is_over():
            game.apply(0, game.fallback_action(0))
        secrets.append(game.result().detail["secret"])
    assert secrets[0] == secrets[1]
    assert secrets[0] != secrets[2]
    fresh = solve_game()
    play(fresh, (0, "guess 123" if secrets[0] != "123" else "guess 124"))
    assert secrets[0] not in fresh.observation(0).model_dump_json()


def test_solve_mode_cap_is_a_loss() -> None:
    game = solve_game("987", max_guesses=2)
    play(game, (0, "guess 123"), (0, "guess 456"))
    assert game.is_over()
    assert game.result().scores == (0.0,) and game.result().reason == "max_guesses"


def test_fallback_guesses_a_ruled_out_code_after_the_first() -> None:
    game = solve_game("247")
    assert game.fallback_action(0) == Guess("123")  # nothing is ruled out yet: the smallest
    play(game, (0, "guess 245"))  # 247 vs 245: 2A0B, which rules out 123 (0A1B) first
    assert game.fallback_action(0) == Guess("123")
    play(game, (0, "guess 241"))  # 2A0B again: 123 stays the smallest code ruled out
    while not game.is_over():
        guess = game.fallback_action(0)
        assert isinstance(guess, Guess) and guess.code != "247"
        game.apply(0, guess)
    assert game.result().reason == "max_guesses" and game.result().scores == (0.0,)


# -- duel mode ---------------------------------------------------------------------------------


def test_duel_turns_alternate_and_observations_are_private() -> None:
    game = duel_game()
    assert game.to_act() == (0,)
    play(game, (0, "guess 123"))
    assert game.to_act() == (1,)
    assert game.observation(1).pending_guess == "123"
    assert game.observation(0).pending_guess is None
    play(game, (1, "answer 0A1B"))
    assert game.to_act() == (1,)
    play(game, (1, "guess 456"), (0, "answer 1A0B"))
    zero, one = game.observation(0), game.observation(1)
    assert [(e.guess, e.feedback) for e in zero.guesses] == [("123", "0A1B")]
    assert [(e.guess, e.feedback) for e in zero.answers] == [("456", "1A0B")]
    assert [(e.guess, e.feedback) for e in one.guesses] == [("456", "1A0B")]
    assert one.opponent_guesses == 1 and zero.phase == "guess"


def test_answers_that_leave_no_code_are_illegal_and_change_nothing() -> None:
    game = duel_game()
    play(game, (0, "guess 123"), (1, "answer 0A0B"), (1, "guess 456"), (0, "answer 0A0B"))
    play(game, (0, "guess 124"))
    # After 123 → 0A0B no code holds 1, 2 or 3, so 124 can only score its 4.
    legal = ["answer 0A0B", "answer 0A1B", "answer 1A0B"]
    assert [str(a) for a in game.legal_actions(1)] == legal
    before = game.observation(1)
    with pytest.raises(IllegalActionError, match="contradicts"):
        game.apply(1, Answer("2A0B"))
    with pytest.raises(NotYourTurnError):
        game.apply(0, Answer("0A0B"))
    with pytest.raises(IllegalActionError, match="must answer"):
        game.apply(1, Guess("789"))
    assert game.observation(1) == before


def _solve_in(game: BullsCowsGame, seat: int, code: str) -> None:
    play(game, (seat, f"guess {code}"), (1 - seat, "answer 3A0B"))


def _miss(game: BullsCowsGame, seat: int, code: str) -> None:
    play(game, (seat, f"guess {code}"), (1 - seat, "answer 0A0B"))


def _reveal(game: BullsCowsGame, zero: str, one: str) -> None:
    assert game.to_act() == (0, 1)
    play(game, (0, f"reveal {zero}"), (1, f"reveal {one}"))


def test_second_seat_gets_an_equal_turn_and_a_tie_is_a_draw() -> None:
    game = duel_game()
    _solve_in(game, 0, "456")
    assert game.to_act() == (1,)
    _solve_in(game, 1, "789")
    _reveal(game, "789", "456")
    assert game.result().scores == (0.5, 0.5) and game.result().reason == "both_solved"


def test_starter_wins_when_the_second_seat_misses_its_equal_turn() -> None:
    game = duel_game()
    _solve_in(game, 0, "456")
    _miss(game, 1, "123")
    _reveal(game, "789", "456")
    result = game.result()
    assert result.winners == (0,) and result.scores == (1.0, 0.0)
    assert result.detail["guesses"] == [1, 1]


def test_second_seat_wins_by_solving_first() -> None:
    game = duel_game()
    _miss(game, 0, "123")
    _solve_in(game, 1, "456")
    _reveal(game, "456", "789")
    assert game.result().winners == (1,) and game.result().reason == "solved"


def test_cap_ends_in_a_draw() -> None:
    game = duel_game(max_guesses=2)
    _miss(game, 0, "123")
    _miss(game, 1, "123")
    _miss(game, 0, "456")
    _miss(game, 1, "456")
    assert game.to_act() == (0, 1)
    _reveal(game, "789", "789")
    assert game.result().reason == "max_guesses" and game.result().scores == (0.5, 0.5)


def test_a_reveal_that_contradicts_an_answer_forfeits() -> None:
    # Seat 1 cheats: it told seat 0 that 456 was its code, then reveals 178.
    game = duel_game()
    _solve_in(game, 0, "456")
    _miss(game, 1, "123")
    play(game, (0, "reveal 789"), (1, "reveal 178"))
    result = game.result()
    assert result.reason == "breach" and result.winners == (0,)
    (breach,) = result.detail["breaches"]
    assert breach["seat"] == 1 and breach["guess"] == "456"
    assert breach["answered"] == "3A0B" and breach["true_feedback"] == "0A0B"
    reveals = [e.payload for e in game.drain_events() if isinstance(e.payload, CodeRevealed)]
    assert [(r.seat, r.consistent) for r in reveals] == [(0, True), (1, False)]


def test_a_breach_loses_even_after_solving_and_two_breaches_draw() -> None:
    game = duel_game()
    _solve_in(game, 0, "456")
    _miss(game, 1, "123")
    _reveal(game, "123", "456")  # seat 0 answered 0A0B to 123, then reveals 123
    assert game.result().winners == (1,) and game.result().reason == "breach"
    both = duel_game()
    _miss(both, 0, "123")
    _miss(both, 1, "123")
    for _ in range(19):
        _miss(both, 0, "456")
        _miss(both, 1, "456")
    _reveal(both, "123", "123")
    assert both.result().reason == "both_breached" and both.result().scores == (0.5, 0.5)


def test_reveals_are_published_together() -> None:
    game = duel_game()
    _solve_in(game, 0, "456")
    _solve_in(game, 1, "789")
    game.drain_events()
    play(game, (0, "reveal 789"))
    assert game.drain_events() == []
    assert game.to_act() == (1,)
    with pytest.raises(NotYourTurnError):
        game.apply(0, Reveal("789"))
    play(game, (1, "reveal 456"))
    assert len(game.drain_events()) == 2


def test_duel_fallback_answer_concedes() -> None:
    game = duel_game()
    play(game, (0, "guess 123"))
    # Nothing answered yet: 123 may be seat 1's code, so the fallback says it is.
    assert game.fallback_action(1) == Answer("3A0B")
    play(game, (1, "answer 0A1B"), (1, "guess 456"), (0, "answer 0A0B"))
    play(game, (0, "guess 124"))  # 124 against 123 is 2A0B, not 0A1B: it is not seat 1's code
    remaining = [c for c in code_space().codes if feedback_of("123", c) == "0A1B"]
    sizes = Counter(feedback_of("124", c) for c in remaining)
    fewest = min(sizes.values())
    narrowest = min(
        (f for f, n in sizes.items() if n == fewest), key=lambda f: (int(f[0]), int(f[2]))
    )
    assert game.fallback_action(1) == Answer(narrowest)
    assert sizes[narrowest] < max(sizes.values())
    assert game.is_legal(1, game.fallback_action(1))


def test_duel_fallback_reveal_matches_every_answer() -> None:
    game = duel_game()
    play(game, (0, "guess 123"), (1, "answer 0A0B"), (1, "guess 456"), (0, "answer 0A0B"))
    for _ in range(19):
        _miss(game, 0, "123")
        _miss(game, 1, "123")
    assert game.to_act() == (0, 1)
    assert game.fallback_action(0) == Reveal("789")
    with pytest.raises(GameError):
        game.result()


def _absent_against(name: str, answerer: str, games: int) -> list[float]:
    """The absent seat's scores: it plays only fallbacks, the bot its strategy, seats swapping."""
    bot = build_bot(name, name, {"answerer": answerer, "seed": f"absent-{name}"})
    assert isinstance(bot, BullsCowsBot)
    scores = []
    for k in range(games):
        absent = k % 2
        game = BullsCowsGame({"mode": "duel"}, SEED, {"game_index": k})
        bot.begin_game()
        while not game.is_over():
            for seat in game.to_act():
                if seat == absent:
                    action = game.fallback_action(seat)
                else:
                    action = game.parse_action(bot.decide(game.observation(seat)))
                game.apply(seat, action)
        scores.append(game.result().scores[absent])
    return scores


@pytest.mark.parametrize("answerer", ["fixed", "evader"])
@pytest.mark.parametrize("name", ["random", "frequency", "super-comparison", "entropy", "optimal"])
def test_failing_to_act_never_pays(name: str, answerer: str) -> None:
    # A seat that never acts loses to every shipped bot: its fallback guesses cannot solve
    # after the first, and its fallback answers hand the opponent every guess they can.
    assert _absent_against(name, answerer, 8) == [0.0] * 8


@pytest.mark.parametrize("bad", [None, 123, b"guess 123", ["guess", "123"]])
def test_an_action_that_is_not_text_is_invalid(bad: Any) -> None:
    with pytest.raises(InvalidActionError, match="an action is text"):
        duel_game().parse_action(bad)


def test_action_values_that_are_not_text_are_invalid() -> None:
    game = duel_game()
    with pytest.raises(InvalidActionError, match="not the text of a code"):
        game.apply(0, Guess(123))  # type: ignore[arg-type]
    game.apply(0, Guess("123"))
    assert not game.is_legal(1, Answer(None))  # type: ignore[arg-type]
    with pytest.raises(InvalidActionError, match="not the text of a feedback"):
        game.apply(1, Answer(None))  # type: ignore[arg-type]


def test_copies_are_independent() -> None:
    game = duel_game()
    play(game, (0, "guess 123"))
    twin = game.copy()
    play(twin, (1, "answer 0A0B"))
    assert game.to_act() == (1,) and twin.to_act() == (1,)
    assert game.observation(0).guesses == []
    assert len(twin.observation(0).guesses) == 1


def test_action_values_must_be_written_as_listed() -> None:
    game = duel_game()
    assert not game.is_legal(0, Guess(" 123\n"))
    with pytest.raises(IllegalActionError, match="not written as the engine lists it: '123'"):
        game.apply(0, Guess(" 123\n"))
    game.apply(0, Guess("123"))
    assert Answer("0A2B") in game.legal_actions(1)
    for spelling in ("01a02b", "0a2b", "０A２B"):
        assert not game.is_legal(1, Answer(spelling))
    assert game.parse_action("answer 0a2b") == Answer("0A2B")


@pytest.mark.parametrize("text", ["answer ²A0B", "answer ①A0B", "answer " + "1" * 5000 + "A0B"])
def test_non_ascii_or_huge_feedback_is_an_invalid_action(text: str) -> None:
    game = duel_game()
    game.apply(0, Guess("123"))
    with pytest.raises(InvalidActionError, match="not of the form xAyB"):
        game.parse_action(text)
