"""Output a Windows console or pipe can take (`arena.console_streams`): piped or redirected on
Windows, standard output is encoded in the ANSI code page (cp1252, cp950) unless PYTHONUTF8=1,
simulated here with PYTHONIOENCODING. No command may stop on a character the code page lacks,
and its JSON must stay exact there (ASCII escapes), readable where the stream is UTF-8."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any, cast

import pytest

from arena.console_streams import json_ascii_only, tolerate_unencodable_output, writes_unicode
from tests.windows_simulation import arena_in_code_page

MELDED = ["--hand", "123456789m5p", "--melds", "pon:999p,chi:123s", "--win-tile", "5p"]
TINY_LEAGUE = (
    'name = "tiny"\ngame = "liars-dice"\nseed = "s"\ngames = 4\n'
    '[[bots]]\nname = "random-guess"\n[[bots]]\nname = "probability"\n[[bots]]\nname = "type5"\n'
)


def without_times(value: Any) -> Any:
    """``value`` without the fields that measure time (they differ from one run to the next)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if "second" not in k}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


@pytest.mark.parametrize("encoding", ["cp1252", "cp950"])
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["mahjong", "--help"],
        ["audit", "dice", "--deals", "300", "--seed", "s"],
        ["mahjong", "score", *MELDED, "--seat-wind", "E"],
    ],
    ids=["help", "mahjong-help", "audit-dice", "mahjong-score"],
)
def test_text_output_in_a_code_page_escapes_what_it_lacks(encoding: str, args: list[str]) -> None:
    """Each of these printed a character cp1252 or cp950 lacks (≥, −, 進胡數, α, 台) and stopped
    with a UnicodeEncodeError half-way; now it finishes, the character escaped."""
    done = arena_in_code_page(*args, encoding=encoding)
    assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert b"UnicodeEncodeError" not in done.stderr
    assert done.stdout.decode(encoding)  # what was written is that code page's text


@pytest.mark.parametrize(
    "args",
    [
        ["mahjong", "score", *MELDED, "--seat-wind", "E", "--json"],
        ["liars-dice", "personalities", "--json"],
        ["protocol", "schema"],
    ],
    ids=["mahjong-score", "personalities", "protocol-schema"],
)
def test_json_in_a_code_page_is_ascii_and_the_same_json(args: list[str]) -> None:
    """Under cp1252 the JSON is pure ASCII (exact under any code page) and parses to what the
    UTF-8 run prints; under UTF-8 it keeps its characters readable."""
    in_code_page = arena_in_code_page(*args, encoding="cp1252")
    in_utf8 = arena_in_code_page(*args, encoding="utf-8")
    assert in_code_page.returncode == 0, in_code_page.stderr.decode("cp1252", "replace")
    assert in_utf8.returncode == 0, in_utf8.stderr.decode()
    assert in_code_page.stdout.isascii()
    parsed = json.loads(in_code_page.stdout.decode("ascii"))
    assert without_times(parsed) == without_times(json.loads(in_utf8.stdout.decode("utf-8")))
    assert not in_utf8.stdout.isascii()  # each of these holds a character beyond ASCII


def test_python_dash_m_arena_plays_a_league_with_spawned_workers(tmp_path: Path) -> None:
    """``python -m arena`` is the command (for a Scripts folder not on PATH), and a league it
    plays with spawned workers prints its standings once."""
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_LEAGUE, encoding="utf-8")
    db = tmp_path / "league.sqlite"
    done = arena_in_code_page(
        "league", str(config), "--db", str(db), "--jobs", "2", "--json", encoding="utf-8"
    )
    assert done.returncode == 0, done.stderr.decode()
    standings = json.loads(done.stdout)["standings"]
    assert sorted(row["bot"] for row in standings) == ["probability", "random-guess", "type5"]


def test_tolerate_unencodable_output_escapes_instead_of_raising(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    with pytest.raises(UnicodeEncodeError):
        stream.write("≥")
        stream.flush()
    tolerate_unencodable_output()
    stream.write("a ≥ b")
    stream.flush()
    assert raw.getvalue().endswith(b"a \\u2265 b")


@pytest.mark.parametrize(
    ("encoding", "unicode"),
    [("utf-8", True), ("UTF8", True), ("utf-8-sig", True), ("utf-16-le", True),
     ("cp1252", False), ("cp950", False), ("ascii", False)],
)  # fmt: skip
def test_json_is_ascii_only_where_the_stream_is_not_unicode(encoding: str, unicode: bool) -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    assert writes_unicode(stream) is unicode
    assert json_ascii_only(stream) is not unicode


def test_a_stream_of_unknown_encoding_gets_ascii_json() -> None:
    for unknown in (SimpleNamespace(encoding="no-such-codec"), SimpleNamespace(encoding=None)):
        assert json_ascii_only(cast(IO[str], unknown))


def test_a_gauntlet_with_worker_processes_prints_its_json_alone() -> None:
    """Spawned workers logged with structlog's defaults, every level on stdout: 64 debug lines
    before the JSON of `gauntlet --jobs 2 --json` (the league's workers were set up already)."""
    args = ["liars-dice", "gauntlet", "--bot", "bayes", "--games", "2", "--seed", "1"]
    done = arena_in_code_page(*args, "--jobs", "2", "--json", encoding="utf-8")
    assert done.returncode == 0, done.stderr.decode()
    (line,) = done.stdout.decode().splitlines()
    assert json.loads(line)["games"] == 2
    assert b"game_over" not in done.stderr  # the default level, warning, holds debug back
