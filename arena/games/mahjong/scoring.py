"""Tai (台) of a winning Taiwan 16-tile hand, after table 2-1 of seed 003, and the payments.

`score_hand` reads the hand every way it decomposes, and for each reading every set the winning
tile may have completed, because Taiwan practice lets the winner claim the reading worth most:
a discard that fits either a pung or a chow leaves the pung concealed for 暗刻, and 111222333m
counts as three pungs or three chows, whichever scores higher. Rows that another row already
contains are dropped afterwards (see `ABSORBS`); docs/RULES.md gives the reasons row by row.

Under the ``flowers`` ruleset option the winner's exposed flowers add 正花 and 花槓, which read
no tiles of the hand and so are the same for every decomposition; `score_flower_win` scores the
two wins made of flowers alone (八仙過海, 七搶一), which read no hand at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.mahjong import scoring_rules as R
from arena.games.mahjong.analysis import Decomposition, waits, winning_decompositions
from arena.games.mahjong.scoring_rules import ScoringRules
from arena.games.mahjong.tiles import (
    DRAGONS,
    EAST,
    FLOWER_BASE,
    NUM_FLOWERS,
    PLANTS,
    SEASONS,
    WINDS,
    MahjongError,
    Meld,
    MeldKind,
    format_melds,
    format_tiles,
    is_honour,
    is_terminal,
    is_terminal_or_honour,
    rank_of,
    suit_of,
    to_counts,
)

__all__ = [
    "ABSORBS",
    "HAND_TILES",
    "ScoreResult",
    "ScoringRules",
    "WinContext",
    "flower_rows",
    "score_flower_win",
    "score_hand",
    "settle",
]

HAND_TILES = 16
"""Tiles held between turns: concealed tiles plus three per meld (a kong's fourth is extra)."""

SETS_TO_WIN = 5

_CHOW = "chow"
_PUNG = "pung"
_PAIR = "pair"

ABSORBS: dict[str, tuple[str, ...]] = {
    R.PURE_OUTSIDE: (R.MIXED_OUTSIDE,),
    R.ALL_TERMINALS_AND_HONOURS: (R.ALL_PUNGS, R.MIXED_OUTSIDE),
    R.ALL_TERMINALS: (R.ALL_TERMINALS_AND_HONOURS, R.ALL_PUNGS, R.PURE_OUTSIDE, R.MIXED_OUTSIDE),
    R.ALL_HONOURS: (R.ALL_TERMINALS_AND_HONOURS, R.ALL_PUNGS, R.MIXED_OUTSIDE),
}
"""Rows that drop the rows their definition already guarantees, whatever the ruleset.

混老頭 dropping 碰碰胡 is printed in the table; the others follow the same reasoning (an all-honour
or all-terminal hand can only be pungs, and 么九 hands are 帶么 hands). The 暗刻 and 龍抱 rows need
no entry: each counts one number and scores only the row for that number.
"""

_HONOUR_SET_ABSORBS: dict[str, tuple[str, ...]] = {
    R.BIG_THREE_DRAGONS: (R.DRAGON_PUNG,),
    R.LITTLE_THREE_DRAGONS: (R.DRAGON_PUNG,),
    R.BIG_FOUR_WINDS: (R.SEAT_WIND, R.ROUND_WIND),
    R.LITTLE_FOUR_WINDS: (R.SEAT_WIND, R.ROUND_WIND),
}

_FIRST_TURN_ABSORBS: dict[str, tuple[str, ...]] = {
    R.HEAVENLY: (R.CONCEALED, R.SELF_DRAWN, R.CONCEALED_SELF_DRAWN),
    R.EARTHLY: (R.CONCEALED, R.SELF_DRAWN, R.CONCEALED_SELF_DRAWN),
    R.HUMAN: (R.CONCEALED,),
}


@dataclass(frozen=True)
class WinContext:
    """How and where the hand was won; everything the tiles alone do not say."""

    self_drawn: bool
    """The winner drew the winning tile (自摸); otherwise it was a discard or a robbed kong."""
    seat_wind: int
    """The winner's seat wind tile, EAST for the dealer and then SOUTH, WEST, NORTH."""
    round_wind: int | None = None
    """The prevailing wind; only scored when `ScoringRules.round_wind_tai` is on."""
    dealer: bool = False
    """The winner is the dealer (莊家), who always sits East."""
    last_tile: bool = False
    """The winning tile is the last of the live wall (海底撈月), or its discard (河底撈魚)."""
    after_kong: bool = False
    """Won on the replacement tile drawn after a kong (槓上開花)."""
    robbing_kong: bool = False
    """Won on the tile another player added to a pung (搶槓)."""
    heavenly: bool = False
    """The dealer won on the hand as dealt (天胡)."""
    earthly: bool = False
    """A non-dealer won by self-draw on the first draw of the hand (地胡)."""
    human: bool = False
    """Won on a discard during the first go-around (人胡)."""
    dealer_streak: int = 0
    """Times the current dealer has repeated (連莊); always 0 in the competition."""
    flowers: tuple[int, ...] = ()
    """The winner's exposed flowers (tiles 34..41, 1f-8f); empty without the flowers option."""

    def __post_init__(self) -> None:
        if self.seat_wind not in WINDS:
            raise MahjongError(f"seat wind must be a wind tile 27..30, got {self.seat_wind}")
        if self.round_wind is not None and self.round_wind not in WINDS:
            raise MahjongError(f"round wind must be a wind tile 27..30, got {self.round_wind}")
        if self.dealer != (self.seat_wind == EAST):
            raise MahjongError("the dealer, and only the dealer, sits East")
        if self.dealer_streak < 0:
            raise MahjongError(f"dealer streak cannot be negative, got {self.dealer_streak}")
        if self.after_kong and not self.self_drawn:
            raise MahjongError("槓上開花 (after_kong) is a self-drawn win")
        if self.robbing_kong and self.self_drawn:
            raise MahjongError("搶槓 (robbing_kong) is a win on another player's tile")
        if self.heavenly + self.earthly + self.human > 1:
            raise MahjongError("at most one of 天胡, 地胡 and 人胡 applies")
        if self.heavenly and not (self.dealer and self.self_drawn):
            raise MahjongError("天胡 (heavenly) is the dealer's self-drawn win on the deal")
        if self.earthly and (self.dealer or not self.self_drawn):
            raise MahjongError("地胡 (earthly) is a non-dealer's self-drawn win on the first draw")
        if self.human and self.self_drawn:
            raise MahjongError("人胡 (human) is a win on a discard")
        if (self.heavenly or self.earthly or self.human) and (self.after_kong or self.robbing_kong):
            raise MahjongError("a first-turn win cannot follow a kong")
        if len(set(self.flowers)) != len(self.flowers) or not all(
            FLOWER_BASE <= f < FLOWER_BASE + NUM_FLOWERS for f in self.flowers
        ):
            raise MahjongError(f"flowers must be distinct flower tiles 34..41, got {self.flowers}")


@dataclass(frozen=True)
class ScoreResult:
    """The best reading of a winning hand: its Tai, row by row, and the points it is worth."""

    tai: int
    breakdown: tuple[tuple[str, int], ...]
    """(row name as printed in table 2-1, Tai) in the table's order; empty for a 0-Tai win."""
    points: int
    """`base_points + points_per_tai * tai`: what each payer owes, except that a dealer paying a
    non-dealer adds `dealer_tai` Tai (see `settle`)."""
    decomposition: Decomposition | None
    """The chosen reading of the concealed tiles plus the winning tile (melds are not in it);
    None for a win of flowers alone (八仙過海, 七搶一), which reads no hand."""
    win_set: tuple[str, int]
    """Where the winning tile went: ("pair", tile), ("pung", tile) or ("chow", first tile);
    ("flower", flower tile) for a win of flowers alone."""
    dealer_tai: int
    """Tai the dealer adds to every payment they make or receive: 1, plus 2 per 連莊."""
    context: WinContext


@dataclass(frozen=True, slots=True)
class _Set:
    kind: str
    tile: int
    kong: bool = False
    concealed: bool = True
    """Counts towards 暗刻: in hand, or a 暗槓; false for melds and a pung a discard completed."""
    claimed: bool = False
    """Made with another player's tile (chi, pon, open or added kong), as 全求 requires."""

    def tiles(self) -> tuple[int, ...]:
        if self.kind == _CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kong else 3)


def _meld_set(meld: Meld) -> _Set:
    if meld.kind is MeldKind.CHI:
        return _Set(_CHOW, meld.first, concealed=False, claimed=True)
    if meld.kind is MeldKind.PON:
        return _Set(_PUNG, meld.first, concealed=False, claimed=True)
    if meld.kind is MeldKind.CONCEALED_KONG:
        return _Set(_PUNG, meld.first, kong=True)
    return _Set(_PUNG, meld.first, kong=True, concealed=False, claimed=True)


def _is_concealed_hand(melds: Sequence[Meld], rules: ScoringRules) -> bool:
    return all(m.is_concealed and rules.concealed_kong_keeps_concealed for m in melds)


def _win_sets(d: Decomposition, win: int) -> list[tuple[str, int]]:
    slots: list[tuple[str, int]] = []
    if d.pair == win:
        slots.append((_PAIR, win))
    for kind, tile in dict.fromkeys(d.sets):
        if kind == _PUNG and tile == win:
            slots.append((_PUNG, win))
        elif kind == _CHOW and tile <= win <= tile + 2:
            slots.append((_CHOW, tile))
    return slots


def _is_single_wait_shape(slot: tuple[str, int], win: int) -> bool:
    kind, tile = slot
    if kind == _PAIR:
        return True
    if kind == _PUNG:
        return False
    offset = win - tile
    # 中洞 (the middle tile), or 邊張 (3 to 12, 7 to 89); the other chow waits are 兩面.
    return (
        offset == 1 or (offset == 2 and rank_of(tile) == 1) or (offset == 0 and rank_of(tile) == 7)
    )


def _rows(
    sets: Sequence[_Set],
    pair: int,
    ctx: WinContext,
    rules: ScoringRules,
    concealed_hand: bool,
    single_wait: bool,
) -> dict[str, int]:
    groups = [s.tiles() for s in sets] + [(pair, pair)]
    tiles = [t for g in groups for t in g]
    pungs = [s.tile for s in sets if s.kind == _PUNG]
    chows = [s.tile for s in sets if s.kind == _CHOW]
    concealed_pungs = sum(1 for s in sets if s.kind == _PUNG and s.concealed)
    suits = {suit_of(t) for t in tiles if not is_honour(t)}
    has_honour = any(is_honour(t) for t in tiles)
    dragon_pungs = sum(1 for t in pungs if t in DRAGONS)
    wind_pungs = sum(1 for t in pungs if t in WINDS)
    doubling = 2 if concealed_hand and rules.double_when_concealed else 1

    found: list[tuple[str, int]] = []

    def row(name: str, times: int = 1) -> None:
        found.append((name, R.BASE_TAI[name] * times))

    found.extend(_dealer_rows(ctx).items())
    if concealed_hand and ctx.self_drawn and rules.combine_concealed_self_drawn:
        row(R.CONCEALED_SELF_DRAWN)
    else:
        if concealed_hand:
            row(R.CONCEALED)
        if ctx.self_drawn:
            row(R.SELF_DRAWN)
    if not any(is_terminal_or_honour(t) for t in tiles):
        row(R.ALL_SIMPLES)
    if ctx.last_tile and ctx.self_drawn:
        row(R.LAST_TILE_DRAW)
    if ctx.last_tile and not ctx.self_drawn and rules.last_discard_tai:
        row(R.LAST_DISCARD)
    if ctx.seat_wind in pungs:
        row(R.SEAT_WIND)
    if rules.round_wind_tai and ctx.round_wind in pungs:
        row(R.ROUND_WIND)
    if dragon_pungs:
        row(R.DRAGON_PUNG, dragon_pungs)
    # Two identical chows make one 龍抱; four identical chows make two.
    twins = sum(n // 2 for n in Counter(chows).values())
    if concealed_hand and twins == 1:
        row(R.TWIN_CHOWS)
    if concealed_hand and twins >= 2:
        row(R.TWO_TWIN_CHOWS)
    if ctx.after_kong:
        row(R.KONG_REPLACEMENT)
    if ctx.robbing_kong:
        row(R.ROBBING_KONG)
    if not ctx.self_drawn and all(s.claimed for s in sets):
        row(R.ALL_CLAIMED)
    if len(chows) == SETS_TO_WIN and not has_honour and not ctx.self_drawn and not single_wait:
        row(R.ALL_CHOWS)
    if all(any(is_terminal_or_honour(t) for t in g) for g in groups):
        row(R.MIXED_OUTSIDE)
    if any(all(suit * 9 + r in chows for suit in range(3)) for r in range(7)):
        row(R.THREE_SUIT_CHOWS, doubling)
    if any({suit * 9, suit * 9 + 3, suit * 9 + 6} <= set(chows) for suit in range(3)):
        row(R.STRAIGHT, doubling)
    if concealed_pungs == 3:
        row(R.THREE_CONCEALED_PUNGS)
    if concealed_pungs == 4:
        row(R.FOUR_CONCEALED_PUNGS)
    if concealed_pungs == 5:
        row(R.FIVE_CONCEALED_PUNGS)
    if any(all(suit * 9 + r in pungs for suit in range(3)) for r in range(9)):
        row(R.THREE_SUIT_PUNGS)
    if not chows:
        row(R.ALL_PUNGS)
    if len(suits) == 1 and has_honour:
        row(R.HALF_FLUSH)
    if len(suits) == 1 and not has_honour:
        row(R.FULL_FLUSH)
    if all(any(is_terminal(t) for t in g) for g in groups):
        row(R.PURE_OUTSIDE)
    if all(is_terminal_or_honour(t) for t in tiles):
        row(R.ALL_TERMINALS_AND_HONOURS)
    if all(is_terminal(t) for t in tiles):
        row(R.ALL_TERMINALS)
    if all(is_honour(t) for t in tiles):
        row(R.ALL_HONOURS)
    if dragon_pungs == 2 and pair in DRAGONS:
        row(R.LITTLE_THREE_DRAGONS)
    if dragon_pungs == 3:
        row(R.BIG_THREE_DRAGONS)
    if wind_pungs == 3 and pair in WINDS:
        row(R.LITTLE_FOUR_WINDS)
    if wind_pungs == 4:
        row(R.BIG_FOUR_WINDS)
    if sum(s.kong for s in sets) >= 4:
        row(R.FOUR_KONGS)
    if ctx.heavenly:
        row(R.HEAVENLY)
    if ctx.earthly:
        row(R.EARTHLY)
    if ctx.human:
        row(R.HUMAN)

    present = {name for name, _ in found}
    absorbed: set[str] = set()
    for name in present:
        absorbed.update(ABSORBS.get(name, ()))
        if rules.honour_sets_absorb_pungs:
            absorbed.update(_HONOUR_SET_ABSORBS.get(name, ()))
        if rules.first_turn_absorbs_concealed:
            absorbed.update(_FIRST_TURN_ABSORBS.get(name, ()))
    return {name: tai for name, tai in found if name not in absorbed}


@dataclass(frozen=True, slots=True)
class _Choice:
    key: tuple[int, list[tuple[int, int]]]
    rows: dict[str, int]
    decomposition: Decomposition
    win_set: tuple[str, int]


def _preference(rows: dict[str, int]) -> tuple[int, list[tuple[int, int]]]:
    # Most Tai first; on a tie prefer the bigger single rows, then rows further down the table,
    # so the chosen breakdown never depends on the order decompositions are listed in.
    return sum(rows.values()), sorted(((t, R.ROW_ORDER[n]) for n, t in rows.items()), reverse=True)


def flower_rows(flowers: Sequence[int], seat_wind: int) -> dict[str, int]:
    """正花 and 花槓 of a winner's exposed flowers (no rows for none).

    正花: 1 per flower of the seat (East 春 1f / 梅 5f, South 夏 2f / 蘭 6f, West 秋 3f / 菊 7f,
    North 冬 4f / 竹 8f). 花槓: 2 per complete set (the four seasons, or the four plants), in
    place of the 正花 of that set: the set's own flower is part of what 花槓 pays for.
    """
    held = set(flowers)
    seat = seat_wind - EAST
    seat_flowers = 0
    kongs = 0
    for group in (SEASONS, PLANTS):
        if held.issuperset(group):
            kongs += 1
        elif group[seat] in held:
            seat_flowers += 1
    rows: dict[str, int] = {}
    if seat_flowers:
        rows[R.SEAT_FLOWER] = R.BASE_TAI[R.SEAT_FLOWER] * seat_flowers
    if kongs:
        rows[R.FLOWER_KONG] = R.BASE_TAI[R.FLOWER_KONG] * kongs
    return rows


def _dealer_rows(ctx: WinContext) -> dict[str, int]:
    """莊家 (and 連莊) for a dealer's win; nothing for anyone else's."""
    if not ctx.dealer:
        return {}
    rows = {R.DEALER: R.BASE_TAI[R.DEALER]}
    if ctx.dealer_streak:
        rows[R.DEALER_REPEAT] = R.BASE_TAI[R.DEALER_REPEAT] * ctx.dealer_streak
    return rows


def _dealer_tai(ctx: WinContext) -> int:
    return R.BASE_TAI[R.DEALER] + R.BASE_TAI[R.DEALER_REPEAT] * ctx.dealer_streak


def score_flower_win(
    win_tile: int, ctx: WinContext, rules: ScoringRules = ScoringRules()
) -> ScoreResult:
    """Score a win of flowers alone: 八仙過海 (all eight, self-drawn) or 七搶一 (seven held, the
    eighth exposed by another seat, ``ctx.self_drawn`` false). 8 Tai plus the dealer's 莊家 (and
    連莊) rows; the hand is not read, and 正花/花槓 are inside the 8.

    Raises `MahjongError` when ``ctx.flowers`` and the win do not match one of the two.
    """
    if not FLOWER_BASE <= win_tile < FLOWER_BASE + NUM_FLOWERS:
        raise MahjongError(f"a win of flowers is won on a flower, got tile {win_tile}")
    held = len(ctx.flowers)
    if ctx.self_drawn and held == NUM_FLOWERS and win_tile in ctx.flowers:
        name = R.EIGHT_FLOWERS
    elif not ctx.self_drawn and held == NUM_FLOWERS - 1 and win_tile not in ctx.flowers:
        name = R.SEVEN_ROB_ONE
    else:
        raise MahjongError(
            f"a win of flowers needs all eight self-drawn or seven and another's eighth; got "
            f"{held} flowers, {'self-drawn' if ctx.self_drawn else 'another'}'s "
            f"{format_tiles([win_tile])}"
        )
    if ctx.robbing_kong or ctx.after_kong or ctx.heavenly or ctx.earthly or ctx.human:
        raise MahjongError("a win of flowers takes no kong, robbing or first-turn row")
    if ctx.dealer_streak and not rules.dealer_repeat:
        raise MahjongError("a dealer streak needs a ruleset with dealer_repeat on")
    rows = _dealer_rows(ctx)
    rows[name] = R.BASE_TAI[name]
    tai = sum(rows.values())
    return ScoreResult(
        tai=tai,
        breakdown=tuple(sorted(rows.items(), key=lambda item: R.ROW_ORDER[item[0]])),
        points=rules.base_points + rules.points_per_tai * tai,
        decomposition=None,
        win_set=("flower", win_tile),
        dealer_tai=_dealer_tai(ctx),
        context=ctx,
    )


def score_hand(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    win_tile: int,
    ctx: WinContext,
    rules: ScoringRules = ScoringRules(),
) -> ScoreResult:
    """Score a winning hand: `concealed` holds the tiles before `win_tile` (16 - 3 per meld).

    Raises `MahjongError` when the tile count is wrong, a tile has a fifth copy, the context
    contradicts the hand, or the hand does not win.
    """
    concealed = list(concealed)
    melds = tuple(melds)
    expected = HAND_TILES - 3 * len(melds)
    if len(melds) > SETS_TO_WIN or len(concealed) != expected:
        raise MahjongError(
            f"with {len(melds)} melds the hand holds {max(expected, 0)} concealed tiles before "
            f"the winning tile, got {len(concealed)}"
        )
    meld_tiles = [t for m in melds for t in m.tiles]
    to_counts([*concealed, win_tile, *meld_tiles])
    if ctx.robbing_kong:
        # The robbed tile was added to another player's pon: with it, that player's kong holds
        # all four copies, so the winner can hold none (a fifth copy otherwise).
        held = [*concealed, *meld_tiles].count(win_tile)
        if held:
            raise MahjongError(
                f"搶槓 (robbing_kong) on {format_tiles([win_tile])}: the robbed player's pon "
                f"and the added tile are all four copies, but the winner holds {held} more"
            )
    if melds and (ctx.heavenly or ctx.earthly or ctx.human):
        raise MahjongError(
            f"天胡, 地胡 and 人胡 need a hand without melds, got {format_melds(melds)}"
        )
    if rules.round_wind_tai and ctx.round_wind is None:
        raise MahjongError("the ruleset scores 圈風刻, so the context needs a round wind")
    if ctx.dealer_streak and not rules.dealer_repeat:
        raise MahjongError("a dealer streak needs a ruleset with dealer_repeat on")
    if len(ctx.flowers) == NUM_FLOWERS:
        raise MahjongError("all eight flowers are 八仙過海, a win of its own (score_flower_win)")

    hand_counts = to_counts([*concealed, win_tile])
    decompositions = winning_decompositions(hand_counts)
    if not decompositions:
        shown = format_tiles(concealed)
        if melds:
            shown += f" with {format_melds(melds)}"
        raise MahjongError(f"{shown} does not win on {format_tiles([win_tile])}")

    concealed_hand = _is_concealed_hand(melds, rules)
    meld_sets = [_meld_set(m) for m in melds]
    single_by_kinds = False
    if rules.single_wait == R.SINGLE_WAIT_KINDS:
        single_by_kinds = len(waits(to_counts(concealed), to_counts(meld_tiles))) == 1

    flowers = flower_rows(ctx.flowers, ctx.seat_wind) if ctx.flowers else None
    best: _Choice | None = None
    for d in decompositions:
        for slot in _win_sets(d, win_tile):
            sets = [
                # A pung that a discard completed was not drawn, so it is no 暗刻.
                _Set(kind, tile, concealed=ctx.self_drawn or slot != (_PUNG, tile))
                for kind, tile in d.sets
            ]
            if rules.single_wait == R.SINGLE_WAIT_KINDS:
                single = single_by_kinds
            else:
                single = _is_single_wait_shape(slot, win_tile)
            rows = _rows(sets + meld_sets, d.pair, ctx, rules, concealed_hand, single)
            if flowers:
                rows.update(flowers)
            choice = _Choice(_preference(rows), rows, d, slot)
            if best is None or choice.key > best.key:
                best = choice

    # Every decomposition holds the winning tile somewhere, so at least one reading exists.
    assert best is not None
    tai = sum(best.rows.values())
    return ScoreResult(
        tai=tai,
        breakdown=tuple(sorted(best.rows.items(), key=lambda item: R.ROW_ORDER[item[0]])),
        points=rules.base_points + rules.points_per_tai * tai,
        decomposition=best.decomposition,
        win_set=best.win_set,
        dealer_tai=_dealer_tai(ctx),
        context=ctx,
    )


def settle(
    result: ScoreResult,
    *,
    winner: int,
    dealer: int,
    discarder: int | None,
    rules: ScoringRules = ScoringRules(),
    seats: int = 4,
) -> tuple[int, ...]:
    """Points each seat gains (negative: pays) for one win; the sum is always zero.

    On a discard (or a robbed kong) `discarder` pays alone; on a self-draw every other seat pays.
    Each payment is base + Tai, where the dealer's Tai (莊家, and 連莊) counts in every payment the
    dealer makes or receives, as table 2-1's 莊家 row says, and in no other.
    """
    for name, seat in (("winner", winner), ("dealer", dealer), ("discarder", discarder)):
        if seat is not None and not 0 <= seat < seats:
            raise MahjongError(f"{name} seat {seat} is outside 0..{seats - 1}")
    if (winner == dealer) != result.context.dealer:
        raise MahjongError("the result was scored for a different dealer")
    if (discarder is None) != result.context.self_drawn:
        raise MahjongError("a self-drawn win has no discarder, and a discard win has one")
    if discarder == winner:
        raise MahjongError("the winner cannot pay themself")
    hand_tai = result.tai - (result.dealer_tai if result.context.dealer else 0)
    payers = [discarder] if discarder is not None else [s for s in range(seats) if s != winner]
    deltas = [0] * seats
    for payer in payers:
        tai = hand_tai + (result.dealer_tai if dealer in (winner, payer) else 0)
        amount = rules.base_points + rules.points_per_tai * tai
        deltas[payer] -= amount
        deltas[winner] += amount
    return tuple(deltas)
