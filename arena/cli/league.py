"""``arena league FILE``: play a league config, store every game in SQLite, print standings."""

from __future__ import annotations

import dataclasses
import time
import tomllib
from pathlib import Path

import typer
from rich.markup import escape

from arena.cli.common import (
    at_least,
    fail,
    output_console,
    output_directory,
    print_json,
    progress_bar,
)
from arena.cli.league_others import (
    DEFAULT_DB,
    LeagueCommand,
    is_directory,
    list_line,
    note_other_leagues,
    nothing_to_show,
    print_league_list,
    show_id_line,
)
from arena.cli.league_report import league_json, print_report, reused_words
from arena.cli.mahjong_match import claim_timing_note
from arena.cli.serve import server_url
from arena.errors import ArenaError
from arena.leagues.config import (
    LeagueConfig,
    LeagueConfigError,
    league_from_stored,
    load_league,
)
from arena.leagues.in_play import league_player
from arena.leagues.outcomes import MatchOutcome
from arena.leagues.play import plan_matches
from arena.leagues.reuse import ReusedMatch
from arena.leagues.runner import (
    LeagueIncompleteError,
    LeagueRun,
    run_league,
)
from arena.matches.seating import HANDS_PER_ROUND
from arena.processes import jobs_cut_note
from arena.store import ReadOnlyStoreError, ResultStore
from arena.store_open import ResultsReplacedError, blocking_companions
from arena.text_files import NotUTF8Error, read_text_file

err = output_console(stderr=True)

LEAGUE_HELP = (
    "Play every pairing of the bots in a league config (configs/leagues/NAME.toml) in "
    "parallel, store every game in SQLite (--db) and print the standings with 95% intervals. "
    "Running the same config again resumes it: stored matches are not played twice."
)


def league(
    config_file: Path | None = typer.Argument(
        None,
        help="league config (TOML), e.g. configs/leagues/…; with --list, only its leagues",
        readable=False,
        show_default=False,
    ),
    db: Path = typer.Option(
        DEFAULT_DB, "--db", help="SQLite results file (created if absent)", readable=False
    ),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        callback=at_least(1),
        help="matches at once (default: the config's, else the cores)",
    ),
    games: int | None = typer.Option(
        None, "--games", callback=at_least(1), help="games per match (override)"
    ),
    seed: str | None = typer.Option(None, "--seed", help="league seed (override)"),
    server: str | None = typer.Option(
        None,
        "--server",
        callback=server_url,
        help="play on the arena server at this ws:// URL (connected bots)",
    ),
    records: Path | None = typer.Option(
        None,
        "--records",
        help="write each match's JSONL game records into this directory",
        readable=False,
    ),
    restart: bool = typer.Option(
        False,
        "--restart",
        help="play every match of this league again; each stored match is replaced once its "
        "new result is stored",
    ),
    show: bool = typer.Option(
        False,
        "--show",
        help="print the stored standings, play nothing (leaves the results file unchanged)",
    ),
    list_leagues: bool = typer.Option(
        False,
        "--list",
        help="list the leagues the results file (--db) holds, play nothing",
    ),
    league_id: int | None = typer.Option(
        None,
        "--id",
        callback=at_least(1),
        help="with --show: the stored league of this id (see --list), without a config file",
    ),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    if list_leagues:
        if show or restart or league_id is not None:
            fail(
                "--list lists the leagues and plays nothing: give it without "
                f"{'--id' if league_id is not None else _flag(show)}"
            )
        print_league_list(config_file, db, json_output, games=games, seed=seed)
        return
    if league_id is not None:
        given = {
            "a config file": config_file,
            "--games": games,
            "--seed": seed,
            "--server": server,
            "--records": records,
            "--jobs": jobs,
        }
        extra = [name for name, value in given.items() if value is not None]
        if not show:
            fail("--id names a stored league to show: give it with --show")
        if restart:
            fail("--show --id N shows a stored league and plays nothing: give it without --restart")
        if extra:
            fail(f"--show --id N shows the league as it was stored: give it without {extra[0]}")
        _show_by_id(db, league_id, json_output)
        return
    if config_file is None:
        fail("give a league config file (configs/leagues/…), or --list to see what --db holds")
    if show and restart:
        fail("--show prints the stored standings and --restart forgets them: give one, not both")
    if is_directory(db):
        fail(f"--db {db} is a directory; give the results file (e.g. {db / 'league.sqlite'})")
    try:
        config = load_league(
            config_file,
            build_bots=not show,
            jobs=jobs,
            games=games,
            seed=seed,
            server=server,
            records=records,
        )
    except ArenaError as exc:
        # --show needs the config's files only to find its league: the file holds the league
        # as it was played, which --show --id shows without them.
        fail(f"{exc}{_stored_ids_hint(config_file, db)}" if show else str(exc))
    again = LeagueCommand(
        config_file=config_file,
        db=db,
        jobs=jobs,
        games=games,
        seed=seed,
        server=server,
        records=records,
    )
    if config.server is not None and config.game == "mahjong" and not show:
        leak = claim_timing_note(config.mahjong_rules(), f"ruleset {config.ruleset!r}")
        if leak is not None:
            err.print(f"[yellow]note:[/] {leak}")
    if config.game == "mahjong" and not show and config.games_per_match % HANDS_PER_ROUND:
        # As `arena match mahjong` warns: a partial round deals some starting hands to one
        # program only, and a match shorter than two rounds has no interval.
        err.print(
            f"[yellow]note:[/] {config.games_per_match} hands is not a multiple of "
            f"{HANDS_PER_ROUND}: the last round of every match is partial, so not every player "
            "receives every starting hand"
        )
    if config.server is None and config.jobs is not None and not show:
        cut = jobs_cut_note("--jobs" if jobs is not None else "jobs =", config.jobs)
        if cut is not None:
            err.print(f"[yellow]note:[/] {cut}")
    if show and not db.is_file():
        # --show reads: it must not leave an empty results file (or its directory) behind.
        fail(f"no results file {db}: run the league without --show first (or give --db)")
    if not show:
        output_directory(config.records, "records directory")
    incomplete: LeagueIncompleteError | None = None
    run: LeagueRun | None = None
    playing = _Playing()
    try:
        # --show writes nothing, so a read-only file works and another program's file is kept.
        with ResultStore(db, read_only=show, on_warning=_warn) as store:
            if not show:
                note_other_leagues(config, store, again)
                try:
                    run = _play(config, store, restart=restart, quiet=json_output, playing=playing)
                except LeagueIncompleteError as exc:
                    # Show what was stored, then say what could not be played.
                    incomplete, run = exc, exc.run
            if run is None:
                stored = store.league(
                    config.name, config.fingerprint(), aliases=config.fingerprint_aliases()
                )
                if stored is None:
                    fail(nothing_to_show(config, store, again))
                run = LeagueRun(
                    config, stored, plan_matches(config), store.matches(stored), 0, 0, 0.0
                )
    except ResultsReplacedError as exc:
        # The league's results are in the saved copy now: that is the file to resume.
        _print_again(dataclasses.replace(again, db=exc.saved), restart=restart)
        fail(str(exc))
    except ReadOnlyStoreError as exc:
        if playing.started:
            _print_again(again, restart=restart)
            fail(f"{exc}; {_kept(db)}")
        fail(_read_only(config, db, exc))
    except ArenaError as exc:
        # A store or a record that failed once matches were being played (a full disk, a
        # records directory removed): what was stored is kept, and the same command resumes.
        if playing.started:
            _print_again(again, restart=restart)
            fail(f"{exc}; {_kept(db)}")
        fail(str(exc))
    except KeyboardInterrupt:
        # The command that resumes, above the error line (which scripts may match): without
        # the overrides that made the league, the same config file is another league.
        if not show:
            _print_again(again, restart=restart)
        fail(f"interrupted: finished matches are stored in {db}; run again to resume", code=130)
    _print_run(
        config, run, db, json_output=json_output, show=show, incomplete=incomplete, again=again
    )


@dataclasses.dataclass(slots=True)
class _Playing:
    """Whether the league got as far as its matches (`_play`'s ``on_start``): a failure from
    then on leaves what was stored, for the same command to resume."""

    started: bool = False


def _print_again(again: LeagueCommand, *, restart: bool) -> None:
    """The command that takes the league up again, on a line of its own above the error."""
    what = "to play every match again" if restart else "to resume"
    err.print(f"{what}: {again.line(restart=restart)}", markup=False, soft_wrap=True)


def _kept(db: Path) -> str:
    return (
        f"the matches stored so far are kept in {db}: once the cause is fixed, run the "
        "command above to go on"
    )


def _warn(text: str) -> None:
    err.print(f"[yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)


def _stored_ids_hint(config_file: Path, db: Path) -> str:
    """For a --show whose config cannot be loaded (a bot config file gone): the ``--show --id``
    that shows the stored league of the config's name without its files, or how to list what
    ``db`` holds; empty when ``db`` holds no results file to read."""
    if not db.is_file():
        return ""
    name = None
    try:
        found = tomllib.loads(read_text_file(config_file)).get("name")
        name = found if isinstance(found, str) else None
    except (OSError, NotUTF8Error, tomllib.TOMLDecodeError):
        pass
    try:
        with ResultStore(db, read_only=True) as store:
            ids = [league.id for league in store.leagues() if league.name == name]
    except ArenaError:
        return ""
    listing = list_line(db)
    if not ids:
        return (
            f"; {listing} lists the leagues {db} holds, and {_show_id_n(db)} shows "
            "one as it was stored, without its files"
        )
    if len(ids) == 1:
        return (
            f"; to show league {name!r} as {db} holds it, without its files: "
            f"{show_id_line(db, ids[0])}"
        )
    return (
        f"; to show a league {name!r} as {db} holds it, without its files: "
        f"{_show_id_n(db)}, N one of "
        f"{', '.join(map(str, ids))} ({listing} says which is which)"
    )


def _show_id_n(db: Path) -> str:
    """`show_id_line` with ``N`` for the id."""
    return show_id_line(db, 1).rsplit(" ", 1)[0] + " N"


def _print_run(
    config: LeagueConfig,
    run: LeagueRun,
    db: Path,
    *,
    json_output: bool,
    show: bool,
    incomplete: LeagueIncompleteError | None = None,
    again: LeagueCommand | None = None,
) -> None:
    player = league_player(db, run.league.id) if show else None
    if player is not None:
        err.print(
            f"[yellow]note:[/] league {config.name!r} is being played now ({player.describe()}): "
            "these are the matches stored so far"
        )
    if json_output:
        failure = {} if incomplete is None else {"error": str(incomplete)}
        print_json(league_json(config, run, db) | failure)
    else:
        print_report(config, run, db)
    if incomplete is not None:
        if again is not None:
            # "run again to retry", as a command (a later run plays them from fresh seeds).
            err.print(f"to retry: {again.line()}", markup=False, soft_wrap=True)
        fail(str(incomplete))


def _show_by_id(db: Path, league_id: int, json_output: bool) -> None:
    """``--show --id N``: the stored league of id N, from the config it was stored with (its
    keys and what its files said then), whatever config files there are now."""
    if is_directory(db):
        fail(f"--db {db} is a directory; give the results file (e.g. {db / 'league.sqlite'})")
    if not db.is_file():
        fail(f"no results file {db} (give --db)")
    try:
        with ResultStore(db, read_only=True) as store:
            stored = next((each for each in store.leagues() if each.id == league_id), None)
            if stored is None:
                fail(f"{db} holds no league of id {league_id} (all: {list_line(db)})")
            try:
                config = league_from_stored(stored.config)
            except LeagueConfigError as exc:
                fail(
                    f"league id {league_id} ({stored.name!r}) cannot be shown from what {db} "
                    f"holds ({exc}): show it with its config file (arena league FILE --show)"
                )
            run = LeagueRun(config, stored, plan_matches(config), store.matches(stored), 0, 0, 0.0)
    except ArenaError as exc:
        fail(str(exc))
    _print_run(config, run, db, json_output=json_output, show=True)


def _flag(show: bool) -> str:
    return "--show" if show else "--restart"


def _read_only(config: LeagueConfig, db: Path, exc: ReadOnlyStoreError) -> str:
    """What to say when the league cannot store into ``db`` (a read-only file or directory):
    that ``--show`` reads it, and whether the league is complete there anyway. A -wal or -shm
    beside it that this process cannot write is the cause the error names instead."""
    if blocking_companions(db):
        return str(exc)
    try:
        with ResultStore(db, read_only=True) as store:
            stored = store.league(
                config.name, config.fingerprint(), aliases=config.fingerprint_aliases()
            )
            keys = set() if stored is None else store.stored_keys(stored)
    except ArenaError:
        keys = set()
    if keys and {plan.key for plan in plan_matches(config)} <= keys:
        return (
            f"league {config.name!r} is complete in {db}, which this process cannot write "
            "(a read-only file or directory): use --show to print its standings"
        )
    return (
        f"{exc}; the file or its directory is read-only to this process: --show prints what "
        "it holds without writing"
    )


PROGRESS_LINE_S = 30.0
"""How often a league whose stderr is no terminal (a log file, a pipe) says how far it is."""


def _play(
    config: LeagueConfig,
    store: ResultStore,
    *,
    restart: bool,
    quiet: bool,
    playing: _Playing | None = None,
) -> LeagueRun:
    playing = _Playing() if playing is None else playing
    with progress_bar(err, transient=True, disable=quiet) as progress:
        games_task = progress.add_task(f"{config.name}: games", total=None)
        counts = {"finished": 0, "todo": 0}

        def on_start(todo: int, planned: int) -> None:
            playing.started = True
            counts["todo"] = todo
            progress.update(games_task, total=todo * config.games_per_match)
            if not quiet:
                resumed = f", {planned - todo} already stored" if todo < planned else ""
                err.print(f"league {config.name!r}: {todo} of {planned} matches to play{resumed}")

        # A log file or a pipe gets no progress bar: a line now and then instead, so a long
        # match shows it is moving.
        lines = not quiet and not err.is_terminal
        played = {"games": 0, "shown_at": time.monotonic()}

        def on_games(count: int) -> None:
            progress.advance(games_task, count)
            played["games"] += count
            now = time.monotonic()
            if lines and now - played["shown_at"] >= PROGRESS_LINE_S:
                played["shown_at"] = now
                total = counts["todo"] * config.games_per_match
                err.print(
                    f"league {config.name!r}: {played['games']}/{total} games played "
                    f"({counts['finished']}/{counts['todo']} matches stored)",
                    markup=False,
                )

        def on_reused(reused: list[ReusedMatch]) -> None:
            playing.started = True
            if not quiet:
                err.print(
                    f"league {config.name!r}: {reused_words(reused)}",
                    markup=False,
                    soft_wrap=True,
                )

        def on_match(outcome: MatchOutcome) -> None:
            counts["finished"] += 1
            if not quiet:
                err.print(
                    f"  {outcome.plan.key}: {len(outcome.games)} games in "
                    f"{_seconds_text(outcome.seconds)} s ({counts['finished']}/{counts['todo']})"
                )

        return run_league(
            config,
            store,
            restart=restart,
            on_start=on_start,
            on_games=on_games,
            on_match=on_match,
            on_reused=on_reused,
        )


def register(app: typer.Typer, match_app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("league", help=LEAGUE_HELP)(league)


def _seconds_text(seconds: float) -> str:
    """A match's time as its progress line shows it: tenths, and two significant digits under
    a tenth (a liar's dice match of 50 games takes some 30 ms, which tenths show as 0.0)."""
    return f"{seconds:.1f}" if seconds >= 0.1 else f"{seconds:.2g}"
