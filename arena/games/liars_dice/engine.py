"""The liar's dice rules engine (common hand, seed 002 chapter 2). Pure and deterministic.

Dice come from the stream ``liars_dice/game/<game_index>/round/<r>``: one `roll_dice` call per
round for every die in play, dealt to the seats in seat order. The ``deal`` parameters are
``game_index`` (names the stream) and ``first`` (the seat that opens round 0).

Re-roll rule (``reroll``): the k-th re-roll of round r (k = 0, 1, … over the round) rolls its
dice with one `roll_dice` call on ``liars_dice/game/<game_index>/round/<r>/reroll/<k>``. ``hands``
holds the dice under each cup, ``revealed`` the dice each seat has shown; a challenge counts both.

Fallback action (played by the referee for a seat that fails to answer): ``challenge`` when a bid
stands, else the lowest opening bid (``bid <min_open>x1``); right after its own re-roll, when a
challenge is not allowed, the least legal bid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any, ClassVar

from arena.dealing import MatchSeed, roll_dice
from arena.games.base import Game, GameEvent, GameResult
from arena.games.errors import GameError, IllegalActionError, NotYourTurnError
from arena.games.liars_dice.actions import (
    CHALLENGE,
    FACES,
    Bid,
    Challenge,
    LiarsDiceAction,
    Reroll,
    broken_bid_rule,
    face_counts,
    legal_texts,
    matching,
    parse_action,
    raises_after,
)
from arena.games.liars_dice.rules import LiarsDiceRules
from protocol.games.liars_dice import (
    BidMade,
    BidRecord,
    DiceRolled,
    LiarsDiceObservation,
    Rerolled,
    RerollRecord,
    Reveal,
    RoundStart,
)

_DEAL_KEYS = frozenset({"game_index", "first"})


class LiarsDiceGame(Game[LiarsDiceAction]):
    name: ClassVar[str] = "liars_dice"

    def __init__(
        self,
        rules: LiarsDiceRules,
        seed: MatchSeed,
        game_index: int = 0,
        first: int = 0,
    ) -> None:
        if not 0 <= first < rules.players:
            raise GameError(f"deal 'first' must name a seat 0..{rules.players - 1}, got {first}")
        self.rules = rules
        self.num_seats = rules.players
        self._seed = seed
        self._game_index = game_index
        self.dice_left = [rules.dice] * rules.players
        self.round = -1
        self.hands: list[list[int]] = []
        """The dice under each seat's cup, sorted."""
        self.revealed: list[list[int]] = []
        """The dice each seat has taken out of its cup this round (re-roll rule), sorted."""
        self.bids: list[tuple[int, Bid]] = []
        self.rerolls: list[RerollRecord] = []
        self.rerolled = False
        """Whether the seat to act has re-rolled this turn (it must bid)."""
        self.current = first
        self.over = False
        self._ones_bid = False
        self._events: list[GameEvent] = []
        self._history: list[dict[str, Any]] = []
        self._start_round(first)

    @classmethod
    def with_dice(
        cls, rules: LiarsDiceRules, hands: Sequence[Sequence[int]], first: int = 0
    ) -> LiarsDiceGame:
        """A round with the given dice instead of seeded ones: for test vectors and analysis.
        A series continues with seeded dice from the default seed's stream after this round."""
        if len(hands) != rules.players or any(len(h) != rules.dice for h in hands):
            raise GameError(f"need {rules.players} hands of {rules.dice} dice, got {hands!r}")
        if any(not 1 <= die <= FACES for hand in hands for die in hand):
            raise GameError(f"dice show faces 1 to {FACES}: {hands!r}")
        game = cls(rules, MatchSeed(bytes(32)), first=first)
        game.hands = [sorted(hand) for hand in hands]
        game._events = [
            event for event in game._events if not isinstance(event.payload, DiceRolled)
        ]
        for seat, hand in enumerate(game.hands):
            game._events.append(
                GameEvent(DiceRolled(round=0, seat=seat, dice=list(hand)), to=frozenset((seat,)))
            )
        return game

    # -- the Game interface -------------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self.over else (self.current,)

    def legal_actions(self, seat: int) -> list[LiarsDiceAction]:
        if self.over or seat != self.current:
            return []
        last = self.last_bid
        raises: list[LiarsDiceAction] = list(raises_after(last, self.min_open, self.total_dice))
        if self.rerolled:
            return raises
        head: list[LiarsDiceAction] = [] if last is None else [CHALLENGE]
        return head + raises + list(self._legal_rerolls(seat))

    def describe_legal(self, seat: int) -> tuple[list[str] | None, str | None]:
        # Requests list every action; the texts depend only on the last bid and the dice count.
        if self.over or seat != self.current:
            return [], None
        texts = legal_texts(self.last_bid, self.min_open, self.total_dice)
        if self.rerolled:
            return list(texts[0 if self.last_bid is None else 1 :]), None
        return list(texts) + [str(reroll) for reroll in self._legal_rerolls(seat)], None

    def is_legal(self, seat: int, action: LiarsDiceAction) -> bool:
        return self._broken_rule(seat, action) is None

    def parse_action(self, text: str) -> LiarsDiceAction:
        return parse_action(text)

    def apply(self, seat: int, action: LiarsDiceAction) -> None:
        broken = self._broken_rule(seat, action)
        if broken is not None:
            error = NotYourTurnError if seat != self.current or self.over else IllegalActionError
            raise error(broken)
        if isinstance(action, Challenge):
            self._resolve_challenge(seat)
            return
        if isinstance(action, Reroll):
            self._reroll(seat, action)
            return
        self.rerolled = False
        self.bids.append((seat, action))
        if action.face == 1:
            self._ones_bid = True
        self._events.append(
            GameEvent(BidMade(round=self.round, seat=seat, count=action.count, face=action.face))
        )
        self.current = self._next_in_play(seat)

    def observation(self, seat: int) -> LiarsDiceObservation:
        if not 0 <= seat < self.num_seats:
            # a negative index would otherwise show another seat's dice
            raise GameError(f"no seat {seat} in a {self.num_seats}-player game")
        return LiarsDiceObservation(
            seat=seat,
            round=self.round,
            dice=list(self.hands[seat]),
            dice_counts=list(self.dice_left),
            bids=self._bid_records(),
            to_act=None if self.over else self.current,
            ones_wild=self.ones_wild,
            min_open=self.min_open,
            over=self.over,
            reroll=self.rules.reroll,
            revealed=[list(dice) for dice in self.revealed],
            # copies: the records are the engine's own, and a bot may change what it is given
            rerolls=[record.model_copy(deep=True) for record in self.rerolls],
            must_bid=self.rerolled and not self.over,
        )

    def fallback_action(self, seat: int) -> LiarsDiceAction:
        if self.rerolled:
            return raises_after(self.last_bid, self.min_open, self.total_dice)[0]
        if self.last_bid is not None:
            return CHALLENGE
        return Bid(self.min_open, 1)

    def is_over(self) -> bool:
        return self.over

    def result(self) -> GameResult:
        if not self.over:
            raise GameError("the game is not over")
        if self.rules.series:
            winners = tuple(s for s in range(self.num_seats) if self.dice_left[s] > 0)
            reason = "last seat with dice"
        else:
            loser = self._history[-1]["loser"]
            winners = tuple(s for s in range(self.num_seats) if s != loser)
            reason = "challenge"
        scores = tuple(1.0 if s in winners else 0.0 for s in range(self.num_seats))
        detail = {"rounds": [dict(entry) for entry in self._history]}
        return GameResult(scores=scores, winners=winners, reason=reason, detail=detail)

    def drain_events(self) -> list[GameEvent]:
        events, self._events = self._events, []
        return events

    def copy(self) -> LiarsDiceGame:
        twin = object.__new__(LiarsDiceGame)
        twin.rules = self.rules
        twin.num_seats = self.num_seats
        twin._seed = self._seed
        twin._game_index = self._game_index
        twin.dice_left = list(self.dice_left)
        twin.round = self.round
        twin.hands = [list(hand) for hand in self.hands]
        twin.revealed = [list(dice) for dice in self.revealed]
        twin.bids = list(self.bids)
        twin.rerolls = list(self.rerolls)
        twin.rerolled = self.rerolled
        twin.current = self.current
        twin.over = self.over
        twin._ones_bid = self._ones_bid
        twin._events = list(self._events)
        twin._history = [dict(entry) for entry in self._history]
        return twin

    # -- queries ------------------------------------------------------------------------------

    @property
    def last_bid(self) -> Bid | None:
        return self.bids[-1][1] if self.bids else None

    @property
    def min_open(self) -> int:
        """The least opening count; a series may shrink the dice in play below the rule's."""
        return min(self.rules.min_open, self.total_dice)

    @property
    def total_dice(self) -> int:
        return sum(self.dice_left)

    @property
    def ones_wild(self) -> bool:
        """Ones are wild only under the rule and only until someone bids ones this round."""
        return self.rules.ones_wild and not self._ones_bid

    def count_showing(self, face: int) -> int:
        """Dice in play, under the cups and revealed, that count as ``face`` now (wild ones
        included while they are wild)."""
        return sum(matching(face_counts(dice), face, self.ones_wild) for dice in self.all_dice())

    def all_dice(self) -> list[list[int]]:
        """Every seat's dice, under its cup and revealed, sorted."""
        return [sorted(hand + shown) for hand, shown in zip(self.hands, self.revealed, strict=True)]

    # -- internals ----------------------------------------------------------------------------

    def _broken_rule(self, seat: int, action: LiarsDiceAction) -> str | None:
        """Which rule ``action`` breaks now, in words, or ``None`` when it is legal."""
        if self.over:
            return "the game is over"
        if seat != self.current:
            return f"seat {seat} may not act: it is seat {self.current}'s turn"
        last = self.last_bid
        if isinstance(action, Reroll):
            return self._broken_reroll(seat, action)
        if isinstance(action, Challenge):
            if last is None:
                return "there is no bid to challenge: the first player must bid"
            if self.rerolled:
                return f"seat {seat} has re-rolled this turn and must bid: it may not challenge"
            return None
        if not isinstance(action, Bid):
            return f"{action!r} is not a liar's dice action"
        return broken_bid_rule(action, last, self.min_open, self.total_dice)

    def _broken_reroll(self, seat: int, action: Reroll) -> str | None:
        if not self.rules.reroll:
            return (
                "re-rolling is not allowed: the ruleset's 'reroll' option (seed 002 §2.2 "
                "extension 2) is off"
            )
        if self.rerolled:
            return f"seat {seat} has already re-rolled this turn: after a re-roll it must bid"
        if not self._raise_left():
            return f"no bid is left above {self.last_bid}, and a re-roll must be followed by a bid"
        cup = Counter(self.hands[seat])
        for face, wanted in sorted(Counter(action.reveal).items()):
            if not 1 <= face <= FACES:
                return f"a die has faces 1 to {FACES}, not {face}"
            if cup[face] < wanted:
                return (
                    f"{action} shows {wanted} × {face} but seat {seat} has only {cup[face]} "
                    f"under its cup"
                )
        if len(action.reveal) >= len(self.hands[seat]):
            return (
                f"{action} leaves no die in the cup to re-roll: a re-roll shows fewer than the "
                f"{len(self.hands[seat])} dice under the cup"
            )
        return None

    def _raise_left(self) -> bool:
        """Whether some bid may still follow the standing one (a re-roll must lead to a bid)."""
        last = self.last_bid
        if last is None:
            return self.min_open <= self.total_dice
        return last < Bid(self.total_dice, FACES)

    def _legal_rerolls(self, seat: int) -> list[Reroll]:
        """Every legal re-roll: each choice of dice to show (fewer than all), fewest first."""
        if not self.rules.reroll or self.rerolled or not self._raise_left():
            return []
        cup = Counter(self.hands[seat])
        faces = sorted(cup)
        choices = []
        for shown in product(*(range(cup[face] + 1) for face in faces)):
            reveal = tuple(face for face, n in zip(faces, shown, strict=True) for _ in range(n))
            if len(reveal) < len(self.hands[seat]):
                choices.append(reveal)
        choices.sort(key=lambda reveal: (len(reveal), reveal))
        return [Reroll(reveal) for reveal in choices]

    def _reroll(self, seat: int, action: Reroll) -> None:
        cup = list(self.hands[seat])
        for face in action.reveal:
            cup.remove(face)
        stream = self._seed.stream(
            "liars_dice", "game", self._game_index, "round", self.round, "reroll", len(self.rerolls)
        )
        self.hands[seat] = sorted(roll_dice(stream, len(cup), FACES))
        self.revealed[seat] = sorted(self.revealed[seat] + list(action.reveal))
        self.rerolls.append(
            RerollRecord(
                seat=seat,
                revealed=list(action.reveal),
                rerolled=len(cup),
                after_bids=len(self.bids),
            )
        )
        self.rerolled = True
        self._events.append(
            GameEvent(
                Rerolled(
                    round=self.round,
                    seat=seat,
                    revealed=list(action.reveal),
                    rerolled=len(cup),
                    all_revealed=list(self.revealed[seat]),
                )
            )
        )
        self._events.append(
            GameEvent(
                DiceRolled(round=self.round, seat=seat, dice=list(self.hands[seat])),
                to=frozenset((seat,)),
            )
        )

    def _start_round(self, first: int) -> None:
        self.round += 1
        stream = self._seed.stream("liars_dice", "game", self._game_index, "round", self.round)
        rolled = roll_dice(stream, self.total_dice, FACES)
        self.hands = []
        at = 0
        for seat in range(self.num_seats):
            n = self.dice_left[seat]
            self.hands.append(sorted(rolled[at : at + n]))
            at += n
        self.revealed = [[] for _ in range(self.num_seats)]
        self.rerolls = []
        self.rerolled = False
        self.bids = []
        self._ones_bid = False
        self.current = first
        self._events.append(
            GameEvent(RoundStart(round=self.round, first=first, dice_counts=list(self.dice_left)))
        )
        for seat in range(self.num_seats):
            if self.dice_left[seat]:
                self._events.append(
                    GameEvent(
                        DiceRolled(round=self.round, seat=seat, dice=list(self.hands[seat])),
                        to=frozenset((seat,)),
                    )
                )

    def _next_in_play(self, seat: int) -> int:
        for step in range(1, self.num_seats + 1):
            candidate = (seat + step) % self.num_seats
            if self.dice_left[candidate]:
                return candidate
        raise GameError("no seat has dice left")

    def _bid_records(self) -> list[BidRecord]:
        return [BidRecord(seat=s, count=b.count, face=b.face) for s, b in self.bids]

    def _resolve_challenge(self, challenger: int) -> None:
        bidder, bid = self.bids[-1]
        wild = self.ones_wild
        actual = self.count_showing(bid.face)
        loser = challenger if actual >= bid.count else bidder
        revealed = self.all_dice()
        records = self._bid_records()
        if self.rules.series:
            self.dice_left[loser] -= 1
        self._history.append(
            {
                "round": self.round,
                "bidder": bidder,
                "challenger": challenger,
                "bid": f"{bid.count}x{bid.face}",
                "actual": actual,
                "ones_wild": wild,
                "loser": loser,
                **({"rerolls": len(self.rerolls)} if self.rules.reroll else {}),
            }
        )
        self._events.append(
            GameEvent(
                Reveal(
                    round=self.round,
                    challenger=challenger,
                    bidder=bidder,
                    count=bid.count,
                    face=bid.face,
                    dice=revealed,
                    ones_wild=wild,
                    actual=actual,
                    loser=loser,
                    bids=records,
                    dice_counts=list(self.dice_left),
                )
            )
        )
        in_play = [s for s in range(self.num_seats) if self.dice_left[s]]
        if not self.rules.series or len(in_play) <= 1:
            self.over = True
            return
        first = loser if self.dice_left[loser] else self._next_in_play(loser)
        self._start_round(first)


def new_game(rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]) -> LiarsDiceGame:
    """The `GameSpec` factory: checked rules, and the deal's ``game_index`` and ``first``."""
    checked = LiarsDiceRules.from_mapping(rules)
    for key in deal:
        if key not in _DEAL_KEYS:
            raise GameError(f"unknown liar's dice deal parameter {key!r}")
    game_index = deal.get("game_index", 0)
    first = deal.get("first", 0)
    if isinstance(game_index, bool) or not isinstance(game_index, int):
        raise GameError(f"deal 'game_index' must be an integer, got {game_index!r}")
    if isinstance(first, bool) or not isinstance(first, int):
        raise GameError(f"deal 'first' must be an integer, got {first!r}")
    return LiarsDiceGame(checked, seed, game_index=game_index, first=first)
