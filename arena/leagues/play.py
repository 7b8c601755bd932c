"""What a league plays: its matches (`plan_matches`) and one match played to a `MatchOutcome`
(`play_league_match`), in-process or on an arena server.

Every match is one of the existing formats, unchanged: a mahjong 384-hand match (A B A B for a
pair, or the four-bot rotation), a liar's dice series (seats and opener alternating), a 1A2B
duel series (who starts alternating). A match's seed is derived from the league seed and the
match's bots, so a match gives the same games whichever order or process plays it.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import re
import secrets
import shutil
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.dealing import MatchSeed
from arena.errors import ArenaError
from arena.files import replace_file
from arena.leagues.config import LeagueConfig, LeagueConfigError
from arena.leagues.formats import league_format_problem
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan
from arena.matches.bot_seeds import seeded_options
from arena.processes import process_alive
from arena.records import JsonlRecorder
from arena.referee import TimeBank, TimeControl
from arena.transports.base import Seat
from bots.registry import make_bot

if TYPE_CHECKING:
    from arena.games.liars_dice import LiarsDiceRules
    from arena.matches.liars_dice_series import MatchReport

Progress = Callable[[int], None]
"""Called with the number of games just finished."""

_SAFE = re.compile(r"[^A-Za-z0-9_.#+-]+")


def plan_matches(config: LeagueConfig) -> list[MatchPlan]:
    """Every pairing of the league's bots (every four, for mahjong's rotate layout), in the
    order the bots are listed."""
    size = 4 if config.game == "mahjong" and config.mahjong_layout == "rotate" else 2
    groups = itertools.combinations(config.bot_names, size)
    return [MatchPlan(index, group, config.match_seed(group)) for index, group in enumerate(groups)]


FINGERPRINT_CHARS = 8
"""Hex digits of the league's fingerprint in its record file names: enough that two leagues of
one name (a changed config) never share a file, short enough to read."""


def record_path(
    config: LeagueConfig, records: Path, plan: MatchPlan, fingerprint: str | None = None
) -> Path:
    """The JSONL record of ``plan`` in ``records``:
    ``<league>-<fingerprint[:8]>-<match index>-<bots>.jsonl``.

    The fingerprint, not the league's id in the results file: it is the same for the same league
    in any results file, and differs for a changed config (a new league), so a new league never
    writes over the records of an old one, even when the two share a records directory but not a
    results file. ``fingerprint``: the config's, when the caller has it already (a caller naming
    the records of every match need not hash the config for each)."""
    prefix = (fingerprint or config.fingerprint())[:FINGERPRINT_CHARS]
    stem = f"{config.name}-{prefix}-{plan.index:03d}-{'-'.join(plan.bots)}"
    return records / f"{_SAFE.sub('_', stem)}.jsonl"


class RecordWriteError(ArenaError):
    """A match's record file cannot be created, written or moved into place (a records
    directory that is not writable, a full disk, a name too long); the message names the file."""


_OLD_PART_SUFFIX = ".part"
"""What earlier releases wrote a match's record to: ``NAME.jsonl.part`` (a file, or for a 1A2B
series a directory), shared by every process playing that match."""


def _part(path: Path) -> Path:
    """Where this process writes ``path`` until its match finishes:
    ``NAME.jsonl.<pid>.<token>.part``. Its own name per process, so two runs of one league on
    one records directory (another ``arena league`` of it into another results file) never
    write, move or remove each other's partial record."""
    return path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")


def _part_owners(path: Path) -> Iterator[tuple[Path, int]]:
    """Every per-process partial record of ``path`` in its directory, with the pid that wrote
    it (a file named like one by hand, or of another match, does not match)."""
    # At most 9 digits: any pid, and never a number os.kill cannot take.
    pattern = re.compile(re.escape(path.name) + r"\.([0-9]{1,9})\.[0-9a-f]+\.part")
    for part in path.parent.glob(f"{glob.escape(path.name)}.*.part"):
        owner = pattern.fullmatch(part.name)
        if owner is not None:
            yield part, int(owner.group(1))


def _remove_part(part: Path) -> None:
    # A directory is what earlier releases left for an unfinished 1A2B series.
    if part.is_dir():
        shutil.rmtree(part, ignore_errors=True)
    else:
        # Cleaning up must not hide why a match stopped, nor stop one from starting: a
        # directory that refuses the removal refuses the record too, which says so.
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)


def _remove_stale_parts(path: Path, *, own: bool) -> None:
    """Remove the partial records of ``path`` that no running match writes: the shared
    ``.part`` of earlier releases, and those of processes that are gone (a worker stopped
    mid-match cannot remove its own); with ``own``, this process's too (its match has
    stopped)."""
    _remove_part(path.with_name(path.name + _OLD_PART_SUFFIX))
    for part, pid in _part_owners(path):
        mine = pid == os.getpid()
        if (own and mine) or (not mine and not process_alive(pid)):
            _remove_part(part)


def discard_partial_record(config: LeagueConfig, plan: MatchPlan) -> None:
    """Remove what an unfinished match of ``plan`` wrote in this process or in a worker that
    has stopped (it cannot); a finished match's record, and the partial record of another run
    still playing the match, are left alone."""
    if config.records is None:
        return
    _remove_stale_parts(record_path(config, config.records, plan), own=True)


def discard_stale_records(config: LeagueConfig, plans: Sequence[MatchPlan]) -> None:
    """Remove the partial records of ``plans`` left by processes that are gone (a worker
    killed with its parent, which could not remove its own): none of them is a stored match's
    record, since a match is stored only once its record is complete."""
    if config.records is None or not config.records.is_dir():
        return
    fingerprint = config.fingerprint()
    for plan in plans:
        _remove_stale_parts(record_path(config, config.records, plan, fingerprint), own=False)


def _cannot_write(file: Path, exc: OSError) -> RecordWriteError:
    reason = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError) and not file.parent.is_dir():
        # "No such file or directory" would not say that the directory is what went.
        reason = f"its directory {file.parent} is gone"
    return RecordWriteError(f"cannot write the match record {file}: {reason}")


class _MatchRecorder(JsonlRecorder):
    """A `JsonlRecorder` whose failures to write are a `RecordWriteError` naming the file,
    not an OSError: the league reports it in one line, and on a server an OSError means a
    table that could not be played, which this is not."""

    def __init__(self, path: Path) -> None:
        try:
            super().__init__(path)
        except OSError as exc:
            raise _cannot_write(path, exc) from exc

    def write(self, line: dict[str, Any]) -> None:
        try:
            super().write(line)
        except OSError as exc:
            raise _cannot_write(self.path, exc) from exc

    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:
            raise _cannot_write(self.path, exc) from exc


def _move_into_place(part: Path, path: Path) -> None:
    """Make the partial record ``part`` the record ``path`` (atomic: a reader sees the old
    complete record or the new one); on failure the partial record is removed.

    Durable before the match is stored: the record's bytes reach the disk before the rename,
    and the rename before the store. Without that, a power cut soon after could leave the
    stored match naming a record the file system kept empty or cut short (it may write a
    rename before the data it names)."""
    try:
        _sync_file(part)
        replace_file(part, path)
    except OSError as exc:
        _remove_part(part)
        raise _cannot_write(path, exc) from exc
    _sync_directory(path.parent)


def _sync_file(file: Path) -> None:
    # Opened for writing though only synced: Windows' fsync (_commit, FlushFileBuffers) refuses
    # a read-only descriptor (EBADF), where POSIX accepts one.
    descriptor = os.open(file, os.O_RDWR)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable, where the system allows: not every one opens a
    directory (Windows) or syncs one (some file systems refuse); the record is in place either
    way, as durable as that system makes a rename."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextmanager
def _finished_file(path: Path, *, finish: bool) -> Iterator[Path]:
    """Where to write ``path``: a partial record of this process beside it (`_part`), moved
    onto ``path`` when the match finishes (with ``finish``; else the caller moves it, see
    `finish_record`). An interrupted or failed match leaves the stored match's complete record
    (if any) as it was and removes its own partial one. Another run that finished the same
    match first is replaced by this one's record: the same seed gives the same games, and the
    move is atomic, so a reader sees one complete record."""
    _remove_stale_parts(path, own=False)
    part = _part(path)
    try:
        yield part
    except BaseException:
        _remove_part(part)
        raise
    if finish:
        _move_into_place(part, path)


@dataclass(slots=True)
class _Record:
    """A match's recorder, its record file (absolute: ``matches.record`` must name it from any
    working directory) and the partial record written until the match finishes; all `None`
    when the league keeps no records."""

    recorder: JsonlRecorder | None = None
    path: str | None = None
    part: str | None = None


def _made_record_path(config: LeagueConfig, records: Path, plan: MatchPlan) -> Path:
    """The absolute path of ``plan``'s record, its directory made; `RecordWriteError` if not."""
    try:
        records.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecordWriteError(
            f"cannot make the records directory {records}: {exc.strerror or exc}"
        ) from exc
    return record_path(config, records, plan).resolve()


@contextmanager
def _recording(config: LeagueConfig, plan: MatchPlan, *, finish: bool) -> Iterator[_Record]:
    """The match's record (`_Record`) when the league keeps records (`record_path`)."""
    if config.records is None:
        yield _Record()
        return
    path = _made_record_path(config, config.records, plan)
    with _finished_file(path, finish=finish) as part:
        recorder = _MatchRecorder(part)
        try:
            yield _Record(recorder, str(path), str(part))
        except BaseException:
            # What stopped the match (Ctrl-C, the first failed write) is what to report.
            with contextlib.suppress(RecordWriteError):
                recorder.close()
            raise
        recorder.close()


def copy_record(config: LeagueConfig, plan: MatchPlan, source: Path) -> str:
    """Copy the complete record ``source`` of a match another league played with the same games
    (`arena.leagues.reuse`) to where this league keeps ``plan``'s record, by way of a partial
    record of this process, moved into place when complete (as a played match's is); return
    its absolute path. Raises `RecordWriteError` naming the file."""
    assert config.records is not None
    path = _made_record_path(config, config.records, plan)
    with _finished_file(path, finish=True) as part:
        try:
            shutil.copyfile(source, part)
        except OSError as exc:
            raise _cannot_write(path, exc) from exc
    return str(path)


def finish_record(outcome: MatchOutcome) -> None:
    """Move the complete record of a match played with ``finish=False`` (`play_league_match`)
    into place: the process that stores the match does it, just before it stores it, so a
    worker whose league has stopped (its parent gone) never leaves a complete record of a match
    the results file does not hold. Raises `RecordWriteError` naming the file."""
    if outcome.partial_record is None or outcome.record is None:
        return
    _move_into_place(Path(outcome.partial_record), Path(outcome.record))
    outcome.partial_record = None


async def play_league_match(
    config: LeagueConfig,
    plan: MatchPlan,
    *,
    progress: Progress | None = None,
    seats: Sequence[Seat] | None = None,
    finish: bool = True,
) -> MatchOutcome:
    """Play ``plan``: with in-process bots built from the config (as its files said when it
    loaded, `LeagueConfig.contents`), or on the given ``seats`` (bots on a server, in
    ``plan.bots`` order). Without ``finish`` the match's record stays a partial record
    (``outcome.partial_record``) for the storing process to move into place (`finish_record`)."""
    started = time.perf_counter()
    # A config refuses a game without a player when it loads (`league_format_problem`); one
    # built around that check is refused here, before any record is made.
    player = MATCH_PLAYERS.get(config.game)
    if player is None:
        raise LeagueConfigError(league_format_problem(config.game) or config.game)
    with _recording(config, plan, finish=finish) as record:
        outcome = await player(config, plan, progress, seats, record.recorder)
    outcome.record = record.path
    outcome.partial_record = None if finish else record.part
    outcome.seconds = time.perf_counter() - started
    return outcome


def _time_bank(config: LeagueConfig) -> TimeBank | None:
    """A fresh bank for one match, when the league gives one."""
    return TimeControl(config.deadline_ms, config.bank_ms).new_bank()


async def _mahjong(
    config: LeagueConfig,
    plan: MatchPlan,
    progress: Progress | None,
    seats: Sequence[Seat] | None,
    recorder: JsonlRecorder | None,
) -> MatchOutcome:
    from arena.matches.mahjong import HANDS_PER_ROUND, MatchSpec, play_match

    spec = MatchSpec(
        plan.bots,
        plan.seed,
        config.games_per_match,
        config.mahjong_rules(),
        config.mahjong_layout,
        config.deadline_ms,
    )

    def on_hand(_done: int, _total: int) -> None:
        if progress is not None:
            progress(1)

    if seats is not None:
        result = await play_match(
            spec,
            seats=seats,
            names=plan.bots,
            recorder=recorder,
            on_hand=on_hand,
            time_bank=_time_bank(config),
        )
    else:
        bots = []
        match_seed = MatchSeed.from_text(spec.seed)
        for player, program in enumerate(spec.program_of):
            strategy, options = config.bot_options(plan.bots[program])
            name = f"{plan.bots[program]}-{player}"
            # As in `arena match`: a bot's stream derives from the match seed, never from its
            # public name alone, which would let anyone replay its choices.
            options = seeded_options("mahjong", strategy, match_seed, name, options)
            bots.append(make_bot("mahjong", strategy, options, name=name))
        result = await play_match(
            spec, bots=bots, recorder=recorder, on_hand=on_hand, time_bank=_time_bank(config)
        )
    games = [
        GameOutcome(k, k // HANDS_PER_ROUND, dict(zip(plan.bots, map(float, points), strict=True)))
        for k, points in enumerate(result.hand_points)
    ]
    penalties = {p.bot: p.penalties for p in result.programs}
    return MatchOutcome(plan, games, result.to_json(), 0.0, None, penalties)


async def _liars_dice(
    config: LeagueConfig,
    plan: MatchPlan,
    progress: Progress | None,
    seats: Sequence[Seat] | None,
    recorder: JsonlRecorder | None,
) -> MatchOutcome:
    a, b = plan.bots
    report = await _dice_series(config, plan, config.dice_rules(), progress, seats, recorder)
    games = [
        GameOutcome(k, k, {a: float(won), b: float(not won)}) for k, won in enumerate(report.a_won)
    ]
    penalties = dict(zip((a, b), report.penalties, strict=True))
    # The league's names, not the report's roles (its A and B may be one strategy twice).
    summary = report.to_json() | {"a": a, "b": b, "penalties": penalties}
    return MatchOutcome(plan, games, summary, 0.0, None, penalties)


async def _dice_series(
    config: LeagueConfig,
    plan: MatchPlan,
    rules: LiarsDiceRules,
    progress: Progress | None,
    seats: Sequence[Seat] | None,
    recorder: JsonlRecorder | None,
) -> MatchReport:
    from arena.matches.liars_dice_series import run_match

    a, b = plan.bots
    # A partial rather than a dict of keyword arguments, so that mypy checks each of them.
    series = partial(
        run_match,
        rules=rules,
        progress=progress,
        recorder=recorder,
        deadline_ms=config.deadline_ms,
        time_bank=_time_bank(config),
        names=(a, b),
    )
    if seats is not None:
        return await series(a, b, config.games_per_match, plan.seed, seats=(seats[0], seats[1]))
    strategy_a, options_a = config.bot_options(a)
    strategy_b, options_b = config.bot_options(b)
    return await series(
        strategy_a,
        strategy_b,
        config.games_per_match,
        plan.seed,
        config_a=options_a,
        config_b=options_b,
    )


async def _bulls_cows(
    config: LeagueConfig,
    plan: MatchPlan,
    progress: Progress | None,
    seats: Sequence[Seat] | None,
    recorder: JsonlRecorder | None,
) -> MatchOutcome:
    from arena.matches.bulls_cows import play_series

    a, b = plan.bots
    rules = config.bulls_cows_rules()
    # A partial rather than a dict of keyword arguments, so that mypy checks each of them.
    series = partial(
        play_series,
        names=(a, b),
        digits=rules.digits,
        alphabet=rules.alphabet,
        max_guesses=rules.max_guesses,
        deadline_ms=config.deadline_ms,
        time_bank=_time_bank(config),
        progress=progress,
    )
    if seats is not None:
        report = await series(
            a,
            b,
            config.games_per_match,
            plan.seed,
            seats=(seats[0], seats[1]),
            recorder=recorder,
        )
    else:
        strategy_a, options_a = config.bot_options(a)
        strategy_b, options_b = config.bot_options(b)
        report = await series(
            strategy_a,
            strategy_b,
            config.games_per_match,
            plan.seed,
            a_config=options_a,
            b_config=options_b,
            recorder=recorder,
        )
    games = [GameOutcome(k, k, {a: sa, b: sb}) for k, (sa, sb) in enumerate(report.scores)]
    penalties = dict(zip((a, b), report.penalties, strict=True))
    return MatchOutcome(plan, games, report.to_json(), 0.0, None, penalties)


MatchPlayer = Callable[
    [LeagueConfig, MatchPlan, Progress | None, Sequence[Seat] | None, JsonlRecorder | None],
    Awaitable[MatchOutcome],
]
"""Plays one match of a league: in-process when ``seats`` is None, else on those seats."""

MATCH_PLAYERS: dict[str, MatchPlayer] = {
    "mahjong": _mahjong,
    "liars-dice": _liars_dice,
    "bulls-cows": _bulls_cows,
}
"""League game name → the player of its matches; keyed as `arena.leagues.formats.LEAGUE_FORMATS`
(a config whose game is missing from either is refused when it loads)."""
