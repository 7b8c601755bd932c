"""What each seat may see: the observation and the event payloads, built from a `HandState`.

A seat sees its own concealed tiles and its own drawn tile; of the others it sees how many
concealed tiles they hold, their discards and their exposed sets. Another seat's concealed
kong shows as a kong without its tile (the tiles lie face down, as at a real table) until that
seat wins and shows its hand. The wall order is never shown, only how many tiles may still be
drawn. Exposed flowers (the ``flowers`` ruleset option) are public.
"""

from __future__ import annotations

from arena.games.mahjong.payments import ScoredWin
from arena.games.mahjong.rules import SEATS
from arena.games.mahjong.state import (
    DISCARD,
    OVER,
    TILE_TEXT,
    WIND_LETTERS,
    HandState,
    counts_text,
)
from arena.games.mahjong.tiles import format_tiles
from protocol.games.mahjong import MahjongObservation, TaiRow, Win


def observation(state: HandState, seat: int) -> MahjongObservation:
    phase = state.phase
    turn = state.turn if phase in (OVER, DISCARD) else state.claim_from
    drawn = state.drawn if phase == DISCARD and state.turn == seat else -1
    return MahjongObservation(
        seat=seat,
        round=state.round_index,
        hand=state.hand_index,
        dealer=state.dealer,
        seat_wind=WIND_LETTERS[state.position(seat)],
        tiles=counts_text(state.counts[seat]),
        drawn=TILE_TEXT[drawn] if drawn >= 0 else None,
        melds=[
            [e.shown if other == seat else e.hidden for e in state.melds[other]]
            for other in range(SEATS)
        ],
        discards=[[TILE_TEXT[t] for t in river] for river in state.river],
        concealed_counts=[sum(row) for row in state.counts],
        flowers=[[TILE_TEXT[t] for t in row] for row in state.flowers]
        if state.rules.flowers
        else None,
        wall=state.wall.live(),
        scores=list(state.scores),
        phase=phase,
        turn=turn,
        claim_tile=TILE_TEXT[state.claim_tile] if phase in ("claim", "rob_kong") else None,
        last=state.last,
    )


def win_event(state: HandState, win: ScoredWin) -> Win:
    return Win(
        seat=win.seat,
        how=win.how,
        tile=TILE_TEXT[win.tile],
        from_seat=win.from_seat,
        tiles=format_tiles(win.concealed),
        melds=[exposed.shown for exposed in state.melds[win.seat]],
        tai=win.score.tai,
        breakdown=[TaiRow(name=name, tai=tai) for name, tai in win.score.breakdown],
        payments=list(win.payments),
    )
