"""The Taiwan 16-tile mahjong engine for one hand (seed 003 §2.1). Pure and deterministic.

Flow: the dealer draws first (17 tiles) and then every turn is draw → (tsumo | kong → replacement
draw | discard). After a discard every seat that could win, pon, kong or (the next seat only)
chi on it is due at once; the engine resolves the claims when all of them have answered: win
beats pon/kong beats chi, and with several wins the ruleset's ``multiple_wins`` decides. After a
chi or pon the claimer discards; after an open kong it draws a replacement from the tail, on
which it may not win when ``open_kong_replacement_win`` is off (the competition: seed 003 §3.3,
"明槓後無法胡牌"), so it can only kong again or discard. An added kong first lets every seat
that waits on that tile rob it (搶槓). The hand is exhaustively drawn when a draw is due and the
wall is down to its reserve (16 tiles).

With the ``claims_ask_every_seat`` ruleset option all three other seats are due after every
discard and every added kong, a seat with nothing to claim being offered ``pass`` alone, so who
is asked (and so how long the others wait) depends on public facts only. The claims are
resolved exactly as without it: the option adds ``pass`` decisions and changes nothing else.

With the ``flowers`` ruleset option (a wall of 144) flowers never stay in a hand and the engine
asks no one about them: after the deal, in rounds, each seat from the dealer exposes the flowers
it holds and draws as many replacements from the tail, until no seat holds one; during play a
flower drawn (a kong's or a flower's replacement included) is exposed at once and replaced from
the tail. Exposing the last flower ends the hand in 八仙過海 (the exposer holds all eight) or
七搶一 (another seat holds the other seven).

``deal`` = ``{"round": r, "hand": h, "scores": [...]}``: the wall is round ``r``'s (see
`wall.py`), the dealer is seat ``h`` (0-3), ``scores`` (optional) are the match points before
the hand, shown in observations.

Fallback actions (played by the referee for a seat that fails to answer): on its turn, discard
the tile it drew, or its highest concealed tile when it drew none (after a chi or pon); on a
claim or a robbing chance, pass. The fallback never wins and never calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from arena.dealing import MatchSeed
from arena.games.base import Game, GameEvent, GameResult, GameSpec
from arena.games.errors import GameError, IllegalActionError, NotYourTurnError
from arena.games.mahjong import actions as A
from arena.games.mahjong.actions import MahjongAction, parse_action
from arena.games.mahjong.flowers import dealt_flowers, expose_flower
from arena.games.mahjong.observe import observation, win_event
from arena.games.mahjong.options import (
    claim_options,
    enough_tai,
    not_due,
    turn_options,
    why_illegal,
)
from arena.games.mahjong.payments import (
    ROB_WIN,
    RON_WIN,
    TSUMO_WIN,
    ScoredWin,
    score_win,
)
from arena.games.mahjong.render import render_event
from arena.games.mahjong.rules import SEATS, MahjongRules
from arena.games.mahjong.state import (
    CLAIM,
    DISCARD,
    OVER,
    ROB,
    TILE_TEXT,
    WIND_LETTERS,
    Exposed,
    HandState,
    counts_text,
)
from arena.games.mahjong.tiles import FLOWER_BASE, Meld, MeldKind, format_tiles
from arena.games.mahjong.wall import Wall, round_wall
from arena.games.mahjong.wall import wall_tiles as wall_tiles_of
from protocol.games.mahjong import (
    Claimed,
    Dealt,
    Discarded,
    Drew,
    FlowerExposed,
    HandEnd,
    HandStart,
    KongDeclared,
    MahjongObservation,
    OtherDrew,
)

_DEAL_KEYS = frozenset({"round", "hand", "scores"})
_ALL = frozenset(range(SEATS))
_OTHERS = tuple(_ALL - {seat} for seat in range(SEATS))
_ONLY = tuple(frozenset({seat}) for seat in range(SEATS))


class MahjongGame(Game[MahjongAction]):
    name: ClassVar[str] = "mahjong"

    def __init__(
        self,
        rules: MahjongRules,
        wall_tiles: Sequence[int],
        round_index: int = 0,
        hand_index: int = 0,
        scores: Sequence[int] | None = None,
    ) -> None:
        """A hand on the wall ``wall_tiles`` (136 tiles in draw order, 144 with the flowers
        option, see `wall.py`); `new_game` takes the wall from the match seed, tests and analysis
        tools may set one up."""
        if not 0 <= hand_index < SEATS:
            raise GameError(f"deal 'hand' must be 0..{SEATS - 1}, got {hand_index}")
        if round_index < 0:
            raise GameError(f"deal 'round' must be >= 0, got {round_index}")
        if sorted(wall_tiles) != list(wall_tiles_of(rules.flowers)):
            raise GameError(
                "a wall holds the 136 tiles, four of each of the 34 kinds"
                + (", and the eight flowers 1f-8f once each" if rules.flowers else "")
            )
        self.num_seats = SEATS
        self.rules = rules
        wall = Wall(list(wall_tiles), rules.reserve, rules.per_seat_draws)
        points = [0] * SEATS if scores is None else [int(s) for s in scores]
        self.s = HandState(rules, wall, hand_index, round_index, hand_index, points)
        self._events: list[GameEvent] = []
        s = self.s
        self._events.append(
            GameEvent(
                HandStart(
                    round=round_index,
                    hand=hand_index,
                    dealer=s.dealer,
                    winds=[WIND_LETTERS[s.position(seat)] for seat in range(SEATS)],
                    wall=wall.live(),
                    scores=list(points),
                )
            )
        )
        held_flowers = dealt_flowers(s)
        for seat in range(SEATS):
            tiles = counts_text(s.counts[seat])
            if held_flowers[seat]:
                tiles += format_tiles(held_flowers[seat])
            self._events.append(GameEvent(Dealt(seat=seat, tiles=tiles), _ONLY[seat]))
        if any(held_flowers) and not self._deal_flowers(held_flowers):
            return
        self._draw(s.dealer, replacement=False)

    # -- the Game interface ---------------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        s = self.s
        if s.phase == DISCARD:
            return (s.turn,)
        return tuple(s.due)

    def legal_actions(self, seat: int) -> list[MahjongAction]:
        return self.s.legal.get(seat, [])

    def is_legal(self, seat: int, action: MahjongAction) -> bool:
        return action in self.s.legal.get(seat, ())

    def parse_action(self, text: str) -> MahjongAction:
        return parse_action(text)

    def apply(self, seat: int, action: MahjongAction) -> None:
        s = self.s
        legal = s.legal.get(seat)
        if legal is None:
            raise NotYourTurnError(not_due(s, seat))
        if action not in legal:
            raise IllegalActionError(why_illegal(s, seat, action))
        if s.phase == DISCARD:
            self._own_turn(seat, action)
        else:
            s.answers[seat] = action
            s.due.remove(seat)
            del s.legal[seat]
            if not s.due:
                if s.phase == CLAIM:
                    self._resolve_claims()
                else:
                    self._resolve_rob()

    def observation(self, seat: int) -> MahjongObservation:
        if not 0 <= seat < SEATS:
            # a negative index would otherwise show another seat's concealed tiles
            raise GameError(f"no seat {seat} in a {SEATS}-seat game")
        return observation(self.s, seat)

    def fallback_action(self, seat: int) -> MahjongAction:
        s = self.s
        if s.phase == DISCARD and seat == s.turn:
            if s.drawn >= 0:
                return A.DISCARDS[s.drawn]
            row = s.counts[seat]
            return A.DISCARDS[max(t for t in range(34) if row[t])]
        return A.PASS_ACTION

    def is_over(self) -> bool:
        return self.s.phase == OVER

    def result(self) -> GameResult:
        s = self.s
        if s.phase != OVER:
            raise GameError("the hand is not over")
        winners = tuple(int(win["seat"]) for win in s.wins)
        detail: dict[str, Any] = {
            "round": s.round_index,
            "hand": s.hand_index,
            "dealer": s.dealer,
            "wins": [dict(win) for win in s.wins],
            "deltas": list(s.deltas),
            "wall": s.wall.live(),
        }
        return GameResult(
            scores=tuple(float(d) for d in s.deltas),
            winners=winners,
            reason=s.reason,
            detail=detail,
        )

    def drain_events(self) -> list[GameEvent]:
        events, self._events = self._events, []
        return events

    def copy(self) -> MahjongGame:
        twin = object.__new__(MahjongGame)
        twin.num_seats = SEATS
        twin.rules = self.rules
        twin.s = self.s.copy()
        twin._events = list(self._events)
        return twin

    # -- flowers (補花) ---------------------------------------------------------------------------

    def _deal_flowers(self, held: list[list[int]]) -> bool:
        """補花 after the deal: rounds in which each seat from the dealer exposes the flowers it
        holds and then draws as many replacements from the tail; a replacement flower waits for
        the next round. False when the hand ended (a win of flowers, or no tile left)."""
        s = self.s
        order = [(s.dealer + step) % SEATS for step in range(SEATS)]
        while any(held):
            for seat in order:
                found, held[seat] = held[seat], []
                for flower in found:
                    if self._expose_flower(seat, flower):
                        return False
                for _ in found:
                    position = s.position(seat)
                    if not s.wall.can_draw(position):
                        self._exhaustive()
                        return False
                    tile, _last = s.wall.draw(position, True)
                    self._announce_draw(seat, tile, True)
                    if tile >= FLOWER_BASE:
                        held[seat].append(tile)
                    else:
                        s.counts[seat][tile] += 1
        return True

    def _expose_flower(self, seat: int, flower: int) -> bool:
        """Put ``flower`` face up; True when that ended the hand (八仙過海 or 七搶一)."""
        self._events.append(GameEvent(FlowerExposed(seat=seat, tile=TILE_TEXT[flower])))
        win = expose_flower(self.s, seat, flower)
        if win is not None:
            self._finish([win])
        return win is not None

    def _announce_draw(self, seat: int, tile: int, replacement: bool) -> None:
        live = self.s.wall.live()
        self._events.append(
            GameEvent(
                Drew(seat=seat, tile=TILE_TEXT[tile], replacement=replacement, wall=live),
                _ONLY[seat],
            )
        )
        self._events.append(
            GameEvent(OtherDrew(seat=seat, replacement=replacement, wall=live), _OTHERS[seat])
        )

    # -- own turn -------------------------------------------------------------------------------

    def _draw(
        self, seat: int, replacement: bool, flower: bool = False, open_kong: bool = False
    ) -> None:
        """Draw for ``seat``: from the head, or from the tail after a kong (``replacement``) or a
        flower (``flower``). A flower is exposed and replaced at once; only a drawn tile that
        is no flower's replacement counts for the first-turn wins. ``open_kong``: the draw
        replaces the seat's open kong (明槓); it stays set through the flowers that replace it,
        so whether a flower came in between never changes whether the tile may win."""
        s = self.s
        position = s.position(seat)
        if not s.wall.can_draw(position):
            self._exhaustive()
            return
        tile, last = s.wall.draw(position, replacement or flower)
        if not flower:
            s.draws[seat] += 1
        if tile >= FLOWER_BASE:
            self._announce_draw(seat, tile, replacement or flower)
            if not self._expose_flower(seat, tile):
                self._draw(seat, replacement, flower=True, open_kong=open_kong)
            return
        s.counts[seat][tile] += 1
        s.phase = DISCARD
        s.turn = seat
        s.drawn = tile
        s.after_kong = replacement
        s.after_open_kong = open_kong
        s.after_flower = flower
        s.last_tile = last
        s.claimed_turn = False
        self._announce_draw(seat, tile, replacement or flower)
        s.legal = {seat: turn_options(s, seat)}

    def _own_turn(self, seat: int, action: MahjongAction) -> None:
        s = self.s
        verb = action.verb
        if verb == A.DISCARD:
            self._discard(seat, action.tile)
        elif verb == A.TSUMO:
            self._finish([score_win(s, seat, TSUMO_WIN, s.drawn, None)])
        elif verb == A.CKONG:
            tile = action.tile
            s.counts[seat][tile] = 0
            s.melds[seat].append(Exposed(Meld(MeldKind.CONCEALED_KONG, (tile,) * 4), None))
            s.uninterrupted = False
            s.last = f"seat {seat}: ckong"
            self._events.append(
                GameEvent(KongDeclared(seat=seat, meld="ckong", tile=TILE_TEXT[tile]), _ONLY[seat])
            )
            self._events.append(
                GameEvent(KongDeclared(seat=seat, meld="ckong", tile=None), _OTHERS[seat])
            )
            self._draw(seat, replacement=True)
        else:
            self._declare_added_kong(seat, action.tile)

    def _discard(self, seat: int, tile: int) -> None:
        s = self.s
        s.counts[seat][tile] -= 1
        s.river[seat].append(tile)
        s.drawn = -1
        s.last = f"seat {seat}: discard {TILE_TEXT[tile]}"
        self._events.append(GameEvent(Discarded(seat=seat, tile=TILE_TEXT[tile])))
        s.claim_tile = tile
        s.claim_from = seat
        s.answers = {}
        # Seats with no claim are asked too under claims_ask_every_seat: a referee waits only
        # for the seats it asks, so over a network the delay before the next event would tell
        # the others whether anyone could claim.
        ask_all = self.rules.claims_ask_every_seat
        legal: dict[int, list[MahjongAction]] = {}
        for step in (1, 2, 3):
            other = (seat + step) % SEATS
            options = claim_options(s, other, tile, seat)
            if options or ask_all:
                options.append(A.PASS_ACTION)
                legal[other] = options
        if legal:
            s.phase = CLAIM
            s.due = list(legal)
            s.legal = legal
        else:
            s.legal = {}
            self._draw((seat + 1) % SEATS, replacement=False)

    def _declare_added_kong(self, seat: int, tile: int) -> None:
        s = self.s
        s.last = f"seat {seat}: akong {TILE_TEXT[tile]}"
        s.uninterrupted = False
        self._events.append(GameEvent(KongDeclared(seat=seat, meld="akong", tile=TILE_TEXT[tile])))
        # The added tile stays in the declarer's hand until no one robs it, so every tile is
        # somewhere while the others decide.
        # As on a discard: under claims_ask_every_seat a seat that cannot rob is asked too, so
        # the wait does not show that another seat waits on the added tile.
        ask_all = self.rules.claims_ask_every_seat
        legal: dict[int, list[MahjongAction]] = {}
        for step in (1, 2, 3):
            other = (seat + step) % SEATS
            if s.wins_on(other, tile) and enough_tai(s, other, ROB_WIN, tile, seat):
                legal[other] = [A.RON_ACTION, A.PASS_ACTION]
            elif ask_all:
                legal[other] = [A.PASS_ACTION]
        s.claim_tile = tile
        s.claim_from = seat
        s.answers = {}
        if legal:
            s.phase = ROB
            s.due = list(legal)
            s.legal = legal
        else:
            self._complete_added_kong()

    def _complete_added_kong(self) -> None:
        s = self.s
        seat, tile = s.claim_from, s.claim_tile
        index = s.pon_of(seat, tile)
        s.counts[seat][tile] -= 1
        s.melds[seat][index] = Exposed(
            Meld(MeldKind.ADDED_KONG, (tile,) * 4), s.melds[seat][index].from_seat
        )
        s.claim_tile = -1
        s.claim_from = -1
        self._draw(seat, replacement=True)

    # -- claims -----------------------------------------------------------------------------------

    def _resolve_claims(self) -> None:
        s = self.s
        tile, discarder = s.claim_tile, s.claim_from
        order = [(discarder + step) % SEATS for step in (1, 2, 3)]
        answers = s.answers
        rons = [seat for seat in order if answers.get(seat) is A.RON_ACTION]
        if rons:
            if self.rules.multiple_wins == "first":
                rons = rons[:1]
            wins = [score_win(s, seat, RON_WIN, tile, discarder) for seat in rons]
            s.river[discarder].pop()
            s.counts[rons[0]][tile] += 1
            self._finish(wins)
            return
        chosen = next(
            (
                (seat, answers[seat])
                for seat in order
                if answers.get(seat, A.PASS_ACTION).verb in (A.PON, A.KONG)
            ),
            None,
        ) or next(
            (
                (seat, answers[seat])
                for seat in order
                if answers.get(seat, A.PASS_ACTION).verb == A.CHI
            ),
            None,
        )
        s.claim_tile = -1
        s.claim_from = -1
        s.answers = {}
        if chosen is None:
            s.legal = {}
            self._draw((discarder + 1) % SEATS, replacement=False)
            return
        seat, action = chosen
        s.river[discarder].pop()
        s.uninterrupted = False
        s.last_tile = False
        row = s.counts[seat]
        if action.verb == A.CHI:
            run = (action.tile, action.tile + 1, action.tile + 2)
            for t in run:
                if t != tile:
                    row[t] -= 1
            meld = Meld(MeldKind.CHI, run)
        elif action.verb == A.PON:
            row[tile] -= 2
            meld = Meld(MeldKind.PON, (tile,) * 3)
        else:
            row[tile] -= 3
            meld = Meld(MeldKind.KONG, (tile,) * 4)
        s.melds[seat].append(Exposed(meld, discarder))
        s.last = f"seat {seat}: {action.verb} {format_tiles(meld.tiles)}"
        self._events.append(
            GameEvent(
                Claimed(
                    seat=seat,
                    meld=action.verb,
                    tiles=format_tiles(meld.tiles),
                    tile=TILE_TEXT[tile],
                    from_seat=discarder,
                )
            )
        )
        if action.verb == A.KONG:
            self._draw(seat, replacement=True, open_kong=True)
            return
        s.phase = DISCARD
        s.turn = seat
        s.drawn = -1
        s.after_kong = False
        s.after_open_kong = False
        s.claimed_turn = True
        s.legal = {seat: turn_options(s, seat)}

    def _resolve_rob(self) -> None:
        s = self.s
        tile, declarer = s.claim_tile, s.claim_from
        order = [(declarer + step) % SEATS for step in (1, 2, 3)]
        rons = [seat for seat in order if s.answers.get(seat) is A.RON_ACTION]
        s.answers = {}
        if not rons:
            s.legal = {}
            self._complete_added_kong()
            return
        if self.rules.multiple_wins == "first":
            rons = rons[:1]
        wins = [score_win(s, seat, ROB_WIN, tile, declarer) for seat in rons]
        s.counts[declarer][tile] -= 1
        s.counts[rons[0]][tile] += 1
        self._finish(wins)

    # -- the end ----------------------------------------------------------------------------------

    def _finish(self, wins: list[ScoredWin]) -> None:
        s = self.s
        deltas = [0] * SEATS
        for win in wins:
            self._events.append(GameEvent(win_event(s, win)))
            for seat, amount in enumerate(win.payments):
                deltas[seat] += amount
            s.wins.append(
                {
                    "seat": win.seat,
                    "how": win.how,
                    "tile": TILE_TEXT[win.tile],
                    "from_seat": win.from_seat,
                    "tai": win.score.tai,
                    "breakdown": [[name, tai] for name, tai in win.score.breakdown],
                    "payments": list(win.payments),
                }
            )
        if sum(deltas) != 0:  # not an assert: `python -O` would drop it
            raise GameError(f"hand deltas {deltas} are not zero-sum")
        s.deltas = deltas
        s.reason = wins[0].how
        s.last = f"seat {wins[0].seat}: {wins[0].how}"
        self._end("win", [win.seat for win in wins])

    def _exhaustive(self) -> None:
        self.s.reason = "exhaustive"
        self._end("exhaustive", [])

    def _end(self, reason: Literal["win", "exhaustive"], winners: list[int]) -> None:
        s = self.s
        s.phase = OVER
        s.due = []
        s.legal = {}
        s.drawn = -1
        self._events.append(
            GameEvent(HandEnd(reason=reason, winners=winners, deltas=list(s.deltas)))
        )


def new_game(rules: Mapping[str, Any], seed: MatchSeed, deal: Mapping[str, Any]) -> MahjongGame:
    for key in deal:
        if key not in _DEAL_KEYS:
            raise GameError(
                f"unknown mahjong deal key {key!r}; known: {', '.join(sorted(_DEAL_KEYS))}"
            )
    round_index = deal.get("round", 0)
    hand_index = deal.get("hand", 0)
    scores = deal.get("scores")
    for key, value in (("round", round_index), ("hand", hand_index)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise GameError(f"deal {key!r} must be an integer, got {value!r}")
    if scores is not None and (
        not isinstance(scores, list | tuple)
        or len(scores) != SEATS
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in scores)
    ):
        raise GameError(f"deal 'scores' must be {SEATS} integers, got {scores!r}")
    table_rules = MahjongRules.from_mapping(rules)
    return MahjongGame(
        table_rules,
        round_wall(seed, round_index, table_rules.flowers) if round_index >= 0 else [],
        round_index,
        hand_index,
        scores,
    )


ACTION_GRAMMAR: tuple[str, ...] = (
    "discard <tile> — your turn: discard a tile, e.g. discard 5m",
    "tsumo — your turn: win on the tile you drew (自摸)",
    "ckong <tile> — your turn: concealed kong of four tiles in hand, e.g. ckong 1z",
    "akong <tile> — your turn: add the fourth tile to your pon, e.g. akong 5p",
    "ron — win on the discard (or on a tile added to a pon: 搶槓)",
    "chi <run> — the discard of the seat before you into a run, e.g. chi 345m",
    "pon — the discard into a pung with two tiles you hold",
    "kong — the discard into an open kong with three tiles you hold",
    "pass — make no claim",
)

LONGEST_HAND = 368
"""The most decisions a legal hand takes, whatever the rules. Each turn decision (discard,
tsumo, kong) follows a non-flower tile coming to the seat's hand, drawn or claimed: at most the
136 − 64 dealt = 72 drawn (flowers are replaced, never decided on), and at most 20 chi/pon
claims (a seat's 16 tiles hold at most five melds). Each turn decision is followed by at most
three others (the claims on a discard, the robs of an added kong): 4 × (72 + 20) = 368."""

SPEC = GameSpec(
    name="mahjong",
    new_game=new_game,
    seats=(SEATS,),
    default_rules=MahjongRules().to_mapping(),
    title="Taiwan 16-tile mahjong (one hand)",
    action_grammar=ACTION_GRAMMAR,
    render_event=render_event,
    max_decisions=2 * LONGEST_HAND,  # twice the longest legal hand
)
