"""``arena liars-dice targets``: the strength targets of issue 5 measured and judged in one run."""

from __future__ import annotations

from typing import cast

import typer
from rich.markup import escape
from rich.table import Table

from arena.bench.liars_dice import BLOCK_GAMES, FLOOR
from arena.bench.liars_dice_targets import (
    BAYES,
    PROBABILITY,
    RANDOM_GUESS,
    TARGET_BOTS,
    TargetRun,
    Verdict,
    count_spread,
    measure_targets,
    points,
    spread,
)
from arena.cli.common import MAX_MATCH_GAMES, at_least, between, fail, print_json
from arena.cli.liars_dice import err, ld_app, out, progress, span
from arena.cli.liars_dice_gauntlet import DRIVER_HELP, parse_driver, parse_seeds
from arena.errors import ArenaError
from arena.matches.liars_dice_series import CHAIN_OPENERS, OPENERS, Opener
from arena.processes import jobs_cut_note
from bots.liars_dice import PERSONALITIES

TARGETS_HELP = (
    "Measure the liar's dice strength targets (issue 5) and judge each from the "
    "games: random-guess ≥ 55% against every personality, its mean within 60–70%, bayes ≥ 3 "
    "points above random-guess, both above probability. random-guess, bayes and probability "
    "play the 32 personalities on every seed, on the same dice, so the gains pair game by game. "
    "The seed's own words (002 §5.2) are judged beside them, type by type: random-guess about "
    "60–70% against each personality and losing to none, bayes about 5–10 points better against "
    "most. "
    "A target is 'met' when its pooled 95% interval lies on the right side of the line, 'missed' "
    "when it lies wholly on the wrong side, 'not shown' when it holds the line; that some "
    "personality lies wholly beyond a line is judged on intervals that hold for all 32 at once "
    "(Bonferroni), that every one lies on the right side on each one's own 95% interval. "
    "Pooled intervals "
    "of a mean or a gain count game indices, not games (game k deals the same dice against every "
    "personality; under the winner and loser openers, blocks of 20 games, and each type's "
    "interval is widened by the correlation of its games). For the network's 5–10 points a type "
    "counts when its whole interval lies at or above 5 points. A table by group of "
    "personalities (honest or liar, preferring "
    "to challenge or to bid) follows the verdicts. --opener all runs "
    "each rule for who opens and adds a summary (the table of docs/STRATEGIES.md)."
)

STYLE: dict[Verdict, str] = {"met": "green", "missed": "bold red", "not shown": "yellow"}


@ld_app.command("targets", help=TARGETS_HELP)
def targets(
    opener: str = typer.Option(
        "alternate",
        "--opener",
        help=f"who opens: {', '.join(OPENERS)} (see gauntlet --help), or all of them one after "
        "another",
    ),
    games: int = typer.Option(
        500,
        "--games",
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="games against each personality",
    ),
    seeds: str = typer.Option(
        "1-8",
        "--seeds",
        help="the seeds, pooled: comma-separated, ranges of whole numbers allowed (e.g. 1-8)",
    ),
    driver: str = typer.Option("direct", "--driver", help=DRIVER_HELP),
    jobs: int = typer.Option(
        1, "--jobs", callback=at_least(1), help="worker processes per gauntlet (same results as 1)"
    ),
    floor: float = typer.Option(
        FLOOR,
        "--floor",
        callback=between(0.0, 1.0),
        help="the win rate asked against every personality",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    chosen = parse_driver(driver)
    if opener != "all" and opener not in OPENERS:
        fail(f"--opener must be one of {', '.join(OPENERS)} or all, not {opener!r}")
    openers = list(OPENERS) if opener == "all" else [cast(Opener, opener)]
    seed_list = parse_seeds(seeds)
    cut = jobs_cut_note("--jobs", jobs, len(PERSONALITIES))
    if cut is not None:
        err.print(f"[yellow]note:[/] {escape(cut)}")
    total = len(openers) * len(TARGET_BOTS) * len(seed_list) * len(PERSONALITIES) * games
    measured: list[TargetRun] = []
    try:
        label = f"{', '.join(TARGET_BOTS)} vs {len(PERSONALITIES)} personalities"
        with progress(total, label) as step:
            for rule in openers:
                measured.append(
                    measure_targets(
                        rule,
                        games,
                        seed_list,
                        driver=chosen,
                        jobs=jobs,
                        floor=floor,
                        progress=step,
                    )
                )
    except ArenaError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted: the targets are judged only once every gauntlet is played", 130)
    if json_output:
        print_json(
            {
                "games": games,
                "seeds": seed_list,
                "floor": floor,
                "driver": driver,
                "openers": [run.to_json() for run in measured],
            }
        )
        return
    for run in measured:
        _show_checks(run)
    if len(measured) > 1:
        _show_summary(measured)


def _show_checks(run: TargetRun) -> None:
    # The seeds are the user's text: escaped, or rich would read '[/]' as markup.
    setting = escape(
        f"opener: {run.opener}; {run.games} games a personality; seeds {', '.join(run.seeds)}"
    )
    for title, heading, checks in (
        (f"issue 5's targets — {setting}", "target", run.checks()),
        ("the seed's own words (002 §5.2), same games", "claim", run.seed_claims()),
    ):
        table = Table(title=title, show_lines=True)
        table.add_column(heading, overflow="fold")
        table.add_column("verdict", no_wrap=True)
        table.add_column("measured")
        for check in checks:
            verdict = f"[{STYLE[check.verdict]}]{check.verdict}[/]"
            table.add_row(escape(check.target), verdict, escape(check.measured))
        out.print(table)
    _show_groups(run)


def _show_groups(run: TargetRun) -> None:
    """Each player's pooled mean win rate against each group of personalities, and bayes's gain
    over random-guess there (the group figures of docs/STRATEGIES.md)."""
    rates = {bot: {group: rate for group, _, rate in run.group_rates(bot)} for bot in TARGET_BOTS}
    gains = run.group_gains(BAYES, RANDOM_GUESS)
    table = Table(
        title="by group (honest or liar → the decision it prefers), same games",
        caption="mean win rate over the seeds (95% interval clustered by game index"
        + (
            f"; by blocks of {BLOCK_GAMES} games under {run.opener})"
            if run.opener in CHAIN_OPENERS
            else ")"
        ),
    )
    table.add_column("group")
    for heading in (*TARGET_BOTS, "bayes − random-guess"):
        table.add_column(heading, justify="right", overflow="fold")
    for group in rates[RANDOM_GUESS]:
        cells = [
            f"{rates[bot][group].estimate:.1%} ({span(rates[bot][group])})" for bot in TARGET_BOTS
        ]
        table.add_row(group, *cells, points(gains[group]))
    out.print(table)


def _show_summary(runs: list[TargetRun]) -> None:
    table = Table(
        title=f"who opens ({runs[0].games} games a personality; ranges over the seeds)",
        caption="rg = random-guess; gain pooled over the seeds, 95% interval clustered by game "
        f"index (under {' and '.join(CHAIN_OPENERS)}, by blocks of {BLOCK_GAMES} games); "
        "targets and seed's words: how many are met",
    )
    for heading in (
        "opener",
        "rg mean",
        f"rg < {runs[0].floor:.0%}",
        "bayes mean",
        "bayes − rg",
        "probability mean",
        "targets",
        "seed's words",
    ):
        table.add_column(
            heading, justify="left" if heading == "opener" else "right", overflow="fold"
        )
    for run in runs:
        met = sum(check.verdict == "met" for check in run.checks())
        claims = run.seed_claims()
        claims_met = sum(check.verdict == "met" for check in claims)
        table.add_row(
            run.opener,
            spread(run.means(RANDOM_GUESS)),
            count_spread(run.below_counts(RANDOM_GUESS)),
            spread(run.means(BAYES)),
            points(run.gain(BAYES, RANDOM_GUESS)),
            spread(run.means(PROBABILITY)),
            f"{met}/{len(run.checks())}",
            f"{claims_met}/{len(claims)}",
        )
    out.print(table)
