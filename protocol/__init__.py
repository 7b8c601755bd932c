"""The wire format of the arena: pydantic models, the JSON codec and JSON Schema export. No I/O."""

from protocol.codec import ProtocolError, decode, encode, parse_message
from protocol.messages import (
    PROTOCOL_VERSION,
    Action,
    Bye,
    Error,
    ErrorCode,
    Event,
    Hello,
    Message,
    Ping,
    Request,
    Welcome,
)

__all__ = [
    "PROTOCOL_VERSION",
    "Action",
    "Bye",
    "Error",
    "ErrorCode",
    "Event",
    "Hello",
    "Message",
    "Ping",
    "ProtocolError",
    "Request",
    "Welcome",
    "decode",
    "encode",
    "parse_message",
]
