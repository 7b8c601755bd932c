"""A bot stopped while it connects stops then, not after the connect timeout, and leaves no
connection open behind it: a server that accepts the connection and never answers (a hung
server, a port that is not the arena's) must not hold a stopped `bots run` for 10 s."""

from __future__ import annotations

import asyncio

import pytest

from bots import adapters
from bots.adapters import ServerAdapter, adapter_for
from bots.client import BotClient
from bots.registry import make_bot


class SilentServer:
    """Accepts connections, reads whatever comes, never answers; notes each connection's end."""

    def __init__(self) -> None:
        self.accepted = asyncio.Event()
        self.closed = asyncio.Event()
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> SilentServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted.set()
        try:
            while await reader.read(4096):
                pass
        except ConnectionError:
            pass
        finally:
            self.closed.set()
            writer.close()


@pytest.mark.parametrize("scheme", ["ws", "mqtt"])
async def test_a_stop_while_connecting_ends_the_client_at_once(
    scheme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Far longer than the test waits: a stop that waited for the connect would fail it.
    monkeypatch.setattr(adapters, "CONNECT_TIMEOUT_S", 600.0)
    async with SilentServer() as server:
        url = f"{scheme}://127.0.0.1:{server.port}"
        made: list[ServerAdapter] = []  # held, so that no garbage collection closes a socket

        def connect_to_the_silent_server() -> ServerAdapter:
            made.append(adapter_for(url, "b"))
            return made[-1]

        client = BotClient(
            {"bulls_cows": make_bot("bulls_cows", "random", {}, "b")},
            name="b",
            adapter_factory=connect_to_the_silent_server,
        )
        running = asyncio.ensure_future(client.run())
        await asyncio.wait_for(server.accepted.wait(), 30)
        await asyncio.sleep(0.2)  # well into the connect: the server has said nothing
        assert not running.done()
        await client.stop()
        assert await asyncio.wait_for(running, 30) == "stopped"
        # Nothing half-open is left: the server sees the connection end, and before the MQTT
        # client's keepalive (15 s) would have ended it.
        await asyncio.wait_for(server.closed.wait(), 10)
        assert client.welcomes == 0
