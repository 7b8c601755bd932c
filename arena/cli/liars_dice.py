"""``arena liars-dice …``, ``arena match liars-dice`` and ``arena bench liars-dice``."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from arena.bench.liars_dice import Driver, plot_trends, run_bench, run_gauntlet, run_match
from arena.cli.common import fail, print_json
from arena.cli.serve import SERVER_HELP, run_on_server
from arena.errors import ArenaError
from arena.games.errors import GameError
from arena.games.liars_dice import LiarsDiceRules, load_ruleset
from bots.liars_dice import PERSONALITIES, ConfigError
from bots.registry import UnknownBotError, make_bot

ld_app = typer.Typer(
    help="Liar's dice experiments (seed 002): the gauntlet against the 32 personalities.",
    no_args_is_help=True,
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

DRIVER_HELP = (
    "referee: every game through the async referee with in-process seats (default); direct: a "
    "synchronous loop over the same engine interface and the same bot objects, about twice as "
    "fast, identical games"
)


@contextmanager
def _progress(total: int, label: str) -> Iterator[Any]:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


def _bot_config(path: Path | None, bot: str) -> dict[str, Any]:
    """The config of ``bot`` from ``path``, checked by building the bot once, so a bad name or
    option is reported before any game starts."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            fail(f"cannot read bot config {path}: {exc}")
    try:
        make_bot("liars_dice", bot, data)
    except (UnknownBotError, ConfigError) as exc:
        fail(f"{path}: {exc}" if path is not None else str(exc))
    return data


GAUNTLET_HELP = (
    "Play BOT against each of the 32 personalities of seed 002 §5.1 (a fresh BOT per "
    "personality, the first player alternating) and print the win rate against each. Game k "
    "against every personality uses the same dice, so two bots run with one seed are compared "
    "on identical deals. Progress goes to stderr; --plot writes the seed's win-trend charts "
    "(cumulative wins against games, with the slope-1/2 and slope-1 guide lines)."
)


@ld_app.command("gauntlet", help=GAUNTLET_HELP)
def gauntlet(
    bot: str = typer.Option("random-guess", "--bot", help="the bot to test"),
    games: int = typer.Option(500, "--games", min=1, help="games against each personality"),
    seed: str = typer.Option("1", "--seed", help="match seed (any text, or 64 hex digits)"),
    config: Path | None = typer.Option(None, "--config", help="bot config (TOML)"),
    driver: str = typer.Option("referee", "--driver", help=DRIVER_HELP),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    plot: Path | None = typer.Option(None, "--plot", help="write the win-trend charts here"),
) -> None:
    if driver not in ("referee", "direct"):
        fail(f"--driver must be 'referee' or 'direct', not {driver!r}")
    chosen: Driver = "direct" if driver == "direct" else "referee"
    options = _bot_config(config, bot)
    try:
        with _progress(games * len(PERSONALITIES), f"{bot} vs 32 personalities") as advance:
            result = run_gauntlet(bot, games, seed, config=options, driver=chosen, progress=advance)
    except (UnknownBotError, ConfigError, ArenaError) as exc:
        fail(str(exc))
    written = plot_trends(result, plot) if plot is not None else []
    if json_output:
        print_json(result.to_json())
    else:
        table = Table(title=f"{bot}: {games} games against each personality (seed {seed})")
        table.add_column("opponent")
        table.add_column("traits", no_wrap=True)
        table.add_column("wins", justify="right")
        table.add_column("win rate", justify="right")
        for duel in result.duels:
            style = "" if duel.win_rate >= 0.55 else "bold red"
            table.add_row(
                duel.opponent,
                PERSONALITIES[duel.opponent].short(),
                f"{duel.wins}/{duel.games}",
                f"[{style}]{duel.win_rate:.1%}[/]" if style else f"{duel.win_rate:.1%}",
            )
        out.print(table)
        out.print(
            f"mean {result.mean:.1%}, lowest {min(d.win_rate for d in result.duels):.1%}; "
            f"{result.games_per_second:.0f} games/s ({result.driver} driver)"
        )
    for path in written[-1:]:
        err.print(f"wrote {len(written)} charts to {path.parent} (overview: {path.name})")


@ld_app.command("personalities")
def personalities() -> None:
    """List the 32 test personalities and their traits."""
    for name, traits in PERSONALITIES.items():
        out.print(f"{name:>7}  {traits.describe()}")


def match_command(
    a: str = typer.Option(..., "--a", help="first bot"),
    b: str = typer.Option(..., "--b", help="second bot"),
    games: int = typer.Option(100, "--games", min=1, help="games to play"),
    seed: str = typer.Option("1", "--seed", help="match seed (any text, or 64 hex digits)"),
    rules: Path | None = typer.Option(None, "--rules", help="ruleset TOML (configs/rulesets)"),
    config_a: Path | None = typer.Option(None, "--config-a", help="first bot's config (TOML)"),
    config_b: Path | None = typer.Option(None, "--config-b", help="second bot's config (TOML)"),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    server: str | None = typer.Option(
        None, "--server", help=SERVER_HELP.replace("--bots names", "--a/--b")
    ),
) -> None:
    """Play A against B through the referee, seats and opener alternating: in-process
    strategies, or with --server the two named bots connected to an arena server."""
    try:
        ruleset = load_ruleset(rules) if rules is not None else LiarsDiceRules()
    except GameError as exc:
        fail(str(exc))
    if ruleset.players != 2:
        fail(f"a match seats two bots; the ruleset has players = {ruleset.players}")
    if server is not None and a == b:
        fail("--a and --b must name two different bots on the server")
    if server is not None and (config_a or config_b):
        fail(
            "--config-a/--config-b configure in-process bots; with --server pass a config to "
            "`bots run --config` instead"
        )
    options_a, options_b = (
        ({}, {}) if server is not None else (_bot_config(config_a, a), _bot_config(config_b, b))
    )
    try:
        with _progress(games, f"{a} vs {b}") as advance:
            match = partial(
                run_match,
                a,
                b,
                games,
                seed,
                config_a=options_a,
                config_b=options_b,
                rules=ruleset,
                progress=advance,
            )
            if server is None:
                report = asyncio.run(match())
            else:
                report = run_on_server(
                    server, [a, b], "liars_dice", lambda seats: match(seats=(seats[0], seats[1]))
                )
    except (UnknownBotError, ConfigError, ArenaError) as exc:
        fail(str(exc))
    data = report.to_json()
    if json_output:
        print_json(data)
        return
    out.print(
        f"{a} {data['wins_a']} – {data['wins_b']} {b} over {games} games "
        f"({data['win_rate_a']:.1%} for {a}); {data['decisions']} decisions in "
        f"{data['seconds']:.1f} s"
    )


def bench_command(
    games: int = typer.Option(500, "--games", min=1, help="games against each personality"),
    seed: str = typer.Option("1", "--seed", help="match seed"),
    driver_games: int = typer.Option(
        500, "--driver-games", min=1, help="games of bayes vs type1 timed under each driver"
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Time the bayes gauntlet (32 × GAMES, target ≤ 20 s) beside random-guess, then the drivers."""
    total = 2 * games * len(PERSONALITIES)
    with _progress(total, "bayes, then random-guess") as advance:
        report = run_bench(games, seed, driver_games=driver_games, progress=advance)
    data = report.to_json()
    if json_output:
        print_json(data)
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


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(ld_app, name="liars-dice")
    match_app.command("liars-dice")(match_command)
    bench_app.command("liars-dice")(bench_command)
