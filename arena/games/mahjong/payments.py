"""From a win on the table to the Tai scorer and the payments.

The engine knows how the hand was won; this module turns that into the scorer's `WinContext`
(self-draw, seat wind, 海底, 槓上開花, 搶槓, 天胡/地胡/人胡) and lets `scoring.settle` apply
seed 003's payment rule: base + 500 × Tai, the discarder paying a discard win alone, each of the
three paying a self-draw, and the dealer's 莊家 Tai in every payment the dealer makes or receives.
A self-draw on the replacement after one's own open kong is 槓上開花 only where the ruleset lets it
win at all (``open_kong_replacement_win``, off in the competition: seed 003 §3.3).

Under the ``flowers`` option the context carries the winner's exposed flowers (正花, 花槓), a win
on a replacement drawn after 補花 is 槓上開花 as after a kong (seed 003 table 2-1: "槓牌後補牌或
補花就胡牌可加算槓上開花") unless it is a first-turn win, and `score_flowers` scores 八仙過海 (paid
as a self-draw) and 七搶一 (paid by the seat that exposed the eighth flower, as a discard win).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from arena.games.errors import GameError
from arena.games.mahjong.rules import SEATS
from arena.games.mahjong.scoring import (
    ScoreResult,
    WinContext,
    score_flower_win,
    score_hand,
    settle,
)
from arena.games.mahjong.state import HandState
from arena.games.mahjong.tiles import WINDS

WinHow = Literal["tsumo", "ron", "rob_kong", "rob_flower"]

TSUMO_WIN: Final = "tsumo"
RON_WIN: Final = "ron"
ROB_WIN: Final = "rob_kong"
ROB_FLOWER_WIN: Final = "rob_flower"
"""七搶一: won on the eighth flower another seat exposed."""


@dataclass(frozen=True, slots=True)
class ScoredWin:
    seat: int
    how: WinHow
    tile: int
    from_seat: int | None
    concealed: tuple[int, ...]
    """The winner's concealed tiles without the winning tile."""
    score: ScoreResult
    payments: tuple[int, ...]


def win_context(state: HandState, seat: int, how: WinHow) -> WinContext:
    self_drawn = how == TSUMO_WIN
    first_turn = state.uninterrupted and not state.after_kong
    dealer = seat == state.dealer
    heavenly = self_drawn and dealer and first_turn and state.draws[seat] == 1
    earthly = self_drawn and not dealer and first_turn and state.draws[seat] == 1
    # 補花 before a first-turn win does not spoil 天胡/地胡, which then take the place of 槓上開花.
    after_flower = state.after_flower and not (heavenly or earthly)
    return WinContext(
        self_drawn=self_drawn,
        seat_wind=state.wind(seat),
        round_wind=WINDS[state.round_index % SEATS],
        dealer=dealer,
        last_tile=state.last_tile and how != ROB_WIN,
        after_kong=self_drawn and (state.after_kong or after_flower),
        robbing_kong=how == ROB_WIN,
        heavenly=heavenly,
        earthly=earthly,
        human=how == RON_WIN and first_turn and state.draws[seat] == 0,
        flowers=tuple(state.flowers[seat]),
    )


def score_win(
    state: HandState, seat: int, how: WinHow, tile: int, from_seat: int | None
) -> ScoredWin:
    """Score ``seat``'s win on ``tile`` and settle who pays it."""
    # The legal lists never offer this win; scoring it anyway would pay a 槓上開花 the ruleset
    # forbids, so a caller that skipped them fails here rather than settling it.
    if how == TSUMO_WIN and state.after_open_kong and not state.rules.open_kong_replacement_win:
        raise GameError("the ruleset allows no win on the replacement after an open kong")
    counts = list(state.counts[seat])
    if how == TSUMO_WIN:
        counts[tile] -= 1
    concealed = tuple(t for t in range(34) for _ in range(counts[t]))
    melds = [exposed.meld for exposed in state.melds[seat]]
    rules = state.rules.scoring
    score = score_hand(concealed, melds, tile, win_context(state, seat, how), rules)
    payments = settle(
        score, winner=seat, dealer=state.dealer, discarder=from_seat, rules=rules, seats=SEATS
    )
    _check_zero_sum(payments)
    return ScoredWin(seat, how, tile, from_seat, concealed, score, payments)


def score_flowers(state: HandState, seat: int, flower: int, from_seat: int | None) -> ScoredWin:
    """Score ``seat``'s win of flowers on ``flower``: 八仙過海 when ``from_seat`` is None (the
    seat exposed its eighth), else 七搶一 (``from_seat`` holds the eighth, ``flower``, and pays
    alone)."""
    how: WinHow = TSUMO_WIN if from_seat is None else ROB_FLOWER_WIN
    dealer = seat == state.dealer
    held = tuple(state.flowers[seat])
    ctx = WinContext(
        self_drawn=from_seat is None,
        seat_wind=state.wind(seat),
        round_wind=WINDS[state.round_index % SEATS],
        dealer=dealer,
        flowers=held,
    )
    rules = state.rules.scoring
    score = score_flower_win(flower, ctx, rules)
    payments = settle(
        score, winner=seat, dealer=state.dealer, discarder=from_seat, rules=rules, seats=SEATS
    )
    _check_zero_sum(payments)
    concealed = tuple(t for t in range(34) for _ in range(state.counts[seat][t]))
    return ScoredWin(seat, how, flower, from_seat, concealed, score, payments)


def _check_zero_sum(payments: Sequence[int]) -> None:
    """Every hand is zero-sum; checked with a raise, since `python -O` drops an assert."""
    if sum(payments) != 0:
        raise GameError(f"payments {list(payments)} are not zero-sum")
