"""What each seat of each game must not see, for the conformance suite (tests/conformance.py).

Two hooks per game, keyed by the engine's ``name`` in `HIDDEN_INFORMATION`:

- ``secrets(game, seat)``: the other seats' private facts as the protocol renders them; no
  observation or event delivered to ``seat`` may contain one (a text match: it catches a secret
  copied into a message, under its usual field name).
- ``resample(game, seat, rng)``: a copy of ``game`` in which everything ``seat`` cannot see (the
  other cups, the other hands and the wall, the referee's code) is drawn again, consistently with
  what ``seat`` has seen; ``None`` when nothing is hidden from it now. The suite demands that
  ``seat`` cannot tell the two apart: the same observation, the same legal actions (and request
  text), the same fallback. This catches what a text match cannot: a secret under another field
  name, one wall tile, a count or a flag that depends on another seat's hand. The copies made at
  the start of a step then take the step's actions too, and must deliver to ``seat`` the events
  the game delivered to it (a count or a tile of another seat's in an event).

Two more, for that comparison of events, where a game needs them:

- ``reveals(event, seat)``: the event kinds that show ``seat`` something ``resample`` draws again
  (its own draw, a challenge lifting the cups, a win showing a hand); a step's events are
  compared up to the first of them.
- ``unseen_stops(game)``: the event kinds after which the game may wait for a decision ``seat``
  cannot know is due (a mahjong claim, when only the seats able to claim are asked).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Secrets = Callable[[Any, int], list[str]]
"""``secrets(game, seat)``: the other seats' private facts in ``game``'s state now, each as a
piece of compact JSON (``json.dumps(..., separators=(",", ":"))`` of a payload) that must not
occur in what ``seat`` is shown: its observation, and the events delivered to it. A fact the
engine has made public (a reveal) is no longer listed; nor is one that equals what the seat
legitimately knows (its own dice), since a text match cannot tell the two apart."""

Resample = Callable[[Any, int, random.Random], Any]
"""``resample(game, seat, rng)``: a copy of ``game`` with what ``seat`` cannot see drawn again
from ``rng`` (consistent with what it has seen), or ``None`` when nothing is hidden from it. The
copy must be a state the game could be in, the other seats' legal actions included: the suite
compares ``seat``'s view of it (observation, legal actions, fallback), then applies the step's
actions to it, the other seats' too (a copy in which one of those is not legal is left out)."""

Reveals = Callable[[Mapping[str, Any], int], bool]
"""``reveals(event, seat)``: whether ``event`` (a payload as JSON), delivered to ``seat``, shows it
something ``resample`` draws again, so that from there on the step's events may differ between
the game and a copy. Name the event kinds (and, for a kind that reveals only to some seats,
which): every other event of a step must be the same in every copy."""

UnseenStops = Callable[[Any], frozenset[str]]
"""``unseen_stops(game)``: the kinds of event after which ``game`` may stop for a decision that a
seat cannot know is due, and so end a step there in the game and go on in a copy (or the other
way round): the suite then takes one step's events as the start of the other's."""


def reveals_nothing(event: Mapping[str, Any], seat: int) -> bool:
    """The ``reveals`` hook of a game whose events never show what ``resample`` draws again."""
    return False


def no_unseen_stops(game: Any) -> frozenset[str]:
    """The ``unseen_stops`` hook of a game that asks for a decision only on what every seat
    sees."""
    return frozenset()


@dataclass(frozen=True)
class HiddenInformation:
    secrets: Secrets
    resample: Resample
    reveals: Reveals = reveals_nothing
    unseen_stops: UnseenStops = no_unseen_stops


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def no_secrets(game: Any, seat: int) -> list[str]:
    """The ``secrets`` hook of a game of perfect information."""
    return []


def no_resample(game: Any, seat: int, rng: random.Random) -> None:
    """The ``resample`` hook of a game of perfect information: nothing to draw again."""
    return None


# -- liar's dice ------------------------------------------------------------------------------


def _liars_dice_secrets(game: Any, seat: int) -> list[str]:
    """The dice under the other cups, as the ``dice`` field of a payload renders them, until the
    challenge's reveal (a new round deals new cups; a finished game has none hidden)."""
    if game.is_over():
        return []
    own = list(game.hands[seat])
    return [
        f'"dice":{_compact(list(hand))}'
        for other, hand in enumerate(game.hands)
        if other != seat and hand and list(hand) != own
    ]


def _liars_dice_resample(game: Any, seat: int, rng: random.Random) -> Any:
    """Roll the other cups again (as many dice each); dice shown by a re-roll stay shown."""
    from arena.games.liars_dice.actions import FACES

    if game.is_over():
        return None
    twin = game.copy()
    twin.hands = [
        list(hand) if other == seat else sorted(rng.randint(1, FACES) for _ in hand)
        for other, hand in enumerate(twin.hands)
    ]
    return twin


def _liars_dice_reveals(event: Mapping[str, Any], seat: int) -> bool:
    """A challenge lifts every cup (and, in a series, who lost decides the next round)."""
    return event["kind"] == "reveal"


# -- mahjong ----------------------------------------------------------------------------------


def _mahjong_secrets(game: Any, seat: int) -> list[str]:
    """The other seats' concealed tiles (as ``tiles`` renders a hand), their concealed kongs
    (as a shown meld, and as the private ``kong`` event), the tile another seat just drew (its
    private ``draw`` event) and the next tiles of the wall (as a list of tile texts)."""
    from arena.games.mahjong.state import DISCARD, TILE_TEXT, counts_text

    if game.is_over():
        return []
    s = game.s
    own = counts_text(s.counts[seat])
    out = []
    for other in range(game.num_seats):
        if other == seat:
            continue
        concealed = counts_text(s.counts[other])
        if concealed and concealed != own:
            out.append(f'"tiles":"{concealed}"')
        for exposed in s.melds[other]:
            if exposed.shown.kind == "ckong":
                out.append(f'"kind":"ckong","tiles":"{exposed.shown.tiles}"')
                out.append(f'"meld":"ckong","tile":"{TILE_TEXT[exposed.meld.tiles[0]]}"')
        if s.phase == DISCARD and s.turn == other and s.drawn >= 0:
            out.append(f'"kind":"draw","seat":{other},"tile":"{TILE_TEXT[s.drawn]}"')
    wall = s.wall.remaining()
    if len(wall) >= 4:
        out.append(_compact([TILE_TEXT[t] for t in wall[:4]])[:-1])
    return out


def _undrawn_positions(wall: Any) -> list[int]:
    """Indices of ``wall.tiles`` not drawn yet (the reserve included)."""
    if wall.per_seat:
        spans = zip(wall.sub_next, wall.sub_end, strict=True)
        return [i for start, end in spans for i in range(start, end)] + list(
            range(wall.sub_end[-1], len(wall.tiles))
        )
    return list(range(wall.head, wall.tail))


def _mahjong_resample(game: Any, seat: int, rng: random.Random) -> Any:
    """Deal the other seats' concealed tiles and the undrawn wall again from the same tiles: each
    other seat keeps its number of concealed tiles, a flower in the wall keeps its place (it is
    exposed the moment it is drawn), and a claim another seat has already answered this step
    becomes a pass. Concealed kongs stay as they are (their tiles are four of a kind). Every due
    seat's legal actions are then computed afresh from the new hands."""
    from arena.games.mahjong.actions import PASS_ACTION
    from arena.games.mahjong.state import DISCARD
    from arena.games.mahjong.tiles import FLOWER_BASE

    if game.is_over():
        return None
    twin = game.copy()
    s = twin.s
    others = [other for other in range(game.num_seats) if other != seat]
    slots = [i for i in _undrawn_positions(s.wall) if s.wall.tiles[i] < FLOWER_BASE]
    pool = [t for other in others for t, n in enumerate(s.counts[other]) for _ in range(n)]
    pool += [s.wall.tiles[i] for i in slots]
    rng.shuffle(pool)
    at = 0
    for other in others:
        size = sum(s.counts[other])
        row = [0] * len(s.counts[other])
        for t in pool[at : at + size]:
            row[t] += 1
        s.counts[other] = row
        at += size
    tiles = list(s.wall.tiles)  # the copy shares the original's list, which is never mutated
    for i, t in zip(slots, pool[at:], strict=True):
        tiles[i] = t
    s.wall.tiles = tiles
    if s.phase == DISCARD and s.turn != seat and s.drawn >= 0:
        s.drawn = rng.choice([t for t, n in enumerate(s.counts[s.turn]) if n])
    s.answers = {
        other: action if other == seat else PASS_ACTION for other, action in s.answers.items()
    }
    # The engine caches every due seat's options; a copy carrying the cache would offer what
    # the game offers whatever its hands, and comparing the two would prove nothing.
    s.legal = mahjong_options_afresh(s)
    return twin


def mahjong_options_afresh(state: Any) -> dict[int, list[Any]]:
    """Each due seat's legal actions computed from ``state`` by the engine's own option
    functions, as the engine builds its cache (``HandState.legal``) at each step: on a turn the
    seat's turn options; on a discard each seat still due its claims and ``pass`` (a seat due
    with no claim, under ``claims_ask_every_seat``, is offered ``pass`` alone); on a tile added
    to a pon ``ron`` and ``pass``, or ``pass`` alone. The seats due stay the game's: in a copy a
    seat asked in the game may have no claim left, and is offered ``pass`` alone (who else is
    asked is not a seat's to see)."""
    from arena.games.mahjong.actions import PASS_ACTION, RON_ACTION
    from arena.games.mahjong.options import claim_options, enough_tai, turn_options
    from arena.games.mahjong.payments import ROB_WIN
    from arena.games.mahjong.state import CLAIM, DISCARD, ROB

    if state.phase == DISCARD:
        return {state.turn: turn_options(state, state.turn)}
    tile, origin = state.claim_tile, state.claim_from
    if state.phase == CLAIM:
        return {
            seat: [*claim_options(state, seat, tile, origin), PASS_ACTION] for seat in state.due
        }
    if state.phase == ROB:
        return {
            seat: [RON_ACTION, PASS_ACTION]
            if state.wins_on(seat, tile) and enough_tai(state, seat, ROB_WIN, tile, origin)
            else [PASS_ACTION]
            for seat in state.due
        }
    return {}


def _mahjong_reveals(event: Mapping[str, Any], seat: int) -> bool:
    """A seat's own draw shows it a tile of the wall; a win shows the winner's hand."""
    kind = event["kind"]
    return kind == "win" or (kind == "draw" and event["seat"] == seat)


def _mahjong_unseen_stops(game: Any) -> frozenset[str]:
    """Unless every seat is asked after every discard (``claims_ask_every_seat``), a discard or
    a tile added to a pon stops the game only when some seat can claim (or rob) it."""
    if game.rules.claims_ask_every_seat:
        return frozenset()
    return frozenset({"discard", "kong"})


# -- 1A2B -------------------------------------------------------------------------------------


def _bulls_cows_secrets(game: Any, seat: int) -> list[str]:
    """Solve: the referee's secret. Duel: a code the other seat has revealed while this seat's
    reveal is still due (reveals are shown together); codes are quoted JSON strings."""
    if game.is_over():
        return []
    codes = game.space.codes
    if game._secret is not None:
        return [f'"{codes[game._secret]}"']
    # A code either seat guessed is in this seat's own view already.
    guessed = {codes[guess] for history in game._history for guess, _ in history}
    return [
        f'"{codes[code]}"'
        for other, code in enumerate(game._revealed)
        if other != seat and code is not None and codes[code] not in guessed
    ]


def _bulls_cows_resample(game: Any, seat: int, rng: random.Random) -> Any:
    """Solve: another secret among those every answer so far allows. Duel: another code for a
    reveal the other seat made while this seat's is still due (any code: a reveal that breaks
    an answer loses, it is not refused)."""
    if game.is_over():
        return None
    if game._secret is not None:
        allowed = [int(i) for i in game._consistent[0].nonzero()[0]]
        twin = game.copy()
        twin._secret = rng.choice(allowed)
        return twin
    other = 1 - seat
    if game._revealed[other] is None or game._revealed[seat] is not None:
        return None
    twin = game.copy()
    twin._revealed = list(game._revealed)
    twin._revealed[other] = rng.randrange(game.space.size)
    return twin


def _bulls_cows_reveals(event: Mapping[str, Any], seat: int) -> bool:
    """Solve: the referee's answer tells how close a guess is to its secret. Both modes: the
    codes shown at the end."""
    kind = event["kind"]
    return kind == "reveal" or (kind == "answer" and event["seat"] is None)


HIDDEN_INFORMATION: dict[str, HiddenInformation] = {
    "bulls_cows": HiddenInformation(_bulls_cows_secrets, _bulls_cows_resample, _bulls_cows_reveals),
    "liars_dice": HiddenInformation(_liars_dice_secrets, _liars_dice_resample, _liars_dice_reveals),
    "mahjong": HiddenInformation(
        _mahjong_secrets, _mahjong_resample, _mahjong_reveals, _mahjong_unseen_stops
    ),
}
"""What each seat must not see, per game. A game of perfect information has an entry too
(``HiddenInformation(no_secrets, no_resample)``), so that a new game cannot skip the
question."""
