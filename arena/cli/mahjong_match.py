"""``arena match mahjong`` (the 384-hand competition match) and ``arena bench mahjong-match``."""

from __future__ import annotations

import asyncio
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.cells import cell_len
from rich.table import Table

from arena.bench.mahjong_match import run_match_bench, target_line
from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    fail,
    interrupt_after_play,
    interrupt_exits,
    lineup_tag,
    match_recorder,
    output_console,
    output_directory,
    print_json,
    progress_bar,
    record_file,
    refuse_config_on_server,
    refuse_public_seed_on_server,
    seed_shown_at_end,
    split_names,
    written_record,
)
from arena.cli.serve import SERVER_HELP, run_on_server, server_url
from arena.cli.stopped_figures import figures_if_stopped, partial_json, partial_line
from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.games.mahjong.rules import (
    REMOTE_RULESET,
    SEATS,
    MahjongRules,
    default_ruleset,
    load_ruleset,
)
from arena.matches.mahjong import (
    FEW_ROUNDS,
    HANDS_PER_ROUND,
    LAYOUTS,
    MATCH_HANDS,
    MatchResult,
    MatchSpec,
    ProgramConfig,
    SeriesResult,
    build_bots,
    play_match,
    series_seed,
)
from arena.matches.stats import Interval, spread_free
from arena.records import JsonlRecorder
from arena.referee import DEFAULT_DEADLINE_MS, TimeBank, TimeControl
from arena.transports.base import Seat
from bots.registry import BotConfigError, UnknownBotError, config_for, make_bot, read_config

out = output_console()
err = output_console(stderr=True)


def _show(result: MatchResult, title: str) -> None:
    # No vertical rules: the nine columns then fit an 80-column terminal without truncation.
    table = Table(title=title, box=box.SIMPLE_HEAD, collapse_padding=True)
    columns = ("bot", "hands", "points", "他家放槍", "自摸", "胡牌率", "放槍", "Tai/win", "pen.")
    for column in columns:
        table.add_column(
            column,
            justify="left" if column == "bot" else "right",
            no_wrap=True,
            min_width=cell_len(column),
        )
    for p in result.programs:
        table.add_row(
            p.bot if p.copies == 1 else f"{p.bot} ×{p.copies}",
            str(p.hands),
            f"{p.points:+,}",
            str(p.discard_wins),
            str(p.self_draws),
            f"{p.win_rate:.1%}",
            str(p.deal_ins),
            f"{p.average_tai:.2f}",
            str(p.penalties),
        )
    out.print(table)
    out.print(
        "他家放槍 wins on a discard, 自摸 self-draws, 胡牌率 win rate, 放槍 deal-ins, "
        f"pen. penalties; exhaustive draws: {result.exhaustive}, decisions: {result.decisions}, "
        f"time: {result.seconds:.1f} s"
    )
    copied = next((p for p in result.programs if p.copies > 1), None)
    if copied is not None:
        # The seed's convention (4414 + 1370 over 11,520 hands), which the hands column hides.
        out.print(
            f"×{copied.copies}: the copies' figures added; 胡牌率 is their wins over one copy's "
            f"{copied.hands // copied.copies} hands, as the seed counts"
        )
    for p in result.programs:
        if spread_free(p.round_points):
            out.print(f"{p.bot}: points {_no_spread(p.points, p.round_points, 'round')}")
        else:
            out.print(f"{p.bot}: points 95% CI {_span(p.points_interval())}")
    for p in result.programs:
        if p.config is not None:
            out.print(f"{p.bot}: {p.strategy} with config {p.config}")
    diff = result.difference_interval()
    diffs = result.round_differences()
    if diff is not None and diffs is not None:
        if result.difference_no_spread():
            shown = _no_spread(diff.estimate, diffs, "round", difference=True)
            out.print(f"points difference A−B: {shown}")
        else:
            out.print(f"points difference A−B: {diff.estimate:+,.0f}, 95% CI {_span(diff)}")
    measured = [p.round_points for p in result.programs] + ([diffs] if diffs else [])
    if result.intervals_approximate() and not all(spread_free(v) for v in measured):
        out.print(FEW_ROUNDS_NOTE.format(rounds=result.rounds, few=FEW_ROUNDS), soft_wrap=True)


FEW_ROUNDS_NOTE = (
    "note: only {rounds} rounds: with fewer than {few} the 95% intervals above are approximate "
    "(a Student-t interval over so few round totals covers the true figure less often than "
    "95%); play --games 32 or more for {few} rounds"
)
"""Said under the figures of a match of 2 to 7 rounds (`MatchResult.intervals_approximate`)."""


def _no_spread(
    total: float, values: list[int] | list[float], unit: str, *, difference: bool = False
) -> str:
    """A figure whose every ``unit`` (round, match) gave the same value: no interval, whose zero
    width would read as a figure known exactly where the sample only showed no spread
    (`spread_free`; two copies of one deterministic bot legitimately tie every round, and
    only for such bots would it be exact), and, for an A − B of 0, plainly that these games
    cannot tell the two apart."""
    count = f"{len(values)} {unit}{'es' if unit.endswith('ch') else 's'}"
    if difference and total == 0:
        return (
            f"+0 over {count}, no spread: the games cannot tell them apart (every {unit} gave "
            "A − B = 0; no interval to measure)"
        )
    each = f"{values[0]:+,.0f}"
    return (
        f"{total:+,.0f} over {count}, no spread: every {unit} gave {each} (no interval to measure)"
    )


def _span(ci: Interval) -> str:
    """``[low, high] over N rounds``; a single round gives no interval (`mean_interval` makes it
    infinite, ``null`` in --json), which is said rather than shown as ``[-inf, +inf]``."""
    rounds = f"{ci.n} round{'s' if ci.n != 1 else ''}"
    if not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        return f"not defined over {rounds} (it needs two)"
    return f"[{ci.low:+,.0f}, {ci.high:+,.0f}] over {rounds}"


def claim_timing_note(rules: MahjongRules, where: str) -> str | None:
    """What to tell a user who plays remote bots under rules that ask only the seats able to
    claim a discard (``None`` when every seat is asked): the bots can then read from how long
    they wait which other seat could claim."""
    if rules.claims_ask_every_seat:
        return None
    return (
        f"{where} asks only the seats that can claim a discard: a bot can read from its wait "
        "that another seat could. Between bots that do not trust each other use a ruleset with "
        f'claims_ask_every_seat = true ({REMOTE_RULESET}; docs/NETWORK.md "Claims and timing")'
    )


def _match_ruleset(spec: str) -> MahjongRules:
    """The ruleset of a match. A ``.toml`` file without ``game`` is most likely a bare table of
    scoring options (what `arena mahjong score --ruleset` also reads), so the error says what a
    match needs instead of reporting the missing key as ``None``."""
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {"game": None}  # load_ruleset names the problem
        if "game" not in data:
            fail(
                f"--ruleset {path}: missing key 'game' (a match needs a ruleset file with "
                'game = "mahjong"; a bare scoring table is for arena mahjong score)'
            )
    return load_ruleset(spec)


def _program_config(option: str, given: str, strategy: str, path: Path) -> ProgramConfig:
    """A program's config from ``path``, read as leagues and `bots run --config` read it and
    checked by building the bot once; an error names the option (``given``: with its value)."""
    try:
        settings = config_for(strategy, path)
    except BotConfigError as exc:
        fail(f"{option}: {exc}")
    try:
        make_bot("mahjong", strategy, settings)
    except UnknownBotError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(f"{given}: {exc}")
    return ProgramConfig(str(path), settings)


def _rotate_configs(names: tuple[str, ...], entries: list[str]) -> tuple[ProgramConfig | None, ...]:
    """Each program's config from ``--config BOT=FILE``: BOT is a strategy of ``--bots`` (every
    program of it) or ``STRATEGY-N``, the one program at place N of ``--bots`` (the name its
    player has when a strategy is named twice)."""
    chosen: dict[int, str] = {}
    for entry in entries:
        bot, sep, path = entry.partition("=")
        if not sep or not bot or not path:
            fail(f"--config takes BOT=FILE, got {entry!r}")
        programs = [p for p, name in enumerate(names) if name == bot] or [
            p for p, name in enumerate(names) if f"{name}-{p}" == bot
        ]
        if not programs:
            fail(
                f"--config {entry}: {bot!r} is not one of --bots {','.join(names)} (one program "
                "of a strategy named twice is STRATEGY-N, N its place in --bots from 0)"
            )
        for p in programs:
            if p in chosen:
                # A second file would silently replace the first.
                twice = names.count(names[p]) > 1
                label = f"{names[p]}-{p}" if twice else names[p]
                apart = (
                    f"; to configure the programs of {names[p]} apart, name each as STRATEGY-N "
                    f"(e.g. --config {label}=FILE)"
                )
                fail(
                    f"--config: {label} is given two configs ({chosen[p]}, {entry}); a program "
                    f"plays one config{apart if twice else ''}"
                )
            chosen[p] = entry
    configs: list[ProgramConfig | None] = [None] * len(names)
    for p, entry in chosen.items():
        bot, _, path = entry.partition("=")
        configs[p] = _program_config(f"--config {bot}", f"--config {entry}", names[p], Path(path))
    return tuple(configs)


def _lineup(spec: MatchSpec) -> str:
    """The record name's `lineup_tag` of ``spec``: its programs, and all of it but the seed."""
    programs = [spec.program_name(program) for program in range(len(spec.bots))]
    return lineup_tag(programs, {"spec": str(replace(spec, seed=""))})


def _configs(
    names: tuple[str, ...],
    layout: str,
    config_a: Path | None,
    config_b: Path | None,
    entries: list[str],
) -> tuple[ProgramConfig | None, ...]:
    """Each program's config, as the layout takes them: ``--config-a``/``--config-b`` for the
    two programs of the A/B layout (like a liar's dice duel), ``--config BOT=FILE`` for the four
    of the rotate layout (like a liar's dice table)."""
    if layout == "ab":
        if entries:
            fail(
                "--config BOT=FILE is for --layout rotate; --layout ab takes --config-a/--config-b"
            )
        if len(names) != 2 or not (config_a or config_b):
            return ()  # a wrong count is MatchSpec's error, with its hint
        return tuple(
            None if path is None else _program_config(option, f"{option} {path}", name, path)
            for option, name, path in (
                ("--config-a", names[0], config_a),
                ("--config-b", names[1], config_b),
            )
        )
    if config_a or config_b:
        fail("--config-a/--config-b are for --layout ab; --layout rotate takes --config BOT=FILE")
    if len(names) != SEATS or not entries:
        return ()
    return _rotate_configs(names, entries)


async def _play_remote(
    seats: list[Seat],
    *,
    spec: MatchSpec,
    recorder: JsonlRecorder | None,
    on_hand: Callable[[int, int], None],
    time_bank: TimeBank | None,
    on_start: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    return await play_match(
        spec,
        seats=seats,
        names=spec.bots,
        recorder=recorder,
        on_hand=on_hand,
        time_bank=time_bank,
        on_start=on_start,
    )


# One paragraph per string line, not a docstring: typer keeps a docstring's line breaks (in
# the parent command's list, and after the first paragraph) and cuts sentences there.
MATCH_MAHJONG_HELP = (
    "Play the competition mahjong match (seed 003 §4.1) between bots: in-process strategies, or "
    "with --server the named bots connected to an arena server. A program given a config "
    "(a file in --bots, --config-a/--config-b, --config) is named after the file in the figures "
    "and records."
)


def match_mahjong(
    bots: str = typer.Option(
        ...,
        "--bots",
        help="strategies, comma-separated: four (rotate) or two (--layout ab); a TOML config "
        'file naming its strategy (strategy = "greedy") stands for that strategy with its config',
    ),
    games: int = typer.Option(
        MATCH_HANDS,
        "--games",
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="hands per match (384 in the seed)",
    ),
    seed: str | None = typer.Option(
        None,
        "--seed",
        help="match seed: 64 hex digits or any text (with --server: 64 hex digits only); "
        "default: fresh and secret, its commitment printed at the start, itself at the end",
    ),
    ruleset: str | None = typer.Option(
        None,
        "--ruleset",
        help="a name in configs/rulesets/ or a .toml path; default: competition, or "
        f"{REMOTE_RULESET} with --server (every seat asked on each claim)",
    ),
    layout: str | None = typer.Option(
        None,
        "--layout",
        help="rotate: four programs; ab: two programs, two copies each; default: ab for two "
        "bots, rotate for four",
        show_default=False,
    ),
    config_a: Path | None = typer.Option(
        None,
        "--config-a",
        help="--layout ab: the first program's config (TOML), both copies",
        readable=False,
    ),
    config_b: Path | None = typer.Option(
        None,
        "--config-b",
        help="--layout ab: the second program's config (TOML), both copies",
        readable=False,
    ),
    config: list[str] = typer.Option(
        [],
        "--config",
        help="--layout rotate: BOT=FILE, the config (TOML) of every program of strategy BOT, or "
        "of the one at place N of --bots (from 0) with BOT=STRATEGY-N",
    ),
    matches: int = typer.Option(
        1, "--matches", callback=at_least(1), help="matches in the series (seeds SEED/0, …)"
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
    record: Path | None = typer.Option(
        None,
        "--record",
        help="write each match as one JSONL record in this directory (an earlier record of the "
        "same seed and set-up, bots and configs included, is replaced, with a note)",
        readable=False,
    ),
    deadline_ms: int | None = typer.Option(
        None,
        callback=at_least(1),
        help="time allowed per decision, ms (≥ 1); default: the ruleset's \\[time] deadline_ms, "
        f"else {DEFAULT_DEADLINE_MS}",
    ),
    server: str | None = typer.Option(None, "--server", callback=server_url, help=SERVER_HELP),
) -> None:
    given = tuple(split_names(bots, "--bots"))
    files = [name for name in given if name.endswith(".toml")]
    if files and server is not None:
        refuse_config_on_server(f"--bots {files[0]}")
    names, from_files = _bots_given_as_files(given)
    if layout is None:
        # Two programs can only play the A/B layout, as a league of two mahjong bots does.
        layout = "ab" if len(names) == 2 and server is None else "rotate"
    if layout not in LAYOUTS:
        fail(f"--layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    if server is not None and layout != "rotate":
        fail("--server plays the rotate layout: name four connected bots with --bots")
    refuse_public_seed_on_server(seed, server)
    configured = [f"--config-a {config_a}"] if config_a else []
    configured += [f"--config-b {config_b}"] if config_b else []
    configured += [f"--config {entry}" for entry in config]
    if server is not None and configured:
        refuse_config_on_server(configured[0])
    configs = _with_file_configs(
        given, _configs(names, layout, config_a, config_b, config), from_files
    )
    output_directory(record, "--record")
    ruleset = ruleset or default_ruleset(remote=server is not None)
    try:
        rules: MahjongRules = _match_ruleset(ruleset)
        clock = TimeControl.from_ruleset("mahjong", ruleset, deadline_ms=deadline_ms)
        deadline = clock.deadline_ms
        base_seed = seed if seed is not None else MatchSeed.generate().hex()
        specs = [
            MatchSpec(
                names, series_seed(base_seed, k, matches), games, rules, layout, deadline, configs
            )
            for k in range(matches)
        ]
        if server is None:
            build_bots(specs[0])
    except (ArenaError, UnknownBotError, ValueError) as exc:
        fail(str(exc))
    if record is not None:
        # Every match's record name, before the first: not a series stopped at its second.
        for spec in specs:
            record_file(record, "mahjong", spec.seed, lineup=_lineup(spec))
    if server is not None:
        leak = claim_timing_note(rules, f"--ruleset {ruleset}")
        if leak is not None:
            err.print(f"[yellow]note:[/] {leak}")
    if games % HANDS_PER_ROUND:
        err.print(
            f"[yellow]note:[/] {games} hands is not a multiple of {HANDS_PER_ROUND}: the last "
            "round is partial, so not every player receives every starting hand"
        )
    results: list[MatchResult] = []
    records: list[str | None] = []
    live: list[MatchResult] = []  # each match's result from its first hand on (on_start)
    recording: list[JsonlRecorder | None] = [None]  # the record of the match under way

    def show_hands_played() -> None:
        stopped = live[-1] if len(live) > len(results) and live[-1].hands else None
        record_of_stopped = written_record(recording[0]) if stopped is not None else None
        if results or stopped is not None:
            shown = _Stopped(stopped, record_of_stopped, games) if stopped is not None else None
            _show_series(results, records, base_seed, matches, json_output, shown)

    with (
        interrupt_exits(record),
        figures_if_stopped(show_hands_played),
        seed_shown_at_end(base_seed, seed is None, err),
        progress_bar(err, transient=True, remaining=False) as progress,
    ):
        task = progress.add_task("mahjong", total=games * matches)
        for k, spec in enumerate(specs):

            def advance(done: int, _total: int, base: int = k * games) -> None:
                progress.update(task, completed=base + done)

            bank = clock.new_bank()
            with match_recorder(
                record, "mahjong", spec.seed, err, lineup=_lineup(spec), first_game="r0h0"
            ) as recorder:
                recording[0] = recorder
                if server is None:
                    played = asyncio.run(
                        play_match(
                            spec,
                            recorder=recorder,
                            on_hand=advance,
                            time_bank=bank,
                            on_start=live.append,
                        )
                    )
                else:
                    played = run_on_server(
                        server,
                        list(names),
                        "mahjong",
                        partial(
                            _play_remote,
                            spec=spec,
                            recorder=recorder,
                            on_hand=advance,
                            time_bank=bank,
                            on_start=live.append,
                        ),
                        start_timeout_s=clock.start_timeout_ms / 1000,
                        record=record,
                    )
            results.append(played)
            records.append(written_record(recorder))
    with interrupt_after_play(records):
        _show_series(results, records, base_seed, matches, json_output)


def _bots_given_as_files(
    given: tuple[str, ...],
) -> tuple[tuple[str, ...], dict[int, ProgramConfig]]:
    """The strategies of ``--bots``, with each config file in it (``mine.toml``, holding
    ``strategy = "greedy"`` and the bot's settings) read for its strategy, as `arena match
    bulls-cows --a FILE` and `arena match liars-dice --a FILE` read theirs; and each such
    program's config, by its place in ``--bots``. The program is named after the file."""
    names = list(given)
    configs: dict[int, ProgramConfig] = {}
    for place, name in enumerate(given):
        if not name.endswith(".toml"):
            continue
        path = Path(name)
        try:
            strategy, _settings = read_config(path)
        except BotConfigError as exc:
            fail(f"--bots: {exc}")
        if strategy is None:
            fail(
                f'--bots {name}: a config given as a bot needs strategy = "<bot>" in it (or name '
                "the strategy in --bots and give the file with --config-a/--config-b, --layout "
                "ab, or --config STRATEGY=FILE, --layout rotate)"
            )
        names[place] = strategy
        configs[place] = _program_config("--bots", f"--bots {name}", strategy, path)
    return tuple(names), configs


def _with_file_configs(
    given: tuple[str, ...],
    configs: tuple[ProgramConfig | None, ...],
    from_files: dict[int, ProgramConfig],
) -> tuple[ProgramConfig | None, ...]:
    """The programs' configs of the options (``configs``: one per program, or none) with those
    of the files in ``--bots``; a program given both is refused, as a program plays one
    config."""
    if not from_files:
        return configs
    merged: list[ProgramConfig | None] = list(configs) if configs else [None] * len(given)
    for place, config in from_files.items():
        other = merged[place] if place < len(merged) else None
        if other is not None:
            fail(
                f"--bots {given[place]} is a config already; it is given {other.file} too, and "
                "a program plays one config"
            )
        if place < len(merged):
            merged[place] = config
    return tuple(merged)


@dataclass(frozen=True)
class _Stopped:
    """The match a stop cut short: its figures so far, its record, the hands it was to play."""

    result: MatchResult
    record: str | None
    games: int


def _show_series(
    results: list[MatchResult],
    records: list[str | None],
    base_seed: str,
    matches: int,
    json_output: bool,
    stopped: _Stopped | None = None,
) -> None:
    """The figures of the matches played (``results``), and of the one a stop cut short, if
    any (``stopped``, marked partial). A series stopped early shows its series figures over
    the matches it finished."""
    partial_series = stopped is not None or len(results) < matches
    if json_output:
        _print_series_json(results, records, base_seed, matches, stopped)
        return
    if partial_series and matches > 1:
        out.print(partial_line(len(results), matches, "matches"))
    for result in results:
        _show(result, f"mahjong match, seed {result.spec.seed!r}, {result.hands} hands")
    if stopped is not None:
        out.print(partial_line(stopped.result.hands, stopped.games, "hands"))
        _show(
            stopped.result,
            f"mahjong match, seed {stopped.result.spec.seed!r}, {stopped.result.hands} of "
            f"{stopped.games} hands (interrupted)",
        )
    if matches > 1 and results:
        series = SeriesResult(base_seed, results).to_json()
        played = len(results)
        for p in series["players"]:
            ci = p["match_score_rate_ci95"]
            lost = played - p["matches_won"] - p["matches_tied"]
            out.print(
                f"{p['bot']}: matches won {p['matches_won']}, tied {p['matches_tied']}, lost "
                f"{lost} of {played} (match score {p['match_score'] / played:.0%}, a tie shared: "
                f"95% CI {ci['low']:.0%}–{ci['high']:.0%}), points {p['points']:+,}"
            )
        if "points_difference_per_match_ci95" in series:
            d = series["points_difference_per_match_ci95"]
            if series["points_difference_per_match_no_spread"]:
                per_match = [float(m.programs[0].points - m.programs[1].points) for m in results]
                shown = _no_spread(d["estimate"], per_match, "match", difference=True)
                out.print(f"points difference per match A−B: {shown}")
            else:
                out.print(
                    f"points difference per match A−B: {d['estimate']:+,.0f}, "
                    f"95% CI [{d['low']:+,.0f}, {d['high']:+,.0f}] over {played} matches"
                )
        out.print(f"time: {sum(result.seconds for result in results):.1f} s")


def _match_json(result: MatchResult) -> dict[str, Any]:
    """A match's figures and the seconds it took, as the other games' `arena match` give them."""
    return {**result.to_json(), "seconds": round(result.seconds, 3)}


def _print_series_json(
    results: list[MatchResult],
    records: list[str | None],
    base_seed: str,
    matches: int,
    stopped: _Stopped | None,
) -> None:
    """`_show_series`'s --json: one match's object (with ``partial`` and ``games_planned``), or
    a series' (with ``partial``, ``matches_planned`` and, when a stop cut a match short,
    ``interrupted_match``, that match's object)."""
    interrupted = None
    if stopped is not None:
        interrupted = {
            **_match_json(stopped.result),
            "record": stopped.record,
            **partial_json(stopped.result.hands, stopped.games),
        }
    if matches == 1:
        if interrupted is not None:
            print_json(interrupted)
        else:
            games = results[0].spec.games
            print_json(
                {**_match_json(results[0]), "record": records[0], **partial_json(games, games)}
            )
        return
    data: dict[str, Any] = (
        SeriesResult(base_seed, results).to_json() if results else {"matches": 0, "games": 0}
    )
    data["seconds"] = round(sum(result.seconds for result in results), 3)
    data["partial"] = stopped is not None or len(results) < matches
    data["matches_planned"] = matches
    data["per_match"] = [
        {**_match_json(r), "record": path} for r, path in zip(results, records, strict=True)
    ]
    if interrupted is not None:
        data["interrupted_match"] = interrupted
    print_json(data)


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
        rules = _match_ruleset(ruleset)
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


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    match_app.command("mahjong", help=MATCH_MAHJONG_HELP)(match_mahjong)
    bench_app.command("mahjong-match")(bench_mahjong_match)
