"""``arena audit bridge|mahjong|dice``, ``arena deal bridge`` and ``arena bench dealing``.

The audit deals many times through the games' own dealing code and compares the tallies with
exact probabilities; without ``--seed`` it draws a fresh 256-bit seed and prints it, so any run
can be repeated. It ends with a verdict over all its tests (`Report.verdict`): ``pass``, exit 0,
or ``FAIL``, exit 1 (2 stays for usage errors), so a script can act on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table

from arena.bench.dealing import TARGET_DEALS, TARGET_SECONDS, run_dealing_bench
from arena.cli.common import (
    at_least,
    fail,
    interrupt_exits,
    output_console,
    print_json,
    progress_bar,
)
from arena.dealing import MatchSeed
from arena.dealing.audit import audit_bridge, audit_dice, audit_mahjong
from arena.dealing.audit_report import MAX_DEALS, Progress, Report
from arena.dealing.bridge import deal_bridge
from arena.dealing.deals import roll_dice, shuffled_wall
from arena.dealing.planted import PLANTED_DICE, PLANTED_SHUFFLES
from arena.dealing.seed_table import (
    SEED_POINTS_ONE_HAND,
    SEED_POINTS_TWO_HANDS,
    SEED_ROWS,
    SEED_TOTAL,
)
from arena.errors import ArenaError

out = output_console()
err = output_console(stderr=True)

audit_app = typer.Typer(
    help="Audit the dealer: tallies against exact probabilities, chi-square tests, and a "
    "verdict (exit 1 when it is FAIL).",
    no_args_is_help=True,
)
deal_app = typer.Typer(help="Show a deal of a match seed.", no_args_is_help=True)


def _deals_help(least: int, why: str) -> str:
    return f"how many deals to make and tally: at least {least} ({why}), at most 10⁹"


FIVE_A_CELL = "so that every cell of the tallies expects 5, the chi-square test's rule of thumb"
SEED_HELP = "64 hex digits, or any text (hashed); default: 256 fresh bits from the OS"
JSON_HELP = "print one JSON object instead of tables"
PLANTED_HELP = (
    "audit a deliberately biased shuffle instead (swap-with-any, seed-c-literal) to see the "
    "audit catch it"
)


def _label_planted(report: Report, planted: str | None) -> Report:
    if planted is not None:
        report.kind = f"{report.kind} (PLANTED {planted} dealer)"
        report.notes.insert(0, f"dealt with the planted biased dealer {planted!r}, not the games'")
    return report


def _seed(text: str | None) -> MatchSeed:
    return MatchSeed.generate() if text is None else MatchSeed.from_text(text)


def _run(fn: Callable[[MatchSeed, int, Progress], Report], deals: int, seed: str | None) -> Report:
    """``fn`` on the seed and ``deals``, with a progress bar on stderr (gone when it is done)."""
    try:
        with progress_bar(err, transient=True) as progress:
            task = progress.add_task("dealing", total=deals)

            def dealt(done: int, _total: int) -> None:
                progress.update(task, completed=done)

            return fn(_seed(seed), deals, dealt)
    except (ArenaError, ValueError) as exc:
        fail(str(exc))


def _planted(name: str | None, known: dict[str, Any]) -> Any:
    if name is None:
        return None
    if name not in known:
        fail(f"no planted dealer {name!r}; choose from {', '.join(sorted(known))}")
    return known[name]


def _p(p: float) -> str:
    if p == 0.0:
        return "< 1e-300"  # below the smallest double scipy returns
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


def _tests_table(report: Report) -> Table:
    threshold = report.verdict().threshold
    table = Table(title=f"{report.kind} audit: {report.deals:,} deals, chi-square tests")
    for col in ("test", "χ²", "dof", "p-value", "cells", "method"):
        table.add_column(col, justify="left" if col in ("test", "method") else "right")
    for t in report.tests:
        # Red is what fails the verdict, so a red row and the FAIL line always agree.
        style = "bold red" if t.p_value < threshold else None
        table.add_row(
            t.name,
            f"{t.chi2:.1f}",
            f"{t.dof:.1f}",
            "0 (impossible outcome)" if t.impossible else _p(t.p_value),
            str(t.cells),
            t.method,
            style=style,
        )
    return table


def _header(report: Report) -> None:
    out.print(f"seed {report.seed}  (repeat with --seed {report.seed})")


def _notes(report: Report) -> None:
    for note in report.notes:
        out.print(f"[dim]note:[/] {note}")


def _z(row: dict[str, Any]) -> str:
    return f"{row['z']:+.2f}" if row["expected_probability"] > 0 else ""


def _verdict(report: Report) -> None:
    verdict = report.verdict()
    rule = (
        f"family-wise α = {verdict.alpha:g} over {verdict.tests} tests (Bonferroni): "
        f"each p-value against α/{verdict.tests} = {verdict.threshold:.2g}"
    )
    if verdict.passed:
        out.print(f"[bold green]verdict: pass[/]: no test below α/{verdict.tests}; {rule}")
    else:
        impossible = {t.name: t.impossible for t in report.tests if t.impossible}
        failed = "; ".join(
            f"{name}: an impossible outcome ({', '.join(impossible[name])}; probability 0 "
            "under the exact law), p = 0"
            if name in impossible
            else f"{name} p {_p(p)}"
            for name, p in verdict.failed
        )
        out.print(f"[bold red]verdict: FAIL[/]: {failed}; {rule}")


def _show_bridge(report: Report) -> None:
    _header(report)
    out.print(_tests_table(report))
    printed = {row.pattern: row.percent for row in SEED_ROWS}
    hands = report.deals * 4
    table = Table(
        title="hand patterns, every hand of every deal; z = (observed − expected) / SE, the "
        "four hands of a deal pooled; seed count/%: the seed's table, its published figures for "
        f"{SEED_TOTAL:,} hands"
    )
    for col in ("pattern", "observed", "obs %", "exact %", "z", "seed count", "seed %"):
        table.add_column(col, justify="left" if col == "pattern" else "right")
    for row in report.tallies["patterns"]:
        seed_count = row["seed_count"]
        table.add_row(
            row["pattern"],
            f"{row['observed']:,}",
            f"{100 * row['observed'] / hands:.4f}",
            f"{100 * row['expected_probability']:.4f}",
            _z(row),
            "[bold red]omitted[/]" if seed_count is None else f"{seed_count:,}",
            printed.get(row["pattern"], ""),
        )
    out.print(table)
    points = Table(title="high-card points: one hand (all four) and the N+S partnership")
    for col in (
        "HCP",
        "hand obs",
        "hand obs %",
        "hand exact %",
        "N+S obs",
        "N+S obs %",
        "N+S exact %",
    ):
        points.add_column(col, justify="right")
    hand, pair = report.tallies["hcp_hand"], report.tallies["hcp_partnership"]
    for h in range(len(pair)):
        cells = []
        for rows, total in ((hand, hands), (pair, report.deals)):
            if h < len(rows):
                r = rows[h]
                cells += [
                    f"{r['observed']:,}",
                    f"{100 * r['observed'] / total:.4f}",
                    f"{100 * r['expected_probability']:.4f}",
                ]
            else:
                cells += ["", "", ""]
        points.add_row(str(h), *cells)
    out.print(points)
    out.print(_seed_points_table(report))
    _notes(report)


def _seed_points_table(report: Report) -> Table:
    seed = report.tallies["seed_points"]
    one, two = seed["one_hand"], seed["two_hands"]
    fixed = {row["hcp"] for row in two["corrected_rows"]}
    # The exact percentages are in the table above; this one sets the seed's beside them.
    table = Table(
        title="the seed's points tables, its published figures: one hand "
        f"({one['printed_total']:,} hands) and two hands (both partnerships of every deal, "
        f"{two['printed_total']:,}); z = (seed − exact expectation) / SE, the hands of a deal "
        "pooled; * a misprinted row, replaced by its mirror row (see the notes)"
    )
    for col in ("HCP", "seed 1 hand", "seed %", "z", "seed 2 hands", "seed %", "z"):
        table.add_column(col, justify="right")
    for h, (a, b) in enumerate(zip(one["rows"], two["rows"], strict=True)):
        table.add_row(
            str(h),
            f"{a['seed_count']:,}",
            SEED_POINTS_ONE_HAND[h][1],
            f"{a['z']:+.2f}" if a["expected_probability"] > 0 else "",
            f"{b['seed_count']:,}" + ("*" if h in fixed else ""),
            SEED_POINTS_TWO_HANDS[h][1],
            f"{b['z']:+.2f}",
        )
    return table


def _show_mahjong(report: Report) -> None:
    _header(report)
    out.print(_tests_table(report))
    from arena.games.mahjong.tiles import format_tiles

    worst = report.tallies["worst_cell"]
    # The JSON keeps the kind's index (0–33); the text names the tile as the rest of the CLI does.
    tile = format_tiles([worst["kind"]])
    out.print(
        f"largest deviation: position {worst['position']}, kind {worst['kind']} ({tile}): "
        f"{worst['observed']} observed, {worst['expected']:.1f} expected (z {worst['z']:+.2f}; "
        f"exact binomial p {_p(worst['p_two_sided'])}, {_p(worst['p_adjusted'])} as the "
        f"largest of {report.tests[0].cells} cells)"
    )
    if "deficiency" in report.tallies:
        table = Table(title="starting-hand deficiency (進胡數: tiles still to come in to win)")
        for col in ("deficiency", "dealer (17)", "dealer %", "others (16)", "others %"):
            table.add_column(col, justify="right")
        for row in report.tallies["deficiency"]:
            table.add_row(
                str(row["deficiency"]),
                f"{row['dealer']:,}",
                f"{100 * row['dealer_share']:.3f}",
                f"{row['others']:,}",
                f"{100 * row['others_share']:.3f}",
            )
        out.print(table)
    _notes(report)


def _show_dice(report: Report) -> None:
    _header(report)
    out.print(_tests_table(report))
    sections = [("faces", "face", "faces of every die"), ("sums", "sum", "sums of one roll")]
    if "hand_types" in report.tallies:
        sections.append(("hand_types", "hand", "hand types of five dice (seed 002 table 4.6)"))
    for key, first, title in sections:
        table = Table(title=f"{title}; z = (observed − expected) / √(expected · (1 − p))")
        for col in (first, "observed", "expected", "exact probability", "z"):
            table.add_column(col, justify="right")
        for row in report.tallies[key]:
            table.add_row(
                str(row[first]),
                f"{row['observed']:,}",
                f"{row['expected']:,.1f}",
                f"{row['expected_probability']:.6f}",
                _z(row),
            )
        out.print(table)
    _notes(report)


def _emit(report: Report, json_output: bool, show: Callable[[Report], None]) -> None:
    if json_output:
        print_json(report.to_json())
    else:
        show(report)
        _verdict(report)
    if not report.verdict().passed:
        raise typer.Exit(1)


# One paragraph per string line, not a docstring: typer keeps a docstring's line breaks (in
# the parent command's list, and after the first paragraph) and cuts sentences there.
BRIDGE_HELP = (
    "Bridge: hand patterns, HCP of a hand and of N+S, card × seat and card × position; beside "
    "them, seed 000's published pattern and points tables tested against the exact laws."
)


@audit_app.command("bridge", help=BRIDGE_HELP)
def bridge_cmd(
    deals: int = typer.Option(
        100_000,
        "--deals",
        callback=at_least(260, at_most=MAX_DEALS),
        help=_deals_help(260, FIVE_A_CELL + ": 52 cards × positions"),
    ),
    seed: str | None = typer.Option(None, "--seed", help=SEED_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
    planted: str | None = typer.Option(None, "--planted", help=PLANTED_HELP),
) -> None:
    shuffle = _planted(planted, PLANTED_SHUFFLES)
    report = _run(lambda s, n, p: audit_bridge(s, n, shuffle=shuffle, progress=p), deals, seed)
    _emit(_label_planted(report, planted), json_output, _show_bridge)


MAHJONG_AUDIT_HELP = (
    "Mahjong walls: every position holds every tile kind with probability 1/34; beside them, "
    "the starting hands' deficiency numbers (進胡數), the dealer's and the others'."
)


@audit_app.command("mahjong", help=MAHJONG_AUDIT_HELP)
def mahjong_cmd(
    deals: int = typer.Option(
        20_000,
        "--deals",
        callback=at_least(170, at_most=MAX_DEALS),
        help=_deals_help(170, FIVE_A_CELL + ": 34 tile kinds × wall positions"),
    ),
    seed: str | None = typer.Option(None, "--seed", help=SEED_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
    planted: str | None = typer.Option(None, "--planted", help=PLANTED_HELP),
) -> None:
    shuffle = _planted(planted, PLANTED_SHUFFLES) or shuffled_wall
    report = _run(lambda s, n, p: audit_mahjong(s, n, shuffle=shuffle, progress=p), deals, seed)
    _emit(_label_planted(report, planted), json_output, _show_mahjong)


DICE_AUDIT_HELP = (
    "Dice: faces of every die, sums of five dice and their hand types, against the exact "
    "distributions."
)


@audit_app.command("dice", help=DICE_AUDIT_HELP)
def dice_cmd(
    deals: int = typer.Option(
        100_000,
        "--deals",
        callback=at_least(100, at_most=MAX_DEALS),
        help=_deals_help(100, "rolls of five dice"),
    ),
    seed: str | None = typer.Option(None, "--seed", help=SEED_HELP),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
    planted: str | None = typer.Option(None, "--planted", help="mask-modulo: a biased die"),
) -> None:
    roll = _planted(planted, PLANTED_DICE) or roll_dice
    report = _run(lambda s, n, p: audit_dice(s, n, roll=roll, progress=p), deals, seed)
    _emit(_label_planted(report, planted), json_output, _show_dice)


@deal_app.command("bridge")
def deal_bridge_cmd(
    seed: str = typer.Option(..., "--seed", help="64 hex digits, or any text (hashed)"),
    index: int = typer.Option(
        0, "--index", callback=at_least(0), help="which deal of the match (stream bridge/K)"
    ),
    letters: bool = typer.Option(False, "--letters", help="S H D C instead of ♠ ♥ ♦ ♣"),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Print one bridge deal as a newspaper diagram, with patterns and HCP."""
    match_seed = MatchSeed.from_text(seed)
    deal = deal_bridge(match_seed, index)
    if json_output:
        print_json(
            {
                "seed": match_seed.hex(),
                "index": index,
                "pbn": deal.to_pbn(),
                "seats": [
                    {"seat": s, "pattern": deal.pattern(s), "hcp": deal.hcp(s)}
                    for s in ("N", "E", "S", "W")
                ],
            }
        )
        return
    out.print(f"deal {index} of seed {match_seed.hex()}")
    out.print(deal.diagram(symbols=not letters), markup=False)
    out.print(deal.to_pbn(), markup=False)


DEALING_BENCH_HELP = (
    "Bridge dealer audit, vectorised, against the one-by-one dealer (target: 10⁶ deals ≤ 30 s, "
    "judged only at --deals 1000000)."
)


def dealing_bench_cmd(
    deals: int = typer.Option(
        1_000_000,
        "--deals",
        # As `arena audit bridge`: fewer leave a cell of its tables under 5 expected deals.
        callback=at_least(260, at_most=MAX_DEALS),
        help="bridge deals to audit (at least 260)",
    ),
    scalar_deals: int = typer.Option(
        20_000, "--scalar-deals", callback=at_least(1), help="deals for the one-by-one baseline"
    ),
    seed: str = typer.Option(
        "bench",
        "--seed",
        help="seed text, the same every run so runs compare (64 hex digits: that seed itself; "
        "any other text is hashed)",
    ),
    json_output: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    try:
        with interrupt_exits(None):
            bench, report = run_dealing_bench(
                MatchSeed.from_text(seed), deals, min(scalar_deals, deals)
            )
    except (ArenaError, ValueError) as exc:
        fail(str(exc))
    if json_output:
        print_json(bench.to_json() | {"tests": [t.to_json() for t in report.tests]})
        return
    table = Table(
        title=f"bridge dealer audit, {bench.deals:,} deals ({bench.cpu}, numpy {bench.numpy})"
    )
    table.add_column("what")
    table.add_column("figure", justify="right")
    target = f"target ≤ {TARGET_SECONDS:.0f} s at {TARGET_DEALS:,} deals"
    if bench.meets_target is None:
        target += f": not judged at {bench.deals:,}"
    else:
        target += ": met" if bench.meets_target else ": missed"
    rows: list[tuple[str, Any]] = [
        ("audit, end to end", f"{bench.audit_seconds:.2f} s ({target})"),
        ("  batch dealing", f"{bench.batch_deal_seconds:.2f} s"),
        ("  tallies", f"{bench.tally_seconds:.2f} s"),
        ("  exact probabilities + tests", f"{bench.report_seconds:.2f} s"),
        (
            f"  HMAC blocks' share of batch dealing ({bench.split_deals:,} deals)",
            f"{bench.hmac_share:.0%}",
        ),
        ("batch dealer, shuffled orders", f"{bench.batch_deals_per_second:,.0f} deals/s"),
        (
            f"one-by-one shuffle, deal_order ({bench.scalar_deals:,} deals)",
            f"{bench.scalar_deals_per_second:,.0f} deals/s",
        ),
        ("speed-up, same orders", f"{bench.speedup:.1f}×"),
        (
            "  deal_bridge, shuffle + sorted hands (not in the ratio)",
            f"{bench.deal_bridge_per_second:,.0f} deals/s",
        ),
        ("smallest p-value of the audit", _p(bench.min_p_value)),
    ]
    for what, figure in rows:
        table.add_row(what, figure)
    out.print(table)
    out.print(_tests_table(report))
    if bench.meets_target is False:
        out.print(f"[bold red]over the {TARGET_SECONDS:.0f} s target[/]")


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
    app.add_typer(deal_app, name="deal")
    bench_app.command("dealing", help=DEALING_BENCH_HELP)(dealing_bench_cmd)
