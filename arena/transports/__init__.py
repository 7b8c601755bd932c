"""How the referee reaches a seat: in-process, websocket, MQTT. All speak `Seat`."""

from arena.transports.base import Seat, SeatFailure

__all__ = ["Seat", "SeatFailure"]
