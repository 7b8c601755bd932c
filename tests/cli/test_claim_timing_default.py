"""Remote mahjong defaults to asking every seat on each claim (`claims_ask_every_seat`), and an
explicit ruleset that does not is played as given, with a note on what it leaks by timing."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli.mahjong_match import claim_timing_note
from arena.cli.main import app
from arena.games.mahjong.rules import default_ruleset, load_ruleset
from arena.leagues.config import load_league

runner = CliRunner()

SECRET = "5" * 64
NOBODY = "ws://127.0.0.1:9"
"""The discard port: nothing listens, so a match stops at connecting, after the notes."""

LEAGUE = f"""
name = "table"
game = "mahjong"
games = 4
seed = "{SECRET}"
[[bots]]
name = "g1"
[[bots]]
name = "g2"
[[bots]]
name = "g3"
[[bots]]
name = "g4"
"""


def test_the_default_ruleset_depends_on_where_the_bots_play() -> None:
    assert not load_ruleset(default_ruleset(remote=False)).claims_ask_every_seat
    assert load_ruleset(default_ruleset(remote=True)).claims_ask_every_seat


def test_the_note_names_the_ruleset_only_when_it_leaks() -> None:
    assert claim_timing_note(load_ruleset("competition-server"), "--ruleset x") is None
    note = claim_timing_note(load_ruleset("competition"), "--ruleset competition")
    assert note is not None
    assert note.startswith("--ruleset competition asks only the seats that can claim")
    assert "claims_ask_every_seat = true" in note


def _server_match(*extra: str) -> str:
    result = runner.invoke(
        app,
        [
            *("match", "mahjong", "--bots", "g1,g2,g3,g4", "--games", "4"),
            *("--seed", SECRET, "--server", NOBODY, *extra),
        ],
    )
    assert result.exit_code == 2
    assert "cannot reach the server" in result.output
    return " ".join(result.output.split())


def test_a_server_match_asks_every_seat_by_default() -> None:
    assert "asks only the seats" not in _server_match()


def test_a_server_match_under_a_leaking_ruleset_says_so() -> None:
    output = _server_match("--ruleset", "competition")
    assert "note: --ruleset competition asks only the seats that can claim a discard" in output
    assert "asks only the seats" not in _server_match("--ruleset", "competition-server")


def test_a_league_on_a_server_asks_every_seat_unless_its_ruleset_says_otherwise(
    tmp_path: Path,
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(LEAGUE, encoding="utf-8")
    assert load_league(config, server=NOBODY).mahjong_rules().claims_ask_every_seat
    local = LEAGUE.replace('name = "g', 'bot = "greedy"\nname = "g')
    config.write_text(local, encoding="utf-8")
    assert not load_league(config).mahjong_rules().claims_ask_every_seat
    config.write_text('ruleset = "competition"\n' + LEAGUE, encoding="utf-8")
    assert not load_league(config, server=NOBODY).mahjong_rules().claims_ask_every_seat


def test_a_league_on_a_server_under_a_leaking_ruleset_says_so(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    db = str(tmp_path / "r.sqlite")
    notes = []
    for ruleset in ("competition", "competition-server"):
        config.write_text(f'ruleset = "{ruleset}"\n' + LEAGUE, encoding="utf-8")
        result = runner.invoke(app, ["league", str(config), "--server", NOBODY, "--db", db])
        assert result.exit_code == 2
        notes.append("asks only the seats" in " ".join(result.output.split()))
    assert notes == [True, False]


def test_who_is_asked_on_a_claim_is_no_part_of_a_leagues_fingerprint(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    fingerprints = {}
    for ruleset in (None, "competition", "competition-server"):
        text = LEAGUE if ruleset is None else f'ruleset = "{ruleset}"\n' + LEAGUE
        config.write_text(text, encoding="utf-8")
        league = load_league(config, server=NOBODY)
        fingerprints[ruleset] = (league.fingerprint(), league.fingerprint_aliases())
    assert len({fingerprint for fingerprint, _ in fingerprints.values()}) == 1
    # A league stored under competition-server by an earlier release, whose fingerprint held
    # the key, resumes under either ruleset: its old fingerprint is an alias of both (one
    # stored under competition had the fingerprint of today).
    (old,) = fingerprints["competition-server"][1]
    assert old != fingerprints["competition-server"][0]
    assert fingerprints["competition"][1] == [old]
    assert fingerprints[None][1] == [old]
