"""What a mutation audit of `arena.console_streams` and its callers found no test for.

Piped or redirected on Windows, standard output is encoded in the ANSI code page (cp1252 in the
West, cp950 in Taiwan; simulated with PYTHONIOENCODING) unless that code page is UTF-8 itself
(Windows' "Use Unicode UTF-8 for worldwide language support", where Python names it cp65001).
"""

from __future__ import annotations

import io
import json

from arena.console_streams import json_ascii_only, writes_unicode
from tests.windows_simulation import arena_in_code_page

MELDED = ["--hand", "123456789m5p", "--melds", "pon:999p,chi:123s", "--win-tile", "5p"]
UNREADABLE = "1m\U0001f600 \u2265 \u00e9"
"""A line `mahjong waits --file` cannot analyse, with a character beyond the Basic Multilingual
Plane, one cp1252 lacks and one it has."""


def test_windows_utf8_code_page_gets_readable_json() -> None:
    """cp65001 is UTF-8 by another name: its JSON keeps its characters, as on any UTF-8 stream."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="cp65001")
    assert writes_unicode(stream)
    assert not json_ascii_only(stream)


def test_json_in_the_taiwan_code_page_is_ascii_and_the_same_json() -> None:
    """cp950 can write the Tai's Chinese names, but a file of JSON in Big5 is misread by every
    reader that expects UTF-8: the JSON is ASCII there too, and parses to what UTF-8 prints."""
    args = ["mahjong", "score", *MELDED, "--seat-wind", "E", "--json"]
    in_cp950 = arena_in_code_page(*args, encoding="cp950")
    in_utf8 = arena_in_code_page(*args, encoding="utf-8")
    assert in_cp950.returncode == 0, in_cp950.stderr.decode("cp950", "replace")
    assert in_utf8.returncode == 0, in_utf8.stderr.decode("utf-8", "replace")
    assert in_cp950.stdout.isascii()
    assert json.loads(in_cp950.stdout.decode("ascii")) == json.loads(in_utf8.stdout)
    assert not in_utf8.stdout.isascii()


def test_mahjong_waits_file_json_in_a_code_page_is_ascii_and_exact() -> None:
    """``arena mahjong waits --file - --json`` under cp1252: a line it cannot analyse comes back
    in its error object as ASCII JSON that parses to the line as read, whatever it holds."""
    done = arena_in_code_page(
        *("mahjong", "waits", "--file", "-", "--json"),
        encoding="cp1252",
        stdin=f"1112345678999m\n{UNREADABLE}\n".encode(),
    )
    assert done.returncode == 1, done.stderr.decode("cp1252", "replace")
    assert done.stdout.isascii(), done.stdout
    good, error = (json.loads(line) for line in done.stdout.decode("ascii").splitlines())
    assert good["hand"] == "1112345678999m" and good["waits"]
    assert error["line"] == 2 and error["hand"] == UNREADABLE
    assert "\U0001f600" in error["error"]


def test_mahjong_waits_file_json_in_utf8_keeps_the_line_readable() -> None:
    """Where the stream is UTF-8 the line stands in its error object as it was read."""
    done = arena_in_code_page(
        *("mahjong", "waits", "--file", "-", "--json"),
        encoding="utf-8",
        stdin=f"{UNREADABLE}\n".encode(),
    )
    assert done.returncode == 1, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("utf-8")
    assert f'"hand": "{UNREADABLE}"' in text
    assert json.loads(text)["hand"] == UNREADABLE
