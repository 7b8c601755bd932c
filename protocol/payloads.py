"""All payloads of all games, as one union discriminated on ``game`` then ``kind``.

A new game adds its module's union (``protocol/games/<game>.py``) to `Payload`, and its wire
name to the two literal types that name games: `protocol.messages.GameName` (a ``hello``'s
``games``) and `protocol.games.common.GameKind` (``match_start``, ``game_start``). A test
(``tests/wire/test_game_names_contrib_findings.py``) checks that these agree with the engine
registry; docs/PROTOCOL.md is then generated again (``arena protocol doc --write``).
"""

from typing import Annotated

from pydantic import Field

from protocol.games.bulls_cows import BullsCowsPayload
from protocol.games.common import CommonPayload
from protocol.games.liars_dice import LiarsDicePayload
from protocol.games.mahjong import MahjongPayload

Payload = Annotated[
    CommonPayload | LiarsDicePayload | BullsCowsPayload | MahjongPayload,
    Field(discriminator="game"),
]
