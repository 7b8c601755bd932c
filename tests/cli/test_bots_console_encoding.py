"""``python -m bots`` runs the ``bots`` command (for a Windows machine whose scripts folder is not
on PATH), in a console whose code page is not UTF-8 too (cp1252: Windows' piped or redirected
output, `arena.console_streams`), and ``bots list --json`` writes there the JSON it writes in
UTF-8."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.network.net_helpers import scaled, subprocess_env


def python_m_bots(*args: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
    env = subprocess_env() | {"PYTHONIOENCODING": encoding, "COLUMNS": "100"}
    env.pop("PYTHONUTF8", None)
    return subprocess.run(
        [sys.executable, "-m", "bots", *args], capture_output=True, env=env, timeout=scaled(60)
    )


def test_python_m_bots_shows_the_help_in_a_code_page_console() -> None:
    shown = python_m_bots("--help", encoding="cp1252")
    assert shown.returncode == 0, shown.stderr.decode("cp1252", "replace")
    text = shown.stdout.decode("cp1252")
    assert "Usage: python -m bots" in text and "run" in text and "list" in text


def test_bots_list_json_is_the_same_json_in_a_code_page_console() -> None:
    in_utf8 = python_m_bots("list", "--json", encoding="utf-8")
    in_cp1252 = python_m_bots("list", "--json", encoding="cp1252")
    for shown in (in_utf8, in_cp1252):
        assert shown.returncode == 0, shown.stderr.decode("utf-8", "replace")
    listed = json.loads(in_utf8.stdout.decode("utf-8"))
    assert listed["games"], listed
    assert json.loads(in_cp1252.stdout.decode("cp1252")) == listed
