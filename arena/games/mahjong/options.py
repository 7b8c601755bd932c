"""What a seat may do now (the legal action lists), and, on the failure path, why not.

Legal lists are built once per decision from count tests and cached on the state by the engine;
their order is fixed (win, kongs, pon, chis, discards by tile, pass) so requests and records are
deterministic.
"""

from __future__ import annotations

from arena.games.mahjong import actions as A
from arena.games.mahjong.actions import MahjongAction
from arena.games.mahjong.analysis import is_winning
from arena.games.mahjong.payments import RON_WIN, TSUMO_WIN, WinHow, score_win
from arena.games.mahjong.rules import SEATS
from arena.games.mahjong.state import DISCARD, OVER, ROB, TILE_TEXT, HandState
from arena.games.mahjong.tiles import is_honour


def enough_tai(state: HandState, seat: int, how: WinHow, tile: int, from_seat: int | None) -> bool:
    """Whether the win reaches the ruleset's ``min_tai`` (always, in the competition)."""
    least = state.rules.min_tai
    if least == 0:
        return True
    return score_win(state, seat, how, tile, from_seat).score.tai >= least


def open_kong_replacement_barred(state: HandState) -> bool:
    """Whether the tile the seat on turn drew replaces its own open kong (明槓) under a ruleset
    where that tile may not win (``open_kong_replacement_win = false``, seed 003 §3.3)."""
    return state.after_open_kong and not state.rules.open_kong_replacement_win


def turn_options(state: HandState, seat: int) -> list[MahjongAction]:
    """After a draw: tsumo, kongs, discards. After a chi or pon: discards only."""
    row = state.counts[seat]
    options: list[MahjongAction] = []
    if not state.claimed_turn:
        drawn = state.drawn
        if (
            drawn >= 0
            and not open_kong_replacement_barred(state)
            and is_winning(row)
            and enough_tai(state, seat, TSUMO_WIN, drawn, None)
        ):
            options.append(A.TSUMO_ACTION)
        if state.can_draw(seat):
            options.extend(A.CKONGS[t] for t in range(34) if row[t] == 4)
            options.extend(
                A.AKONGS[e.meld.tiles[0]]
                for e in state.melds[seat]
                if e.meld.kind == "pon" and row[e.meld.tiles[0]]
            )
    options.extend(A.DISCARDS[t] for t in range(34) if row[t])
    return options


def claim_options(state: HandState, seat: int, tile: int, discarder: int) -> list[MahjongAction]:
    """Claims ``seat`` may make on ``discarder``'s ``tile`` (without the final pass)."""
    row = state.counts[seat]
    options: list[MahjongAction] = []
    if state.wins_on(seat, tile) and enough_tai(state, seat, RON_WIN, tile, discarder):
        options.append(A.RON_ACTION)
    held = row[tile]
    left = (seat - 1) % SEATS
    if (
        held >= 3
        and state.can_draw(seat)
        and (state.rules.open_kong_from_left or discarder != left)
    ):
        options.append(A.KONG_ACTION)
    if held >= 2:
        options.append(A.PON_ACTION)
    if discarder == left and not is_honour(tile):
        suit_start = tile - tile % 9
        for first in (tile - 2, tile - 1, tile):
            if first < suit_start or first % 9 > 6:
                continue
            if all(row[t] for t in (first, first + 1, first + 2) if t != tile):
                options.append(A.CHIS[first])
    return options


def not_due(state: HandState, seat: int) -> str:
    if state.phase == OVER:
        return "the hand is over"
    if not 0 <= seat < SEATS:
        return f"there is no seat {seat}"
    if state.phase == DISCARD:
        return f"seat {seat} may not act: it is seat {state.turn}'s turn"
    return f"seat {seat} has nothing to claim on {TILE_TEXT[state.claim_tile]}"


def why_illegal(state: HandState, seat: int, action: MahjongAction) -> str:
    """The rule ``action`` breaks for a due ``seat``, in words."""
    verb, tile = action.verb, action.tile
    least = state.rules.min_tai
    if state.phase == DISCARD:
        row = state.counts[seat]
        if verb in (A.RON, A.CHI, A.PON, A.KONG, A.PASS):
            return f"{verb} answers another seat's discard; on your turn discard, tsumo or kong"
        if verb == A.DISCARD:
            return f"you hold no {TILE_TEXT[tile]}"
        if state.claimed_turn:
            return "after a chi or pon you must discard"
        if verb == A.TSUMO:
            if state.drawn < 0:
                return "tsumo needs a tile you drew"
            if open_kong_replacement_barred(state) and is_winning(row):
                return (
                    "this ruleset allows no win on the replacement after your open kong "
                    "(open_kong_replacement_win = false, seed 003 §3.3): discard or kong"
                )
            if least and is_winning(row):
                return f"your hand wins with fewer than the {least} Tai this ruleset requires"
            return "your hand does not win"
        if not state.can_draw(seat):
            return "no tile is left for the replacement draw a kong needs"
        if verb == A.CKONG:
            return f"a concealed kong needs four {TILE_TEXT[tile]} in hand, you hold {row[tile]}"
        return f"an added kong needs your pon of {TILE_TEXT[tile]} and the fourth tile in hand"
    claim = TILE_TEXT[state.claim_tile]
    if state.phase == ROB:
        if verb == A.RON:
            if least and state.wins_on(seat, state.claim_tile):
                return (
                    f"robbing the kong with {claim} scores fewer than the {least} Tai this "
                    "ruleset requires"
                )
            return f"{claim}, added to a pon, does not complete your hand: pass"
        return f"on a tile added to a pon you may only ron or pass ({action} is neither)"
    if verb in (A.DISCARD, A.TSUMO, A.CKONG, A.AKONG):
        return f"it is not your turn: answer the discard {claim} with a claim or pass"
    if verb == A.RON:
        if least and state.wins_on(seat, state.claim_tile):
            return f"ron on {claim} scores fewer than the {least} Tai this ruleset requires"
        return f"{claim} does not complete your hand"
    if verb == A.CHI:
        if state.claim_from != (seat - 1) % SEATS:
            return "chi is only on the discard of the seat before you (上家)"
        return f"{action} does not use the discard {claim} with two tiles you hold"
    if verb == A.KONG and state.counts[seat][state.claim_tile] >= 3:
        if not state.can_draw(seat):
            return "no tile is left for the replacement draw a kong needs"
        return (
            "this ruleset allows no open kong on the discard of the seat before you "
            "(open_kong_from_left = false, seed 003 §2.1)"
        )
    return f"{verb} needs {'three' if verb == A.KONG else 'two'} {claim} in your hand"
