"""The player side does not load the referee: ``bots`` may import the wire (`protocol`), the pure
helpers of `arena.games`, `arena.dealing` and the neutral `arena.logs` / `arena.files` /
`arena.text_files`, never the referee, its transports, its match formats or its command line
(docs/ARCHITECTURE.md, Bots).

Checked in a fresh interpreter, where nothing else has imported those modules first."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bots.registry import BOT_MODULES

FORBIDDEN = ("arena.transports", "arena.referee", "arena.cli", "arena.matches", "arena.server")

PROBE = """
import importlib, json, sys
for module in sys.argv[1:]:
    importlib.import_module(module)
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by(*modules: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def forbidden_in(loaded: list[str]) -> list[str]:
    return [
        name
        for name in loaded
        if any(name == prefix or name.startswith(prefix + ".") for prefix in FORBIDDEN)
    ]


@pytest.mark.parametrize("module", ["bots.cli", "bots.adapters", "bots.client"])
def test_the_bot_side_loads_nothing_of_the_referee(module: str) -> None:
    loaded = loaded_by(module)
    assert module in loaded
    assert forbidden_in(loaded) == []


def test_every_bot_package_loads_nothing_of_the_referee() -> None:
    loaded = loaded_by("bots.cli", *BOT_MODULES.values())
    assert forbidden_in(loaded) == []


def test_the_probe_sees_what_the_referee_side_loads() -> None:
    # The check above would pass for a probe that saw nothing.
    assert "arena.transports.mqtt_topics" in forbidden_in(loaded_by("arena.transports.mqtt"))
