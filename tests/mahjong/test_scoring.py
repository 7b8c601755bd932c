"""The Tai scorer against the hand-worked vectors in vectors/tai.txt, plus its error paths."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.games.errors import RulesetError
from arena.games.mahjong.scoring import (
    ScoreResult,
    WinContext,
    score_flower_win,
    score_hand,
    settle,
)
from arena.games.mahjong.scoring_rules import (
    BASE_TAI,
    EYES_DECLARATION,
    ROW_ORDER,
    SCORED_ROWS,
    TABLE_2_1,
    ScoringRules,
)
from arena.games.mahjong.tiles import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    MahjongError,
    Meld,
    TileCountError,
    parse_melds,
    parse_tile,
    parse_tiles,
    parse_wind,
)

VECTORS = Path(__file__).parent / "vectors" / "tai.txt"
FIELDS = ("hand", "melds", "win", "ctx", "rules", "expect", "total")
REQUIRED = frozenset(FIELDS) - {"rules"}
FLAGS = ("dealer", "last_tile", "after_kong", "robbing_kong", "heavenly", "earthly", "human")


@dataclass(frozen=True)
class Vector:
    line_no: int
    text: str
    concealed: list[int]
    melds: tuple[Meld, ...]
    win: int
    ctx: WinContext
    rules: ScoringRules
    expect: dict[str, int]
    total: int

    @property
    def where(self) -> str:
        return f"tai.txt line {self.line_no}: {self.text}"


def _parse_ctx(text: str) -> WinContext:
    how = None
    seat = None
    round_wind = None
    streak = 0
    flowers: tuple[int, ...] = ()
    flags: dict[str, bool] = {}
    for token in text.split(","):
        key, _, value = token.strip().partition("=")
        if key in ("discard", "self_drawn"):
            if how is not None:
                raise ValueError("ctx names both discard and self_drawn")
            how = key == "self_drawn"
        elif key == "seat":
            seat = parse_wind(value)
        elif key == "round":
            round_wind = parse_wind(value)
        elif key == "streak":
            streak = int(value)
        elif key == "flowers":
            flowers = tuple(parse_tiles(value))
        elif key in FLAGS and not value:
            flags[key] = True
        else:
            raise ValueError(f"unknown ctx token {token!r}")
    if how is None or seat is None:
        raise ValueError("ctx needs discard or self_drawn, and seat=")
    return WinContext(
        self_drawn=how,
        seat_wind=seat,
        round_wind=round_wind,
        dealer_streak=streak,
        flowers=flowers,
        **flags,
    )


def _parse_rules(text: str) -> ScoringRules:
    options: dict[str, object] = {}
    for item in text.split(","):
        key, _, value = item.strip().partition("=")
        if value in ("true", "false"):
            options[key] = value == "true"
        elif value.isdigit():
            options[key] = int(value)
        else:
            options[key] = value
    return ScoringRules.from_mapping(options)


def _parse_expect(text: str) -> dict[str, int]:
    if text.strip() == "none":
        return {}
    rows: dict[str, int] = {}
    for item in text.split(";"):
        name, tai = item.split()
        if name in rows:
            raise ValueError(f"row {name} listed twice")
        rows[name] = int(tai)
    return rows


def _parse_line(line_no: int, text: str) -> Vector:
    parts: dict[str, str] = {}
    for field in text.split(" | "):
        key, sep, value = field.strip().partition("=")
        if not sep or key not in FIELDS or key in parts:
            raise ValueError(f"tai.txt line {line_no}: bad field {field!r}")
        parts[key] = value.strip()
    missing = REQUIRED - parts.keys()
    if missing:
        raise ValueError(f"tai.txt line {line_no}: missing {', '.join(sorted(missing))}")
    try:
        return Vector(
            line_no=line_no,
            text=text,
            concealed=parse_tiles(parts["hand"]),
            melds=() if parts["melds"] == "-" else parse_melds(parts["melds"]),
            win=parse_tile(parts["win"]),
            ctx=_parse_ctx(parts["ctx"]),
            rules=_parse_rules(parts["rules"]) if "rules" in parts else ScoringRules(),
            expect=_parse_expect(parts["expect"]),
            total=int(parts["total"]),
        )
    except (ValueError, MahjongError) as exc:
        raise ValueError(f"tai.txt line {line_no}: {exc}") from exc


def _load() -> list[Vector]:
    vectors = []
    for line_no, raw in enumerate(VECTORS.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            vectors.append(_parse_line(line_no, line))
    return vectors


ALL_VECTORS = _load()


def _score(v: Vector) -> ScoreResult:
    return score_hand(v.concealed, v.melds, v.win, v.ctx, v.rules)


@pytest.mark.parametrize("v", ALL_VECTORS, ids=[f"line{v.line_no}" for v in ALL_VECTORS])
def test_vector(v: Vector) -> None:
    assert sum(v.expect.values()) == v.total, f"{v.where}: expect does not add up to total"
    result = _score(v)
    got = dict(result.breakdown)
    assert got == v.expect, f"{v.where}\n  got {got}"
    assert result.tai == v.total, v.where
    assert result.points == v.rules.base_points + v.rules.points_per_tai * v.total, v.where


def test_every_row_of_table_2_1_has_three_vectors() -> None:
    seen = Counter(name for v in ALL_VECTORS for name in v.expect)
    thin = {name: seen[name] for name in SCORED_ROWS if seen[name] < 3}
    assert not thin, f"rows with fewer than 3 vectors: {thin}"


def test_vectors_name_only_known_rows() -> None:
    for v in ALL_VECTORS:
        for name, tai in v.expect.items():
            assert name in BASE_TAI, f"{v.where}: unknown row {name}"
            assert tai % BASE_TAI[name] == 0, f"{v.where}: {name} {tai} is no multiple"


def test_table_has_every_row_of_the_seed() -> None:
    assert len(TABLE_2_1) == 37
    assert EYES_DECLARATION not in SCORED_ROWS
    assert len(SCORED_ROWS) == 36


def test_breakdown_is_in_table_order() -> None:
    for v in ALL_VECTORS:
        names = [name for name, _ in _score(v).breakdown]
        assert names == sorted(names, key=ROW_ORDER.__getitem__), v.where


def test_points_are_base_plus_500_per_tai() -> None:
    rules = ScoringRules()
    assert (rules.base_points, rules.points_per_tai) == (1000, 500)
    for v in ALL_VECTORS:
        result = _score(v)
        assert result.points == 1000 + 500 * result.tai or v.rules != rules, v.where
    cheap = ScoringRules(base_points=300, points_per_tai=100)
    v = ALL_VECTORS[0]
    assert score_hand(v.concealed, v.melds, v.win, v.ctx, cheap).points == 300 + 100 * v.total


def test_order_of_tiles_and_melds_does_not_matter() -> None:
    for v in ALL_VECTORS:
        shuffled = score_hand(v.concealed[::-1], v.melds[::-1], v.win, v.ctx, v.rules)
        assert shuffled.breakdown == _score(v).breakdown, v.where


def _ctx(**kwargs: object) -> WinContext:
    base: dict[str, object] = {"self_drawn": False, "seat_wind": SOUTH}
    base.update(kwargs)
    return WinContext(**base)  # type: ignore[arg-type]


PLAIN_HAND = parse_tiles("12356m789p345s999s11z")
FOUR_M = parse_tile("4m")


def test_discard_into_a_chow_keeps_the_pung_concealed() -> None:
    result = score_hand(
        parse_tiles("777m99m22234p555s"), parse_melds("chi:123m"), parse_tile("2p"), _ctx()
    )
    assert result.win_set == ("chow", parse_tile("2p"))
    assert result.decomposition is not None
    assert ("pung", parse_tile("2p")) in result.decomposition.sets


# --- rules options ------------------------------------------------------------------------------


def test_rules_round_trip() -> None:
    rules = ScoringRules(single_wait="shape", round_wind_tai=True, base_points=2000)
    assert ScoringRules.from_mapping(rules.to_mapping()) == rules
    assert ScoringRules.from_mapping({}) == ScoringRules()


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"tai_cap": 10}, "tai_cap"),
        ({"round_wind_tai": "yes"}, "round_wind_tai"),
        ({"double_when_concealed": 1}, "double_when_concealed"),
        ({"base_points": -5}, "base_points"),
        ({"points_per_tai": True}, "points_per_tai"),
        ({"points_per_tai": 2.5}, "points_per_tai"),
        ({"single_wait": "edge"}, "single_wait"),
    ],
)
def test_rules_errors_name_the_key(options: dict[str, object], key: str) -> None:
    with pytest.raises(RulesetError, match=key):
        ScoringRules.from_mapping(options)


def test_rules_constructor_checks_values() -> None:
    with pytest.raises(RulesetError, match="single_wait"):
        ScoringRules(single_wait="both")


# --- bad input ----------------------------------------------------------------------------------


def test_non_winning_hand() -> None:
    with pytest.raises(MahjongError, match="does not win"):
        score_hand(PLAIN_HAND, (), parse_tile("9m"), _ctx())


def test_wrong_tile_count() -> None:
    with pytest.raises(MahjongError, match="concealed tiles"):
        score_hand(PLAIN_HAND[:-1], (), FOUR_M, _ctx())
    with pytest.raises(MahjongError, match="concealed tiles"):
        score_hand(PLAIN_HAND, parse_melds("chi:123p"), FOUR_M, _ctx())


def test_fifth_copy() -> None:
    with pytest.raises(TileCountError):
        score_hand(parse_tiles("12356m789p345s9999s1z"), (), parse_tile("9s"), _ctx())
    with pytest.raises(TileCountError):
        score_hand(
            parse_tiles("2345m789m678p123s"), parse_melds("pon:555m"), parse_tile("5m"), _ctx()
        )


def test_tile_out_of_range() -> None:
    with pytest.raises(MahjongError):
        score_hand(PLAIN_HAND, (), 34, _ctx())


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"seat_wind": EAST}, "dealer"),
        ({"seat_wind": NORTH, "dealer": True}, "dealer"),
        ({"seat_wind": parse_tile("5z")}, "seat wind"),
        ({"round_wind": parse_tile("1m")}, "round wind"),
        ({"after_kong": True}, "after_kong"),
        ({"self_drawn": True, "robbing_kong": True}, "robbing_kong"),
        ({"self_drawn": True, "heavenly": True}, "heavenly"),
        ({"self_drawn": True, "earthly": True, "seat_wind": EAST, "dealer": True}, "earthly"),
        ({"self_drawn": True, "human": True}, "human"),
        ({"human": True, "robbing_kong": True}, "kong"),
        ({"dealer_streak": -1}, "streak"),
    ],
)
def test_contradictory_context(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(MahjongError, match=match):
        _ctx(**kwargs)


@pytest.mark.parametrize(
    ("hand", "melds", "held"),
    [
        ("222p34p555m777m11s999s", "", 3),  # the audit's case: a concealed 222p
        ("34p555m777m11s999s", "chi:123p", 1),  # a 2p in a chi counts too
    ],
)
def test_a_robbed_kong_tile_is_one_the_winner_does_not_hold(
    hand: str, melds: str, held: int
) -> None:
    """The robbed pon and the added tile are all four copies: the winner can hold none more."""
    concealed, exposed, two_p = parse_tiles(hand), parse_melds(melds), parse_tile("2p")
    assert score_hand(concealed, exposed, two_p, _ctx()).tai >= 0  # a legal win on a discard
    with pytest.raises(MahjongError, match=f"robbing_kong.*holds {held} more"):
        score_hand(concealed, exposed, two_p, _ctx(robbing_kong=True))


def test_context_that_contradicts_hand_or_rules() -> None:
    with pytest.raises(MahjongError, match="without melds"):
        score_hand(
            parse_tiles("56m789p345s999s11z"),
            parse_melds("chi:123m"),
            FOUR_M,
            _ctx(self_drawn=True, earthly=True),
        )
    with pytest.raises(MahjongError, match="round wind"):
        score_hand(PLAIN_HAND, (), FOUR_M, _ctx(), ScoringRules(round_wind_tai=True))
    with pytest.raises(MahjongError, match="dealer_repeat"):
        score_hand(PLAIN_HAND, (), FOUR_M, _ctx(seat_wind=EAST, dealer=True, dealer_streak=1))


# --- payments -----------------------------------------------------------------------------------


def test_settle_non_dealer_self_draw() -> None:
    # 門清自摸 3 for seat 2 (West); the dealer (seat 0) pays one Tai more than seat 1 and seat 3.
    result = score_hand(PLAIN_HAND, (), FOUR_M, _ctx(self_drawn=True, seat_wind=WEST))
    deltas = settle(result, winner=2, dealer=0, discarder=None)
    assert deltas == (-3000, -2500, 8000, -2500)


def test_settle_dealer_self_draw() -> None:
    # 莊家 1 + 門清自摸 3: every payment involves the dealer, so each of three pays 4 Tai.
    result = score_hand(PLAIN_HAND, (), FOUR_M, _ctx(self_drawn=True, seat_wind=EAST, dealer=True))
    assert result.tai == 4
    assert settle(result, winner=1, dealer=1, discarder=None) == (-3000, 9000, -3000, -3000)


def test_settle_discards() -> None:
    result = score_hand(PLAIN_HAND, (), FOUR_M, _ctx(seat_wind=SOUTH))
    assert result.tai == 1
    # The dealer deals in: 門清 1 + the dealer's 1.
    assert settle(result, winner=1, dealer=0, discarder=0) == (-2000, 2000, 0, 0)
    # A non-dealer deals in: 門清 1 only.
    assert settle(result, winner=1, dealer=0, discarder=3) == (0, 1500, 0, -1500)


def test_settle_is_zero_sum_for_every_vector() -> None:
    for v in ALL_VECTORS:
        result = _score(v)
        winner = (v.ctx.seat_wind - EAST + 1) % 4
        dealer = 1
        discarder = None if v.ctx.self_drawn else (winner + 2) % 4
        deltas = settle(result, winner=winner, dealer=dealer, discarder=discarder, rules=v.rules)
        assert sum(deltas) == 0, v.where
        assert deltas[winner] >= result.points, v.where


def test_settle_rejects_mismatches() -> None:
    result = score_hand(PLAIN_HAND, (), FOUR_M, _ctx())
    with pytest.raises(MahjongError, match="dealer"):
        settle(result, winner=0, dealer=0, discarder=1)
    with pytest.raises(MahjongError, match="discarder"):
        settle(result, winner=1, dealer=0, discarder=None)
    with pytest.raises(MahjongError, match="themself"):
        settle(result, winner=1, dealer=0, discarder=1)
    with pytest.raises(MahjongError, match="outside"):
        settle(result, winner=1, dealer=0, discarder=4)


def _flowers(text: str) -> tuple[int, ...]:
    return tuple(parse_tiles(text))


def test_eight_flowers_score_eight_and_are_paid_as_a_self_draw() -> None:
    # North holds all eight and exposes 8f last: 8 Tai, no 正花/花槓 on top; each of the three
    # pays 1000 + 4000, the dealer (seat 0) adding its 莊家 Tai: 1000 + 4500.
    ctx = WinContext(self_drawn=True, seat_wind=NORTH, flowers=_flowers("12345678f"))
    result = score_flower_win(parse_tile("8f"), ctx)
    assert (result.tai, result.breakdown) == (8, (("八仙過海", 8),))
    assert result.decomposition is None and result.win_set == ("flower", parse_tile("8f"))
    assert settle(result, winner=3, dealer=0, discarder=None) == (-5500, -5000, -5000, 15500)


def test_seven_flowers_take_the_eighth_paid_by_the_exposer() -> None:
    # The dealer (East) holds seven; seat 2 exposes 3f: 莊家 1 + 七搶一 8 = 9, seat 2 pays 5500.
    ctx = WinContext(self_drawn=False, seat_wind=EAST, dealer=True, flowers=_flowers("1245678f"))
    result = score_flower_win(parse_tile("3f"), ctx)
    assert dict(result.breakdown) == {"莊家": 1, "七搶一": 8} and result.tai == 9
    assert settle(result, winner=0, dealer=0, discarder=2) == (5500, 0, -5500, 0)


@pytest.mark.parametrize(
    ("tile", "kwargs", "match"),
    [
        ("8f", {"self_drawn": True, "flowers": "1234567f"}, "eight"),
        ("8f", {"self_drawn": False, "flowers": "123456f"}, "eight"),
        ("7f", {"self_drawn": False, "flowers": "1234567f"}, "eight"),
        ("5m", {"self_drawn": True, "flowers": "12345678f"}, "on a flower"),
        ("8f", {"self_drawn": True, "flowers": "12345678f", "after_kong": True}, "kong"),
    ],
)
def test_flower_win_errors(tile: str, kwargs: dict[str, object], match: str) -> None:
    options = dict(kwargs)
    options["flowers"] = _flowers(str(options["flowers"]))
    with pytest.raises(MahjongError, match=match):
        score_flower_win(parse_tile(tile), _ctx(**options))


def test_flowers_in_the_context_are_checked() -> None:
    with pytest.raises(MahjongError, match="flower"):
        _ctx(flowers=(parse_tile("1m"),))
    with pytest.raises(MahjongError, match="flower"):
        _ctx(flowers=_flowers("1f") * 2)
    v = ALL_VECTORS[0]
    with pytest.raises(MahjongError, match="八仙過海"):
        score_hand(v.concealed, v.melds, v.win, _ctx(flowers=_flowers("12345678f")))
