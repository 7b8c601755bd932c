"""``arena match mahjong`` (the 384-hand competition match); its figures are shown by
`arena.cli.mahjong_match_figures`, and ``arena bench mahjong-match`` is
`arena.cli.mahjong_match_bench`."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import typer

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
    progress_bar,
    record_file,
    refuse_config_on_server,
    refuse_public_seed_on_server,
    seed_shown_at_end,
    split_names,
    strategy_of_config_file,
    written_record,
)
from arena.cli.mahjong_match_figures import StoppedMatch, show_series
from arena.cli.serve import SERVER_HELP, run_on_server, server_url
from arena.cli.stopped_figures import figures_if_stopped
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
    HANDS_PER_ROUND,
    LAYOUTS,
    MATCH_HANDS,
    MatchResult,
    MatchSpec,
    ProgramConfig,
    build_bots,
    play_match,
    series_seed,
)
from arena.records import JsonlRecorder
from arena.referee import DEFAULT_DEADLINE_MS, TimeBank, TimeControl
from arena.text_files import NotUTF8Error, read_text_file
from arena.transports.base import Seat
from bots.registry import BotConfigError, UnknownBotError, config_for, make_bot

err = output_console(stderr=True)


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


def match_ruleset(spec: str) -> MahjongRules:
    """The ruleset of a match. A ``.toml`` file without ``game`` is most likely a bare table of
    scoring options (what `arena mahjong score --ruleset` also reads), so the error says what a
    match needs instead of reporting the missing key as ``None``."""
    path = Path(spec)
    if path.suffix == ".toml" and path.is_file():
        try:
            data = tomllib.loads(read_text_file(path))
        except (OSError, NotUTF8Error, tomllib.TOMLDecodeError):
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
        rules: MahjongRules = match_ruleset(ruleset)
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
            shown = StoppedMatch(stopped, record_of_stopped, games) if stopped is not None else None
            show_series(results, records, base_seed, matches, json_output, shown)

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
        show_series(results, records, base_seed, matches, json_output)


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
        strategy, _settings = strategy_of_config_file(
            path,
            "--bots",
            f'--bots {name}: a config given as a bot needs strategy = "<bot>" in it (or name '
            "the strategy in --bots and give the file with --config-a/--config-b, --layout "
            "ab, or --config STRATEGY=FILE, --layout rotate)",
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


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    from arena.cli.mahjong_match_bench import bench_mahjong_match

    match_app.command("mahjong", help=MATCH_MAHJONG_HELP)(match_mahjong)
    bench_app.command("mahjong-match")(bench_mahjong_match)
