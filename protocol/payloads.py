"""All payloads of all games, as one union discriminated on ``game`` then ``kind``.

A new game adds its module's union to `Payload`; nothing else in the protocol changes.
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
