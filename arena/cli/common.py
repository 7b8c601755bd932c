"""Small helpers shared by the CLI modules: JSON output, errors that exit cleanly, progress bars,
record file names."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.cli.stopping import interrupted_exit
from arena.console_streams import json_ascii_only
from arena.dealing import MatchSeed
from arena.files import probe_writable, replace_file, why_not_written
from arena.matches.stats import finite_json
from arena.records import JsonlRecorder
from bots.registry import BotConfigError, read_config
from bots.version import version_line as version_line
from bots.version import version_option as version_option

PIPED_WIDTH = 160
"""Columns of text written to a pipe or a file: rich would assume 80 and cut a wide table's
cells short ("altern…"), losing figures; a terminal keeps its own width."""


def output_console(*, stderr: bool = False) -> Console:
    """A console for a command's output. Written to a terminal it takes the terminal's width;
    piped or redirected it takes ``COLUMNS`` if set, else `PIPED_WIDTH`, so tables keep their
    figures whole."""
    stream = sys.stderr if stderr else sys.stdout
    piped = not stream.isatty() and "COLUMNS" not in os.environ
    return Console(stderr=stderr, highlight=False, width=PIPED_WIDTH if piped else None)


console = output_console(stderr=True)


def print_json(data: Any) -> None:
    """One line of standard JSON on stdout (undefined numbers as ``null``, see `finite_json`)."""
    text = json.dumps(
        finite_json(data), ensure_ascii=json_ascii_only(), indent=None, allow_nan=False
    )
    sys.stdout.write(text + "\n")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a clear error (no traceback) and exit non-zero. A progress bar still drawn is
    stopped first, so the error is the last line and not followed by the bar."""
    for bar in list(_LIVE_BARS):
        bar.stop()
    _reveal_pending_seeds()
    # soft_wrap: one line however narrow the terminal (or 80 columns when piped), for scripts.
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


class _ArenaProgress(Progress):
    """A `Progress` that `fail` can find and stop."""

    def start(self) -> None:
        _LIVE_BARS.append(self)
        super().start()

    def stop(self) -> None:
        if self in _LIVE_BARS:
            _LIVE_BARS.remove(self)
        # A disabled bar never started; rich < 14.3 would still end it with a blank line.
        if not self.disable:
            super().stop()


_LIVE_BARS: list[_ArenaProgress] = []


def progress_bar(
    console: Console, *, transient: bool, remaining: bool = True, disable: bool = False
) -> Progress:
    """The arena's progress bar: label, bar, done/total, elapsed (and remaining) time. A
    transient bar on a console that is not interactive (stderr piped or redirected) draws
    nothing, so it is disabled: rich would still end it with a newline, a blank line in a log."""
    columns: list[ProgressColumn] = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    if remaining:
        columns.append(TimeRemainingColumn())
    disable = disable or (transient and not console.is_interactive)
    return _ArenaProgress(*columns, console=console, transient=transient, disable=disable)


@contextmanager
def progress(total: int, label: str, *, transient: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar of ``total`` steps on standard error; yields ``advance(n)``."""
    with progress_bar(console, transient=transient) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def output_directory(path: Path | None, option: str) -> None:
    """Make the directory an output option names, now, and check that files can be written in
    it: a path that cannot be one, or a directory that refuses new files (read-only,
    immutable, on a read-only file system), is refused before any game is played, not after."""
    if path is None:
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{option} {path}: cannot make that directory: {why_not_written(path, exc)}")
    try:
        probe_writable(path)
    except OSError as exc:
        fail(f"{option} {path}: cannot write in that directory: {exc.strerror or exc}")


_SAFE_SEED_LENGTH = 48
_RAW_SEED = re.compile(r"[0-9a-fA-F]{64}")
_COMMITMENT_NAME = re.compile(r"c[0-9a-f]{12}", re.IGNORECASE)  # case-blind file systems


def secret_seed(seed: str) -> bool:
    """Whether ``seed`` is secret: a raw seed (64 hex digits, a fresh one included) or a seed
    text made from one (``RAW/k``, a series of matches on a raw seed). Its text must not be
    shown while the match runs, since it gives every deal away; other texts are public."""
    return _RAW_SEED.fullmatch(seed[:64]) is not None and (len(seed) == 64 or seed[64] == "/")


def lineup_tag(players: Sequence[str], setup: Mapping[str, Any]) -> str:
    """The part of a match record's name that tells matches on one seed apart: the players'
    names joined by ``-`` (file-name-safe, cut to 48 characters) and 8 hex digits of the
    SHA-256 of everything else that makes the match (``setup``: the strategies, their configs'
    contents, the rules, the games, the deadline). So an A/B comparison of two configs on one
    seed keeps both records, an edited config makes a new one, and the same command again
    names the same file (the same games). ``setup`` must not hold the seed: a secret seed
    never reaches a file name, even hashed."""
    described = json.dumps(
        {"players": list(players), "setup": setup}, sort_keys=True, default=str, ensure_ascii=False
    )
    digest = hashlib.sha256(described.encode("utf-8")).hexdigest()[:8]
    names = _UNSAFE.sub("_", "-".join(players))[:_SAFE_SEED_LENGTH]
    return f"{names}-{digest}"


def config_label(name: str, config: str | Path | None) -> str:
    """How a bot reads in a match's text: ``NAME``, or ``NAME (FILE)`` when it played a config
    file, so that an A/B comparison of configs says which side played which."""
    return name if config is None else f"{name} ({config})"


def record_path(directory: Path, prefix: str, seed: str, lineup: str = "") -> Path:
    """``DIRECTORY/PREFIX-SEED-LINEUP.jsonl`` (``LINEUP``: `lineup_tag`, left out when empty)
    for a seed of at most 48 file-name-safe characters (letters, digits, ``_ . -``); any other
    seed is written file-name-safe, cut to 48 characters, and followed by ``+`` and 12 hex
    digits of its SHA-256. So ``a/b`` and ``a_b``, or two long seeds that share their first 48
    characters, never share a file, and a plain seed keeps its readable name (``+`` is not a
    safe character, so no plain seed can look like a hashed one).

    A secret seed (`secret_seed`: 64 hex digits, a fresh seed) is not written at all: its part
    of the name is ``c<12 hex>``, the first 12 hex digits of the seed's commitment (those of
    its match id), since the file can be seen while the match runs. A plain seed of that form
    (``c`` and 12 hex digits) takes the hashed name instead, so the two never share a file."""
    suffix = f"-{lineup}.jsonl" if lineup else ".jsonl"
    if secret_seed(seed):
        return directory / f"{prefix}-c{MatchSeed.from_text(seed).commitment()[:12]}{suffix}"
    if (
        _UNSAFE.search(seed) is None
        and 0 < len(seed) <= _SAFE_SEED_LENGTH
        and _COMMITMENT_NAME.fullmatch(seed) is None
    ):
        return directory / f"{prefix}-{seed}{suffix}"
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:12]
    return directory / f"{prefix}-{_UNSAFE.sub('_', seed)[:_SAFE_SEED_LENGTH]}+{digest}{suffix}"


def record_file(
    directory: Path, prefix: str, seed: str, *, lineup: str, option: str = "--record"
) -> Path:
    """The record `record_path` names, checked before any game is played: its name taken by a
    directory (or anything else that is not a file) is a one-line error naming ``option``,
    rather than a traceback when the record is written."""
    path = record_path(directory, prefix, seed, lineup)
    try:
        found = path.lstat()
    except FileNotFoundError:
        return path
    except OSError as exc:
        fail(f"{option} {directory}: cannot look at {path}: {exc.strerror or exc}")
    if stat.S_ISDIR(found.st_mode):
        fail(f"{option} {directory}: {path} is a directory, so the record cannot be written")
    if not (stat.S_ISREG(found.st_mode) or stat.S_ISLNK(found.st_mode)):
        fail(f"{option} {directory}: {path} is not a regular file, so it is not replaced")
    return path


_SAME_MATCH = "the record of an earlier match of the same set-up on the same seed"


def replace_record(path: Path) -> None:
    """Remove an earlier record at ``path`` (one is named after its seed and set-up, so an
    earlier match of the same set-up on the same seed left it), saying so on stderr: a record
    is not replaced unseen.
    Raises `OSError` when it cannot be removed (a directory took its name)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    console.print(
        f"note: replaced {path}, {_SAME_MATCH}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


@contextmanager
def match_recorder(
    directory: Path | None,
    prefix: str,
    seed: str,
    console: Console,
    *,
    lineup: str,
    first_game: str = "g0",
) -> Iterator[JsonlRecorder | None]:
    """A JSONL record ``DIRECTORY/PREFIX-SEED-LINEUP.jsonl`` for one match (`record_path`,
    ``lineup``: `lineup_tag`), or
    ``None`` without a directory. A name taken by a directory, or a file that cannot be made,
    is a one-line error before the first game.

    With no earlier record of that name the match is written there as it plays (a file that
    can be watched). Beside an earlier record of the same seed it is written to a hidden part
    file, which takes the name only once the match has written something (`_settle_record`):
    the earlier record is replaced then, with a note on stderr, and never by nothing (a table on
    a server that never opened) nor by an interrupted match. The record's path, and how to
    replay it, is printed on ``console``."""
    if directory is None:
        yield None
        return
    path = record_file(directory, prefix, seed, lineup=lineup)
    part = path.with_name(f".{path.name}.{os.getpid()}.part") if path.exists() else path
    try:
        recorder = JsonlRecorder(part)
    except OSError as exc:
        fail(f"--record {directory}: cannot write {path}: {why_not_written(path, exc)}")
    finished = False
    try:
        yield recorder
        finished = True
    finally:
        recorder.close()
        _settle_record(recorder, path, finished=finished, shown_on=console, first_game=first_game)


def _settle_record(
    recorder: JsonlRecorder, path: Path, *, finished: bool, shown_on: Console, first_game: str
) -> None:
    """Put the part file ``recorder`` wrote where it belongs, and say where: nothing written
    leaves nothing (an earlier record stays); a finished match, or one with no earlier record,
    takes ``path``; an interrupted match beside an earlier record is kept apart from it, as
    ``NAME.interrupted.jsonl``, so a complete record is never replaced by a partial one. Notes
    go to stderr; the record's line to ``shown_on``."""
    part = recorder.path
    try:
        if part.stat().st_size == 0:
            part.unlink()
            return
        earlier = part != path
        target = path
        if earlier and not finished:
            target = path.with_name(f"{path.stem}.interrupted.jsonl")
        if earlier:
            replace_file(part, target)
    except OSError as exc:
        console.print(
            f"note: the record could not be put in place ({exc.strerror or exc}); its games "
            f"are in {part}",
            markup=False,
            soft_wrap=True,
        )
        return
    recorder.path = target
    if earlier and target == path:
        note = f"note: replaced {path}, {_SAME_MATCH}"
        console.print(note, markup=False, highlight=False, soft_wrap=True)
    elif earlier:
        note = f"note: kept the earlier record {path}; this match's games are in {target}"
        console.print(note, markup=False, highlight=False, soft_wrap=True)
    # A path is text, not markup: a directory named like "[x]" must print as typed.
    shown_on.print(
        f"record: {target} (arena replay {target} --game {first_game})",
        soft_wrap=True,
        markup=False,
    )


def written_record(recorder: JsonlRecorder | None) -> str | None:
    """The absolute path of the record ``recorder`` wrote (once `match_recorder` has closed
    it), for a ``--json`` object's ``record``; None without one, or when the match wrote
    nothing (no file is left)."""
    if recorder is None or not recorder.path.exists():
        return None
    return str(recorder.path.resolve())


def fresh_seed(seed: str | None) -> str:
    """``seed`` if one was given, else a fresh seed from the operating system (64 hex digits,
    `MatchSeed.generate`): the default of every match, so that no bot can guess it (a public
    default such as ``1`` would let a bot check its guess against the commitment and derive
    every deal)."""
    return seed if seed is not None else MatchSeed.generate().hex()


NEW_SEED_HINT = "python -c 'import secrets; print(secrets.token_hex(32))'"


def refuse_public_seed_on_server(seed: str | None, server: str | None) -> None:
    """Stop at once when ``--server`` comes with a seed that is not secret (`secret_seed`): the
    bots are sent its commitment (SHA-256) in ``match_start``, so a bot could hash likely texts
    (``5``, ``test``, a date) until one matches, then derive every deal of the match. A league
    on a server refuses such a seed for the same reason."""
    if server is None or seed is None or secret_seed(seed):
        return
    fail(
        f"--seed {seed!r}: a match on a server needs a secret seed: the bots see its "
        "commitment, so they could guess a text seed and derive every deal from it; leave out "
        "--seed for a fresh secret one (shown when the match ends), or give 64 hex digits "
        f"({NEW_SEED_HINT})"
    )


_PENDING_SEEDS: list[tuple[str, Console]] = []


def _reveal_pending_seeds() -> None:
    while _PENDING_SEEDS:
        seed, shown_on = _PENDING_SEEDS[-1]
        # Shown, then forgotten: an interruption between the two shows it twice, never not at all.
        shown_on.print(f"seed: {seed}", markup=False, highlight=False, soft_wrap=True)
        _PENDING_SEEDS.pop()


@contextmanager
def seed_shown_at_end(seed: str, fresh: bool, console: Console) -> Iterator[None]:
    """Around a match on a fresh seed (``fresh``: drawn here, not given): its commitment when
    the match starts, the seed once the match is over, however it ends, as a league shows its
    secret seed. Shown at the start, it would give every deal away to anyone who reads the
    console or a log while the match runs; the commitment lets the operator check that the seed
    shown at the end is the one played. If the match stops on an error (`fail`), the seed comes
    before the error line, which stays the last. A seed the user gave is not shown again."""
    if not fresh:
        yield
        return
    commitment = MatchSeed.from_text(seed).commitment()
    console.print(
        f"seed commitment: {commitment} (a fresh secret seed, shown when the match ends)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    pending = (seed, console)
    _PENDING_SEEDS.append(pending)
    try:
        yield
    finally:
        if pending in _PENDING_SEEDS:
            console.print(f"seed: {seed}", markup=False, highlight=False, soft_wrap=True)
            _PENDING_SEEDS.remove(pending)


def split_names(text: str, option: str) -> list[str]:
    """The comma-separated names of ``option`` (spaces around them ignored); an empty name
    (``a,,b``, a trailing comma, an empty option) is refused rather than silently dropped, as it
    is most likely a name left out."""
    names = [name.strip() for name in text.split(",")]
    if "" in names:
        fail(f"{option}: empty entry in {text!r}; separate entries with single commas")
    return names


Number = TypeVar("Number", int, float)


def at_least(
    minimum: Number, *, at_most: Number | None = None
) -> Callable[[typer.CallbackParam, Number], Number]:
    """A typer option callback refusing values under ``minimum`` (or over ``at_most``) with a
    one-line error (exit 2), like every other user error, rather than click's usage box
    (``min=``)."""

    def check(param: typer.CallbackParam, value: Number) -> Number:
        if value is not None and value < minimum:
            fail(f"{param.opts[0]} must be at least {minimum}, got {value}")
        if value is not None and at_most is not None and value > at_most:
            fail(f"{param.opts[0]} must be at most {at_most}, got {value}")
        return value

    return check


MAX_MATCH_GAMES = 1_000_000
"""The most games a match plays, as a league's ``games`` allows: more would run for days and
show a progress bar's remaining time in centuries."""


STANDARD_INPUT = "-"
"""A file argument read from standard input (`input_file`)."""


STANDARD_INPUT_NAME = "(standard input)"
"""How messages name standard input, as grep does: not ``-`` nor the ``/dev/stdin`` read."""


def input_name(path: Path) -> str:
    """How messages name a file argument (`STANDARD_INPUT_NAME` for ``-`` or ``/dev/stdin``)."""
    return STANDARD_INPUT_NAME if str(path) in (STANDARD_INPUT, "/dev/stdin") else str(path)


class InputFileError(ValueError):
    """A file argument that cannot be read; the text says why, naming the path."""


def input_file(path: Path, *, stdin: bool = False) -> Path:
    """The file to read for a file argument: a regular file, a FIFO or a process substitution
    (``<(zcat r.jsonl.gz)``, ``/dev/fd/63``), for the command to read once and say itself when
    it cannot; with ``stdin``, ``-`` is standard input (``/dev/stdin``). `InputFileError` for a
    missing path, a directory or a device (``/dev/zero`` would be read until memory ran out)."""
    if stdin and str(path) == STANDARD_INPUT:
        standard = Path("/dev/stdin")
        if not standard.exists():
            raise InputFileError("- (standard input) needs /dev/stdin; give a file")
        return standard
    try:
        found = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise InputFileError(f"no file {path}") from None
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(found.st_mode):
        raise InputFileError(f"{path} is a directory, not a file")
    if not (stat.S_ISREG(found.st_mode) or stat.S_ISFIFO(found.st_mode)):
        raise InputFileError(f"{path} is a device or socket, not a file")
    return path


def existing_file(param: typer.CallbackParam, value: Path | None) -> Path | None:
    """A typer callback for a file argument (`input_file`): a missing file or a directory is a
    one-line error (exit 2), not click's usage box (``exists=True``). Declare the argument
    ``readable=False``: typer's readability check would show that box for a file the user may
    not read, which the command reports in one line when it reads it."""
    return _checked_input(value, stdin=False)


def existing_file_or_stdin(param: typer.CallbackParam, value: Path | None) -> Path | None:
    """`existing_file`, with ``-`` for standard input (``zcat r.jsonl.gz | arena replay -``)."""
    return _checked_input(value, stdin=True)


def _checked_input(value: Path | None, *, stdin: bool) -> Path | None:
    if value is None:
        return None
    try:
        return input_file(value, stdin=stdin)
    except InputFileError as exc:
        fail(str(exc))


def between(low: float, high: float) -> Callable[[typer.CallbackParam, float], float]:
    """Like `at_least`, for an option that must lie in ``[low, high]``."""

    def check(param: typer.CallbackParam, value: float) -> float:
        if value is not None and not low <= value <= high:
            fail(
                f"{param.opts[0]} must lie between {_number(low)} and {_number(high)}, "
                f"got {_number(value)}"
            )
        return value

    return check


def _number(value: float) -> str:
    """A bound or value as typed: a whole number in full (``1000000``, not ``1e+06``)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


@contextmanager
def interrupt_exits(record: Path | None) -> Iterator[None]:
    """Ctrl-C (or SIGTERM, SIGHUP: `stop_like_ctrl_c`) during a match: one line and exit
    `interrupted_exit` rather than typer's bare exit. A record keeps the games finished and
    reveals the seed (`arena.matches.frame.MatchFrame`), so it can still be verified."""
    try:
        yield
    except KeyboardInterrupt:
        kept = (
            f"; the record in {record}/ holds the games played, a match cut short (arena "
            "verify checks them and reports the games missing; arena replay shows the score)"
            if record is not None
            else ""
        )
        fail(f"interrupted{kept}", code=interrupted_exit())


@contextmanager
def interrupt_after_play(records: Sequence[str | None]) -> Iterator[None]:
    """Ctrl-C (or SIGTERM, SIGHUP) once every game is played and its record closed, while the
    figures are computed and shown: one line saying the records written are complete (`arena
    verify` checks them), rather than a bare "interrupted" that leaves the user to guess."""
    try:
        yield
    except KeyboardInterrupt:
        written = [record for record in records if record is not None]
        kept = ""
        if written:
            names = ", ".join(written)
            kept = (
                f"; every game was played and the record is complete: {names}"
                if len(written) == 1
                else f"; every game was played and the records are complete: {names}"
            )
        fail(f"interrupted before the figures were shown{kept}", code=interrupted_exit())


def log_level_option(value: str) -> str:
    """Typer callback of a ``--log-level``: an unknown level is one line, before the command
    does anything."""
    from arena.logs import LogSetupError, check_log_level

    try:
        return check_log_level(value)
    except LogSetupError as exc:
        fail(f"--log-level: {exc}")


def refuse_config_on_server(given: str) -> NoReturn:
    """Stop at once when a strategy config comes with ``--server``: a bot on a server plays the
    config it was started with, and a config path taken for a bot's name would only wait out
    the start timeout in silence. ``given``: the option (and value) at fault."""
    fail(
        f"{given}: a strategy config is for in-process bots; with --server name bots connected "
        "there, each started with its config (`bots run --config FILE`)"
    )


def strategy_of_config_file(
    path: Path, option: str, without_strategy: str
) -> tuple[str, dict[str, Any]]:
    """The strategy a config file given in place of a bot names (its ``strategy`` key), and the
    bot's settings in it, read as `bots run --config` reads it (`read_config`). A file that
    cannot be read is an error naming ``option``; one that names no strategy is the error
    ``without_strategy``, which says how else the command takes a config."""
    try:
        strategy, settings = read_config(path)
    except BotConfigError as exc:
        fail(f"{option}: {exc}")
    if strategy is None:
        fail(without_strategy)
    return strategy, settings
