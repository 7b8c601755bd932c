"""Mahjong actions: small immutable values with a text form that round-trips.

Grammar (docs/RULES.md "Action text"):

* on your turn: ``discard 5m``, ``tsumo`` (self-drawn win), ``ckong 1z`` (concealed kong of four
  tiles in hand), ``akong 5p`` (add the fourth tile to your pon of 5p);
* on another seat's discard: ``ron`` (win on it), ``chi 345m`` (the run's three tiles, the
  discard among them; only on the discard of the seat before you), ``pon``, ``kong`` (open kong),
  ``pass``;
* on a tile added to a pon (搶槓): ``ron`` or ``pass``.

Every action that can ever be legal exists once, in `ALL_ACTIONS`, built at import: parsing a
well-formed text is one dictionary lookup and legal action lists are lists of these singletons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from arena.games.errors import InvalidActionError
from arena.games.mahjong.tiles import (
    NUM_KINDS,
    format_tiles,
    is_honour,
    parse_tiles,
)

DISCARD: Final = "discard"
TSUMO: Final = "tsumo"
RON: Final = "ron"
CHI: Final = "chi"
PON: Final = "pon"
KONG: Final = "kong"
CKONG: Final = "ckong"
AKONG: Final = "akong"
PASS: Final = "pass"

_TILE_VERBS: Final = (DISCARD, CKONG, AKONG)
_BARE_VERBS: Final = (TSUMO, RON, PON, KONG, PASS)
VERBS: Final = (DISCARD, TSUMO, CKONG, AKONG, RON, CHI, PON, KONG, PASS)


@dataclass(frozen=True, slots=True)
class MahjongAction:
    """``verb`` and its tile: the tile discarded or konged, the first tile of a chi, else -1."""

    verb: str
    tile: int = -1
    text: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return self.text


def _make(verb: str, tile: int = -1) -> MahjongAction:
    if verb == CHI:
        text = f"chi {format_tiles((tile, tile + 1, tile + 2))}"
    elif tile >= 0:
        text = f"{verb} {format_tiles((tile,))}"
    else:
        text = verb
    return MahjongAction(verb, tile, text)


def _all_actions() -> dict[str, MahjongAction]:
    found: dict[str, MahjongAction] = {}
    for verb in _BARE_VERBS:
        found[verb] = _make(verb)
    for verb in _TILE_VERBS:
        for t in range(NUM_KINDS):
            action = _make(verb, t)
            found[action.text] = action
    for t in range(NUM_KINDS):
        if not is_honour(t) and t % 9 <= 6:
            action = _make(CHI, t)
            found[action.text] = action
    return found


ALL_ACTIONS: Final[dict[str, MahjongAction]] = _all_actions()

TSUMO_ACTION: Final = ALL_ACTIONS[TSUMO]
RON_ACTION: Final = ALL_ACTIONS[RON]
PON_ACTION: Final = ALL_ACTIONS[PON]
KONG_ACTION: Final = ALL_ACTIONS[KONG]
PASS_ACTION: Final = ALL_ACTIONS[PASS]
DISCARDS: Final = tuple(ALL_ACTIONS[_make(DISCARD, t).text] for t in range(NUM_KINDS))
CKONGS: Final = tuple(ALL_ACTIONS[_make(CKONG, t).text] for t in range(NUM_KINDS))
AKONGS: Final = tuple(ALL_ACTIONS[_make(AKONG, t).text] for t in range(NUM_KINDS))
CHIS: Final[dict[int, MahjongAction]] = {a.tile: a for a in ALL_ACTIONS.values() if a.verb == CHI}
"""chi actions by the first tile of the run."""

_MAX_SHOWN = 40


def parse_action(text: str) -> MahjongAction:
    """Read an action; case and runs of spaces are forgiven, and a chi's tiles may come in any
    order (``chi 534m`` is ``chi 345m``). Anything else raises `InvalidActionError`."""
    cleaned = " ".join(text.lower().split())
    found = ALL_ACTIONS.get(cleaned)
    if found is not None:
        return found
    return _explain(text, cleaned)


def _explain(text: str, cleaned: str) -> MahjongAction:
    shown = text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "…"
    verb, _, rest = cleaned.partition(" ")
    if verb not in VERBS:
        raise InvalidActionError(
            f"cannot read {shown!r} as a mahjong action: it starts with one of "
            f"{', '.join(VERBS)} (e.g. 'discard 5m', 'chi 345m', 'pass')"
        )
    if verb in _BARE_VERBS:
        raise InvalidActionError(f"{verb!r} takes nothing after it, got {shown!r}")
    try:
        tiles = parse_tiles(rest)
    except ValueError as exc:
        raise InvalidActionError(f"in {shown!r}: {exc}") from None
    if any(t >= NUM_KINDS for t in tiles):
        raise InvalidActionError(
            f"in {shown!r}: flowers are exposed and replaced by the engine, never played"
        )
    if verb == CHI:
        run = sorted(tiles)
        if (
            len(run) == 3
            and not is_honour(run[0])
            and run[0] % 9 <= 6
            and run == [run[0], run[0] + 1, run[0] + 2]
        ):
            return CHIS[run[0]]
        raise InvalidActionError(
            f"chi needs three consecutive tiles of one suit, e.g. 'chi 345m'; got {shown!r}"
        )
    raise InvalidActionError(f"{verb!r} needs exactly one tile, e.g. '{verb} 5m'; got {shown!r}")
