"""The random-guess player with the Bayesian opponent model of seed 002 §4.3.

Three networks, trained from every reveal against the same opponent (its dice are then known):

* The response network (圖 4.9), for each opponent decision that follows our bid:
  A = our bid's count (2–10); B = its hand supports our face (our count minus its holding < 3);
  C = its bid is a lie (its count minus its holding > 1); D = its bid keeps our face;
  E = it challenges. A, D and E are seen; B and C are inferred:
  p(B, C | A, D, E=bid) ∝ p(B|A) · p(E|A,B) · p(C|A,B) · p(D|A,B,C).
* The opening network (圖 4.10a): whether the opponent's opening bids lie.
* Our opening network (圖 4.10b): how often our opening count is challenged at once.

A network is used with probability n/(n+10), n being the times the situation was seen (its
openings, or its decisions facing count A). Used, it turns each opponent bid into a belief about
its hand (圖 4.11–4.17): believed bids fill an imagined hand (its opening "x of y" to x−1 of y, a
supported face of our "x of y" to x−2, its believed answer "x of y" to x−1); disbelieved ones set
the limit array to x−2. Every guess of the random-guess player then starts from that hand: the
guessed count of a face lies between its imagined count and what the limits and the free dice
allow, and imagined hands are completed by rolling only the free dice under the limits.

Departures from the seed, each because the seed's text does not pin the point down:
* B takes A as a parent: the derivation writes p(B), but support is defined relative to A, so its
  step p(B,C|A) = p(C|A,B)p(B) only holds read as p(B|A). The posterior is normalised over the
  four (B, C) cells instead of divided by separately estimated p(D|A)p(E|A).
* A believed opening "x of y" fills y to x−1, as 圖 4.14 does for answers; 圖 4.12 says "add one",
  which agrees for the usual opening count of two.
* Counts are Laplace-smoothed (+1 per cell) so that an unseen situation reads 1/2.
* A belief is drawn with the network's probability (``belief="sample"``, the random spirit of §4.2)
  or taken when over 1/2 (``belief="threshold"``).
* A later belief about a face overrides an earlier one (a fill lifts an older limit).
* The model is used in two-seat games without wild ones or re-rolls; otherwise the player is
  random-guess. It learns nothing from a round in which someone re-rolled (§2.2 extension 2): the
  dice revealed at the end are not the ones the earlier bids were made on.

The tables, how they are read and their file format are in `bots.liars_dice.opponent_model`.

With ``guess="odds"`` (beyond the seed, its chapter 6) the challenge guess keeps the imagined
count and draws the rest from the binomial odds of the free dice, conditioned on the limit.
With ``real_guess`` (圖 6.1, and ch. 6's "根據信賴度進行實數而非整數的加權") nothing is drawn to
take a belief: each acts with its weight, trust × probability, on a real-number imagined hand
(`bots.liars_dice.soft_hand`), and the guesses cut 圖 6.1's line over the dice it leaves free.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import structlog
from pydantic import BaseModel

from arena.dealing import RandomStream
from arena.games.liars_dice import FACES, Bid, face_counts
from bots.liars_dice.opponent_model import (
    OpponentModel,
    TablesSaveError,
    check_tables_dir,
    legacy_model_path,
    load_model,
    model_path,
    save_model,
)
from bots.liars_dice.random_guess import Guess, OddsFor, RandomGuess
from bots.liars_dice.soft_hand import SoftHand
from bots.liars_dice.view import FACE_RANGE, TableView, chance, random_counts
from protocol.games.liars_dice import Rerolled, Reveal

log = structlog.get_logger(__name__)

Belief = Literal["sample", "threshold"]
BELIEFS: tuple[Belief, ...] = get_args(Belief)
NETWORKS = ("opening", "response", "our_opening")
"""The three networks a player may use (all, as in the seed): its openings (圖 4.10a), its
answers to our bids (圖 4.9) and our openings (圖 4.10b). Every network is trained either way."""


@dataclass(frozen=True, slots=True)
class Claim:
    """What one opponent bid says about one face of its hand, as the network reads it."""

    face: int
    p: float
    """The probability that the claim holds (the bid is honest, or its hand supports ours)."""
    fill: int
    """Believed: the face holds at least this many (圖 4.12–4.14)."""
    limit: int
    """Disbelieved: the face holds at most this many (圖 4.15–4.17)."""


def check_networks(networks: Sequence[str]) -> tuple[str, ...]:
    unknown = [name for name in networks if name not in NETWORKS]
    if unknown:
        raise ValueError(f"unknown networks {unknown}; known: {list(NETWORKS)}")
    return tuple(dict.fromkeys(networks))


def raise_failed_save(bots: Iterable[object]) -> None:
    """Raise the first failed save (`TablesSaveError`) of any Bayesian player among ``bots``
    (`LiarsDiceBot`s or anything else): for whoever runs games through a referee, which logs a
    bot's exception and plays on."""
    for bot in bots:
        strategy = getattr(bot, "strategy", None)
        if isinstance(strategy, Bayes):
            strategy.check_saved()


class Bayes(RandomGuess):
    name = "bayes"

    def __init__(
        self,
        *,
        belief: Belief = "threshold",
        tables_dir: str | Path | None = None,
        real_guess: bool = False,
        guess: Guess = "uniform",
        psychology: float | None = None,
        odds_for: OddsFor | None = None,
        networks: Sequence[str] = NETWORKS,
    ) -> None:
        super().__init__(
            real_guess=real_guess, guess=guess, psychology=psychology, odds_for=odds_for
        )
        self.belief: Belief = belief
        self.networks = check_networks(networks)
        """The networks used in play (`NETWORKS`); with none it plays as random-guess."""
        self.tables_dir = None if tables_dir is None else Path(tables_dir)
        if self.tables_dir is not None:
            check_tables_dir(self.tables_dir)
        self.models: dict[str, OpponentModel] = {}
        self.imagined = [0] * (FACES + 1)
        self.limits: list[int | None] = [None] * (FACES + 1)
        self.soft = SoftHand(0)
        """With ``real_guess``: the imagined hand and limits in real numbers (ch. 6)."""
        self._round_key: tuple[int, int] = (-1, -1)
        self._seen_bids = 0
        self._games_begun = 0
        self._active = False
        self._rerolled_round: tuple[int, int] | None = None
        """(game, round) of the last re-roll seen: that round's reveal teaches nothing."""
        self._unsaved: set[str] = set()
        """Opponents whose tables file holds another opponent's tables: learnt in memory only,
        never saved over that file."""
        self.save_error: TablesSaveError | None = None
        """The first save that failed. A referee's in-process seat swallows a bot's exception
        (a bot's bug must not stop a match), so whoever runs the games looks here too
        (`check_saved`)."""

    # -- opponents and their tables -----------------------------------------------------------

    def begin_match(self) -> None:
        """Each match starts from the tables a fresh player would have: none, or with
        ``tables_dir`` those saved there (loaded again when each opponent is met; every reveal
        was saved, so nothing learnt is lost)."""
        self.models.clear()
        self._unsaved.clear()

    def begin_game(self, rng: RandomStream, seat: int, players: Sequence[str]) -> None:
        super().begin_game(rng, seat, players)
        self._games_begun += 1
        self._round_key = (-1, -1)

    def opponent_name(self, seat: int) -> str:
        return self.players[seat] if seat < len(self.players) else f"seat{seat}"

    def model_for(self, name: str) -> OpponentModel:
        model = self.models.get(name)
        if model is None:
            model = OpponentModel(opponent=name)
            if self.tables_dir is not None:
                model = self._load(name) or model
            self.models[name] = model
        return model

    def _load(self, name: str) -> OpponentModel | None:
        """``name``'s saved tables, if any: from its file (`model_path`), else from where an
        older arena saved them (`legacy_model_path`), whose name several players could share.
        A file holding another player's tables is never used, nor saved over."""
        assert self.tables_dir is not None
        path = model_path(self.tables_dir, name)
        for candidate in dict.fromkeys((path, legacy_model_path(self.tables_dir, name))):
            if not candidate.exists():
                continue
            loaded = load_model(candidate)
            if loaded.opponent == name:
                return loaded
            if candidate == path:
                # Copied or renamed by hand: playing one person with another's tables, and
                # saving them back over the other's, would corrupt both.
                self._unsaved.add(name)
                log.warning(
                    "bayes_tables_of_another_player",
                    wanted=name,
                    file=str(candidate),
                    holds=loaded.opponent,
                    action="starting from empty tables, not saved",
                )
        return None

    def kept_state(self) -> str | None:
        if self.tables_dir is None:
            return None
        return f"tables_dir {str(self.tables_dir)!r} (learnt tables loaded and saved every game)"

    def save(self, directory: str | Path) -> list[Path]:
        """Write every opponent's tables as ``<directory>/<opponent>.json`` (`model_path`)."""
        directory = Path(directory)
        written = []
        for name, model in sorted(self.models.items()):
            path = model_path(directory, name)
            self._save(model, path)
            written.append(path)
        return written

    def _save(self, model: OpponentModel, path: Path) -> None:
        try:
            save_model(model, path)
        except OSError as error:
            self.save_error = TablesSaveError(
                f"bayes cannot save its tables of {model.opponent!r} to {path}: "
                f"{error.strerror or error}"
            )
            raise self.save_error from None

    def check_saved(self) -> None:
        """Raise the first failed save again (`TablesSaveError`), wherever it was swallowed."""
        if self.save_error is not None:
            raise self.save_error

    def observe(self, payload: BaseModel) -> None:
        if isinstance(payload, Rerolled):
            self._rerolled_round = (self._games_begun, payload.round)
            return
        if not isinstance(payload, Reveal) or payload.ones_wild:
            return
        if self._rerolled_round == (self._games_begun, payload.round):
            return
        in_play = [s for s, dice in enumerate(payload.dice) if dice]
        if len(in_play) != 2 or self.seat not in in_play:
            return
        (opponent,) = (s for s in in_play if s != self.seat)
        bids = [(b.seat, Bid(b.count, b.face)) for b in payload.bids]
        name = self.opponent_name(opponent)
        model = self.model_for(name)
        model.learn(bids, payload.challenger, self.seat, face_counts(payload.dice[opponent]))
        if self.tables_dir is not None and name not in self._unsaved:
            self._save(model, model_path(self.tables_dir, name))  # only the tables that changed

    # -- the imagined hand and the limit array ------------------------------------------------

    def prepare(self, view: TableView) -> None:
        opponents = view.opponents()
        self._active = len(opponents) == 1 and not view.ones_wild and not view.reroll
        key = (self._games_begun, view.round)
        if key != self._round_key:
            self._round_key = key
            self.imagined = [0] * (FACES + 1)
            self.limits = [None] * (FACES + 1)
            self.soft = SoftHand(view.hidden_dice)
            self._seen_bids = 0
        if not self._active:
            self._seen_bids = len(view.bids)
            return
        model = self.model_for(self.opponent_name(opponents[0]))
        hidden = view.hidden_dice
        for trust, claims in self._claims(view, model):
            if self.real_guess:
                # Ch. 6: every belief acts with its weight instead of being taken or not.
                for claim in claims:
                    self.soft.doubt(claim.face, claim.limit, trust * (1.0 - claim.p))
                    self.soft.believe(claim.face, claim.fill, trust * claim.p)
                continue
            if not chance(self.rng, trust):
                continue
            for claim in claims:
                if self._believe(claim.p):
                    self._fill(claim.face, claim.fill, hidden)
                else:
                    self._limit(claim.face, claim.limit)
        self._seen_bids = len(view.bids)

    def _claims(self, view: TableView, model: OpponentModel) -> Iterator[tuple[float, list[Claim]]]:
        """What each new opponent bid says about its hand, per network used: the network's
        trust n/(n+10) and the claims it yields (圖 4.12–4.17)."""
        for i in range(self._seen_bids, len(view.bids)):
            seat, bid = view.bids[i]
            if seat == self.seat:
                continue
            if i == 0:
                if "opening" in self.networks:
                    honest = 1.0 - model.p_opening_lie()
                    claim = Claim(bid.face, honest, bid.count - 1, bid.count - 2)
                    yield model.trust_opening(), [claim]
                continue
            if "response" not in self.networks:
                continue
            ours = view.bids[i - 1][1]
            p_support, p_lie = model.posterior(ours.count, bid.face == ours.face)
            yield (
                model.trust_response(ours.count),
                [
                    Claim(ours.face, p_support, ours.count - 2, ours.count - 2),
                    Claim(bid.face, 1.0 - p_lie, bid.count - 1, bid.count - 2),
                ],
            )

    def _believe(self, p: float) -> bool:
        return p > 0.5 if self.belief == "threshold" else chance(self.rng, p)

    def _fill(self, face: int, target: int, hidden: int) -> None:
        room = hidden - (sum(self.imagined) - self.imagined[face])
        target = max(0, min(target, room))
        if target > self.imagined[face]:
            self.imagined[face] = target
        limit = self.limits[face]
        if limit is not None and limit < self.imagined[face]:
            self.limits[face] = self.imagined[face]

    def _limit(self, face: int, limit: int) -> None:
        limit = max(limit, 0)
        old = self.limits[face]
        self.limits[face] = limit if old is None else min(old, limit)
        self.imagined[face] = min(self.imagined[face], limit)

    # -- the hooks of the random-guess player --------------------------------------------------

    def guess_count(self, view: TableView, face: int) -> float:
        if not self._active:
            return super().guess_count(view, face)
        if self.real_guess:
            return self.soft.guess(face, self._real_hand(self.soft.free())[face])
        low = self.imagined[face]
        high = view.hidden_dice - (sum(self.imagined) - low)
        limit = self.limits[face]
        if limit is not None:
            high = min(high, limit)
        high = max(high, low)
        if self.odds is not None and self.odds.challenge:
            # The free dice are those the imagined hand leaves; the limit caps what they add.
            free = view.hidden_dice - sum(self.imagined)
            return low + self.draw_count(free, 1, high - low)
        return low + self.rng.randbelow(high - low + 1)

    def sample_hand(self, view: TableView) -> list[float]:
        if not self._active:
            return super().sample_hand(view)
        if self.real_guess:
            return self.soft.complete(self._real_hand(self.soft.free()))
        counts = list(self.imagined)
        unknown = view.hidden_dice - sum(counts)
        if all(limit is None for limit in self.limits):
            # No face is limited: the free dice are plain fair dice (one draw for up to five).
            rolled = random_counts(self.rng, unknown)
            return [float(counts[f] + rolled[f]) for f in range(FACES + 1)]
        free = [f for f in FACE_RANGE if self._below_limit(f, counts[f])]
        for _ in range(unknown):
            # Limits that leave no face open contradict each other; roll freely then.
            face = self.rng.choice(free or FACE_RANGE)
            counts[face] += 1
            if free and not self._below_limit(face, counts[face]):
                free.remove(face)
        return [float(n) for n in counts]

    def _below_limit(self, face: int, count: int) -> bool:
        limit = self.limits[face]
        return limit is None or count < limit

    def would_challenge(self, view: TableView, bid: Bid, opponent: list[float]) -> bool:
        if self._active and view.last_bid is None and "our_opening" in self.networks:
            model = self.model_for(self.opponent_name(view.opponents()[0]))
            if chance(self.rng, model.trust_our_opening(bid.count)):
                return chance(self.rng, model.p_our_opening_challenged(bid.count))
        return super().would_challenge(view, bid, opponent)
