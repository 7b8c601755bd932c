"""All payloads of all games, as one union discriminated on ``game`` then ``kind``.

A new game adds its module's union to `Payload`; nothing else in the protocol changes.
"""

from protocol.games.common import CommonPayload

# With a single game-group pydantic refuses a discriminator, so the outer one is added when the
# first game joins: Annotated[CommonPayload | XPayload, Field(discriminator="game")].
Payload = CommonPayload
