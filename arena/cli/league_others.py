"""The other leagues a results file holds, for `arena league`: ``--list``, the note that a run
starts a new league beside others of its name (not a resume), the ``--show`` error that names
them, and the command line that resumes or shows one (a config file with other ``--games`` or
``--seed`` is another league, so "run it again" must carry the overrides)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from arena.cli.common import fail, output_console, print_json
from arena.errors import ArenaError
from arena.leagues.config import LeagueConfig, is_secret_seed, league_from_stored, load_league
from arena.leagues.play import FINGERPRINT_CHARS
from arena.leagues.stored_configs import (
    overrides_to_reach,
    stored_bot_names,
    stored_differences,
    stored_games,
    stored_match_count,
)
from arena.store import ResultStore, StoredLeague

out = output_console()
err = output_console(stderr=True)

DEFAULT_DB = Path("records/league.sqlite")


def is_directory(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False  # not to be looked at: the results file's own error says why


@dataclass(frozen=True, slots=True, kw_only=True)
class LeagueCommand:
    """The ``arena league`` command line of this run, in the options that make its league
    (``--games``, ``--seed``: the fingerprint) or say where and how it plays (the config file,
    ``--db``, ``--server``, ``--records``, ``--jobs``), to be run again: to resume it, or with
    other ``--games``/``--seed`` to reach another league of the file."""

    config_file: Path
    db: Path
    jobs: int | None
    games: int | None
    seed: str | None
    server: str | None
    records: Path | None

    def line(
        self,
        *,
        overrides: Mapping[str, Any] | None = None,
        restart: bool = False,
        show: bool = False,
    ) -> str:
        """The command, with ``overrides`` of ``games`` and ``seed``; with ``show``, the
        ``--show`` of its league (without the options of how it plays)."""
        given = {"games": self.games, "seed": self.seed} | dict(overrides or {})
        words = ["arena", "league", shlex.quote(str(self.config_file))]
        if self.db != DEFAULT_DB:
            words += ["--db", shlex.quote(str(self.db))]
        if given["games"] is not None:
            words += ["--games", str(given["games"])]
        if given["seed"] is not None:
            # A secret seed stays off the screen (a log may be shared): the user has it.
            seed_words = given["seed"]
            shown = "<the secret seed>" if is_secret_seed(seed_words) else shlex.quote(seed_words)
            words += ["--seed", shown]
        if show:
            return " ".join([*words, "--show"])
        for option, value in (
            ("--server", self.server),
            ("--records", self.records),
            ("--jobs", self.jobs),
        ):
            if value is not None:
                words += [option, shlex.quote(str(value))]
        if restart:
            words.append("--restart")
        return " ".join(words)


def _others_of_name(config: LeagueConfig, store: ResultStore) -> list[StoredLeague]:
    """The leagues of ``config``'s name in the file under another fingerprint: unfinished
    first, then the latest first."""
    fingerprints = {config.fingerprint(), *config.fingerprint_aliases()}
    others = [
        league
        for league in store.leagues()
        if league.name == config.name and league.fingerprint not in fingerprints
    ]
    return sorted(others, key=lambda league: (league.finished is not None, -league.id))


_OTHERS_SHOWN = 3
"""Other leagues of a name described in a note or an error; the rest are counted."""


def _describe_other(config: LeagueConfig, store: ResultStore, other: StoredLeague) -> str:
    """``games 200 there, 100 here (id 3: 2/15 matches, unfinished, started …)``."""
    differences = stored_differences(config, other.config, other.seed)
    what = "; ".join(differences) or "stored by an earlier release under another fingerprint"
    return f"{what} (id {other.id}: {_progress(store, other)})"


def _progress(store: ResultStore, league: StoredLeague) -> str:
    planned = stored_match_count(league.config)
    stored = len(store.stored_keys(league))
    matches = f"{stored}/{planned if planned is not None else '?'} matches"
    when = (
        f"unfinished, started {_when(league.created)}"
        if league.finished is None
        else f"finished {_when(league.finished)}"
    )
    return f"{matches}, {when}"


def _when(stamp: str) -> str:
    """A stored time (UTC ISO 8601) as ``2026-11-24 12:05 UTC``; as stored if it is not one."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _reach(config: LeagueConfig, other: StoredLeague) -> dict[str, Any] | None:
    return overrides_to_reach(config, other.config, other.seed, other.fingerprint)


def note_other_leagues(config: LeagueConfig, store: ResultStore, again: LeagueCommand) -> None:
    """Before a run starts a new league in a file that holds others of its name (another
    ``--games``, an edited config): say so, how they differ, and how to resume them, since the
    user may have meant to resume one."""
    if store.league(config.name, config.fingerprint(), aliases=config.fingerprint_aliases()):
        return  # a resume (or a restart) of this league
    others = _others_of_name(config, store)
    if not others:
        return
    count = f"{len(others)} other leagues" if len(others) > 1 else "another league"
    err.print(
        f"[yellow]note:[/] this run starts a new league {config.name!r} in "
        f"{escape(str(store.path))}, not a resume: the file holds {count} of that name, from "
        "another config:",
        soft_wrap=True,
    )
    for other in others[:_OTHERS_SHOWN]:
        reach = _reach(config, other)
        finished = other.finished is not None
        verb = "to show it" if finished else "to resume it instead"
        resume = f"; {verb}: {again.line(overrides=reach, show=finished)}" if reach else ""
        err.print(
            f"  {_describe_other(config, store, other)}{resume}", markup=False, soft_wrap=True
        )
    if len(others) > _OTHERS_SHOWN:
        err.print(
            f"  and {len(others) - _OTHERS_SHOWN} more: {list_line(store.path)}",
            markup=False,
            soft_wrap=True,
        )


def nothing_to_show(config: LeagueConfig, store: ResultStore, again: LeagueCommand) -> str:
    """The error of a ``--show`` that finds no league of this config: with the leagues of its
    name the file does hold, how each differs and the options that show it."""
    missing = f"league {config.name!r} with this config has no results in {store.path}"
    others = _others_of_name(config, store)
    if not others:
        return missing
    described = []
    for other in others[:_OTHERS_SHOWN]:
        reach = _reach(config, other)
        shown_by = (
            f": {again.line(overrides=reach, show=True)} shows it"
            if reach
            else (
                ": no --games or --seed of this config shows it, "
                f"{show_id_line(store.path, other.id)} does"
            )
        )
        described.append(f"{_describe_other(config, store, other)}{shown_by}")
    more = len(others) - _OTHERS_SHOWN
    also = f"; and {more} more" if more > 0 else ""
    return (
        f"{missing}; it holds {len(others)} other league{'s' if len(others) > 1 else ''} of "
        f"that name: {'; '.join(described)}{also} (all: {list_line(store.path)})"
    )


def show_id_line(db: Path, league_id: int) -> str:
    """``arena league --db FILE --show --id N``: the command that shows the stored league N."""
    words = ["arena", "league"]
    if db != DEFAULT_DB:
        words += ["--db", shlex.quote(str(db))]
    return " ".join([*words, "--show", "--id", str(league_id)])


def list_line(db: Path) -> str:
    words = ["arena", "league", "--list"]
    if db != DEFAULT_DB:
        words += ["--db", shlex.quote(str(db))]
    return " ".join(words)


def print_league_list(
    config_file: Path | None,
    db: Path,
    json_output: bool,
    *,
    games: int | None,
    seed: str | None,
) -> None:
    """``--list``: every league the results file holds (with a config file, those of its name,
    the one it plays marked), read-only."""
    config = None
    if config_file is not None:
        try:
            config = load_league(config_file, build_bots=False, games=games, seed=seed)
        except ArenaError as exc:
            fail(str(exc))
    if is_directory(db):
        fail(f"--db {db} is a directory; give the results file (e.g. {db / 'league.sqlite'})")
    if not db.is_file():
        fail(f"no results file {db} (give --db)")
    rows: list[dict[str, Any]] = []
    try:
        with ResultStore(db, read_only=True) as store:
            before: dict[str, StoredLeague] = {}  # the league listed last, by name
            for stored in store.leagues():
                if config is not None and stored.name != config.name:
                    continue
                row = _listed(stored, len(store.stored_keys(stored)), config)
                rows.append(row | _how_it_differs(stored, config, before.get(stored.name)))
                before[stored.name] = stored
    except ArenaError as exc:
        fail(str(exc))
    if json_output:
        print_json({"db": str(db), "leagues": rows})
        return
    if not rows:
        which = f"no league {config.name!r}" if config is not None else "no league"
        out.print(f"{db} holds {which}")
        return
    table = Table(box=box.SIMPLE_HEAD)
    columns = [
        "id",
        "league",
        "fingerprint",
        "game",
        "games",
        "seed",
        "bots",
        "matches",
        "started",
        "finished",
    ]
    differing = any(row.get("differences") is not None for row in rows)
    if differing:
        columns.append("differs")
    for column in columns:
        wraps = column in ("league", "bots", "differs")
        table.add_column(column, justify="left" if wraps else "right")
    for row in rows:
        planned = row["matches_planned"]
        mark = " ← this config" if row.get("this_config") else ""
        cells = [
            str(row["id"]),
            f"{row['league']}{mark}",
            row["fingerprint"][:FINGERPRINT_CHARS],
            row["game"],
            str(row["games_per_match"]),
            "secret" if row["seed"] is None else row["seed"],
            ", ".join(row["bots"]),
            f"{row['matches_stored']}/{planned if planned is not None else '?'}",
            _when(row["created"]),
            "unfinished" if row["finished"] is None else _when(row["finished"]),
        ]
        if differing:
            cells.append(_differs_cell(row))
        table.add_row(*(escape(cell) for cell in cells))
    out.print(table)


def _differs_cell(row: Mapping[str, Any]) -> str:
    """``vs id 1: bots only here: bayes``: how a listed league differs from the one it is
    compared with (`_how_it_differs`)."""
    differences = row.get("differences")
    if differences is None:
        return ""
    against = row["compared_with"]
    what = "; ".join(differences) or "stored by an earlier release under another fingerprint"
    return f"vs {'this config' if against is None else f'id {against}'}: {what}"


def _how_it_differs(
    stored: StoredLeague, config: LeagueConfig | None, before: StoredLeague | None
) -> dict[str, Any]:
    """What tells a listed league apart from another of its name: with a config file, from the
    league that config plays (``there`` is the listed league, ``here`` the config); without,
    from the league of its name listed before it (``there`` that one, ``here`` this one).
    ``{"compared_with": None for the config, or the other's id; "differences": [...]}``, or
    nothing for the league of the config, the first of its name, or a league whose stored
    config this release cannot read."""
    if config is not None:
        if stored.fingerprint in {config.fingerprint(), *config.fingerprint_aliases()}:
            return {}
        return {
            "compared_with": None,
            "differences": stored_differences(config, stored.config, stored.seed),
        }
    if before is None:
        return {}
    try:
        here = league_from_stored(stored.config)
    except ArenaError:
        return {}
    return {
        "compared_with": before.id,
        "differences": stored_differences(here, before.config, before.seed),
    }


def _listed(
    stored: StoredLeague, matches_stored: int, config: LeagueConfig | None
) -> dict[str, Any]:
    """One league of ``--list``. A secret seed is left out until the league is over, as the
    standings leave it out."""
    secret = is_secret_seed(stored.seed) and stored.finished is None
    row: dict[str, Any] = {
        "id": stored.id,
        "league": stored.name,
        "game": stored.game,
        "games_per_match": stored_games(stored.config),
        "seed": None if secret else stored.seed,
        "bots": stored_bot_names(stored.config),
        "matches_stored": matches_stored,
        "matches_planned": stored_match_count(stored.config),
        "created": stored.created,
        "finished": stored.finished,
        "fingerprint": stored.fingerprint,
    }
    if config is not None:
        fingerprints = {config.fingerprint(), *config.fingerprint_aliases()}
        row["this_config"] = stored.fingerprint in fingerprints
    return row
