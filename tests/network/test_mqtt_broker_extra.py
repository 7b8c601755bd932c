"""The embedded MQTT broker (amqtt) is the ``broker`` extra: amqtt 0.12.1 pins websockets to
15.0.1, and a bot's install should not be held to that. A server asked for an embedded broker
where amqtt is not installed says how to get it, or what to run instead, and starts nothing."""

from __future__ import annotations

import builtins
import subprocess
import sys
from typing import Any

import pytest
from net_helpers import LOOPBACK, free_port

import arena.transports.mqtt_server_broker as server_broker
from arena.server.app import ArenaServer, ServerConfig
from arena.transports.mqtt_topics import BrokerUrl, MqttConfigError

# As an install without the extra: `import amqtt…` fails.
WITHOUT_AMQTT = "import sys; sys.modules['amqtt'] = None\n"


def _without_amqtt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing the broker module fails as it does where amqtt is not installed. By the import
    hook, not sys.modules: amqtt's modules stay as they are for the tests after this one."""
    real_import = builtins.__import__

    def import_without_amqtt(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "arena.transports.mqtt_broker":
            raise ModuleNotFoundError("No module named 'amqtt'", name="amqtt")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", import_without_amqtt)


async def test_a_server_asked_for_an_embedded_broker_without_amqtt_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without_amqtt(monkeypatch)
    port = free_port()
    server = ArenaServer(ServerConfig(host=LOOPBACK, port=0, mqtt=f"mqtt://{LOOPBACK}:{port}"))
    with pytest.raises(MqttConfigError) as refused:
        await server.start()
    assert str(refused.value) == (
        "an embedded MQTT broker needs amqtt, which this installation lacks: install it with "
        "`pip install 'table-arena[broker]'` (a checkout's `.[dev]` has it), or run a broker "
        f"such as Mosquitto on {LOOPBACK}:{port}"
    )


def test_arena_serve_without_amqtt_stops_with_that_sentence_and_no_traceback() -> None:
    program = WITHOUT_AMQTT + (
        "from arena.cli.main import main\n"
        f"sys.argv = ['arena', 'serve', '--port', '0', '--mqtt', 'mqtt://{LOOPBACK}:{free_port()}']\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "error: an embedded MQTT broker needs amqtt" in done.stderr
    assert "Traceback" not in done.stderr


async def test_another_missing_module_is_not_taken_for_amqtt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only amqtt's absence is the extra's; any other missing module stays the error it is."""
    real_import = builtins.__import__

    def import_missing_yaml(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "arena.transports.mqtt_broker":
            raise ModuleNotFoundError("No module named 'yaml'", name="yaml")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", import_missing_yaml)
    with pytest.raises(ModuleNotFoundError, match="yaml"):
        await server_broker.start_embedded_broker(BrokerUrl(LOOPBACK, free_port()))
