"""``arena liars-dice gauntlet``: a bot against the 32 personalities of seed 002 §5.1."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import typer
from rich.markup import escape
from rich.table import Table

from arena.bench.liars_dice import (
    BLOCK_GAMES,
    FLOOR,
    Gain,
    Gauntlet,
    pool_gauntlets,
    run_gauntlet,
)
from arena.bench.liars_dice_charts import plot_trends
from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    between,
    config_label,
    fail,
    output_directory,
    print_json,
    split_names,
)
from arena.cli.liars_dice import (
    announce_kept_tables,
    bot_config,
    err,
    ld_app,
    out,
    progress,
    seed_label,
    span,
    strategy_of,
)
from arena.errors import ArenaError
from arena.matches.liars_dice_series import CHAIN_OPENERS, OPENERS, Driver, Opener
from arena.processes import jobs_cut_note
from bots.liars_dice import PERSONALITIES, ConfigError
from bots.registry import UnknownBotError

DRIVER_HELP = (
    "referee: every game through the async referee with in-process seats; direct: a "
    "synchronous loop over the same engine interface and the same bot objects, about twice as "
    "fast, identical games"
)


GAUNTLET_HELP = (
    "Play BOT against each of the 32 personalities of seed 002 §5.1 (a fresh BOT per "
    "personality, the first player alternating unless --opener says otherwise) and print the "
    "win rate against each. Game k against every personality uses the same dice, so two bots "
    "run with one seed are compared on identical deals. The results are also given by group "
    "(honest or liar, preferring to challenge or to bid: arena liars-dice personalities) and by "
    "who opened. Progress goes to stderr; --plot writes "
    "the seed's win-trend charts (cumulative wins against games, with the slope-1/2 and slope-1 "
    "guide lines)."
)


@ld_app.command("gauntlet", help=GAUNTLET_HELP)
def gauntlet(
    bot: str = typer.Option(
        "random-guess",
        "--bot",
        help="the bot to test: a strategy, or a config file naming its strategy",
    ),
    games: int = typer.Option(
        500,
        "--games",
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="games against each personality",
    ),
    seed: str | None = typer.Option(
        None, "--seed", help="match seed (any text, or 64 hex digits) \\[default: 1]"
    ),
    seeds: str | None = typer.Option(
        None,
        "--seeds",
        help="several seeds, pooled: comma-separated, ranges of whole numbers allowed (e.g. "
        "1-8); each personality's win rate and the gain are over every seed's games, and each "
        "seed's mean is shown too. A text seed holding '-' goes to --seed",
    ),
    config: Path | None = typer.Option(None, "--config", help="bot config (TOML)", readable=False),
    driver: str = typer.Option("referee", "--driver", help=DRIVER_HELP),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    plot: Path | None = typer.Option(
        None, "--plot", help="write the win-trend charts here", readable=False
    ),
    opponents: str | None = typer.Option(
        None,
        "--opponents",
        help="only these personalities, comma-separated, each once (e.g. type5,type23)",
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        help="also run this bot (a strategy, or a config file naming its strategy) on the same "
        "dice and give BOT's gain over it with a 95% interval (paired game by game)",
    ),
    baseline_config: Path | None = typer.Option(
        None, "--baseline-config", help="the baseline's config (TOML)", readable=False
    ),
    jobs: int = typer.Option(
        1,
        "--jobs",
        callback=at_least(1),
        help="play the personalities in this many worker processes (same results as 1; the "
        "progress bar then moves a personality at a time)",
    ),
    floor: float = typer.Option(
        FLOOR,
        "--floor",
        callback=between(0.0, 1.0),
        help="list the personalities won against less often than this, and those whose whole "
        "interval lies under it, the intervals holding for every personality at once (each at "
        "1 − 0.05/32 for 32: Bonferroni) (default: issue 5's 55% against every personality)",
    ),
    opener: str = typer.Option(
        "alternate",
        "--opener",
        help="who opens: alternate (default, as the issue asks), bot (BOT opens every game), "
        "opponent, loser or winner (of the previous game; BOT opens the first); the seed does "
        "not say who opened in its experiments",
    ),
) -> None:
    chosen = parse_driver(driver)
    if opener not in OPENERS:
        fail(f"--opener must be one of {', '.join(OPENERS)}, not {opener!r}")
    picked = list(PERSONALITIES)
    if opponents is not None:
        picked = split_names(opponents, "--opponents")
        unknown = [name for name in picked if name not in PERSONALITIES]
        if unknown:
            fail(f"--opponents takes personalities type1 … type32, got {opponents!r}")
        repeated = sorted({name for name in picked if picked.count(name) > 1})
        if repeated:
            # The same personality on the same dice plays the same games again: pooled as
            # independent they would narrow the interval falsely (and --plot overwrite a chart).
            fail(f"--opponents names {', '.join(repeated)} more than once; name each once")
    if baseline_config is not None and baseline is None:
        fail("--baseline-config needs --baseline")
    if seed is not None and seeds is not None:
        fail("give --seed or --seeds, not both")
    # An empty --seed is the text seed '', as `arena match liars-dice` takes it; only a
    # missing one is the default.
    seed_list = [seed if seed is not None else "1"] if seeds is None else parse_seeds(seeds)
    if plot is not None and len(seed_list) > 1:
        fail("--plot draws the games of one seed; give --seed")
    output_directory(plot, "--plot")
    bot, config = strategy_of(bot, config, "--bot", "--config")
    options = bot_config(config, bot)
    base_options: dict[str, Any] = {}
    if baseline is not None:
        baseline, baseline_config = strategy_of(
            baseline, baseline_config, "--baseline", "--baseline-config"
        )
        base_options = bot_config(baseline_config, baseline)
    sides = {bot: options} if baseline is None else {bot: options, baseline: base_options}
    if baseline == bot:
        sides = {f"{bot} (--bot)": options, f"{baseline} (--baseline)": base_options}
    announce_kept_tables(sides)
    cut = jobs_cut_note("--jobs", jobs, len(picked))
    if cut is not None:
        err.print(f"[yellow]note:[/] {escape(cut)}")
    runs = [(bot, options)] + ([(baseline, base_options)] if baseline is not None else [])
    # One list of per-seed gauntlets for the bot, and one for the baseline.
    results: list[list[Gauntlet]] = []
    total = games * len(picked) * len(seed_list)
    try:
        for name, settings in runs:
            with progress(total, escape(f"{name} vs {len(picked)} personalities")) as step:
                results.append(
                    [
                        run_gauntlet(
                            name,
                            games,
                            one_seed,
                            config=settings,
                            opponents=picked,
                            driver=chosen,
                            progress=step,
                            jobs=jobs,
                            opener=cast(Opener, opener),
                        )
                        for one_seed in seed_list
                    ]
                )
    except (UnknownBotError, ConfigError, ArenaError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted: a gauntlet is reported only once every personality is played", 130)
    result = pool_gauntlets(results[0])
    gain = Gain(result, pool_gauntlets(results[1])) if len(results) > 1 else None
    per_seed = [
        [_seed_summary(run, floor) for run in runs] for runs in results if len(seed_list) > 1
    ]
    if json_output:
        extra: dict[str, Any] = {"per_seed": per_seed[0]} if per_seed else {}
        if len(per_seed) > 1:
            extra["baseline_per_seed"] = per_seed[1]
        extra["config"] = None if config is None else str(config)
        if gain is not None:
            extra["baseline_config"] = None if baseline_config is None else str(baseline_config)
        print_json(
            result.to_json(floor) | (gain.to_json(floor) if gain is not None else {}) | extra
        )
    else:
        labels = (
            config_label(bot, config),
            None if baseline is None else config_label(baseline, baseline_config),
        )
        if labels[0] == labels[1]:
            labels = (f"{labels[0]} (A)", f"{labels[1]} (B)")
        _show_gauntlet(result, gain, seed_list, floor, labels)
        for k, one_seed in enumerate(seed_list if per_seed else []):
            text = f"seed {one_seed}: " + "; ".join(
                f"{runs[k]['bot']} {_seed_line(runs[k], floor)}" for runs in per_seed
            )
            out.print(escape(text))
    if plot is not None:
        try:
            written = plot_trends(result, plot, gain.baseline if gain is not None else None)
        except OSError as exc:
            fail(f"--plot {plot}: cannot write the charts: {exc}")
        err.print(escape(f"wrote {len(written)} charts to {plot} (overview: {written[-1].name})"))


def parse_driver(text: str) -> Driver:
    if text not in ("referee", "direct"):
        fail(f"--driver must be 'referee' or 'direct', not {text!r}")
    return "direct" if text == "direct" else "referee"


MAX_SEEDS = 1000


_RANGE = re.compile(r"([0-9]+)-([0-9]+)")


def parse_seeds(text: str) -> list[str]:
    """``1-8`` → 1…8; ``1,5,x`` → those three. A range is two whole numbers joined by one
    ``-``; any other item holding ``-`` (``1-``, ``-3``, ``1 - 3``, ``a-b``) is a range typed
    wrong, refused rather than played as one text seed that merely looks like a range. A text
    seed with ``-`` in it is given alone with ``--seed``."""
    seeds: list[str] = []
    for item in split_names(text, "--seeds"):
        bounds = _RANGE.fullmatch(item)
        if bounds is None and "-" in item:
            fail(
                f"--seeds: {item!r} is not a range (two whole numbers joined by '-', e.g. 1-8); "
                "give a text seed holding '-' with --seed"
            )
        if bounds is None:
            seeds.append(item)
            continue
        low, high = int(bounds.group(1)), int(bounds.group(2))
        if high < low or high - low >= MAX_SEEDS:
            fail(f"--seeds: {item!r} is not a range of 1 to {MAX_SEEDS} seeds")
        seeds += [str(n) for n in range(low, high + 1)]
    if not seeds or len(seeds) > MAX_SEEDS or len(set(seeds)) != len(seeds):
        fail(f"--seeds takes 1 to {MAX_SEEDS} different seeds, got {text!r}")
    return seeds


def _seed_summary(run: Gauntlet, floor: float) -> dict[str, Any]:
    lowest = min(run.duels, key=lambda duel: duel.win_rate)
    return {
        "bot": run.bot,
        "seed": run.seed,
        "mean": round(run.mean, 4),
        "min": round(lowest.win_rate, 4),
        "lowest": lowest.opponent,
        "below": [duel.opponent for duel in run.below(floor)],
    }


def _seed_line(summary: dict[str, Any], floor: float) -> str:
    return (
        f"mean {summary['mean']:.1%}, lowest {summary['min']:.1%} ({summary['lowest']}), "
        f"{len(summary['below'])} below {floor:.0%}"
    )


def _show_gauntlet(
    result: Gauntlet,
    gain: Gain | None,
    seeds: list[str],
    floor: float,
    labels: tuple[str, str | None],
) -> None:
    """The table and its summary; ``labels``: how the bot and the baseline read
    (`config_label`)."""
    bot_label, baseline_label = labels[0], labels[1] or ""
    # Seeds and names are the user's text: escaped, or rich would read '[/]' as markup.
    shown = ", ".join(seed_label(seed) for seed in seeds)
    table = Table(
        title=escape(
            f"{bot_label}: {result.games} games against each personality "
            f"(seed{'s' if len(seeds) > 1 else ''} {shown})"
            + ("" if result.opener == "alternate" else f", opener: {result.opener}")
        )
    )
    # The traits need a wide terminal; beside a baseline they would not fit at all.
    with_traits = gain is None and out.width >= TRAITS_WIDTH
    table.add_column("opponent")
    if with_traits:
        table.add_column("traits", no_wrap=True)
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% interval", justify="right")
    if gain is not None:
        table.add_column(escape(baseline_label), justify="right")
        table.add_column("gain", justify="right")
    for k, duel in enumerate(result.duels):
        style = "" if duel.win_rate >= floor else "bold red"
        row = [
            duel.opponent,
            *([_traits(duel.opponent)] if with_traits else []),
            f"{duel.wins}/{duel.games}",
            f"[{style}]{duel.win_rate:.1%}[/]" if style else f"{duel.win_rate:.1%}",
            span(result.rate(duel)),
        ]
        if gain is not None:
            base = gain.baseline.duels[k].win_rate
            row += [f"{base:.1%}", f"{100 * (duel.win_rate - base):+.1f}"]
        table.add_row(*row)
    out.print(table)
    lowest = min(result.duels, key=lambda duel: duel.win_rate)
    out.print(
        escape(
            f"mean {result.mean:.1%} ({span(result.mean_interval())}), lowest "
            f"{lowest.win_rate:.1%} ({lowest.opponent})\n"
            f"{result.decisions_per_game:.2f} decisions a game; {result.games_per_second:.0f} "
            f"games/s ({result.driver} driver)"
        )
    )
    below = [duel.opponent for duel in result.below(floor)]
    clearly = [duel.opponent for duel in result.clearly_below(floor)]
    out.print(
        f"below {floor:.0%}: {', '.join(below) or 'none'}\n"
        f"wholly below {floor:.0%} (its whole interval, at {result.family_confidence:.2%} for "
        f"each of {len(result.duels)} so that all hold at once): {', '.join(clearly) or 'none'}"
    )
    if gain is not None:
        interval = gain.interval()
        out.print(
            escape(
                f"{baseline_label}: mean {gain.baseline.mean:.1%}; gain of {bot_label} "
                f"{100 * interval.estimate:+.2f} points, 95% interval "
                f"[{100 * interval.low:+.2f}, {100 * interval.high:+.2f}] "
                + (
                    f"(paired by game, clustered by blocks of {BLOCK_GAMES} games)"
                    if result.opener in CHAIN_OPENERS
                    else "(paired by game, clustered by game index)"
                )
            )
        )
    _show_groups(result, gain, baseline_label)
    _show_openers(result, floor)


TRAITS_WIDTH = 120
"""The terminal width from which the table shows each personality's traits."""


def _traits(opponent: str) -> str:
    traits = PERSONALITIES.get(opponent)
    return "" if traits is None else traits.describe()


def _show_groups(result: Gauntlet, gain: Gain | None, baseline_label: str) -> None:
    """The mean win rate against each group of personalities (`Gauntlet.by_group`), and beside
    a baseline its mean and the paired gain."""
    groups = result.by_group()
    if not groups:
        return
    table = Table(title="by group (honest or liar → the decision it prefers)")
    for heading in ("group", "types", "win rate", "95% interval"):
        table.add_column(heading, justify="left" if heading == "group" else "right")
    if gain is not None:
        table.add_column(escape(baseline_label), justify="right")
        table.add_column("gain (95% interval)", justify="right")
    base_groups = (
        {} if gain is None else {group: rate for group, _, rate in gain.baseline.by_group()}
    )
    gains = {} if gain is None else dict(gain.by_group())
    for group, members, rate in groups:
        row = [group, str(len(members)), f"{rate.estimate:.1%}", span(rate)]
        if gain is not None:
            change = gains[group]
            row += [
                f"{base_groups[group].estimate:.1%}",
                f"{100 * change.estimate:+.2f} [{100 * change.low:+.2f}, {100 * change.high:+.2f}]",
            ]
        table.add_row(*row)
    out.print(table)


def _show_openers(result: Gauntlet, floor: float) -> None:
    """The win rate in the games the bot opened and in those it answered, when it did both."""
    split = result.by_opener(floor)
    opened, answered = split["bot"], split["opponent"]
    if not opened["games"] or not answered["games"]:
        return
    out.print(
        escape(
            f"{result.bot} opened {opened['games']} games and won {opened['win_rate']:.1%} "
            f"({_types(len(opened['below_floor']))} below {floor:.0%} in them); answered "
            f"{answered['games']} and won {answered['win_rate']:.1%} "
            f"({_types(len(answered['below_floor']))} below {floor:.0%})"
        )
    )


def _types(count: int) -> str:
    return f"{count} type" if count == 1 else f"{count} types"
