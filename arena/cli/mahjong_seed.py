"""``arena mahjong census|explain``: seed 001's figures and its reasoning, reproduced.

``census`` counts every one-suit hand of 13 or 16 tiles by its number of waits and sets the
seed's figures beside ours (`arena.games.mahjong.census`); ``explain`` walks one hand through
theorem 2 (which suit and which pile hold the pair) and theorem 1 (the pass from the lowest tile
up after each pair), as the seed's examples do (`arena.games.mahjong.explain`). The logic is in
those two pure modules; this one renders it.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from arena.cli.common import fail, print_json
from arena.cli.mahjong import _option, mahjong_app, out
from arena.games.mahjong.census import CONVENTION, FIFTH_COPY_CONVENTION, Census, census
from arena.games.mahjong.explain import (
    PILE_NAMES,
    SUIT_NAMES,
    Explanation,
    PairTry,
    SuitPass,
    explain,
    parse_hand,
)
from arena.games.mahjong.tiles import SUIT_LETTERS, TileCountError, format_tiles

CENSUS_DOC = (
    "Seed 001's wait census: one-suit hands counted by their waits, beside the seed's figures."
    "\n\nEvery one-suit concealed hand of --tiles tiles (13 or 16) is counted by how many "
    "distinct tiles complete it. Seed 001: 13 tiles, 79 hands wait on 7 tiles, 16 on 8, 1 on 9 "
    "(九連寶燈 1112345678999m); 16 tiles, 532, 94 and 11.\n\n"
    f"Convention (the one that reproduces the seed): {CONVENTION}. The column 'a fifth copy "
    f"counted' shows the counts under another: {FIFTH_COPY_CONVENTION} (13 tiles: 155, 44, 8; "
    "16 tiles: 1186, 371, 108), not the seed's.\n\n"
    'JSON: {"tiles": 16, "hands": 162585, "convention": "...", "by_waits": {"0": 80700, ..., '
    '"9": 11}, "fifth_copy_convention": "...", "by_waits_fifth_copy": {...}, "seed": {"7": 532, '
    '"8": 94, "9": 11}, "agrees": true, "max_waits": 9, "most_waits": ["1112223334567888m", '
    "...]}: hands enumerated; waits → hands for every number of waits that occurs; the seed's "
    "figures and whether ours equal them; the hands with the most waits, in the seed's digit "
    "notation (suit m). Exit status 1 if the figures disagree with the seed's."
)
EXPLAIN_DOC = (
    "Seed 001's reasoning on one hand, step by step: theorem 2, then theorem 1 per pair.\n\n"
    "For a concealed hand of 3k+2 tiles (2 to 17) it shows each suit's tile count "
    "(sets leave it at a multiple of 3, the pair adds 2, so the suit at 2 mod 3 holds the pair); "
    "theorem 2's piles in that suit, 1-4-7 (一四七), 2-5-8 (二五八), 3-6-9 (三六九), their "
    "tiles and remainders mod 3 (the pair is in the pile whose remainder differs); then every "
    "pair held in that suit, those outside the pile marked as ruled out by theorem 2, each "
    "followed by theorem 1's pass: the lowest tile left takes a pung if held three times or "
    "more, otherwise starts a chow, until the suit is empty (the hand wins) or a tile stops it "
    "('4 has no 5 after it'). The other suits must split into sets alone. The verdict is "
    "`is_winning`'s.\n\n"
    "The seed's examples: 33345678m, 55666777889m, 23333444455556666m, and its thought "
    "experiment with more than four copies, 33333444555566777888899999m --any-copies.\n\n"
    'JSON: {"hand": "33345678m", "tiles": 8, "wins": true, "split": "33m 345m 678m", '
    '"verdict": "...", "suits": [{"suit": "m", "tiles": 8, "mod3": 2}], "pair_suit": "m", '
    '"suit_problem": null, "piles": [{"pile": "147", "tiles": 2, "mod3": 2}, ...], '
    '"pair_pile": "369", "pairs": [{"pair": "33m", "theorem_2": "tried", "sets": ["345m", '
    '"678m"], "splits": true, "left": "", "stop": null}], "others": [{"suit": "p", "sets": '
    '[...], "splits": true, "left": "", "stop": null}]}; theorem_2 is "tried" or "ruled out"; '
    "piles and pair_pile are null when the pair's suit is honours or no suit can hold it."
)
TILES_HELP = "hand size: 13 or 16 (the sizes seed 001 counts)"
EXPLAIN_HAND_HELP = "a concealed hand of 3k+2 tiles in compact notation, e.g. 55666777889m"
ANY_COPIES_HELP = (
    "allow more than four copies of a tile and any size 3k+2: the seed's thought experiment "
    "(每張牌可以超過4張的話), e.g. 33333444555566777888899999m; no real hand is like this"
)
JSON_HELP = "print one JSON object"
PILE_KEYS = ("147", "258", "369")
"""Theorem 2's piles as JSON names them, in `PILE_NAMES` order."""


# ----------------------------------------------------------------------------- census


def census_json(result: Census) -> dict[str, Any]:
    return {
        "tiles": result.tiles,
        "hands": result.hands,
        "convention": CONVENTION,
        "by_waits": {str(k): n for k, n in result.by_waits.items()},
        "fifth_copy_convention": FIFTH_COPY_CONVENTION,
        "by_waits_fifth_copy": {str(k): n for k, n in result.by_waits_fifth_copy.items()},
        "seed": {str(k): n for k, n in result.seed.items()},
        "agrees": result.agrees,
        "max_waits": result.max_waits,
        "most_waits": list(result.most_waits),
        "seed_listed": list(result.seed_listed),
    }


def _census_table(result: Census) -> Table:
    table = Table(title=f"one-suit hands of {result.tiles} tiles by number of waits")
    table.add_column("waits", justify="right")
    table.add_column("hands", justify="right")
    table.add_column("seed 001", justify="right")
    table.add_column("a fifth copy counted", justify="right")
    for k in sorted(result.by_waits.keys() | result.by_waits_fifth_copy.keys()):
        ours = result.by_waits.get(k, 0)
        seed = result.seed.get(k)
        said = "" if seed is None else f"{seed:,} {'✓' if seed == ours else '✗'}"
        table.add_row(str(k), f"{ours:,}", said, f"{result.by_waits_fifth_copy.get(k, 0):,}")
    table.add_section()
    total = sum(result.by_waits.values())
    table.add_row("all", f"{total:,}", "", f"{sum(result.by_waits_fifth_copy.values()):,}")
    return table


def census_cmd(
    tiles: int = typer.Option(16, "--tiles", help=TILES_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    result = _option("--tiles", census, tiles)
    if json_output:
        print_json(census_json(result))
    else:
        out.print(
            f"seed 001's census: {result.hands:,} one-suit concealed hands of {result.tiles} "
            "tiles enumerated"
        )
        out.print(f"convention: {CONVENTION}")
        out.print(_census_table(result))
        counted = ", ".join(str(k) for k in sorted(result.seed))
        out.print(f"agrees with seed 001 on {counted} waits: {'yes' if result.agrees else 'NO'}")
        out.print(
            f"column 'a fifth copy counted': {FIFTH_COPY_CONVENTION} (not the seed's figures)"
        )
        most = result.most_waits
        listed = [f"{h}*" if h in result.seed_listed else h for h in most]
        hands = "hand" if len(most) == 1 else "hands"
        out.print(f"the {len(most)} {hands} with {result.max_waits} waits: {' '.join(listed)}")
        if len(most) > len(result.seed_listed):
            out.print(
                "(* listed by seed 001; it gives the others as shifts and mirror images of those)"
            )
        else:
            out.print("(* named by seed 001)")
    if not result.agrees:
        raise typer.Exit(1)


# ----------------------------------------------------------------------------- explain


def _pass_json(steps: SuitPass) -> dict[str, Any]:
    return {
        "sets": [str(s) for s in steps.sets],
        "splits": steps.splits,
        "left": steps.left,
        "stop": None if steps.stop is None else steps.stop.reason,
    }


def explain_json(e: Explanation) -> dict[str, Any]:
    piles = e.piles
    return {
        "hand": e.hand,
        "tiles": e.tiles,
        "wins": e.wins,
        "split": e.split,
        "verdict": e.verdict,
        "suits": [
            {"suit": SUIT_LETTERS[s.suit], "tiles": s.tiles, "mod3": s.remainder} for s in e.suits
        ],
        "pair_suit": None if e.pair_suit is None else SUIT_LETTERS[e.pair_suit],
        "suit_problem": e.suit_problem,
        "piles": None
        if piles is None
        else [
            {"pile": key, "tiles": n, "mod3": r}
            for key, n, r in zip(PILE_KEYS, piles.tiles, piles.remainders, strict=True)
        ],
        "pair_pile": None if piles is None else PILE_KEYS[piles.pair_pile],
        "pairs": [
            {
                "pair": format_tiles([t.pair] * 2),
                "theorem_2": "tried" if t.allowed else "ruled out",
                **_pass_json(t.steps),
            }
            for t in e.pairs
        ],
        "others": [{"suit": SUIT_LETTERS[p.suit], **_pass_json(p)} for p in e.others],
    }


def _pass_text(steps: SuitPass, wins: bool) -> str:
    taken = " ".join(str(s) for s in steps.sets)
    if steps.stop is None:
        end = "wins" if wins else "splits into sets"
        return f"{taken}: {end}" if taken else end
    stopped = f"left {steps.left}: {steps.stop.reason}"
    return f"{taken}, {stopped}" if taken else stopped


def _pair_line(t: PairTry, others_split: bool, width: int) -> str:
    mark = "tried" if t.allowed else "ruled out by theorem 2"
    text = _pass_text(t.steps, t.allowed and others_split)
    return f"  {format_tiles([t.pair] * 2):<5} {mark:<{width}}  {text}"


def render_explanation(e: Explanation) -> list[str]:
    lines = [f"{e.hand}: {e.tiles} tiles"]
    lines.append("each suit's tiles (sets leave a suit at 0 mod 3, the pair adds 2):")
    for s in e.suits:
        here = "  ← the pair is here" if s.suit == e.pair_suit else ""
        tiles = "tile," if s.tiles == 1 else "tiles,"
        lines.append(
            f"  {SUIT_NAMES[s.suit]:<16} {s.tiles:>2} {tiles:<6} {s.remainder} mod 3{here}"
        )
    if e.suit_problem is not None:
        lines.append(f"verdict: {e.verdict}")
        return lines
    assert e.pair_suit is not None
    letter = SUIT_LETTERS[e.pair_suit]
    if e.piles is not None:
        lines.append(
            f"theorem 2 in {letter} (a chow adds a tile to each pile, a pung three to one, the "
            "pair two to one):"
        )
        for i, (name, n, r) in enumerate(
            zip(PILE_NAMES, e.piles.tiles, e.piles.remainders, strict=True)
        ):
            here = "  ← the pair is here" if i == e.piles.pair_pile else ""
            tiles = "tile," if n == 1 else "tiles,"
            lines.append(f"  {name}  {n:>2} {tiles:<6} {r} mod 3{here}")
    else:
        lines.append("honours form no chows: every honour held twice is tried as the pair")
    if e.pairs:
        lines.append(
            f"theorem 1 after each pair held in {letter}, lowest tile first (a pung if held three "
            "times or more, else a chow):"
        )
        others_split = all(p.splits for p in e.others)
        width = max(len("tried" if t.allowed else "ruled out by theorem 2") for t in e.pairs)
        lines.extend(_pair_line(t, others_split, width) for t in e.pairs)
    else:
        lines.append(f"no tile of {letter} is held twice: no pair")
    if e.others:
        lines.append("the other suits must split into sets alone (theorem 1, no pair):")
        for p in e.others:
            lines.append(f"  {SUIT_NAMES[p.suit]:<16} {_pass_text(p, False)}")
    lines.append(f"verdict: {e.verdict}")
    return lines


def _parse_explain_hand(text: str, any_copies: bool) -> list[int]:
    try:
        return parse_hand(text, any_copies)
    except TileCountError as exc:
        fail(
            f"HAND: {exc} (a real hand has at most four of a kind; --any-copies allows more, "
            "for the seed's thought experiment)"
        )


def explain_cmd(
    hand: str = typer.Argument(..., help=EXPLAIN_HAND_HELP, metavar="HAND", show_default=False),
    any_copies: bool = typer.Option(False, "--any-copies", help=ANY_COPIES_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    counts = _option("HAND", lambda h: _parse_explain_hand(h, any_copies), hand)
    result = explain(counts)
    if json_output:
        print_json(explain_json(result))
        return
    for line in render_explanation(result):
        out.print(line)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    mahjong_app.command("census", help=CENSUS_DOC)(census_cmd)
    mahjong_app.command("explain", help=EXPLAIN_DOC)(explain_cmd)
