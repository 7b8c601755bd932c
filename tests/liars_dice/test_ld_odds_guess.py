"""The ``guess = "odds"`` switch (beyond the seed; seed 002 chapter 6, first improvement).

"當需要考慮是否抓牌時，我們所採取的方法是以均等的機率挑選 0~5 當作對手擁有的骰子數，而完全忽略了
牌型成立機率造成的影響 … 或許真正的隨機玩法，是能夠同時考慮對手心理的隨機性與骰子的機率性來達成的":
the guessed counts follow the dice's binomial odds, a share ``psychology`` of them still the
seed's uniform guess. Pinned here: the distributions (plain, ones wild, a mixture, under the
Bayesian player's imagined hand and limits), which guess ``odds_for`` switches, that a share of
one plays exactly the seed's games, and the option errors.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.dealing import MatchSeed, RandomStream
from arena.games.liars_dice import Bid, LiarsDiceGame, LiarsDiceRules
from arena.matches.liars_dice_series import make_ld_bot, play_direct
from bots.liars_dice import Bayes, ConfigError, RandomGuess, TableView
from bots.liars_dice.random_guess import OddsGuess
from bots.liars_dice.view import exact_counts
from bots.registry import make_bot

DRAWS = 6000
TOLERANCE = 0.02
"""Three standard errors of a share near 1/2 over `DRAWS` draws is about 0.019."""
CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "bots" / "liars_dice"


def _stream(text: str) -> RandomStream:
    return MatchSeed.from_text(text).stream("odds-guess")


def _view(
    dice: Sequence[int], bids: Sequence[tuple[int, Bid]], *, ones_wild: bool = False
) -> TableView:
    """Seat 0's view after ``bids``; the other cup's dice are never shown to it."""
    first = bids[0][0] if bids else 0
    rules = LiarsDiceRules(ones_wild=ones_wild)
    game = LiarsDiceGame.with_dice(rules, [list(dice), [1, 2, 3, 4, 6]], first=first)
    for bidder, bid in bids:
        game.apply(bidder, bid)
    return TableView.from_observation(game.observation(0))


def _player(**options: Any) -> RandomGuess:
    player = RandomGuess(**options)
    player.begin_game(_stream(repr(sorted(options.items()))), 0, ["rg", "opp"])
    return player


def _shares(draw: Callable[[], float]) -> dict[float, float]:
    counts = Counter(draw() for _ in range(DRAWS))
    return {value: n / DRAWS for value, n in counts.items()}


def _assert_distribution(shares: dict[float, float], expected: Sequence[float]) -> None:
    assert set(shares) <= set(range(len(expected)))
    for k, p in enumerate(expected):
        assert abs(shares.get(k, 0.0) - p) < TOLERANCE, (k, shares.get(k, 0.0), p)


def _binomial(dice: int, sides: int = 1) -> list[float]:
    weights = exact_counts(dice, sides)
    return [w / sum(weights) for w in weights]


# Ours hold no 3 (and no 1); the opponent opens the seed's usual honest "two 3s".
_OURS = (2, 4, 5, 6, 6)
_TWO_THREES = [(1, Bid(2, 3))]


def test_exact_counts_are_table_4_5s_binomial() -> None:
    """Table 4.5's C(5,k)(1/6)^k(5/6)^(5−k) times 7776; its tails are table 4.7 (and table 4.5's
    "k or more": 1, 0.5981, 0.1962, …)."""
    assert exact_counts(5) == (3125, 3125, 1250, 250, 25, 1)
    assert sum(exact_counts(5)[2:]) / 6**5 == pytest.approx(0.1962, abs=1e-4)
    assert exact_counts(2, 2) == (16, 16, 4)  # a face plus wild ones: two sides of six
    assert all(sum(exact_counts(n, s)) == 6**n for n in range(8) for s in (1, 2))


def test_challenge_guess_follows_the_binomial_odds() -> None:
    """psychology 0: the opponent's count of the bid face is Binomial(5 hidden dice, 1/6)."""
    player = _player(guess="odds", psychology=0.0)
    view = _view(_OURS, _TWO_THREES)
    _assert_distribution(_shares(lambda: player.guess_count(view, 3)), _binomial(5))


def test_challenge_guess_counts_wild_ones() -> None:
    """With ones wild a hidden die matches a face on two sides (1/3), but ones only on one."""
    player = _player(guess="odds", psychology=0.0)
    view = _view(_OURS, [(1, Bid(3, 4))], ones_wild=True)
    assert view.ones_wild
    _assert_distribution(_shares(lambda: player.guess_count(view, 4)), _binomial(5, 2))
    _assert_distribution(_shares(lambda: player.guess_count(view, 1)), _binomial(5, 1))


def test_psychology_mixes_the_uniform_guess_back_in() -> None:
    """psychology ½: half the guesses are the seed's uniform 0–5, half follow the odds."""
    player = _player(guess="odds", psychology=0.5)
    view = _view(_OURS, _TWO_THREES)
    mixture = [0.5 / 6 + 0.5 * p for p in _binomial(5)]
    _assert_distribution(_shares(lambda: player.guess_count(view, 3)), mixture)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # The seed (圖 4.3's rule): a guess of 0 or 1 of six falls short of two.
        ({}, 2 / 6),
        # The odds: short of two unless the opponent rolled two 3s, 1 − 0.1962 (table 4.5).
        ({"guess": "odds", "psychology": 0.0}, 1 - 1526 / 7776),
        ({"guess": "odds"}, 0.5 * 2 / 6 + 0.5 * (1 - 1526 / 7776)),
        ({"guess": "odds", "psychology": 0.0, "odds_for": "estimate"}, 2 / 6),
    ],
)
def test_an_honest_opening_is_challenged_more_often_by_the_odds(
    options: dict[str, Any], expected: float
) -> None:
    """The binomial's mean (5/6 of a die) lies far below the uniform guess's 2.5, so the odds
    doubt an honest "two 3s" more than the seed does (this is §4.2.1's objection to plain
    probability: the bidder has seen its dice); ``odds_for="estimate"`` leaves it alone."""
    player = _player(**options)
    view = _view(_OURS, _TWO_THREES)
    hits = sum(player.wants_challenge(view, Bid(2, 3)) for _ in range(DRAWS))
    assert abs(hits / DRAWS - expected) < TOLERANCE


@pytest.mark.parametrize(
    ("odds_for", "odds_estimate"), [("both", True), ("estimate", True), ("challenge", False)]
)
def test_estimate_of_our_count_follows_the_odds_over_our_dice(
    odds_for: str, odds_estimate: bool
) -> None:
    """§4.2.2's guess of the opponent's estimate of our count: Binomial(our 5 dice, 1/6) under
    the odds. With an empty imagined opponent hand, "two 3s" is challenged when the estimate is
    0 or 1: 1 − 0.1962 by the odds, 2/6 by the seed's uniform guess."""
    player = _player(guess="odds", psychology=0.0, odds_for=odds_for)
    view = _view(_OURS, [])
    empty = [0.0] * 7
    hits = sum(player.would_challenge(view, Bid(2, 3), empty) for _ in range(DRAWS))
    expected = 1 - 1526 / 7776 if odds_estimate else 2 / 6
    assert abs(hits / DRAWS - expected) < TOLERANCE


def test_bayes_draws_the_free_dice_by_the_odds_under_the_limit() -> None:
    """The Bayesian player's challenge guess keeps the imagined count (one 3) and draws the
    free dice's share (four dice) by the odds, conditioned on the limit (two): 1 with weight
    5⁴ = 625, 2 with weight 4·5³ = 500, never more."""
    player = Bayes(guess="odds", psychology=0.0)
    player.begin_game(_stream("bayes-odds"), 0, ["bayes", "opp"])
    view = _view(_OURS, _TWO_THREES)
    player.prepare(view)
    player.imagined[3] = 1
    player.limits[3] = 2
    shares = _shares(lambda: player.guess_count(view, 3))
    assert set(shares) == {1, 2}
    assert abs(shares[1] - 625 / 1125) < TOLERANCE
    # No limit: one imagined 3 plus Binomial(4, 1/6).
    player.limits[3] = None
    expected = [0.0, *_binomial(4)]
    _assert_distribution(_shares(lambda: player.guess_count(view, 3)), expected)


def _games(name: str, config: dict[str, Any]) -> list[tuple[tuple[float, ...], int]]:
    seed = MatchSeed.from_text("odds-replay")
    bots = (make_ld_bot(name, {"seed": "5", **config}), make_ld_bot("type5", {"seed": "5"}))
    out = []
    for k in range(40):
        result, decisions = play_direct(bots, seed, game_index=k, first=k % 2)
        out.append((result.scores, decisions))
    return out


@pytest.mark.parametrize("name", ["random-guess", "bayes"])
def test_psychology_one_plays_the_seeds_games(name: str) -> None:
    """A share of one is the seed's uniform guess, draw for draw: the same games."""
    assert _games(name, {"guess": "odds", "psychology": 1.0}) == _games(name, {})
    assert _games(name, {"guess": "odds", "psychology": 0.0}) != _games(name, {})


@pytest.mark.parametrize(
    ("file", "name", "odds"),
    [
        ("random-guess-odds.toml", "random-guess", OddsGuess(0.5, True, True)),
        ("bayes-odds.toml", "bayes", OddsGuess(0.5, True, True)),
        ("random-guess-odds-estimate.toml", "random-guess", OddsGuess(0.0, False, True)),
        ("bayes-odds-estimate.toml", "bayes", OddsGuess(0.0, False, True)),
    ],
)
def test_config_files(file: str, name: str, odds: OddsGuess) -> None:
    config = tomllib.loads((CONFIGS / file).read_text(encoding="utf-8"))
    bot = make_ld_bot(name, config)
    assert isinstance(bot.strategy, RandomGuess)
    assert bot.strategy.odds == odds


def test_defaults_stay_the_seeds() -> None:
    assert RandomGuess().odds is None
    assert Bayes().odds is None
    assert RandomGuess(guess="odds").odds == OddsGuess(0.5, True, True)
    whole = make_ld_bot("random-guess", {"guess": "odds", "psychology": 1})  # TOML integer
    assert isinstance(whole.strategy, RandomGuess)
    assert whole.strategy.odds == OddsGuess(1.0, True, True)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"guess": "binomial"}, "'guess' must be one of"),
        ({"guess": "odds", "psychology": 1.5}, "'psychology' must be between 0 and 1"),
        ({"guess": "odds", "psychology": "half"}, "'psychology' must be float"),
        ({"guess": "odds", "psychology": True}, "'psychology' must be float"),
        ({"psychology": 0.5}, "'psychology' needs guess = 'odds'"),
        ({"odds_for": "estimate"}, "'odds_for' needs guess = 'odds'"),
        ({"guess": "odds", "odds_for": "all"}, "'odds_for' must be one of"),
        ({"guess": "odds", "real_guess": True}, "cannot be combined with real_guess"),
    ],
)
@pytest.mark.parametrize("name", ["random-guess", "bayes"])
def test_option_errors_name_the_option(name: str, config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_bot("liars_dice", name, config)


def test_the_strategy_checks_its_options_too() -> None:
    with pytest.raises(ValueError, match="'psychology' must be between 0 and 1"):
        RandomGuess(guess="odds", psychology=-0.1)
