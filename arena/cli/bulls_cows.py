"""``arena bulls-cows eval``, ``arena match bulls-cows`` and ``arena bench bulls-cows``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    config_label,
    console,
    fail,
    fresh_seed,
    interrupt_after_play,
    interrupt_exits,
    lineup_tag,
    output_directory,
    print_json,
    progress,
    refuse_config_on_server,
    refuse_public_seed_on_server,
    strategy_of_config_file,
    written_record,
)
from arena.cli.serve import SERVER_HELP, run_on_server, server_url
from arena.cli.stopped_figures import partial_json, partial_line, running_match
from arena.games.errors import RulesetError
from bots.registry import BotConfigError as RegistryConfigError
from bots.registry import config_for

if TYPE_CHECKING:
    from arena.matches.bulls_cows import SeriesReport
    from arena.records import JsonlRecorder

bc_app = typer.Typer(help="1A2B (Bulls and Cows): evaluate guessers.", no_args_is_help=True)

GUESSER_NAMES = "random, frequency, super-comparison, entropy, optimal"


def _check_space(digits: int, alphabet: str) -> None:
    from arena.games.bulls_cows import code_space

    try:
        code_space(digits, alphabet)
    except RulesetError as exc:
        fail(str(exc))


NONE = "—"
"""A figure that does not exist (the mean of no solved game), in text output."""


EVADER_RUNS = 100
"""Games against the evader when --runs is not given (`arena bench bulls-cows`'s default too)."""


def _histogram_line(histogram: Mapping[int, int]) -> str:
    return "  ".join(f"{k}:{v}" for k, v in histogram.items()) or NONE


# One paragraph per string line, not docstrings: typer keeps a docstring's line breaks (in
# `arena bench --help`'s list, and after a command's first paragraph) and cuts sentences there.
EVAL_HELP = (
    "Play every secret once against a fixed answerer (or RUNS games against the evader) and print "
    "how many were solved, the mean/max guesses and histogram of the solved games, and the "
    "time.\n\n"
    "This drives the engine and the bot's synchronous core directly, without the async referee, "
    "so the time measured is the strategy's, not the messaging's."
)


@bc_app.command("eval", help=EVAL_HELP)
def eval_cmd(
    guesser: str = typer.Option(..., "--guesser", help=f"one of {GUESSER_NAMES}"),
    answerer: str = typer.Option("fixed", help="fixed (every secret once) or evader"),
    digits: int = typer.Option(3, help="symbols per code"),
    alphabet: str = typer.Option("123456789", help="the symbols codes are made of"),
    runs: int | None = typer.Option(
        None,
        show_default=False,
        help="games against the evader (its ties vary per run); only with --answerer evader "
        f"\\[default: {EVADER_RUNS}]",
    ),
    seed: str = typer.Option("0", help="seed text of the guesser's and evader's streams"),
    max_guesses: int = typer.Option(
        20,
        callback=at_least(1),
        help="guesses allowed per game; a game not solved within them counts as unsolved",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    from arena.bench.bulls_cows import evaluate
    from arena.games.bulls_cows import code_space
    from bots.bulls_cows import GUESSERS

    if guesser not in GUESSERS:
        fail(f"unknown guesser {guesser!r}; known: {GUESSER_NAMES}")
    if answerer not in ("fixed", "evader"):
        fail(f"unknown answerer {answerer!r}; known: fixed, evader")
    if runs is not None and answerer != "evader":
        # Refused, not ignored: the fixed answerer plays every secret once, so a --runs given
        # with it would read as a number of games it never played.
        fail(
            "--runs is the number of games against the evader: give it with --answerer evader "
            "(the fixed answerer plays every secret once)"
        )
    if runs is None:
        runs = EVADER_RUNS
    if runs < 1:
        fail("--runs must be at least 1")
    _check_space(digits, alphabet)
    total = code_space(digits, alphabet).size if answerer == "fixed" else runs
    what = "every secret" if answerer == "fixed" else "games vs evader"
    with (
        interrupt_exits(None),
        progress(total, f"{guesser}: {what}", transient=True) as advance,
    ):
        report = evaluate(
            guesser,
            answerer=answerer,
            digits=digits,
            alphabet=alphabet,
            runs=runs,
            seed=seed,
            max_guesses=max_guesses,
            progress=advance,
        )
    if json_output:
        # The seed ties the figures to the streams that gave them, as a match's JSON does.
        print_json({**report.to_json(), "seed": seed})
        return
    what = f"{report.games} secrets" if answerer == "fixed" else f"{report.games} games vs evader"
    mean = NONE if report.mean is None else f"{report.mean:.4f}"
    maximum = NONE if report.maximum is None else str(report.maximum)
    typer.echo(
        f"{guesser} on {digits} of {alphabet}, {what}, at most {max_guesses} guesses each, "
        f"seed {seed!r}"
    )
    typer.echo(f"  solved                 {report.solved} of {report.games}")
    if report.unsolved:
        typer.echo(f"  unsolved               {report.unsolved}")
    typer.echo(f"  mean guesses (solved)  {mean}")
    typer.echo(f"  max guesses (solved)   {maximum}")
    typer.echo(f"  histogram (solved)     {_histogram_line(report.histogram)}")
    typer.echo(
        f"  time                   {report.seconds:.3f} s (decision p50 "
        f"{report.latency_ms(50):.3f} ms, p99 {report.latency_ms(99):.3f} ms)"
    )


def is_config_file(text: str) -> bool:
    """Whether ``--a``/``--b`` names a config file rather than a strategy (or, with --server, a
    connected bot)."""
    return Path(text).suffix == ".toml"


def load_bot_spec(
    text: str, option: str, config: Path | None = None, config_option: str = ""
) -> tuple[str, dict[str, Any], str, str | None]:
    """(strategy, config, display name, config file) of ``--a``/``--b``: a strategy name, a TOML
    file holding ``strategy`` and the bot's config keys, or a strategy name with its config
    beside it (``--a optimal --config-a mine.toml``, as `arena match liars-dice` takes one:
    the file's ``strategy`` key, if any, must name that strategy). A side with a config is named
    after the file; every side is checked by building the bot once, so that a bad setting is
    refused before any game, naming the option and the file."""
    from bots.bulls_cows import GUESSERS, BotConfigError, build_bot

    data: dict[str, Any] = {}
    file: Path | None = None
    if is_config_file(text):
        if config is not None:
            fail(f"{option} {text} is a config already; leave out {config_option} {config}")
        file = Path(text)
        strategy, data = strategy_of_config_file(
            file,
            option,
            f'{option} {file}: needs strategy = "<one of {GUESSER_NAMES}>" (or name the '
            f"strategy with {option} and the file with {option.replace('--', '--config-')})",
        )
        given = f"{option} {text}"
    else:
        strategy, given = text, f"{option} {text}"
        if strategy not in GUESSERS:
            fail(f"unknown 1A2B bot {strategy!r}; known: {GUESSER_NAMES}")
        if config is not None:
            file = config
            try:
                data = config_for(strategy, config)
            except RegistryConfigError as exc:
                fail(f"{config_option}: {exc}")
            given = f"{config_option} {config}"
    if strategy not in GUESSERS:
        fail(f"{given}: unknown 1A2B bot {strategy!r}; known: {GUESSER_NAMES}")
    name = text if file is None else file.stem
    try:
        build_bot(strategy, name, data)
    except BotConfigError as exc:
        fail(f"{given}: {exc}")
    return strategy, data, name, None if file is None else str(file)


MATCH_HELP = (
    "A 1A2B duel series through the referee, alternating who starts: in-process strategies, or "
    "with --server the two named bots connected to an arena server."
)


def match_cmd(
    a: str = typer.Option(..., "--a", help="bot A: a strategy name or a TOML config file"),
    b: str = typer.Option(..., "--b", help="bot B: a strategy name or a TOML config file"),
    games: int = typer.Option(
        20,
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="games; A starts the even ones, B the odd ones",
    ),
    seed: str | None = typer.Option(
        None,
        help="match seed: 64 hex digits or any text (with --server: 64 hex digits only); default: "
        "fresh and secret from the operating system, its commitment printed to stderr at the "
        "start, itself at the end",
    ),
    digits: int = typer.Option(3, help="symbols per code"),
    alphabet: str = typer.Option("123456789", help="the symbols codes are made of"),
    max_guesses: int = typer.Option(20, help="guesses allowed per seat"),
    deadline_ms: int = typer.Option(
        5000, callback=at_least(1), help="time allowed per decision, ms (≥ 1)"
    ),
    config_a: Path | None = typer.Option(
        None,
        "--config-a",
        help="bot A's config (TOML) when --a names a strategy; A is then named after the file",
        readable=False,
    ),
    config_b: Path | None = typer.Option(
        None,
        "--config-b",
        help="bot B's config (TOML) when --b names a strategy; B is then named after the file",
        readable=False,
    ),
    record: Path | None = typer.Option(
        None,
        help="write JSONL game records into this directory (an earlier record of the same seed "
        "and set-up, bots and configs included, is replaced, with a note)",
        readable=False,
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    server: str | None = typer.Option(
        None, "--server", callback=server_url, help=SERVER_HELP.replace("--bots names", "--a/--b")
    ),
) -> None:
    from arena.matches.bulls_cows import play_series
    from bots.bulls_cows import BotConfigError

    refuse_public_seed_on_server(seed, server)
    a_config: dict[str, Any] = {}
    b_config: dict[str, Any] = {}
    configs: tuple[str | None, str | None] = (None, None)
    if server is not None:
        for option, given in (("--a", a), ("--b", b)):
            if is_config_file(given):
                refuse_config_on_server(f"{option} {given}")
        for option, path in (("--config-a", config_a), ("--config-b", config_b)):
            if path is not None:
                refuse_config_on_server(f"{option} {path}")
        a_strategy, a_name = a, a
        b_strategy, b_name = b, b
    else:
        a_strategy, a_config, a_name, file_a = load_bot_spec(a, "--a", config_a, "--config-a")
        b_strategy, b_config, b_name, file_b = load_bot_spec(b, "--b", config_b, "--config-b")
        # A side's config is the file it was given as, or the one beside its strategy.
        configs = (file_a, file_b)
    if max_guesses < 1:
        fail("--max-guesses must be at least 1")
    _check_space(digits, alphabet)
    output_directory(record, "--record")
    seed_text = fresh_seed(seed)
    live: list[SeriesReport] = []
    series = partial(
        play_series,
        a_strategy,
        b_strategy,
        games,
        seed_text,
        a_config=a_config,
        b_config=b_config,
        names=(a_name, b_name),
        digits=digits,
        alphabet=alphabet,
        max_guesses=max_guesses,
        deadline_ms=deadline_ms,
        on_start=live.append,
    )
    if server is not None and a == b:
        fail("--a and --b must name two different bots on the server")
    recorder: JsonlRecorder | None = None

    def show_games_played() -> None:
        if live and live[0].played:
            shown = (configs, games, digits, alphabet, seed_text)
            _show_series(live[0], *shown, written_record(recorder), json_output)

    lineup = lineup_tag(
        (a_name, b_name),
        {
            "strategies": (a_strategy, b_strategy),
            "configs": (a_config, b_config),
            "games": games,
            "digits": digits,
            "alphabet": alphabet,
            "max_guesses": max_guesses,
            "deadline_ms": deadline_ms,
        },
    )
    try:
        with (
            running_match(
                record,
                "bulls-cows",
                seed_text,
                console,
                lineup=lineup,
                fresh=seed is None,
                show_if_stopped=show_games_played,
            ) as recorder,
            progress(games, f"{a_name} vs {b_name}", transient=True) as advance,
        ):
            series = partial(series, recorder=recorder, progress=advance)
            if server is None:
                report = asyncio.run(series())
            else:
                report = run_on_server(
                    server,
                    [a, b],
                    "bulls_cows",
                    lambda seats: series(seats=(seats[0], seats[1])),
                    record=record,
                )
    except BotConfigError as exc:
        fail(str(exc))
    written = written_record(recorder)
    with interrupt_after_play([written]):
        _show_series(report, configs, games, digits, alphabet, seed_text, written, json_output)


def _show_series(
    report: SeriesReport,
    configs: tuple[str | None, str | None],
    games: int,
    digits: int,
    alphabet: str,
    seed_text: str,
    record: str | None,
    json_output: bool,
) -> None:
    """The figures of the games ``report`` holds: all ``games``, or fewer, marked partial, when
    the match was stopped."""
    played = report.played
    if json_output:
        # The seed (a fresh one is shown on stderr too), the configs and the record tie the
        # figures to the games that gave them.
        print_json(
            {
                **replace(report, games=played).to_json(),
                **partial_json(played, games),
                "config_a": configs[0],
                "config_b": configs[1],
                "seed": seed_text,
                "record": record,
            }
        )
        return
    if played < games:
        typer.echo(partial_line(played, games))
    low, high = report.ci95
    # `play_series` makes two equal names NAME#1 and NAME#2, so the two sides never read alike,
    # and a side that played a config names its file: an A/B comparison of configs says which
    # side was which.
    first, second = (
        config_label(name, config) for name, config in zip(report.names, configs, strict=True)
    )
    width = max(20, len(first), len(second))
    typer.echo(f"1A2B duel, {played} games, {digits} of {alphabet}, seed {seed_text!r}")
    typer.echo(f"  {first:<{width}} wins {report.wins[0]}")
    typer.echo(f"  {second:<{width}} wins {report.wins[1]}")

    def line(label: str, figure: str) -> None:
        typer.echo(f"  {label:<{width + 5}} {figure}")

    line("draws", str(report.draws))
    line("endings", ", ".join(f"{k} {v}" for k, v in sorted(report.reasons.items())))
    # A zero-width interval from identical games would read as a difference known exactly.
    caveat = " (every game the same: no spread to measure)" if report.no_spread else ""
    line(
        "score difference A-B",
        f"{report.mean_diff:+.3f} per game, 95% CI [{low:+.3f}, {high:+.3f}]{caveat}",
    )
    if any(report.penalties):
        line("penalties", f"{report.penalties[0]} / {report.penalties[1]}")
    line("time", f"{report.seconds:.2f} s")


def missed(figures: Mapping[str, Any]) -> None:
    """Exit 1 after the figures when a target was missed, as `arena audit` does on a failed
    verdict: a script or CI job running the bench must not read a missed target as success."""
    if not all(t["met"] for t in figures["targets"]):
        raise typer.Exit(1)


BENCH_HELP = (
    "1A2B figures side by side: super comparison and optimal over all 504 secrets, every sound "
    "guesser against the evader, the best 4-digit guesser, decision latency, with the random "
    "guesser measured in the same run, over 8 seeds, as the baseline. Exits 1 when a target is "
    "missed."
)


def bench_cmd(
    seed: str = typer.Option(
        "0",
        help="seed text of the bots and the evader; random, frequency and super-comparison "
        "play every secret once for each of the seeds {seed}-0 … {seed}-7",
    ),
    runs: int = typer.Option(
        EVADER_RUNS, callback=at_least(1), help="games of each guesser against the evader"
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    from arena.bench.bulls_cows import render_seed_claims, render_targets, run_bench

    with interrupt_exits(None):
        figures = run_bench(seed=seed, evader_runs=runs)
    if json_output:
        print_json(figures)
        missed(figures)
        return
    base3, sc, opt = (
        figures["baseline_random_3"],
        figures["super_comparison_3"],
        figures["optimal_3"],
    )
    base4, best4, ent4 = (
        figures["baseline_random_4"],
        figures["best_4"],
        figures["entropy_4_tree_walk"],
    )

    def row(label: str, data: Mapping[str, Any]) -> str:
        mean = NONE if data["mean_guesses"] is None else f"{data['mean_guesses']:.4f}"
        maximum = NONE if data["max_guesses"] is None else data["max_guesses"]
        unsolved = f"  ({data['unsolved']} unsolved)" if data["unsolved"] else ""
        return f"  {label:<34} mean {mean}  max {maximum}  {data['seconds']:.3f} s{unsolved}"

    def seeded(label: str, data: Mapping[str, Any]) -> str:
        """A row of `over_seeds` figures: pooled mean and max, time a run, the seeds' spread."""
        spread = NONE
        if data["mean_guesses_min"] is not None:
            spread = (
                f"sd {data['mean_guesses_sd']:.4f}, "
                f"{data['mean_guesses_min']:.4f}–{data['mean_guesses_max']:.4f}"
            )
        return (
            row(f"{label} ({len(data['seeds'])} seeds)", data)
            + f" a run\n  {'':<34} means of the seeds: {spread}"
        )

    typer.echo("1A2B, 3 of 123456789 (504 secrets, every secret once, engine-driven)")
    typer.echo(seeded("random baseline", base3))
    frequency = figures["frequency_3"]
    typer.echo(seeded("frequency", frequency))
    typer.echo(f"  {'':<34} {frequency['time_ratio_to_random']}x random's time")
    typer.echo(seeded("super-comparison", sc))
    typer.echo(f"  {'':<34} {sc['time_ratio_to_random']}x random's time")
    typer.echo(row("optimal (shipped tree)", opt))
    typer.echo(
        f"  super-comparison decision latency   p50 {sc['decision_ms_p50']:.3f} ms  "
        f"p99 {sc['decision_ms_p99']:.3f} ms"
    )
    typer.echo(f"against the evader (保護範圍法), {runs} games each")
    for name, data in figures["against_evader_3"].items():
        typer.echo(row(name, data))
    typer.echo("1A2B, 4 of 0123456789 (5040 secrets)")
    typer.echo(seeded("random baseline", base4))
    typer.echo(row("optimal (shipped best-found tree)", best4))
    typer.echo(row("entropy (tree walk)", ent4))
    for line in render_seed_claims(figures["seed_claims"]):
        typer.echo(line)
    for line in render_targets(figures["targets"]):
        typer.echo(line)
    missed(figures)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(bc_app, name="bulls-cows")
    match_app.command("bulls-cows", help=MATCH_HELP)(match_cmd)
    bench_app.command("bulls-cows", help=BENCH_HELP)(bench_cmd)
