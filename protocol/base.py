"""The one pydantic base of the wire: strict (unknown fields are errors) and immutable."""

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """Base of every message and payload: ``extra="forbid"``, frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
