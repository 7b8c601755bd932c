"""``arena bench mahjong-match``: a greedy match timed in-process beside the random bots."""

from __future__ import annotations

import typer
from rich.table import Table

from arena.bench.mahjong_match import run_match_bench, target_line
from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    fail,
    interrupt_exits,
    output_console,
    print_json,
    progress_bar,
)
from arena.cli.mahjong_match import match_ruleset
from arena.errors import ArenaError
from arena.matches.mahjong import MATCH_HANDS

out = output_console()
err = output_console(stderr=True)


def bench_mahjong_match(
    games: int = typer.Option(
        MATCH_HANDS,
        "--games",
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="hands per match",
    ),
    seed: str = typer.Option("bench", "--seed", help="match seed text"),
    ruleset: str = typer.Option("competition", "--ruleset", help="ruleset name or .toml path"),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Time a greedy match in-process, with the random bots on the same seed as the baseline."""
    try:
        rules = match_ruleset(ruleset)
    except ArenaError as exc:
        fail(str(exc))
    with (
        interrupt_exits(None),
        progress_bar(err, transient=True, remaining=False) as progress,
    ):
        task = progress.add_task("greedy, then random", total=2 * games)
        state = {"offset": 0}

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=state["offset"] + done)
            if done == total:
                state["offset"] += total

        report = run_match_bench(games, seed, rules, on_hand=advance, ruleset=ruleset)
    if json_output:
        print_json(report)
        return
    table = Table(title=f"mahjong match benchmark: {games} hands, seed {seed!r}")
    for column in ("bots", "hands", "decisions", "wall s", "CPU s", "hands/s", "decisions/s"):
        table.add_column(column, justify="left" if column == "bots" else "right")
    for key in ("greedy", "random"):
        row = report[key]
        table.add_row(
            row["bots"],
            str(row["hands"]),
            str(row["decisions"]),
            f"{row['wall_seconds']:.2f}",
            f"{row['cpu_seconds']:.2f}",
            f"{row['hands_per_cpu_second']:.1f}",
            f"{row['decisions_per_cpu_second']:.0f}",
        )
    out.print(table)
    out.print(target_line(report))
