"""From a win on the table to the Tai scorer and the payments.

The engine knows how the hand was won; this module turns that into the scorer's `WinContext`
(self-draw, seat wind, 海底, 槓上開花, 搶槓, 天胡/地胡/人胡) and lets `scoring.settle` apply
seed 003's payment rule: base + 500 × Tai, the discarder paying a discard win alone, each of the
three paying a self-draw, and the dealer's 莊家 Tai in every payment the dealer makes or receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from arena.games.mahjong.rules import SEATS
from arena.games.mahjong.scoring import ScoreResult, WinContext, score_hand, settle
from arena.games.mahjong.state import HandState
from arena.games.mahjong.tiles import WINDS

WinHow = Literal["tsumo", "ron", "rob_kong"]

TSUMO_WIN: Final = "tsumo"
RON_WIN: Final = "ron"
ROB_WIN: Final = "rob_kong"


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
    return WinContext(
        self_drawn=self_drawn,
        seat_wind=state.wind(seat),
        round_wind=WINDS[state.round_index % SEATS],
        dealer=dealer,
        last_tile=state.last_tile and how != ROB_WIN,
        after_kong=self_drawn and state.after_kong,
        robbing_kong=how == ROB_WIN,
        heavenly=self_drawn and dealer and first_turn and state.draws[seat] == 1,
        earthly=self_drawn and not dealer and first_turn and state.draws[seat] == 1,
        human=how == RON_WIN and first_turn and state.draws[seat] == 0,
    )


def score_win(
    state: HandState, seat: int, how: WinHow, tile: int, from_seat: int | None
) -> ScoredWin:
    """Score ``seat``'s win on ``tile`` and settle who pays it."""
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
    assert sum(payments) == 0, f"payments {payments} are not zero-sum"
    return ScoredWin(seat, how, tile, from_seat, concealed, score, payments)
