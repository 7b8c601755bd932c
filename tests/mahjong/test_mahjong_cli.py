"""``arena mahjong waits|deficiency|score`` and ``arena bench mahjong``: outputs, the --file fast
path against the one-hand path, and errors that exit non-zero with a message."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bench import mahjong_hands
from arena.cli import mahjong as cli
from arena.cli.main import app
from arena.games.mahjong import batch, deficiency, format_tiles, parse_tiles, to_counts, waits
from arena.games.mahjong.tables import get_tables

runner = CliRunner()


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["mahjong", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def flat(text: str) -> str:
    """Rich wraps long messages at the terminal width; compare with the line breaks undone."""
    return " ".join(text.split())


def _winning(rng: random.Random, sets: int) -> list[int]:
    while True:
        counts = [0] * 34
        for _ in range(sets):
            if rng.random() < 0.6:
                t = rng.randrange(3) * 9 + rng.randrange(7)
                for k in range(3):
                    counts[t + k] += 1
            else:
                counts[rng.randrange(34)] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            return [t for t in range(34) for _ in range(counts[t])]


def _hands(seed: int, n: int) -> list[list[int]]:
    """Ready hands (a winner less one tile) and random hands, of 16, 13, 10, 7 and 4 tiles."""
    rng = random.Random(seed)
    wall = [t for t in range(34) for _ in range(4)]
    hands = []
    for i in range(n):
        sets = 5 - i % 6 if i % 6 < 5 else 5
        if i % 2:
            tiles = _winning(rng, sets)
            tiles.pop(rng.randrange(len(tiles)))
        else:
            tiles = rng.sample(wall, 3 * sets + 1)
        hands.append(tiles)
    return hands


# ----------------------------------------------------------------------------- waits


def test_waits_json_and_text() -> None:
    code, out, _ = run("waits", "1112345678999m", "--json")
    assert code == 0
    assert json.loads(out) == {"hand": "1112345678999m", "waits": [f"{r}m" for r in range(1, 10)]}
    code, out, _ = run("waits", "11123456789m99p")
    assert code == 0
    assert "1m 4m 7m 9p" in out and "一萬 四萬 七萬 九筒" in out
    code, out, _ = run("waits", "1379m2468p1357s1357z", "--json")
    assert code == 0 and json.loads(out)["waits"] == []
    assert "not ready" in run("waits", "1379m2468p1357s1357z")[1]


def test_waits_melds_block_tiles_and_fix_the_size() -> None:
    # A single wait on 1z is no wait when the other three 1z are in the player's own pon.
    assert json.loads(run("waits", "123m456p789s1z", "--json")[1])["waits"] == ["1z"]
    code, out, _ = run("waits", "123m456p789s1z", "--melds", "pon:111z,chi:789m", "--json")
    assert code == 0 and json.loads(out)["waits"] == []
    code, _, err = run("waits", "123m456p789s1z", "--melds", "1")
    assert code == 2 and "with 1 melds the concealed hand holds 13 tiles, got 10" in flat(err)
    code, _, err = run("waits", "123m456p789s11z", "--melds", "pon:111z,chi:789m")
    assert code == 2 and "fifth copy of 1z" in flat(err) and "hand and melds" in flat(err)


def test_waits_batch_matches_waits() -> None:
    hands = _hands(1, 1200)
    counts = np.array([to_counts(h) for h in hands])
    found = batch.waits_batch(counts)
    for row, hand in zip(found, hands, strict=True):
        assert np.flatnonzero(row).tolist() == waits(to_counts(hand))
    own = np.zeros(34, dtype=np.int64)
    own[[0, 27]] = 3
    blocked = batch.waits_batch(counts, own)
    for row, hand in zip(blocked, hands, strict=True):
        assert np.flatnonzero(row).tolist() == waits(to_counts(hand), own.tolist())


def test_parse_block_agrees_with_parse_tiles() -> None:
    rng = random.Random(7)
    alphabet = "0123456789mpsz mpsz\t1z"
    lines = [format_tiles(h) for h in _hands(2, 300)]
    lines += [
        "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20))) for _ in range(700)
    ]
    lines += ["m1", "1m m", "1mm", "8z", "12 3m", "11111m", "1m 2p  3s", "", "1m\r2m", "１m"]
    counts, plain = batch.parse_block([line.encode() for line in lines])
    for line, row, ok in zip(lines, counts, plain, strict=True):
        try:
            expected = to_counts(parse_tiles(line))
        except ValueError:
            assert not ok, line
            continue
        if ok:
            assert row.tolist() == expected, line
        else:
            # Only unusual but valid spacing may leave the fast path.
            assert any(ch.isspace() and ch != " " for ch in line), line


def _stream(lines: list[str], analysis: str, melds: str | None = None) -> tuple[list[str], int]:
    spec = cli.parse_melds_option(melds)
    made = (
        cli._waits_analysis(spec, True) if analysis == "waits" else cli._deficiency_analysis(spec)
    )
    sink = io.StringIO()
    source = io.BytesIO("\n".join(lines).encode() + b"\n")
    total, failed = cli.stream(source, made, spec, True, sink)
    assert total == len(lines)
    return sink.getvalue().splitlines(), failed


def test_stream_matches_the_one_hand_path_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "BLOCK_LINES", 97)
    lines = [format_tiles(h) for h in _hands(3, 600)]
    lines[5] = "1111m 2222p 333s 44z"  # quads: a tile with four copies in hand is no wait
    lines[6] = "123m\t456p789s1z"  # valid, but a tab leaves the fast path
    out, failed = _stream(lines, "waits")
    assert failed == 0
    for line, text in zip(lines, out, strict=True):
        obj = json.loads(text)
        assert obj["hand"] == line
        assert obj["waits"] == [format_tiles([t]) for t in waits(to_counts(parse_tiles(line)))]
    out, failed = _stream(lines, "deficiency")
    assert failed == 0
    for line, text in zip(lines, out, strict=True):
        expected = deficiency(to_counts(parse_tiles(line)))
        assert json.loads(text) == {"hand": line, "deficiency": expected}


def test_file_json_reports_bad_lines_and_exits_1(tmp_path: Path) -> None:
    hands = tmp_path / "hands.txt"
    hands.write_text(
        "1112345678999m\n11123456789m9p\n1112345678999m123p\n1z 2z 3z 4z\n"
        "123m456p7q8s9s1z\n\n11111m23456789p\n1112345678999m\n",
        encoding="utf-8",
    )
    code, out, err = run("waits", "--file", str(hands), "--json")
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 7
    assert rows[0] == {"hand": "1112345678999m", "waits": [f"{r}m" for r in range(1, 10)]}
    assert rows[2]["waits"] == rows[0]["waits"]
    assert rows[3] == {"hand": "1z 2z 3z 4z", "waits": []}
    assert rows[6] == rows[0]
    assert rows[1]["line"] == 2 and "3k+1 tiles" in rows[1]["error"]
    assert rows[4]["line"] == 5 and "'q' at position 9" in rows[4]["error"]
    # Line 6 is blank: skipped (no row, no failure), but line 7 keeps its number.
    assert rows[5]["line"] == 7 and "fifth copy of 1m" in rows[5]["error"]
    assert "3 of 7 non-blank lines could not be analysed" in err


def test_file_text_output_and_stdin() -> None:
    code, out, err = run("waits", "--file", "-", stdin="11123456789m99p\n123m0\n1z 2z 3z 4z\n")
    assert code == 1
    assert out.splitlines() == ["11123456789m99p\t1m 4m 7m 9p", "1z 2z 3z 4z\t-"]
    assert "line 2: ranks run from 1 to 9" in err
    code, out, _ = run("deficiency", "--file", "-", "--json", stdin="1112345678999m\n")
    assert code == 0 and json.loads(out) == {"hand": "1112345678999m", "deficiency": 1}


def test_file_and_hand_usage_errors(tmp_path: Path) -> None:
    code, _, err = run("waits", "--file", str(tmp_path / "missing.txt"))
    assert code == 2 and "cannot read" in err
    code, _, err = run("waits", "1m", "--file", str(tmp_path / "x"))
    assert code == 2 and "either a HAND or --file" in err
    code, _, err = run("deficiency")
    assert code == 2 and "either a HAND or --file" in err
    code, _, err = run("waits", "123m45x")
    assert code == 2 and "'x' at position 6 in '123m45x'" in flat(err)
    code, _, err = run("waits", "1m", "--melds", "pon:12m")
    assert code == 2 and "--melds: 12m is not a valid pon" in flat(err)


# ----------------------------------------------------------------------------- deficiency


def test_deficiency_json_text_and_melds(tmp_path: Path) -> None:
    code, out, _ = run("deficiency", "1112345678999m12p4s", "--json")
    assert code == 0 and json.loads(out) == {"hand": "1112345678999m12p4s", "deficiency": 2}
    code, out, _ = run("deficiency", "1112345678999m1p")
    assert code == 0 and "deficiency (進胡數) 1" in out and "1p (一筒) ×3" in flat(out)
    # Five melds: a two-tile hand, and a pair of it is a win.
    five = "pon:111z,pon:222z,pon:333z,pon:444z,pon:555z"
    assert json.loads(run("deficiency", "66z", "--melds", five, "--json")[1])["deficiency"] == 0
    assert json.loads(run("deficiency", "6z", "--melds", "5", "--json")[1])["deficiency"] == 1
    code, _, err = run("deficiency", "1112345678999m12p")
    assert code == 2 and "3k+1 tiles (between turns) or 3k+2" in flat(err)
    code, _, err = run("deficiency", "1m", "--melds", "6")
    assert code == 2 and "at most 5 melds" in flat(err)
    hands = tmp_path / "h.txt"
    hands.write_text("66z\n6z\n12z\n123m\n", encoding="utf-8")
    code, out, _ = run("deficiency", "--file", str(hands), "--melds", five, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert rows[0] == {"hand": "66z", "deficiency": 0}
    assert rows[1] == {"hand": "6z", "deficiency": 1}
    # Deficiency counts the hand only: the 1z and 2z in the melds are not subtracted.
    assert rows[2] == {"hand": "12z", "deficiency": 1}
    assert rows[3]["line"] == 4
    assert rows[3]["error"] == "with 5 melds the concealed hand holds 1 or 2 tiles, got 3"


# ----------------------------------------------------------------------------- score

MELDED = ["--hand", "123456789m5p", "--melds", "pon:999p,chi:123s", "--win-tile", "5p"]


def test_score_json_shape() -> None:
    code, out, _ = run("score", *MELDED, "--seat-wind", "E", "--json")
    assert code == 0
    assert json.loads(out) == {
        "tai": 3,
        "breakdown": [["莊家", 1], ["一條龍", 2]],
        "points": 2500,
        "payments": {"non_dealer": 2500},
        "reading": "55p 123m 456m 789m",
        "win_set": ["pair", "5p"],
    }
    args = ["--hand", "1112345678999m123p", "--win-tile", "5m", "--dealer", "--self-drawn"]
    data = json.loads(run("score", *args, "--json")[1])
    assert data["breakdown"] == [["莊家", 1], ["門清自摸", 3]] and data["tai"] == 4
    assert data["points"] == 3000 and data["payments"] == {"non_dealer": 3000, "total": 9000}


def test_score_table_uses_chinese_names() -> None:
    code, out, _ = run("score", *MELDED, "--seat-wind", "S", "--last-tile")
    assert code == 0
    assert "一條龍" in out and "胡 五筒" in out
    # Points are per payer: the discarder pays 2,000, or 2,500 when it deals (莊家's Tai).
    assert "2 台: 2,000 points paid by the discarder (2,500 if that is the dealer)" in flat(out)
    assert "河底撈魚" not in out  # not in table 2-1: off in the default ruleset


def test_score_ruleset_files(tmp_path: Path) -> None:
    bare = tmp_path / "bare.toml"
    bare.write_text("last_discard_tai = true\npoints_per_tai = 100\n", encoding="utf-8")
    args = [*MELDED, "--seat-wind", "S", "--last-tile", "--json"]
    data = json.loads(run("score", *args, "--ruleset", str(bare))[1])
    assert data["breakdown"] == [["一條龍", 2], ["河底撈魚", 1]] and data["points"] == 1300
    data = json.loads(run("score", *args, "--ruleset", "common")[1])
    assert ["河底撈魚", 1] in data["breakdown"]
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("[scoring]\nbogus = 1\n", encoding="utf-8")
    code, _, err = run("score", *args, "--ruleset", str(wrong))
    assert code == 2 and "unknown scoring rule 'bogus'" in flat(err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--win-tile", "4p", "--seat-wind", "S"], "does not win on 4p"),
        (["--win-tile", "5p"], "--seat-wind: give the winner's seat wind"),
        (["--win-tile", "5p", "--seat-wind", "X"], "--seat-wind: expected a wind E, S, W or N"),
        (["--win-tile", "5p", "--seat-wind", "S", "--dealer"], "only the dealer, sits East"),
        (["--win-tile", "5p", "--seat-wind", "S", "--after-kong"], "is a self-drawn win"),
        (["--win-tile", "5k", "--seat-wind", "S"], "--win-tile: expected a digit"),
        (["--win-tile", "5p", "--seat-wind", "S", "--ruleset", "nope"], "no mahjong ruleset"),
    ],
)
def test_score_errors(args: list[str], message: str) -> None:
    code, out, err = run("score", "--hand", "123456789m5p", "--melds", "pon:999p,chi:123s", *args)
    assert code == 2 and out == ""
    assert message in flat(err)


def test_score_inconsistent_hands() -> None:
    base = ["--win-tile", "5p", "--seat-wind", "S"]
    code, _, err = run("score", "--hand", "1234567899m5p", "--melds", "pon:999p,chi:123s", *base)
    assert code == 2 and "holds 10 concealed tiles before the winning tile, got 11" in flat(err)
    code, _, err = run("score", "--hand", "123456789m5p", "--melds", "pon:555p,chi:123s", *base)
    assert code == 2 and "fifth copy of 5p among the hand, the melds and the winning tile" in flat(
        err
    )
    code, _, err = run("score", "--hand", "12345678m9m5p", "--melds", "chi:123s,pon:999x", *base)
    assert code == 2 and "--melds: " in err and "'x' at position 16" in flat(err)
    code, _, err = run("score", "--hand", "11111m", "--win-tile", "1m", "--seat-wind", "S")
    assert code == 2 and "--hand: fifth copy of 1m at position 4" in flat(err)


# The README's example: 123m 456m 789m 234s 11p with pon:999p, South self-draws 1p.
README_SCORE = ["--hand", "123456789m1p234s", "--melds", "pon:999p", "--win-tile", "1p"]


@pytest.mark.parametrize(
    ("args", "said", "paid"),
    [
        (
            ["--self-drawn", "--seat-wind", "S"],
            "3 台: 2,500 points from each non-dealer and 3,000 from the dealer: 8,000 in all",
            {"non_dealer": 2500, "dealer": 3000, "total": 8000},
        ),
        (
            ["--self-drawn", "--dealer"],
            "4 台: 3,000 points from each of the other three: 9,000 in all",
            {"non_dealer": 3000, "total": 9000},
        ),
        (
            ["--dealer"],
            "3 台: 2,500 points paid by the discarder",
            {"non_dealer": 2500},
        ),
    ],
)
def test_score_says_who_pays_what(args: list[str], said: str, paid: dict[str, int]) -> None:
    code, out, _ = run("score", *README_SCORE, *args)
    assert code == 0 and said in flat(out)
    data = json.loads(run("score", *README_SCORE, *args, "--json")[1])
    assert data["payments"] == paid and data["points"] == paid["non_dealer"]


def test_score_robbed_kong_pays_as_its_adder() -> None:
    args = ["--hand", "12356m789p345s999s11z", "--win-tile", "4m", "--seat-wind", "S"]
    code, out, _ = run("score", *args, "--robbing-kong")
    assert code == 0 and "paid by the player who added the kong" in flat(out)


def test_score_refuses_a_robbed_tile_the_winner_holds() -> None:
    # Robbing a 2p means another player had pon:222p and added the fourth: a winner holding
    # 222p would make seven copies.
    args = ["--hand", "222p34p555m777m11s999s", "--win-tile", "2p", "--seat-wind", "S"]
    assert run("score", *args)[0] == 0
    code, out, err = run("score", *args, "--robbing-kong")
    assert code == 2 and out == ""
    assert "搶槓 (robbing_kong) on 2p" in flat(err) and "the winner holds 3 more" in flat(err)


def test_score_after_kong_needs_a_kong_unless_flowers_replace() -> None:
    base = [*README_SCORE, "--self-drawn", "--seat-wind", "S", "--after-kong"]
    code, out, err = run("score", *base)
    assert code == 2 and out == ""
    assert "--after-kong: 槓上開花 is a self-draw on the replacement after your kong" in flat(err)
    # With flowers a flower's replacement also counts, so no kong is needed.
    data = json.loads(run("score", *base, "--ruleset", "flowers", "--json")[1])
    assert ["槓上開花", 1] in data["breakdown"]
    kong = ["--hand", "123456789m1p234s", "--melds", "ckong:9999p", "--win-tile", "1p"]
    data = json.loads(
        run("score", *kong, "--self-drawn", "--seat-wind", "S", "--after-kong", "--json")[1]
    )
    assert ["槓上開花", 1] in data["breakdown"]


def test_score_after_an_open_kong_follows_the_ruleset() -> None:
    # The competition (the default) allows no win on an open kong's replacement (seed 003
    # §3.3), so there 槓上開花 needs an added or concealed kong; common practice and a bare
    # scoring table (no table rules) take any kong.
    base = ["--hand", "123456789m1p234s", "--win-tile", "1p", "--self-drawn", "--seat-wind", "S"]
    open_kong = [*base, "--melds", "kong:9999p", "--after-kong"]
    code, out, err = run("score", *open_kong, "--ruleset", "competition")
    assert code == 2 and out == ""
    assert "no win on the replacement after an open kong" in flat(err)
    for ruleset in ("common", "flowers"):
        data = json.loads(run("score", *open_kong, "--ruleset", ruleset, "--json")[1])
        assert ["槓上開花", 1] in data["breakdown"], ruleset
    code, out, err = run("score", *open_kong)
    assert code == 2 and "no win on the replacement after an open kong" in flat(err)
    for kind in ("akong", "ckong"):
        args = [*base, "--melds", f"{kind}:9999p", "--after-kong", "--ruleset", "competition"]
        data = json.loads(run("score", *args, "--json")[1])
        assert ["槓上開花", 1] in data["breakdown"], kind


# 11p 123m 456m 789m 234s 555z: 三元牌 1 and 一條龍 4 (門清, doubled) besides the first-turn row.
FIRST_TURN_HAND = ["--hand", "123456789m1p234s555z", "--win-tile", "1p"]


@pytest.mark.parametrize(
    ("args", "rows", "paid"),
    [
        (
            ["--heavenly", "--self-drawn", "--dealer"],
            [["莊家", 1], ["三元牌", 1], ["一條龍", 4], ["天胡", 16]],
            {"non_dealer": 12000, "total": 36000},
        ),
        (
            ["--earthly", "--self-drawn", "--seat-wind", "S"],
            [["三元牌", 1], ["一條龍", 4], ["地胡", 16]],
            {"non_dealer": 11500, "dealer": 12000, "total": 35000},
        ),
        (
            ["--human", "--seat-wind", "W"],
            [["三元牌", 1], ["一條龍", 4], ["人胡", 16]],
            {"non_dealer": 11500, "dealer": 12000},
        ),
    ],
)
def test_score_first_turn_wins(
    args: list[str], rows: list[list[object]], paid: dict[str, int]
) -> None:
    # Table 2-1's 16-Tai rows; by default they include 門清, 自摸 and 門清自摸
    # (first_turn_absorbs_concealed), which therefore do not show.
    code, out, err = run("score", *FIRST_TURN_HAND, *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["breakdown"] == rows and data["payments"] == paid
    code, out, _ = run("score", *FIRST_TURN_HAND, *args)
    assert code == 0 and str(rows[-1][0]) in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--heavenly", "--self-drawn", "--seat-wind", "S"], "天胡 (heavenly) is the dealer's"),
        (["--heavenly", "--dealer"], "天胡 (heavenly) is the dealer's self-drawn win"),
        (["--earthly", "--self-drawn", "--dealer"], "地胡 (earthly) is a non-dealer's"),
        (["--human", "--self-drawn", "--seat-wind", "S"], "人胡 (human) is a win on a discard"),
        (
            ["--heavenly", "--human", "--self-drawn", "--dealer"],
            "at most one of 天胡, 地胡 and 人胡 applies",
        ),
        (
            ["--human", "--robbing-kong", "--seat-wind", "S"],
            "a first-turn win cannot follow a kong",
        ),
    ],
)
def test_score_first_turn_flags_must_fit_the_win(args: list[str], message: str) -> None:
    code, out, err = run("score", *FIRST_TURN_HAND, *args)
    assert code == 2 and out == ""
    assert message in flat(err)


def test_score_first_turn_wins_need_a_hand_without_melds() -> None:
    code, out, err = run("score", *README_SCORE, "--human", "--seat-wind", "S")
    assert code == 2 and out == ""
    assert "天胡, 地胡 and 人胡 need a hand without melds, got pon:999p" in flat(err)
    text = flat(run("score", "--help")[1])
    assert all(flag in text for flag in ("--heavenly", "--earthly", "--human"))


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ("-1", "a meld count is 0 to 5, got -1"),
        ("+0", None),
        ("+7", "a hand has at most 5 melds, got 7"),
    ],
)
def test_a_signed_meld_count_is_read_as_a_count(count: str, message: str | None) -> None:
    code, out, err = run("waits", "1112345678999m123p", "--melds", count)
    if message is None:
        assert code == 0 and "waits on" in out
        return
    assert code == 2 and out == ""
    assert f"--melds: {message}" in flat(err) and "expected ':'" not in err


def test_a_hand_file_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    hands = tmp_path / "hands.txt"
    hands.write_bytes(b"\xef\xbb\xbf1112345678999m\n123m456m789m1z\n")
    code, out, err = run("waits", "--file", str(hands), "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {"hand": "1112345678999m", "waits": [f"{n}m" for n in range(1, 10)]}
    assert rows[1] == {"hand": "123m456m789m1z", "waits": ["1z"]}


# ----------------------------------------------------------------------------- bench


def test_bench_mahjong_small(monkeypatch: pytest.MonkeyPatch) -> None:
    # Table generation takes seconds; the cached tables stand in for it so the wiring is cheap.
    monkeypatch.setattr(mahjong_hands, "build_tables", get_tables)
    args = ["bench", "mahjong", "--hands", "30", "--rounds", "1"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n_hands"] == 30 and data["win_disagreements"] == 0
    assert data["deficiency_disagreements"] == 0
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "mahjong hand analysis vs the mahjong package" in result.stdout
    result = runner.invoke(app, ["bench", "mahjong", "--hands", "2"])
    assert result.exit_code == 2


def test_help_documents_file_errors_and_json_shapes() -> None:
    for command in ("waits", "deficiency"):
        text = flat(run(command, "--help")[1])
        assert '{"line": N, "hand": ..., "error": ...}' in text
        assert "1 when any line failed" in text
    assert '"win_set": ["pair", "5m"]' in flat(run("score", "--help")[1])
