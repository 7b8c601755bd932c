"""The random-guess player of seed 002 §4.2: play so as to look like a random pick among all
strategies, which cannot be exploited (圖 4.1).

* Challenge or not (§4.2.1): guess the opponent's count of the bid face uniformly from 0 to the
  number of hidden dice (0–5 in the seed); challenge when that guess plus our own count falls
  short of the bid.
* What to bid (§4.2.2): imagine an opponent hand by rolling it, list every bid above the current
  one that is true for our dice plus that hand, pick one with weight = the number of opponent hands
  that would make it true (table 4.7, by the dice the opponent must supply), then guess the
  opponent's estimate of our count the same uniform way: keep the bid only when that estimate
  would make the opponent challenge a bid that is in fact true (for the imagined hand).
* Flow (§4.2.3): decide both each try; no challenge and a bid (case 1) bids, a challenge and no
  bid (case 2) challenges; cases 3 and 4 throw the try away and decide both again. The opener
  has no challenge and tries until it finds a bid.

Beyond the seed, two switches answer its chapter 6: ``real_guess`` guesses real numbers (圖 6.1);
``guess="odds"`` draws the guessed counts (the opponent's count for a challenge, its estimate of
ours, or one of them: ``odds_for``) from the dice's binomial odds, with a share ``psychology`` of
them still uniform — "同時考慮對手心理的隨機性與骰子的機率性" (`OddsGuess`).

`guess_count`, `sample_hand`, `would_challenge` and `prepare` are the hooks the Bayesian player
(§4.3) overrides to bring its imagined hand and limit array into every guess.

Under the re-roll rule it never re-rolls; the other seats' revealed dice count as known (they are
in `TableView.counts`, and the guessed and imagined counts cover the hidden dice only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from arena.games.liars_dice import CHALLENGE, FACES, Bid, LiarsDiceAction
from bots.liars_dice.strategy import Strategy
from bots.liars_dice.view import (
    FACE_RANGE,
    TableView,
    chance,
    exact_counts,
    likeliest_raise,
    matches,
    matching_faces,
    minimal_raise,
    random_counts,
    tail_counts,
    uniform,
    weighted_index,
)

MAX_TRIES = 200
"""Tries of the §4.2.3 flow before giving up; the seed sets no bound. In the seed-1 gauntlets
random-guess never needs more than 70; the Bayesian player's imagined hand can make cases 3/4
near certain, and it gives up on a few decisions in 16,000 games (`RandomGuess.give_ups`)."""

Guess = Literal["uniform", "odds"]
GUESSES: tuple[Guess, ...] = get_args(Guess)
OddsFor = Literal["both", "challenge", "estimate"]
ODDS_FOR: tuple[OddsFor, ...] = get_args(OddsFor)
DEFAULT_PSYCHOLOGY = 0.5
"""The uniform share of the guesses under ``guess="odds"`` when none is given: the seed asks for
both the psychology's randomness and the dice's odds and weighs neither, so half each."""
PSYCHOLOGY_RANGE = (0.0, 1.0)
"""The values ``psychology`` (a share) may take."""
DEFAULT_ODDS_FOR: OddsFor = "both"
"""Which guessed counts follow the odds under ``guess="odds"`` when ``odds_for`` is not given."""


@dataclass(frozen=True, slots=True)
class OddsGuess:
    """Ch. 6's improvement (beyond the seed): which guessed counts follow the dice's odds."""

    psychology: float
    """Share of those guesses still drawn uniformly (§4.2.1's guess of the opponent's mind)."""
    challenge: bool
    """The opponent's count of the bid face, when deciding whether to challenge (§4.2.1)."""
    estimate: bool
    """The opponent's estimate of our count, when asking whether it would challenge (§4.2.2)."""


def check_guess_options(
    guess: str, psychology: float | None, odds_for: str | None, real_guess: bool
) -> OddsGuess | None:
    """Validate the ``guess`` switch and its two settings; `None` is the seed's uniform guess.
    Raises `ValueError` naming the option."""
    if guess not in GUESSES:
        raise ValueError(f"bot option 'guess' must be one of {list(GUESSES)}, got {guess!r}")
    if guess == "uniform":
        for key, value in (("psychology", psychology), ("odds_for", odds_for)):
            if value is not None:
                raise ValueError(f"bot option {key!r} needs guess = 'odds'")
        return None
    if real_guess:
        raise ValueError("bot option 'guess' = 'odds' cannot be combined with real_guess = true")
    share = DEFAULT_PSYCHOLOGY if psychology is None else psychology
    low, high = PSYCHOLOGY_RANGE
    if not low <= share <= high:
        raise ValueError(
            f"bot option 'psychology' must be between {low:g} and {high:g}, got {share!r}"
        )
    scope = DEFAULT_ODDS_FOR if odds_for is None else odds_for
    if scope not in ODDS_FOR:
        raise ValueError(f"bot option 'odds_for' must be one of {list(ODDS_FOR)}, got {scope!r}")
    return OddsGuess(share, scope != "estimate", scope != "challenge")


class RandomGuess(Strategy):
    name = "random-guess"

    def __init__(
        self,
        *,
        real_guess: bool = False,
        guess: Guess = "uniform",
        psychology: float | None = None,
        odds_for: OddsFor | None = None,
        max_tries: int = MAX_TRIES,
    ) -> None:
        super().__init__()
        self.real_guess = real_guess
        """圖 6.1 (beyond the seed): guess counts as real numbers, cutting the hidden dice's
        number line into six random pieces, instead of whole numbers."""
        self.odds = check_guess_options(guess, psychology, odds_for, real_guess)
        """Ch. 6 (beyond the seed): which guessed counts follow the dice's binomial odds, and
        the share of them still uniform; `None` (the default) is the seed's uniform guess."""
        self.max_tries = max_tries
        self.give_ups = 0
        """How often `max_tries` ran out, so a run can show the bound never mattered."""

    # -- the flow of §4.2.3 -------------------------------------------------------------------

    def decide(self, view: TableView) -> LiarsDiceAction:
        self.prepare(view)
        last = view.last_bid
        challenges = 0
        for _ in range(self.max_tries):
            challenge = last is not None and self.wants_challenge(view, last)
            challenges += challenge
            bid = self.find_bid(view)
            if last is None:
                if bid is not None:
                    return bid
                continue
            if challenge and bid is None:
                return CHALLENGE
            if bid is not None and not challenge:
                return bid
        self.give_ups += 1
        return self.give_up(view, challenges / self.max_tries)

    def give_up(self, view: TableView, challenge_share: float) -> LiarsDiceAction:
        """Out of tries (the seed sets no bound): follow what the tries leaned to — challenge if
        at least half of them wanted to, else make the raise most likely to hold."""
        raise_ = likeliest_raise(view)
        if view.last_bid is not None and (challenge_share >= 0.5 or raise_ is None):
            return CHALLENGE
        return raise_ if raise_ is not None else CHALLENGE

    # -- §4.2.1: challenge or not -------------------------------------------------------------

    def wants_challenge(self, view: TableView, last: Bid) -> bool:
        return view.mine(last.face) + self.guess_count(view, last.face) < last.count

    def guess_count(self, view: TableView, face: int) -> float:
        """The opponent's count of ``face``: uniform over 0..hidden dice (or by the odds)."""
        if self.real_guess:
            return matches(self._real_hand(view.hidden_dice), face, view.ones_wild)
        if self.odds is not None and self.odds.challenge:
            return self.draw_count(view.hidden_dice, matching_faces(face, view.ones_wild))
        return self.rng.randbelow(view.hidden_dice + 1)

    def draw_count(self, dice: int, sides: int, top: int | None = None) -> int:
        """``guess="odds"``: a guessed number of matching dice among ``dice`` dice (``sides``
        of six match), at most ``top``. With probability `psychology` it is uniform over
        0..top (the seed's guess); otherwise it follows the binomial odds of the dice,
        conditioned on being at most ``top``."""
        top = dice if top is None else max(0, min(top, dice))
        share = 1.0 if self.odds is None else self.odds.psychology
        if share >= 1.0 or (share > 0.0 and chance(self.rng, share)):
            return self.rng.randbelow(top + 1)
        return weighted_index(self.rng, exact_counts(dice, sides)[: top + 1])

    # -- §4.2.2: what to bid ------------------------------------------------------------------

    def find_bid(self, view: TableView) -> Bid | None:
        """One pass of §4.2.2: a true bid (for an imagined hand) the opponent would challenge."""
        opponent = self.sample_hand(view)
        last = view.last_bid
        wild = view.ones_wild
        all_hands = FACES**view.hidden_dice
        # (count, face) pairs and their weights; a Bid is built only for the one picked.
        pairs: list[tuple[int, int]] = []
        weights: list[int] = []
        for face in FACE_RANGE:
            mine = view.mine_counts[face]
            high = min(int(mine + matches(opponent, face, wild)), view.total_dice)
            low = minimal_raise(last, face, view.min_open)
            if low > high:
                continue
            tails = tail_counts(view.hidden_dice, matching_faces(face, wild))
            for count in range(low, high + 1):
                need = count - mine
                weight = all_hands if need <= 0 else tails[need]
                pairs.append((count, face))
                weights.append(weight)
        if not pairs:
            return None
        bid = Bid(*pairs[weighted_index(self.rng, weights)])
        return bid if self.would_challenge(view, bid, opponent) else None

    def sample_hand(self, view: TableView) -> list[float]:
        """An imagined opponent hand as counts by face (index 0 unused)."""
        if self.real_guess:
            return self._real_hand(view.hidden_dice)
        return [float(n) for n in random_counts(self.rng, view.hidden_dice)]

    def would_challenge(self, view: TableView, bid: Bid, opponent: list[float]) -> bool:
        """Guess the opponent's estimate of our count (uniform 0..our dice, or by the odds) and
        see whether it, with the imagined opponent hand, falls short of ``bid``."""
        if self.real_guess:
            ours = matches(self._real_hand(view.own_dice), bid.face, view.wild_after(bid.face))
        elif self.odds is not None and self.odds.estimate:
            sides = matching_faces(bid.face, view.wild_after(bid.face))
            ours = self.draw_count(view.own_dice, sides)
        else:
            ours = self.rng.randbelow(view.own_dice + 1)
        theirs = matches(opponent, bid.face, view.wild_after(bid.face))
        # Dice the others revealed (re-roll rule) are theirs too, and known to everyone.
        shown = view.shown_by_others(bid.face, view.wild_after(bid.face))
        return ours + theirs + shown < bid.count

    # -- hooks --------------------------------------------------------------------------------

    def prepare(self, view: TableView) -> None:
        """Called once per decision before any guess; the Bayesian player reads the bids here."""
        return None

    def _real_hand(self, dice: float) -> list[float]:
        """圖 6.1: cut a line of length ``dice`` at five uniform points; the six pieces are the
        guessed counts of faces 1..6 (returned as counts by face, index 0 unused)."""
        cuts = sorted(uniform(self.rng) * dice for _ in range(FACES - 1))
        edges = [0.0, *cuts, dice]
        return [0.0, *(edges[i + 1] - edges[i] for i in range(FACES))]
