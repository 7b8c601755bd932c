"""How ``arena replay`` shows a mahjong event to a person: one line, tiles in compact notation
followed by their Chinese names (``5m 五萬``), so a hand can be followed step by step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.errors import GameError
from arena.games.mahjong.tiles import format_tiles_zh, parse_tiles

_HOW = {
    "tsumo": "自摸 tsumo",
    "ron": "ron on a discard",
    "rob_kong": "搶槓 robbing a kong",
    "rob_flower": "七搶一 taking the eighth flower",
}


def _tiles(text: object) -> str:
    if not isinstance(text, str) or not text:
        return "?"
    try:
        return f"{text} ({format_tiles_zh(parse_tiles(text))})"
    except GameError:
        return text


def _melds(melds: object) -> str:
    if not isinstance(melds, list) or not melds:
        return ""
    shown = []
    for meld in melds:
        if isinstance(meld, Mapping):
            shown.append(f"{meld.get('kind')}:{meld.get('tiles') or '?'}")
    return " + " + " ".join(shown)


def render_event(payload: Mapping[str, Any]) -> str | None:
    """One readable line for a mahjong event payload (JSON dict); None for anything else."""
    if payload.get("game") != "mahjong":
        return None
    kind = payload.get("kind")
    seat = payload.get("seat")
    if kind == "hand_start":
        winds = " ".join(f"{i}:{w}" for i, w in enumerate(payload.get("winds", [])))
        return (
            f"round {payload.get('round')} hand {payload.get('hand')}: dealer seat "
            f"{payload.get('dealer')}, winds {winds}, {payload.get('wall')} tiles to draw"
        )
    if kind == "deal":
        return f"seat {seat} is dealt {_tiles(payload.get('tiles'))}"
    if kind == "draw":
        where = "replacement from the tail" if payload.get("replacement") else "draws"
        return f"seat {seat} {where}: {_tiles(payload.get('tile'))}, {payload.get('wall')} left"
    if kind == "other_draw":
        where = "draws a replacement" if payload.get("replacement") else "draws"
        return f"seat {seat} {where}, {payload.get('wall')} left"
    if kind == "discard":
        return f"seat {seat} discards {_tiles(payload.get('tile'))}"
    if kind == "flower":
        return f"seat {seat} exposes the flower {_tiles(payload.get('tile'))} (補花)"
    if kind == "claim":
        return (
            f"seat {seat} {payload.get('meld')} {_tiles(payload.get('tiles'))} "
            f"taking seat {payload.get('from_seat')}'s {payload.get('tile')}"
        )
    if kind == "kong":
        tile = payload.get("tile")
        shown = _tiles(tile) if tile else "(face down)"
        return f"seat {seat} {payload.get('meld')} {shown}"
    if kind == "win":
        rows = ", ".join(f"{r.get('name')} {r.get('tai')}" for r in payload.get("breakdown", []))
        source = "" if payload.get("from_seat") is None else f" from seat {payload['from_seat']}"
        return (
            f"seat {seat} wins by {_HOW.get(str(payload.get('how')), payload.get('how'))}"
            f"{source} on {_tiles(payload.get('tile'))}: {payload.get('tiles')}"
            f"{_melds(payload.get('melds'))} — {payload.get('tai')} Tai ({rows or 'no rows'}); "
            f"payments {payload.get('payments')}"
        )
    if kind == "hand_end":
        return f"hand over ({payload.get('reason')}): deltas {payload.get('deltas')}"
    return None
