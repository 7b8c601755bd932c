"""``arena bench liars-dice``: the bayes gauntlet timed beside random-guess, then the two
drivers, with the design's time target judged."""

from __future__ import annotations

from typing import Any

import typer

from arena.bench.liars_dice_speed import run_bench
from arena.cli.common import at_least, fail, output_console, print_json, progress
from bots.liars_dice import PERSONALITIES

out = output_console()


def bench_command(
    games: int = typer.Option(
        500, "--games", callback=at_least(1), help="games against each personality"
    ),
    seed: str = typer.Option("1", "--seed", help="match seed"),
    driver_games: int = typer.Option(
        500,
        "--driver-games",
        callback=at_least(1),
        help="games of bayes vs type1 timed under each driver",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Time the bayes gauntlet (32 × GAMES, target ≤ 20 s) beside random-guess, then the drivers."""
    total = 2 * games * len(PERSONALITIES)
    try:
        with progress(total, "bayes, then random-guess") as advance:
            report = run_bench(games, seed, driver_games=driver_games, progress=advance)
    except KeyboardInterrupt:
        # As the gauntlet says it: one line and 130, not a half-drawn bar and silence.
        fail("interrupted: the bench is reported only once every run is timed", 130)
    data = report.to_json()
    (target,) = data["targets"]
    if json_output:
        print_json(data)
        _exit_if_missed(target)
        return
    drivers = data["driver_comparison"]
    out.print(
        f"bayes: {32 * games} games in {data['bayes_seconds']:.2f} s "
        f"({data['bayes_games_per_second']:.0f} games/s, mean win rate "
        f"{data['bayes_mean_win_rate']:.1%})"
    )
    out.print(
        f"random-guess: {32 * games} games in {data['random_guess_seconds']:.2f} s "
        f"({data['random_guess_games_per_second']:.0f} games/s, mean win rate "
        f"{data['random_guess_mean_win_rate']:.1%})"
    )
    out.print(f"bayes / random-guess time: {data['bayes_vs_random_guess_time_ratio']:.2f}")
    out.print(
        f"drivers, {drivers['games']} games bayes vs type1: referee "
        f"{drivers['referee_games_per_second']:.0f} games/s "
        f"({drivers['referee_us_per_decision']:.0f} µs/decision), direct "
        f"{drivers['direct_games_per_second']:.0f} games/s "
        f"({drivers['direct_us_per_decision']:.0f} µs/decision), ratio "
        f"{drivers['referee_vs_direct_time_ratio']}"
    )
    verdict = {None: "not judged (it is set for 500 games)", True: "met", False: "MISSED"}
    out.print(
        f"target: {target['quantity']} {target['measured']:g} "
        f"({target['comparison']} {target['bound']:g}): {verdict[target['met']]}"
    )
    _exit_if_missed(target)


def _exit_if_missed(target: dict[str, Any]) -> None:
    """Exit 1 after the figures when the time target was missed, as the other benches do: a
    script or CI job must not read a missed target as success."""
    if target["met"] is False:
        raise typer.Exit(1)
