"""Taiwan 16-tile mahjong: tiles and notation, hand analysis, Tai scoring.

The names below are the hand-analysis API; the table engine and its bots import their own
modules, so importing this package stays free of the engine.
"""

from arena.games.mahjong.analysis import (
    Decomposition,
    deficiency,
    deficiency_batch,
    is_winning,
    is_winning_batch,
    useful_tiles,
    waits,
    winning_decompositions,
)
from arena.games.mahjong.scoring import HAND_TILES, ScoreResult, WinContext, score_hand, settle
from arena.games.mahjong.scoring_rules import ScoringRules
from arena.games.mahjong.tiles import (
    NUM_KINDS,
    MahjongError,
    Meld,
    MeldError,
    MeldKind,
    NotationError,
    Tile,
    TileCountError,
    format_melds,
    format_tiles,
    format_tiles_zh,
    from_counts,
    parse_melds,
    parse_tile,
    parse_tiles,
    parse_wind,
    tile_name_zh,
    to_counts,
    wind_letter,
)

__all__ = [
    "HAND_TILES",
    "NUM_KINDS",
    "Decomposition",
    "MahjongError",
    "Meld",
    "MeldError",
    "MeldKind",
    "NotationError",
    "ScoreResult",
    "ScoringRules",
    "Tile",
    "TileCountError",
    "WinContext",
    "deficiency",
    "deficiency_batch",
    "format_melds",
    "format_tiles",
    "format_tiles_zh",
    "from_counts",
    "is_winning",
    "is_winning_batch",
    "parse_melds",
    "parse_tile",
    "parse_tiles",
    "parse_wind",
    "score_hand",
    "settle",
    "tile_name_zh",
    "to_counts",
    "useful_tiles",
    "waits",
    "wind_letter",
    "winning_decompositions",
]
