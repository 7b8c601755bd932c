"""Config files saved by Windows tools: every TOML reader (league config, bot config, ruleset,
the mahjong match and score rulesets) reads UTF-8 with a byte-order mark (older Notepad, many
editors) and UTF-16/32 with one (Windows PowerShell 5.1's ``>``, Notepad's "Unicode"), and
refuses a file in a legacy code page (cp950 with Chinese comments) with one error naming the
file, the place of the first byte that is not UTF-8, and what to do.

The files are written byte for byte as those tools write them: the mark, then the text in that
encoding, with Windows line ends."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.cli.mahjong_match import match_ruleset
from arena.cli.mahjong_score import load_scoring_rules
from arena.errors import ArenaError
from arena.games import rulesets
from arena.games.errors import RulesetError
from arena.games.mahjong.rules import load_ruleset
from arena.leagues.config import LeagueConfigError, load_league
from bots.registry import BotConfigError, read_config

RULESET = """# 台灣十六張：比賽規則加八張花牌
game = "mahjong"
title = "花牌"

[rules]
flowers = true

[rules.scoring]
points_per_tai = 700
"""

BOT_CONFIG = """# 貪心：每步先想 1 毫秒
strategy = "greedy"
think_ms = 1
"""

LEAGUE_TEMPLATE = """# 聯賽
name = "windows"
game = "mahjong"
games = 8
ruleset = '{ruleset}'

[[bots]]
name = "slow"
config = '{bot}'

[[bots]]
name = "random"
"""

WRITERS: dict[str, Callable[[str], bytes]] = {
    # older Notepad's "UTF-8", and many other tools
    "utf-8-bom": lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
    # Windows PowerShell 5.1's ``>`` and Out-File; Notepad's "Unicode"
    "utf-16-le-bom": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    "utf-16-be-bom": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    "utf-32-le-bom": lambda text: codecs.BOM_UTF32_LE + text.encode("utf-32-le"),
}


def _write(path: Path, text: str, writer: Callable[[str], bytes]) -> Path:
    path.write_bytes(writer(text.replace("\n", "\r\n")))
    return path


@pytest.fixture(params=list(WRITERS), ids=list(WRITERS))
def writer(request: pytest.FixtureRequest) -> Callable[[str], bytes]:
    return WRITERS[request.param]


# -- read as what they are ------------------------------------------------------------------


def test_a_bot_config_with_a_byte_order_mark_is_read(
    tmp_path: Path, writer: Callable[[str], bytes]
) -> None:
    path = _write(tmp_path / "slow.toml", BOT_CONFIG, writer)
    assert read_config(path) == ("greedy", {"think_ms": 1})


RULESET_READERS: dict[str, Callable[[Path], Any]] = {
    "ruleset": lambda path: load_ruleset(path).flowers,
    "rules table": lambda path: rulesets.rules_table("mahjong", path)["flowers"],
    "match --ruleset": lambda path: match_ruleset(str(path)).flowers,
    "score --ruleset": lambda path: load_scoring_rules(str(path)).flowers,
}


@pytest.mark.parametrize("reader", list(RULESET_READERS))
def test_a_ruleset_with_a_byte_order_mark_is_read(
    tmp_path: Path, writer: Callable[[str], bytes], reader: str
) -> None:
    path = _write(tmp_path / "flowers.toml", RULESET, writer)
    assert RULESET_READERS[reader](path) is True


def test_a_bare_scoring_table_with_a_byte_order_mark_is_read(
    tmp_path: Path, writer: Callable[[str], bytes]
) -> None:
    path = _write(tmp_path / "scoring.toml", "# 每台 700\npoints_per_tai = 700\n", writer)
    assert load_scoring_rules(str(path)).scoring.points_per_tai == 700


def test_a_ruleset_with_a_byte_order_mark_is_listed(
    tmp_path: Path, writer: Callable[[str], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "flowers.toml", RULESET, writer)
    monkeypatch.setattr(rulesets, "RULESET_DIR", tmp_path)
    assert rulesets.list_rulesets("mahjong") == ["flowers"]


def test_a_league_and_the_files_it_names_with_byte_order_marks_are_read(
    tmp_path: Path, writer: Callable[[str], bytes]
) -> None:
    ruleset = _write(tmp_path / "flowers.toml", RULESET, writer)
    bot = _write(tmp_path / "slow.toml", BOT_CONFIG, writer)
    league = _write(
        tmp_path / "league.toml", LEAGUE_TEMPLATE.format(ruleset=ruleset, bot=bot), writer
    )
    config = load_league(league)
    assert config.name == "windows"
    assert config.contents.bots["slow"] == ("greedy", {"think_ms": 1})
    assert config.mahjong_rules().flowers is True
    assert config.mahjong_rules().scoring.points_per_tai == 700


def test_bad_toml_in_utf16_is_reported_at_the_line_an_editor_shows(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.toml", "# 註解\nstrategy = \n", WRITERS["utf-16-le-bom"])
    with pytest.raises(BotConfigError) as caught:
        read_config(path)
    assert str(caught.value) == (f"{path}: not valid TOML: Invalid value (at line 2, column 12)")


# -- a legacy code page: refused, saying where and what to do ---------------------------------

# Line 2 (after an ASCII line), column 3: the first byte of 台 in Big5.
BIG5_LINE = "# 台灣規則\n"


def _cp950(path: Path, text: str) -> Path:
    path.write_bytes(text.replace("\n", "\r\n").encode("cp950"))
    return path


def _refusal(path: Path) -> str:
    first = "台".encode("cp950")[0]
    return (
        f"{path}: it is not UTF-8 text: byte 0x{first:02X} at line 2, column 3 (saved in "
        "another encoding, such as Big5/cp950 or ANSI?): save it as UTF-8"
    )


def test_a_bot_config_in_cp950_is_refused_saying_where(tmp_path: Path) -> None:
    path = _cp950(tmp_path / "slow.toml", "# config\n" + BIG5_LINE + 'strategy = "greedy"\n')
    with pytest.raises(BotConfigError) as caught:
        read_config(path)
    assert str(caught.value) == f"cannot read bot config {_refusal(path)}"


@pytest.mark.parametrize("reader", list(RULESET_READERS))
def test_a_ruleset_in_cp950_is_refused_saying_where(tmp_path: Path, reader: str) -> None:
    path = _cp950(tmp_path / "flowers.toml", "# ruleset\n" + BIG5_LINE + RULESET)
    with pytest.raises(RulesetError) as caught:
        RULESET_READERS[reader](path)
    assert str(caught.value) == f"cannot read ruleset {_refusal(path)}"


def test_a_league_config_in_cp950_is_refused_saying_where(tmp_path: Path) -> None:
    path = _cp950(tmp_path / "league.toml", "# league\n" + BIG5_LINE + 'name = "x"\n')
    with pytest.raises(LeagueConfigError) as caught:
        load_league(path)
    assert str(caught.value) == f"cannot read league config {_refusal(path)}"


def test_a_league_naming_a_bot_config_in_cp950_names_that_file(tmp_path: Path) -> None:
    bot = _cp950(tmp_path / "slow.toml", "# config\n" + BIG5_LINE + 'strategy = "greedy"\n')
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE_TEMPLATE.format(ruleset="competition", bot=bot), encoding="utf-8")
    with pytest.raises(ArenaError, match="save it as UTF-8") as caught:
        load_league(league)
    assert str(bot) in str(caught.value)
    assert "line 2, column 3" in str(caught.value)


def test_a_damaged_utf16_file_is_refused_not_misread(tmp_path: Path) -> None:
    # A mark, then an odd number of bytes: not UTF-16, whatever the mark says.
    path = tmp_path / "cut.toml"
    path.write_bytes(codecs.BOM_UTF16_LE + 'strategy = "greedy"'.encode("utf-16-le") + b"\x00")
    with pytest.raises(BotConfigError) as caught:
        read_config(path)
    assert str(caught.value) == (
        f"cannot read bot config {path}: it starts with a UTF-16 byte-order mark but is not "
        "UTF-16 text (from byte 40): save it as UTF-8"
    )
