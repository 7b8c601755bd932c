"""``arena liars-dice …``, ``arena match liars-dice`` and ``arena bench liars-dice``."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    config_label,
    fail,
    fresh_seed,
    interrupt_after_play,
    lineup_tag,
    output_console,
    output_directory,
    print_json,
    progress,
    refuse_config_on_server,
    refuse_public_seed_on_server,
    split_names,
    strategy_of_config_file,
    written_record,
)
from arena.cli.serve import SERVER_HELP, run_on_server, server_url
from arena.cli.stopped_figures import partial_json, partial_line, running_match
from arena.errors import ArenaError
from arena.games.errors import GameError
from arena.games.liars_dice import LiarsDiceRules, load_ruleset
from arena.matches.liars_dice import (
    MAX_SEATS,
    TableReport,
    in_process_seats,
    run_table,
    table_names,
)
from arena.matches.liars_dice_series import MatchReport, run_match
from arena.matches.stats import Interval
from arena.records import JsonlRecorder
from arena.referee import TimeControl
from arena.transports.inprocess import InProcessSeat
from bots.liars_dice import ConfigError, ModelError, load_model
from bots.liars_dice.bayes import raise_failed_save
from bots.registry import BotConfigError, UnknownBotError, config_for, make_bot

DEADLINE_MS = 5000
"""A match's time per decision: the in-process strategies answer in microseconds."""

ld_app = typer.Typer(
    help="Liar's dice experiments (seed 002): the gauntlet against the 32 personalities, the "
    "Bayesian player's learnt tables.",
    no_args_is_help=True,
)
out = output_console()
err = output_console(stderr=True)


def bot_config(path: Path | None, bot: str) -> dict[str, Any]:
    """The config of ``bot`` from ``path``, read as leagues and `bots run --config` read it
    (`bots.registry.config_for`: a ``strategy`` key must name ``bot``), and checked by building
    the bot once, so a bad name or option is reported before any game starts."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = config_for(bot, path)
        except BotConfigError as exc:
            fail(str(exc))
    try:
        make_bot("liars_dice", bot, data)
    except (UnknownBotError, ConfigError) as exc:
        fail(f"{path}: {exc}" if path is not None else str(exc))
    return data


def announce_kept_tables(configs: Mapping[str, Mapping[str, Any]]) -> None:
    """On stderr, for each bot (by name) whose config keeps learnt tables (``tables_dir``): whose
    tables it starts from, or that there are none yet. A run then depends on what earlier runs
    left in that directory, which nothing else in the output shows."""
    for bot, config in configs.items():
        directory = config.get("tables_dir")
        if not isinstance(directory, str):
            continue
        where = Path(directory)
        shown = directory if where.is_absolute() else f"{directory} (in {Path.cwd()})"
        files = sorted(where.glob("*.json")) if where.is_dir() else []
        if not files:
            err.print(
                escape(f"{bot}: no learnt tables yet in {shown}; this run writes them there"),
                soft_wrap=True,
            )
            continue
        try:
            games = sum(load_model(file).games for file in files)
        except ModelError as exc:
            # The bot was built with them moments ago: only a file changed since reaches here.
            fail(str(exc))
        err.print(
            escape(
                f"{bot}: starts from the learnt tables of {len(files)} opponent"
                f"{'' if len(files) == 1 else 's'} ({games} games) in {shown}, and extends "
                "them; empty that directory to start afresh"
            ),
            soft_wrap=True,
        )


def span(interval: Interval) -> str:
    return f"{interval.low:.1%}–{interval.high:.1%}"


def seed_label(seed: str) -> str:
    """A seed as shown in a sentence: the empty text seed as ``''``, so that it is seen."""
    return seed if seed else "''"


MATCH_HELP = (
    "Play A against B (--a/--b), or a table of two to five bots (--bots), through the referee: "
    "in-process strategies, or with --server bots connected to an arena server. A duel "
    "alternates seats and opener. A table plays every seating in turn (N! of them for N bots, "
    "seat 0 opening) and gives each bot's share of games among the winners with an interval "
    "against the fair share (for N bots at 1 − 0.05/N each, so that the N verdicts hold "
    "together 95% of the time). Without --rules a table plays the default rules (five dice "
    "each, one round) for that many players; a ruleset given with --rules must be for that "
    "many (e.g. --rules liars_dice_party for four)."
)


def match_command(
    a: str | None = typer.Option(
        None, "--a", help="first bot of a duel: a strategy, or a config file naming its strategy"
    ),
    b: str | None = typer.Option(
        None, "--b", help="second bot of a duel: a strategy, or a config file naming its strategy"
    ),
    bots: str | None = typer.Option(
        None, "--bots", help="a table instead: two to five bots, comma-separated"
    ),
    games: int = typer.Option(
        100, "--games", callback=at_least(1, at_most=MAX_MATCH_GAMES), help="games to play"
    ),
    seed: str | None = typer.Option(
        None,
        "--seed",
        help="match seed: 64 hex digits or any text (with --server: 64 hex digits only); default: "
        "fresh and secret from the operating system, its commitment printed to stderr at the "
        "start, itself at the end",
    ),
    rules: str | None = typer.Option(
        None, "--rules", help="ruleset: a name in configs/rulesets/ or a TOML path"
    ),
    config_a: Path | None = typer.Option(
        None, "--config-a", help="first bot's config (TOML)", readable=False
    ),
    config_b: Path | None = typer.Option(
        None, "--config-b", help="second bot's config (TOML)", readable=False
    ),
    config: list[str] = typer.Option(
        [],
        "--config",
        help="at a table: BOT=FILE, the config (TOML) of every copy of BOT; BOT#1=FILE, "
        "BOT#2=FILE … give the copies of a bot named twice a config each",
    ),
    record: Path | None = typer.Option(
        None,
        "--record",
        help="write the match as one JSONL record in this directory (an earlier record of "
        "the same seed and set-up, bots and configs included, is replaced, with a note)",
        readable=False,
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    server: str | None = typer.Option(
        None,
        "--server",
        callback=server_url,
        help=SERVER_HELP.replace("--bots names", "--a/--b or --bots"),
    ),
    deadline_ms: int = typer.Option(
        None,
        callback=at_least(1),
        help="time allowed per decision, ms (≥ 1); default: the ruleset's \\[time] deadline_ms, "
        f"else {DEADLINE_MS}",
    ),
) -> None:
    try:
        ruleset = load_ruleset(rules) if rules is not None else None
        clock = TimeControl.from_ruleset(
            "liars_dice",
            rules,
            game_key_required=False,
            deadline_ms=deadline_ms,
            default_deadline_ms=DEADLINE_MS,
        )
    except GameError as exc:
        fail(str(exc))
    refuse_public_seed_on_server(seed, server)
    output_directory(record, "--record")
    seed_text = fresh_seed(seed)
    if bots is not None:
        if a is not None or b is not None or config_a or config_b:
            fail("--bots plays a table: leave out --a/--b and --config-a/--config-b")
        names = split_names(bots, "--bots")
        _table(
            names,
            games,
            seed_text,
            seed is None,
            ruleset,
            config,
            record,
            json_output,
            server,
            clock,
        )
        return
    if a is None or b is None:
        fail("name the two bots of a duel with --a and --b, or a table with --bots")
    if config:
        fail("--config BOT=FILE is for tables (--bots); a duel takes --config-a/--config-b")
    if server is None:
        a, config_a = strategy_of(a, config_a, "--a", "--config-a")
        b, config_b = strategy_of(b, config_b, "--b", "--config-b")
    _duel(
        a,
        b,
        games,
        seed_text,
        seed is None,
        ruleset,
        config_a,
        config_b,
        record,
        json_output,
        server,
        clock,
    )


def strategy_of(
    given: str, config: Path | None, option: str, config_option: str
) -> tuple[str, Path | None]:
    """The strategy and config of ``--a``/``--b`` (or the gauntlet's ``--bot``/``--baseline``):
    a strategy name with its ``--config-a``, or a config file (``.toml``) whose ``strategy`` key
    names the strategy, as `arena match bulls-cows --a FILE` takes one."""
    if Path(given).suffix != ".toml":
        return given, config
    if config is not None:
        fail(f"{option} {given} is a config already; leave out {config_option} {config}")
    named, _ = strategy_of_config_file(
        Path(given),
        option,
        f'{option} {given}: a config given as the bot needs strategy = "<bot>" in it '
        f"(or name the strategy with {option} and the file with {config_option})",
    )
    return named, Path(given)


def _duel(
    a: str,
    b: str,
    games: int,
    seed: str,
    fresh: bool,
    ruleset: LiarsDiceRules | None,
    config_a: Path | None,
    config_b: Path | None,
    record: Path | None,
    json_output: bool,
    server: str | None,
    clock: TimeControl,
) -> None:
    ruleset = ruleset or LiarsDiceRules()
    if ruleset.players != 2:
        fail(
            f"a duel seats two bots; the ruleset has players = {ruleset.players} "
            f"(name {ruleset.players} bots with --bots for a table)"
        )
    if server is not None and a == b:
        fail("--a and --b must name two different bots on the server")
    if server is not None and (config_a or config_b):
        refuse_config_on_server(f"--config-a {config_a}" if config_a else f"--config-b {config_b}")
    options_a, options_b = (
        ({}, {}) if server is not None else (bot_config(config_a, a), bot_config(config_b, b))
    )
    announce_kept_tables(
        {f"{a} (A)": options_a, f"{b} (B)": options_b} if a == b else {a: options_a, b: options_b}
    )
    live: list[MatchReport] = []  # the match's report from its first game on (on_start)
    rec: JsonlRecorder | None = None

    def show_games_played() -> None:
        if live and live[0].games:
            written = written_record(rec)
            _show_duel(live[0], (config_a, config_b), games, seed, written, json_output)

    lineup = lineup_tag(
        (a, b),
        {
            "configs": (options_a, options_b),
            "rules": ruleset,
            "games": games,
            "deadline_ms": clock.deadline_ms,
        },
    )
    try:
        with (
            running_match(
                record,
                "liars-dice-duel",
                seed,
                err,
                lineup=lineup,
                fresh=fresh,
                show_if_stopped=show_games_played,
            ) as rec,
            progress(games, escape(f"{a} vs {b}")) as advance,
        ):
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
                recorder=rec,
                deadline_ms=clock.deadline_ms,
                time_bank=clock.new_bank(),
                on_start=live.append,
            )
            if server is None:
                report = asyncio.run(match())
            else:
                report = run_on_server(
                    server,
                    [a, b],
                    "liars_dice",
                    lambda seats: match(seats=(seats[0], seats[1])),
                    start_timeout_s=clock.start_timeout_ms / 1000,
                    record=record,
                )
    except (UnknownBotError, ConfigError, ArenaError, ModelError) as exc:
        fail(str(exc))
    written = written_record(rec)
    with interrupt_after_play([written]):
        _show_duel(report, (config_a, config_b), games, seed, written, json_output)


def _show_duel(
    report: MatchReport,
    configs: tuple[Path | None, Path | None],
    games: int,
    seed: str,
    record: str | None,
    json_output: bool,
) -> None:
    data = report.to_json()
    if json_output:
        # The seed (a fresh one is shown on stderr too), the configs and the record tie the
        # figures to the games that gave them.
        print_json(
            {
                **data,
                **partial_json(report.games, games),
                "config_a": None if configs[0] is None else str(configs[0]),
                "config_b": None if configs[1] is None else str(configs[1]),
                "seed": seed,
                "record": record,
            }
        )
        return
    interval = report.interval()
    a, b = config_label(data["a"], configs[0]), config_label(data["b"], configs[1])
    # A strategy against itself: which copy is which must still read plainly.
    a, b = (f"{a} (A)", f"{b} (B)") if a == b else (a, b)
    verdict = (
        "no difference shown: the interval holds 50%"
        if not interval.excludes(0.5)
        else f"{a if interval.low > 0.5 else b} is the stronger"
    )
    if report.games < games:
        out.print(partial_line(report.games, games), markup=False)
    out.print(
        f"{a} {data['wins_a']} – {data['wins_b']} {b} over {report.games} games: "
        f"{data['win_rate_a']:.1%} for {a}, 95% interval {span(interval)} ({verdict})\n"
        f"{data['decisions']} decisions in {data['seconds']:.1f} s",
        markup=False,
    )
    if any(report.penalties):
        out.print(
            f"penalties (decisions the referee played for a bot): {a} {report.penalties[0]}, "
            f"{b} {report.penalties[1]}",
            markup=False,
        )


def table_configs(entries: list[str], names: list[str]) -> dict[str, dict[str, Any]]:
    """The configs of ``--config BOT=FILE``, by BOT: a strategy at the table (every copy of it
    plays the file) or one copy of a strategy named twice, as `table_names` names it
    (``bayes#2``); every bot is checked by building it once."""
    copies = [copy for copy in table_names(names) if copy not in names]
    files: dict[str, str] = {}
    for entry in entries:
        bot, sep, path = entry.partition("=")
        if not sep or not bot or not path:
            fail(f"--config takes BOT=FILE, got {entry!r}")
        if bot not in names and bot not in copies:
            fail(
                f"--config {entry}: {bot!r} is not one of the bots at the table "
                f"({', '.join(dict.fromkeys(names + copies))})"
            )
        clash = [
            given
            for given in files
            if given == bot or given.partition("#")[0] == bot or bot.partition("#")[0] == given
        ]
        if clash:
            # A second file for the same bot would silently replace the first.
            strategy = bot.partition("#")[0]
            fail(
                f"--config {bot}={path}: {clash[0]} already has a config ({files[clash[0]]}); "
                f"for two configs of {strategy} at a table, give one to each copy: --config "
                f"{strategy}#1=FILE --config {strategy}#2=FILE"
            )
        files[bot] = path
    configs = {bot: bot_config(Path(path), bot.partition("#")[0]) for bot, path in files.items()}
    for name in names:
        if name not in configs:
            bot_config(None, name)
    return configs


def _table(
    names: list[str],
    games: int,
    seed: str,
    fresh: bool,
    ruleset: LiarsDiceRules | None,
    config: list[str],
    record: Path | None,
    json_output: bool,
    server: str | None,
    clock: TimeControl,
) -> None:
    if not 2 <= len(names) <= MAX_SEATS:
        fail(f"--bots names 2 to {MAX_SEATS} bots, got {len(names)}")
    ruleset = ruleset or LiarsDiceRules(players=len(names))
    if ruleset.players != len(names):
        fail(
            f"the ruleset has players = {ruleset.players} but --bots names {len(names)}: "
            f"name {ruleset.players} bots or choose a ruleset for {len(names)}"
        )
    if server is not None and config:
        refuse_config_on_server(f"--config {config[0]}")
    if server is not None and len(set(names)) != len(names):
        fail("--bots must name different bots on the server")
    configs = {} if server is not None else table_configs(config, names)
    announce_kept_tables(configs)
    seatings = math.factorial(len(names))
    if games % seatings:
        err.print(
            f"[yellow]note:[/] {games} games is not a multiple of {seatings} (every seating of "
            f"{len(names)} bots): the last cycle is partial, so seats are not exactly balanced"
        )
    label = escape(", ".join(names))
    live: list[TableReport] = []  # the table's report from its first game on (on_start)
    rec: JsonlRecorder | None = None

    def show_games_played() -> None:
        if live and live[0].games:
            _show_table(live[0], games, seed, written_record(rec), json_output)

    lineup = lineup_tag(
        names,
        {"configs": configs, "rules": ruleset, "games": games, "deadline_ms": clock.deadline_ms},
    )
    try:
        with (
            running_match(
                record,
                "liars-dice-table",
                seed,
                err,
                lineup=lineup,
                fresh=fresh,
                show_if_stopped=show_games_played,
            ) as rec,
            progress(games, label) as advance,
        ):
            play = partial(
                run_table,
                games=games,
                seed_text=seed,
                rules=ruleset,
                progress=advance,
                recorder=rec,
                deadline_ms=clock.deadline_ms,
                time_bank=clock.new_bank(),
                on_start=live.append,
            )
            if server is None:
                seat_names, seats = in_process_seats(names, seed, configs)
                bots = [seat.bot for seat in seats if isinstance(seat, InProcessSeat)]

                def game_done(done: int) -> None:
                    # The referee only logs a bot's exception: a failed save of learnt tables
                    # is looked for after every game, to stop here rather than learn in vain.
                    raise_failed_save(bots)
                    advance(done)

                report = asyncio.run(play(seat_names, seats, progress=game_done))
            else:
                report = run_on_server(
                    server,
                    names,
                    "liars_dice",
                    lambda seats: play(names, seats),
                    start_timeout_s=clock.start_timeout_ms / 1000,
                    record=record,
                )
    except (UnknownBotError, ConfigError, ArenaError, ModelError) as exc:
        fail(str(exc))
    written = written_record(rec)
    with interrupt_after_play([written]):
        _show_table(report, games, seed, written, json_output)


def _show_table(
    report: TableReport, games: int, seed: str, record: str | None, json_output: bool
) -> None:
    if json_output:
        print_json({**report.to_json(), **partial_json(report.games, games), "record": record})
        return
    if report.games < games:
        out.print(partial_line(report.games, games), markup=False)
    table = Table(
        title=escape(
            f"liar's dice table, {report.games} games (seed {seed_label(seed)}), "
            f"{report.seatings} seatings"
        ),
        box=box.SIMPLE_HEAD,
    )
    level = f"{report.verdict_confidence:.2%}".replace(".00%", "%")
    for column in ("bot", "wins", "win rate", f"{level} interval", "vs fair share"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for standing in sorted(report.standings, key=lambda s: -s.win_rate):
        interval = report.verdict_interval(standing)
        table.add_row(
            escape(standing.bot),
            f"{standing.wins}/{standing.games}",
            f"{standing.win_rate:.1%}",
            f"{interval.low:.1%}–{interval.high:.1%}",
            report.verdict(standing),
        )
    out.print(table)
    out.print(
        f"fair share {report.fair_share:.1%}; each interval at {level} so that all "
        f"{len(report.standings)} hold at once, 95% (Bonferroni), and the verdicts with them; "
        f"{report.decisions} decisions in {report.seconds:.1f} s"
    )
    penalised = [s for s in report.standings if s.penalties]
    if penalised:
        shown = ", ".join(f"{s.bot} {s.penalties}" for s in penalised)
        out.print(f"penalties (decisions the referee played for a bot): {shown}", markup=False)


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    # These modules add `arena liars-dice personalities` and `model`, then `gauntlet`, `play`
    # and `targets`, to ld_app: `arena liars-dice --help` lists them in that order.
    import arena.cli.liars_dice_players

    # isort: split
    import arena.cli.liars_dice_gauntlet
    import arena.cli.liars_dice_play
    import arena.cli.liars_dice_targets  # noqa: F401
    from arena.cli.liars_dice_bench import bench_command

    app.add_typer(ld_app, name="liars-dice")
    match_app.command("liars-dice", help=MATCH_HELP)(match_command)
    bench_app.command("liars-dice")(bench_command)
